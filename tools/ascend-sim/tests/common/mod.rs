//! Loads the built `libascendcl.so` as ge-run does (dlopen, RTLD_NOW | RTLD_GLOBAL) and
//! wraps the C functions the tests call. Tests of one binary share the process-wide
//! simulator, so each takes [`Sim::lock`], which also resets the simulator.
#![allow(dead_code, non_snake_case, clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, OnceLock};

use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};

pub type P = *mut c_void;

/// The library beside the test executable (`target/<profile>/deps/<name>`, which
/// `cargo test` has just built), else `target/<profile>/<name>` (what `cargo build` makes
/// and ge-run loads).
pub fn lib_path(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("target/<profile>/deps");
    let fresh = deps.join(name);
    if fresh.exists() {
        return fresh;
    }
    deps.parent().expect("target/<profile>").join(name)
}

macro_rules! api {
    ($($name:ident : fn($($arg:ty),*) $(-> $ret:ty)?;)*) => {
        pub struct Acl { $(pub $name: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)* }
        impl Acl {
            fn load(lib: &'static Library) -> Acl {
                unsafe {
                    Acl { $($name: *lib
                        .get::<unsafe extern "C" fn($($arg),*) $(-> $ret)?>(concat!(stringify!($name), "\0").as_bytes())
                        .expect(stringify!($name)),)* }
                }
            }
        }
    };
}

api! {
    aclInit: fn(*const c_char) -> i32;
    aclFinalize: fn() -> i32;
    aclrtSetDevice: fn(i32) -> i32;
    aclrtResetDevice: fn(i32) -> i32;
    aclrtGetDeviceCount: fn(*mut u32) -> i32;
    aclGetRecentErrMsg: fn() -> *const c_char;
    aclrtCreateStream: fn(*mut P) -> i32;
    aclrtCreateStreamWithConfig: fn(*mut P, u32, u32) -> i32;
    aclrtDestroyStream: fn(P) -> i32;
    aclrtSynchronizeStream: fn(P) -> i32;
    aclrtSynchronizeStreamWithTimeout: fn(P, i32) -> i32;
    aclrtStreamQuery: fn(P, *mut i32) -> i32;
    aclrtGetStreamAvailableNum: fn(*mut u32) -> i32;
    aclrtSynchronizeDevice: fn() -> i32;
    aclrtCreateEvent: fn(*mut P) -> i32;
    aclrtCreateEventWithFlag: fn(*mut P, u32) -> i32;
    aclrtCreateEventExWithFlag: fn(*mut P, u32) -> i32;
    aclrtRecordEvent: fn(P, P) -> i32;
    aclrtStreamWaitEvent: fn(P, P) -> i32;
    aclrtResetEvent: fn(P, P) -> i32;
    aclrtQueryEventStatus: fn(P, *mut i32) -> i32;
    aclrtSynchronizeEvent: fn(P) -> i32;
    aclrtSynchronizeEventWithTimeout: fn(P, i32) -> i32;
    aclrtDestroyEvent: fn(P) -> i32;
    aclrtGetEventAvailNum: fn(*mut u32) -> i32;
    aclrtMalloc: fn(*mut P, usize, i32) -> i32;
    aclrtFree: fn(P) -> i32;
    aclrtMallocHost: fn(*mut P, usize) -> i32;
    aclrtFreeHost: fn(P) -> i32;
    aclrtMemcpy: fn(P, usize, *const c_void, usize, i32) -> i32;
    aclrtMemcpyAsync: fn(P, usize, *const c_void, usize, i32, P) -> i32;
    aclrtMemset: fn(P, usize, i32, usize) -> i32;
    aclrtMemsetAsync: fn(P, usize, i32, usize, P) -> i32;
    aclrtCreateNotify: fn(*mut P, u64) -> i32;
    aclrtRecordNotify: fn(P, P) -> i32;
    aclrtWaitAndResetNotify: fn(P, P, u32) -> i32;
    aclrtDestroyNotify: fn(P) -> i32;
    aclrtCreateLabel: fn(*mut P) -> i32;
    aclrtSetLabel: fn(P, P) -> i32;
    aclrtDestroyLabel: fn(P) -> i32;
    aclrtCreateLabelList: fn(*const P, usize, *mut P) -> i32;
    aclrtDestroyLabelList: fn(P) -> i32;
    aclrtSwitchLabelByIndex: fn(P, u32, P, P) -> i32;
    aclrtActiveStream: fn(P, P) -> i32;
    aclrtSwitchStream: fn(P, i32, P, i32, P, P, P) -> i32;
    aclmdlRIBuildBegin: fn(*mut P, u32) -> i32;
    aclmdlRIBindStream: fn(P, P, u32) -> i32;
    aclmdlRIEndTask: fn(P, P) -> i32;
    aclmdlRIBuildEnd: fn(P, P) -> i32;
    aclmdlRIUnbindStream: fn(P, P) -> i32;
    aclmdlRIExecuteAsync: fn(P, P) -> i32;
    aclmdlRIDestroy: fn(P) -> i32;
    aclCreateTensorDesc: fn(c_int, c_int, *const i64, c_int) -> P;
    aclDestroyTensorDesc: fn(*const c_void);
    aclCreateDataBuffer: fn(P, usize) -> P;
    aclDestroyDataBuffer: fn(*const c_void) -> i32;
    aclopCreateAttr: fn() -> P;
    aclopDestroyAttr: fn(*const c_void);
    aclopSetAttrInt: fn(P, *const c_char, i64) -> i32;
    aclopSetAttrFloat: fn(P, *const c_char, f32) -> i32;
    aclopSetAttrBool: fn(P, *const c_char, u8) -> i32;
    aclopSetAttrString: fn(P, *const c_char, *const c_char) -> i32;
    aclopSetAttrListInt: fn(P, *const c_char, c_int, *const i64) -> i32;
    aclopExecuteV2: fn(*const c_char, c_int, *const P, *const P, c_int, *const P, *const P, P, P) -> i32;
    geSimConfigure: fn(*const c_char) -> i32;
    geSimReport: fn() -> *const c_char;
}

pub const HEAD: u32 = 0;
pub const DEFAULT: u32 = 0x7FFF_FFFF;
pub const H2D: i32 = 1;
pub const D2H: i32 = 2;
pub const D2D: i32 = 3;

pub struct Sim {
    pub acl: Acl,
    pub lib: &'static Library,
}

static SIM: OnceLock<Sim> = OnceLock::new();
static LOCK: Mutex<()> = Mutex::new(());

pub fn sim() -> &'static Sim {
    SIM.get_or_init(|| {
        let path = lib_path("libascendcl.so");
        let lib = unsafe { Library::open(Some(&path), RTLD_NOW | RTLD_GLOBAL) }
            .unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()));
        let lib: &'static Library = Box::leak(Box::new(lib));
        Sim {
            acl: Acl::load(lib),
            lib,
        }
    })
}

pub fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

impl Sim {
    /// Serialises the tests of this binary and gives each a fresh simulator (initialised,
    /// device 0 current) configured with `config`.
    pub fn lock(config: &str) -> (MutexGuard<'static, ()>, &'static Sim) {
        let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let s = sim();
        let r = unsafe { (s.acl.aclInit)(std::ptr::null()) };
        assert!(r == 0 || r == 100002, "aclInit: {r}");
        s.configure(&format!("reset=1;{config}"));
        assert_eq!(unsafe { (s.acl.aclrtSetDevice)(0) }, 0);
        s.msg();
        (guard, s)
    }

    pub fn configure(&self, config: &str) {
        let r = unsafe { (self.acl.geSimConfigure)(c(config).as_ptr()) };
        assert_eq!(r, 0, "geSimConfigure({config}): {}", self.msg());
    }

    /// The thread's last error message ("" when none), which reading clears.
    pub fn msg(&self) -> String {
        let p = unsafe { (self.acl.aclGetRecentErrMsg)() };
        if p.is_null() {
            String::new()
        } else {
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    }

    pub fn report(&self) -> serde_json::Value {
        let p = unsafe { (self.acl.geSimReport)() };
        serde_json::from_str(unsafe { CStr::from_ptr(p) }.to_str().unwrap()).unwrap()
    }

    pub fn set_device(&self, d: i32) {
        assert_eq!(unsafe { (self.acl.aclrtSetDevice)(d) }, 0, "{}", self.msg());
    }

    pub fn malloc(&self, n: usize) -> P {
        let mut p = std::ptr::null_mut();
        assert_eq!(
            unsafe { (self.acl.aclrtMalloc)(&mut p, n, 0) },
            0,
            "{}",
            self.msg()
        );
        p
    }

    pub fn stream(&self) -> P {
        let mut s = std::ptr::null_mut();
        assert_eq!(
            unsafe { (self.acl.aclrtCreateStreamWithConfig)(&mut s, 0, 0x4) },
            0,
            "{}",
            self.msg()
        );
        s
    }

    pub fn event(&self) -> P {
        let mut e = std::ptr::null_mut();
        assert_eq!(
            unsafe { (self.acl.aclrtCreateEventWithFlag)(&mut e, 1) },
            0,
            "{}",
            self.msg()
        );
        e
    }

    pub fn h2d(&self, dst: P, bytes: &[u8]) {
        let r = unsafe {
            (self.acl.aclrtMemcpy)(dst, bytes.len(), bytes.as_ptr().cast(), bytes.len(), H2D)
        };
        assert_eq!(r, 0, "{}", self.msg());
    }

    pub fn d2h(&self, src: P, n: usize) -> Vec<u8> {
        let mut v = vec![0u8; n];
        let r = unsafe { (self.acl.aclrtMemcpy)(v.as_mut_ptr().cast(), n, src, n, D2H) };
        assert_eq!(r, 0, "{}", self.msg());
        v
    }

    pub fn d2d_async(&self, dst: P, src: P, n: usize, s: P) {
        let r = unsafe { (self.acl.aclrtMemcpyAsync)(dst, n, src, n, D2D, s) };
        assert_eq!(r, 0, "{}", self.msg());
    }

    pub fn sync(&self, s: P) -> i32 {
        unsafe { (self.acl.aclrtSynchronizeStreamWithTimeout)(s, -1) }
    }

    pub fn ok(&self, r: i32) {
        assert_eq!(r, 0, "{}", self.msg());
    }
}

pub fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn to_f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
