//! CANN's ACL C API (the subset of `tools/ascend-sim/include/ge_acl_subset.h`), opened at
//! run time with `dlopen(RTLD_NOW | RTLD_GLOBAL)` and bound with `dlsym`: never linked at
//! build time, so one `ge-run` runs on the bundled simulator and on a machine with CANN,
//! through the same code. This module and `hccl` are the only `unsafe` of the runtime:
//! every raw call is here, behind a safe method that checks the return code and turns a
//! failure into a [`RuntimeError::Acl`] naming the function, the code, its symbolic name
//! and `aclGetRecentErrMsg()`.
//!
//! Device addresses are plain integers ([`DevicePtr`]) outside this module: the executor
//! computes `region base + offset` without ever dereferencing them (on a real device they
//! are not host memory at all).
#![allow(unsafe_code)]
#![allow(non_snake_case)]

use super::error::RuntimeError;
use ascend_kernels::AttrValue;
use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
use std::{
    ffi::{c_char, c_int, c_void, CStr, CString},
    path::{Path, PathBuf},
    sync::Arc,
};

pub type AclErrorCode = c_int;
pub(in crate::runtime) type Ptr = *mut c_void;

pub const ACL_SUCCESS: i32 = 0;
pub const ACL_ERROR_REPEAT_INITIALIZE: i32 = 100002;
pub const ACL_ERROR_COMPILING_STUB_MODE: i32 = 100039;
pub const ACL_ERROR_RT_STREAM_SYNC_TIMEOUT: i32 = 507046;

/// The error codes of the header, and the other runtime codes of CANN's
/// `rt_error_codes.h` the simulator returns, by number.
const ERROR_NAMES: &[(i32, &str)] = &[
    (0, "ACL_SUCCESS"),
    (100000, "ACL_ERROR_INVALID_PARAM"),
    (100001, "ACL_ERROR_UNINITIALIZE"),
    (100002, "ACL_ERROR_REPEAT_INITIALIZE"),
    (100024, "ACL_ERROR_OP_NOT_FOUND"),
    (100039, "ACL_ERROR_COMPILING_STUB_MODE"),
    (200000, "ACL_ERROR_BAD_ALLOC"),
    (500000, "ACL_ERROR_INTERNAL_ERROR"),
    (107000, "ACL_ERROR_RT_PARAM_INVALID"),
    (107001, "ACL_ERROR_RT_INVALID_DEVICEID"),
    (107002, "ACL_ERROR_RT_CONTEXT_NULL"),
    (107003, "ACL_ERROR_RT_STREAM_CONTEXT"),
    (107005, "ACL_ERROR_RT_STREAM_MODEL"),
    (107017, "ACL_ERROR_RT_INVALID_HANDLE"),
    (207000, "ACL_ERROR_RT_FEATURE_NOT_SUPPORT"),
    (207001, "ACL_ERROR_RT_MEMORY_ALLOCATION"),
    (207002, "ACL_ERROR_RT_MEMORY_FREE"),
    (207007, "ACL_ERROR_RT_NO_EVENT_RESOURCE"),
    (207008, "ACL_ERROR_RT_NO_STREAM_RESOURCE"),
    (207009, "ACL_ERROR_RT_NO_NOTIFY_RESOURCE"),
    (507002, "ACL_ERROR_RT_STREAM_TASK_FULL"),
    (507011, "ACL_ERROR_RT_MODEL_EXECUTE"),
    (507015, "ACL_ERROR_RT_AICORE_EXCEPTION"),
    (507046, "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT"),
    (507047, "ACL_ERROR_RT_EVENT_SYNC_TIMEOUT"),
];

/// The symbolic name of an ACL error code (`unknown ACL error` outside the header's table).
pub fn error_name(code: i32) -> &'static str {
    ERROR_NAMES
        .iter()
        .find(|(number, _)| *number == code)
        .map_or("unknown ACL error", |(_, name)| name)
}

/// Stream flag PERSISTENT: tasks stay in the stream for a model to replay.
pub const STREAM_PERSISTENT: u32 = 0x4;
/// Event flag SYNC: a latch usable across streams, resettable.
pub const EVENT_SYNC: u32 = 0x1;
/// `aclmdlRIBindStream` flags.
pub const BIND_HEAD: u32 = 0;
pub const BIND_DEFAULT: u32 = 0x7FFF_FFFF;
/// `aclrtMemcpyKind`.
pub const MEMCPY_H2D: i32 = 1;
pub const MEMCPY_D2H: i32 = 2;
pub const MEMCPY_D2D: i32 = 3;
/// `aclrtMemMallocPolicy` HUGE_FIRST.
pub const MALLOC_HUGE_FIRST: i32 = 0;
/// `ACL_MEM_MALLOC_HUGE_FIRST_P2P`: memory another device can reach (P2P placement).
pub const MALLOC_HUGE_FIRST_P2P: i32 = 3;
/// `aclrtCompareDataType` INT32.
pub const COMPARE_INT32: i32 = 0;

/// Libraries opened once and kept for the life of the process: unloading a library whose
/// threads or thread-locals still live is undefined, and a simulator keeps its device
/// state in globals that later loads of the same path share anyway (`dlopen` counts).
pub struct Libraries {
    libs: Vec<(PathBuf, Library)>,
}

impl Libraries {
    /// Opens `primary` (required) and the `extra` files that exist (the real CANN splits
    /// the op API into `libacl_op_executor.so`; symbols are looked up in order).
    pub fn open(primary: &Path, extra: &[PathBuf]) -> Result<Self, RuntimeError> {
        let mut libs = vec![(primary.to_owned(), open_library(primary)?)];
        // Best effort: a split-off library that cannot load leaves its symbols to the
        // primary, and a symbol found nowhere is reported by name.
        for path in extra.iter().filter(|path| path.is_file()) {
            if let Ok(lib) = open_library(path) {
                libs.push((path.clone(), lib));
            }
        }
        Ok(Self { libs })
    }

    pub fn primary_path(&self) -> &Path {
        &self.libs[0].0
    }

    /// The first library exporting `name`; `Ok(None)` when none does.
    pub(in crate::runtime) fn lookup<T: Copy>(&self, name: &str) -> Option<T> {
        let symbol = CString::new(name).ok()?;
        self.libs.iter().find_map(|(_, lib)| {
            // SAFETY: the caller's `T` is the C signature of `name` from the header (the
            // bindings below are written from it); the library outlives the pointer
            // because `Libraries` is kept with the bound functions.
            unsafe { lib.get::<T>(symbol.as_bytes_with_nul()).ok().map(|s| *s) }
        })
    }

    pub(in crate::runtime) fn require<T: Copy>(&self, name: &str) -> Result<T, RuntimeError> {
        self.lookup(name)
            .ok_or_else(|| RuntimeError::MissingSymbol {
                symbol: name.to_owned(),
                path: self.primary_path().to_owned(),
            })
    }
}

fn open_library(path: &Path) -> Result<Library, RuntimeError> {
    // SAFETY: loading a shared library runs its initialisers; the libraries we open are
    // ACL implementations chosen by the user (the simulator or CANN).
    unsafe { Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }.map_err(|error| {
        RuntimeError::LibraryOpen {
            path: path.to_owned(),
            message: error.to_string(),
        }
    })
}

/// Declares the function table: one field per C function, typed with its exact C
/// signature, and the list of symbol names (used by tests to build fake libraries).
macro_rules! bindings {
    ($table:ident, $names:ident { $( $name:ident : fn($($arg:ty),*) $(-> $ret:ty)? ; )* }) => {
        /// The bound functions (see the header for each signature). Every function of the
        /// header is bound, used or not, so a library lacking one is caught at load.
        #[allow(dead_code)]
        pub(crate) struct $table {
            $( pub(crate) $name: unsafe extern "C" fn($($arg),*) $(-> $ret)?, )*
        }

        /// Every symbol of the table, in header order.
        pub const $names: &[&str] = &[$(stringify!($name)),*];

        impl $table {
            pub(crate) fn bind(libs: &Libraries) -> Result<Self, RuntimeError> {
                Ok(Self { $( $name: libs.require(stringify!($name))?, )* })
            }
        }
    };
}
pub(crate) use bindings;

bindings!(AclFns, ACL_SYMBOLS {
    aclInit: fn(*const c_char) -> c_int;
    aclFinalize: fn() -> c_int;
    aclrtSetDevice: fn(i32) -> c_int;
    aclrtResetDevice: fn(i32) -> c_int;
    aclrtGetDeviceCount: fn(*mut u32) -> c_int;
    aclrtGetRunMode: fn(*mut c_int) -> c_int;
    aclGetRecentErrMsg: fn() -> *const c_char;
    aclrtCreateStream: fn(*mut Ptr) -> c_int;
    aclrtCreateStreamWithConfig: fn(*mut Ptr, u32, u32) -> c_int;
    aclrtDestroyStream: fn(Ptr) -> c_int;
    aclrtSynchronizeStream: fn(Ptr) -> c_int;
    aclrtSynchronizeStreamWithTimeout: fn(Ptr, i32) -> c_int;
    aclrtStreamQuery: fn(Ptr, *mut c_int) -> c_int;
    aclrtGetStreamAvailableNum: fn(*mut u32) -> c_int;
    aclrtSynchronizeDevice: fn() -> c_int;
    aclrtCreateEvent: fn(*mut Ptr) -> c_int;
    aclrtCreateEventWithFlag: fn(*mut Ptr, u32) -> c_int;
    aclrtCreateEventExWithFlag: fn(*mut Ptr, u32) -> c_int;
    aclrtRecordEvent: fn(Ptr, Ptr) -> c_int;
    aclrtStreamWaitEvent: fn(Ptr, Ptr) -> c_int;
    aclrtResetEvent: fn(Ptr, Ptr) -> c_int;
    aclrtQueryEventStatus: fn(Ptr, *mut c_int) -> c_int;
    aclrtSynchronizeEvent: fn(Ptr) -> c_int;
    aclrtSynchronizeEventWithTimeout: fn(Ptr, i32) -> c_int;
    aclrtDestroyEvent: fn(Ptr) -> c_int;
    aclrtGetEventAvailNum: fn(*mut u32) -> c_int;
    aclrtMalloc: fn(*mut Ptr, usize, c_int) -> c_int;
    aclrtFree: fn(Ptr) -> c_int;
    aclrtMallocHost: fn(*mut Ptr, usize) -> c_int;
    aclrtFreeHost: fn(Ptr) -> c_int;
    aclrtMemcpy: fn(Ptr, usize, *const c_void, usize, c_int) -> c_int;
    aclrtMemcpyAsync: fn(Ptr, usize, *const c_void, usize, c_int, Ptr) -> c_int;
    aclrtMemset: fn(Ptr, usize, i32, usize) -> c_int;
    aclrtMemsetAsync: fn(Ptr, usize, i32, usize, Ptr) -> c_int;
    aclrtCreateNotify: fn(*mut Ptr, u64) -> c_int;
    aclrtRecordNotify: fn(Ptr, Ptr) -> c_int;
    aclrtWaitAndResetNotify: fn(Ptr, Ptr, u32) -> c_int;
    aclrtDestroyNotify: fn(Ptr) -> c_int;
    aclrtCreateLabel: fn(*mut Ptr) -> c_int;
    aclrtSetLabel: fn(Ptr, Ptr) -> c_int;
    aclrtDestroyLabel: fn(Ptr) -> c_int;
    aclrtCreateLabelList: fn(*mut Ptr, usize, *mut Ptr) -> c_int;
    aclrtDestroyLabelList: fn(Ptr) -> c_int;
    aclrtSwitchLabelByIndex: fn(Ptr, u32, Ptr, Ptr) -> c_int;
    aclrtActiveStream: fn(Ptr, Ptr) -> c_int;
    aclrtSwitchStream: fn(Ptr, c_int, Ptr, c_int, Ptr, Ptr, Ptr) -> c_int;
    aclmdlRIBuildBegin: fn(*mut Ptr, u32) -> c_int;
    aclmdlRIBindStream: fn(Ptr, Ptr, u32) -> c_int;
    aclmdlRIEndTask: fn(Ptr, Ptr) -> c_int;
    aclmdlRIBuildEnd: fn(Ptr, Ptr) -> c_int;
    aclmdlRIUnbindStream: fn(Ptr, Ptr) -> c_int;
    aclmdlRIExecuteAsync: fn(Ptr, Ptr) -> c_int;
    aclmdlRIDestroy: fn(Ptr) -> c_int;
    aclCreateTensorDesc: fn(c_int, c_int, *const i64, c_int) -> Ptr;
    aclDestroyTensorDesc: fn(*const c_void);
    aclCreateDataBuffer: fn(Ptr, usize) -> Ptr;
    aclDestroyDataBuffer: fn(*const c_void) -> c_int;
    aclopCreateAttr: fn() -> Ptr;
    aclopDestroyAttr: fn(*const c_void);
    aclopSetAttrBool: fn(Ptr, *const c_char, u8) -> c_int;
    aclopSetAttrInt: fn(Ptr, *const c_char, i64) -> c_int;
    aclopSetAttrFloat: fn(Ptr, *const c_char, f32) -> c_int;
    aclopSetAttrString: fn(Ptr, *const c_char, *const c_char) -> c_int;
    aclopSetAttrDataType: fn(Ptr, *const c_char, c_int) -> c_int;
    aclopSetAttrListBool: fn(Ptr, *const c_char, c_int, *const u8) -> c_int;
    aclopSetAttrListInt: fn(Ptr, *const c_char, c_int, *const i64) -> c_int;
    aclopSetAttrListFloat: fn(Ptr, *const c_char, c_int, *const f32) -> c_int;
    aclopSetAttrListString: fn(Ptr, *const c_char, c_int, *const *const c_char) -> c_int;
    aclopSetModelDir: fn(*const c_char) -> c_int;
    aclopExecuteV2: fn(*const c_char, c_int, *mut Ptr, *mut Ptr, c_int, *mut Ptr, *mut Ptr, Ptr, Ptr) -> c_int;
});

/// The simulator's own entry points (absent from CANN).
struct SimFns {
    geSimConfigure: unsafe extern "C" fn(*const c_char) -> c_int,
    geSimReport: unsafe extern "C" fn() -> *const c_char,
    /// `geSimSetTaskName(stream, name)`: the node name of the next kernel, device copy or
    /// collective (race reports, trace); optional, so an older simulator still loads.
    geSimSetTaskName: Option<unsafe extern "C" fn(Ptr, *const c_char) -> c_int>,
    /// `geSimSetHcclTask(stream, opType, part)`: the op type of the next collective's node
    /// and which of its input/output pairs the call is (race reports name
    /// ``HcomAllReduce `n` `` and `input part` / `output part`); optional likewise.
    geSimSetHcclTask: Option<unsafe extern "C" fn(Ptr, *const c_char, u32) -> c_int>,
}

/// A device address (never dereferenced on the host).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DevicePtr(pub usize);

impl DevicePtr {
    pub const NULL: DevicePtr = DevicePtr(0);

    pub fn offset(self, bytes: u64) -> DevicePtr {
        DevicePtr(self.0.wrapping_add(bytes as usize))
    }

    pub(in crate::runtime) fn raw(self) -> Ptr {
        self.0 as Ptr
    }
}

/// A loaded ACL library: its function table and the files it came from.
pub struct Acl {
    libs: Libraries,
    f: AclFns,
    sim: Option<SimFns>,
}

impl std::fmt::Debug for Acl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Acl({})", self.libs.primary_path().display())
    }
}

fn c_string(text: &str, what: &str) -> Result<CString, RuntimeError> {
    CString::new(text)
        .map_err(|_| RuntimeError::Model(format!("{what} `{text}` contains a NUL byte")))
}

impl Acl {
    /// Binds every function of the header from `libs`; a missing one is an error naming it
    /// and the library. `geSimConfigure`/`geSimReport` are optional.
    pub fn bind(libs: Libraries) -> Result<Self, RuntimeError> {
        let f = AclFns::bind(&libs)?;
        let sim = match (libs.lookup("geSimConfigure"), libs.lookup("geSimReport")) {
            (Some(geSimConfigure), Some(geSimReport)) => Some(SimFns {
                geSimConfigure,
                geSimReport,
                geSimSetTaskName: libs.lookup("geSimSetTaskName"),
                geSimSetHcclTask: libs.lookup("geSimSetHcclTask"),
            }),
            _ => None,
        };
        Ok(Self { libs, f, sim })
    }

    pub fn path(&self) -> &Path {
        self.libs.primary_path()
    }

    /// Whether this is the simulator (it exports `geSimConfigure`).
    pub fn is_simulator(&self) -> bool {
        self.sim.is_some()
    }

    /// `aclGetRecentErrMsg()`: the library's last message (and it clears it).
    pub fn recent_error(&self) -> String {
        // SAFETY: no arguments; the result is NULL or a NUL-terminated string valid until
        // the next call, copied at once.
        let message = unsafe { (self.f.aclGetRecentErrMsg)() };
        if message.is_null() {
            return String::new();
        }
        // SAFETY: non-NULL, NUL-terminated per the ACL contract.
        unsafe { CStr::from_ptr(message) }
            .to_string_lossy()
            .into_owned()
    }

    /// Turns a return code into a result.
    pub fn check(&self, function: &'static str, code: c_int) -> Result<(), RuntimeError> {
        if code == ACL_SUCCESS {
            return Ok(());
        }
        Err(RuntimeError::Acl {
            function,
            code,
            message: self.recent_error(),
            location: None,
        })
    }

    /// `aclInit(NULL)`; `Ok(false)` when this process already initialised ACL.
    pub fn init(&self) -> Result<bool, RuntimeError> {
        // SAFETY: NULL is a valid config path.
        let code = unsafe { (self.f.aclInit)(std::ptr::null()) };
        if code == ACL_ERROR_REPEAT_INITIALIZE {
            let _ = self.recent_error();
            return Ok(false);
        }
        self.check("aclInit", code).map(|()| true)
    }

    pub fn set_device(&self, device: i32) -> Result<(), RuntimeError> {
        // SAFETY: plain integer argument.
        self.check("aclrtSetDevice", unsafe { (self.f.aclrtSetDevice)(device) })
    }

    pub fn reset_device(&self, device: i32) -> Result<(), RuntimeError> {
        // SAFETY: plain integer argument.
        self.check("aclrtResetDevice", unsafe {
            (self.f.aclrtResetDevice)(device)
        })
    }

    pub fn device_count(&self) -> Result<u32, RuntimeError> {
        let mut count = 0u32;
        // SAFETY: `count` is a valid out pointer.
        self.check("aclrtGetDeviceCount", unsafe {
            (self.f.aclrtGetDeviceCount)(&mut count)
        })?;
        Ok(count)
    }

    /// `geSimConfigure(config)`; `Ok(false)` on a real device (no such entry point).
    pub fn sim_configure(&self, config: &str) -> Result<bool, RuntimeError> {
        let Some(sim) = &self.sim else {
            return Ok(false);
        };
        let text = c_string(config, "simulator configuration")?;
        // SAFETY: a NUL-terminated string that lives across the call.
        self.check("geSimConfigure", unsafe {
            (sim.geSimConfigure)(text.as_ptr())
        })?;
        Ok(true)
    }

    /// `geSimSetTaskName(stream, name)` before a kernel's, device copy's or collective's
    /// issue, so the simulator's race reports and trace name its node; nothing on a real
    /// device or an older simulator.
    pub fn sim_set_task_name(&self, stream: &Stream, name: &str) -> Result<(), RuntimeError> {
        let Some(set) = self.sim.as_ref().and_then(|s| s.geSimSetTaskName) else {
            return Ok(());
        };
        // A name C cannot carry (a NUL byte) is left out, as on a device without the
        // extension: the report falls back to the op alone, and the run goes on.
        let Ok(text) = CString::new(name) else {
            return Ok(());
        };
        // SAFETY: a live stream handle and a NUL-terminated string that lives across the call.
        self.check("geSimSetTaskName", unsafe {
            set(stream.raw(), text.as_ptr())
        })
    }

    /// `geSimSetHcclTask(stream, op_type, part)` before the HCCL call of input/output
    /// pair `part` of a collective node of GE type `op_type` (HCCL's C API has no name
    /// parameter: the simulator takes the node from `geSimSetTaskName`, the type and pair
    /// from here); nothing on a real device or an older simulator, whose reports keep
    /// naming the HCCL call and its send / receive buffers.
    pub fn sim_set_hccl_task(
        &self,
        stream: &Stream,
        op_type: &str,
        part: u32,
    ) -> Result<(), RuntimeError> {
        let Some(set) = self.sim.as_ref().and_then(|s| s.geSimSetHcclTask) else {
            return Ok(());
        };
        let Ok(text) = CString::new(op_type) else {
            return Ok(());
        };
        // SAFETY: a live stream handle and a NUL-terminated string that lives across the call.
        self.check("geSimSetHcclTask", unsafe {
            set(stream.raw(), text.as_ptr(), part)
        })
    }

    /// `geSimReport()`: the JSON report of the last run; `None` on a real device.
    pub fn sim_report(&self) -> Option<String> {
        let sim = self.sim.as_ref()?;
        // SAFETY: no arguments; NULL or a NUL-terminated string valid until the next call.
        let text = unsafe { (sim.geSimReport)() };
        if text.is_null() {
            return None;
        }
        // SAFETY: non-NULL and NUL-terminated per the simulator's contract; copied now.
        Some(
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned(),
        )
    }

    fn create(
        &self,
        function: &'static str,
        call: impl FnOnce(*mut Ptr) -> c_int,
    ) -> Result<Ptr, RuntimeError> {
        let mut raw: Ptr = std::ptr::null_mut();
        self.check(function, call(&mut raw))?;
        if raw.is_null() {
            return Err(RuntimeError::Acl {
                function,
                code: ACL_SUCCESS,
                message: "returned success but a NULL handle".to_owned(),
                location: None,
            });
        }
        Ok(raw)
    }

    pub fn create_stream(
        self: &Arc<Self>,
        priority: u32,
        flag: u32,
    ) -> Result<Stream, RuntimeError> {
        // SAFETY: a valid out pointer and integers.
        let raw = self.create("aclrtCreateStreamWithConfig", |out| unsafe {
            (self.f.aclrtCreateStreamWithConfig)(out, priority, flag)
        })?;
        Ok(Stream(Handle::new(self, raw)))
    }

    pub fn create_event(self: &Arc<Self>, flag: u32) -> Result<Event, RuntimeError> {
        // SAFETY: a valid out pointer and an integer.
        let raw = self.create("aclrtCreateEventWithFlag", |out| unsafe {
            (self.f.aclrtCreateEventWithFlag)(out, flag)
        })?;
        Ok(Event(Handle::new(self, raw)))
    }

    /// `aclrtCreateEventExWithFlag(flag)`: an event with CUDA semantics (each record
    /// replaces the last, never reset), as GE's runtime `EventAllocator` creates them.
    pub fn create_event_ex(self: &Arc<Self>, flag: u32) -> Result<Event, RuntimeError> {
        // SAFETY: a valid out pointer and an integer.
        let raw = self.create("aclrtCreateEventExWithFlag", |out| unsafe {
            (self.f.aclrtCreateEventExWithFlag)(out, flag)
        })?;
        Ok(Event(Handle::new(self, raw)))
    }

    pub fn create_notify(self: &Arc<Self>) -> Result<Notify, RuntimeError> {
        // SAFETY: a valid out pointer.
        let raw = self.create("aclrtCreateNotify", |out| unsafe {
            (self.f.aclrtCreateNotify)(out, 0)
        })?;
        Ok(Notify(Handle::new(self, raw)))
    }

    pub fn create_label(self: &Arc<Self>) -> Result<Label, RuntimeError> {
        // SAFETY: a valid out pointer.
        let raw = self.create("aclrtCreateLabel", |out| unsafe {
            (self.f.aclrtCreateLabel)(out)
        })?;
        Ok(Label(Handle::new(self, raw)))
    }

    pub fn create_label_list(
        self: &Arc<Self>,
        labels: &[&Label],
    ) -> Result<LabelList, RuntimeError> {
        let mut raws: Vec<Ptr> = labels.iter().map(|label| label.0.raw).collect();
        // SAFETY: `raws` holds `labels.len()` live label handles for the call.
        let raw = self.create("aclrtCreateLabelList", |out| unsafe {
            (self.f.aclrtCreateLabelList)(raws.as_mut_ptr(), raws.len(), out)
        })?;
        Ok(LabelList(Handle::new(self, raw)))
    }

    /// `aclrtMalloc(size, HUGE_FIRST)`. `size` must be > 0.
    pub fn malloc(self: &Arc<Self>, size: u64) -> Result<DeviceBuffer, RuntimeError> {
        self.malloc_with(size, MALLOC_HUGE_FIRST)
    }

    /// `aclrtMalloc(size, policy)` (`MALLOC_HUGE_FIRST_P2P` for P2P memory).
    pub fn malloc_with(
        self: &Arc<Self>,
        size: u64,
        policy: i32,
    ) -> Result<DeviceBuffer, RuntimeError> {
        let bytes = usize::try_from(size)
            .map_err(|_| RuntimeError::Model(format!("{size} bytes do not fit this host")))?;
        // SAFETY: a valid out pointer and integers.
        let raw = self.create("aclrtMalloc", |out| unsafe {
            (self.f.aclrtMalloc)(out, bytes, policy)
        })?;
        Ok(DeviceBuffer {
            handle: Handle::new(self, raw),
            size,
        })
    }

    /// `aclrtMemcpy(H2D)` of `data` to `dst`.
    pub fn copy_to_device(
        &self,
        dst: DevicePtr,
        dst_max: u64,
        data: &[u8],
    ) -> Result<(), RuntimeError> {
        if data.is_empty() {
            return Ok(());
        }
        // SAFETY: `data` is a live host slice of `data.len()` bytes; `dst` is a device
        // address the library checks.
        self.check("aclrtMemcpy", unsafe {
            (self.f.aclrtMemcpy)(
                dst.raw(),
                dst_max as usize,
                data.as_ptr().cast(),
                data.len(),
                MEMCPY_H2D,
            )
        })
    }

    /// `aclrtMemcpy(D2H)` of `len` bytes at `src`.
    pub fn copy_to_host(&self, src: DevicePtr, len: u64) -> Result<Vec<u8>, RuntimeError> {
        let mut data = vec![0u8; len as usize];
        if data.is_empty() {
            return Ok(data);
        }
        // SAFETY: `data` is a live, writable host buffer of `len` bytes.
        self.check("aclrtMemcpy", unsafe {
            (self.f.aclrtMemcpy)(
                data.as_mut_ptr().cast(),
                data.len(),
                src.raw() as *const c_void,
                data.len(),
                MEMCPY_D2H,
            )
        })?;
        Ok(data)
    }

    /// Synchronous `aclrtMemset`.
    pub fn memset(
        &self,
        dst: DevicePtr,
        max: u64,
        value: i32,
        count: u64,
    ) -> Result<(), RuntimeError> {
        // SAFETY: integers and a device address the library checks.
        self.check("aclrtMemset", unsafe {
            (self.f.aclrtMemset)(dst.raw(), max as usize, value, count as usize)
        })
    }

    pub fn memcpy_async(
        &self,
        dst: DevicePtr,
        dst_max: u64,
        src: DevicePtr,
        count: u64,
        stream: &Stream,
    ) -> Result<(), RuntimeError> {
        // SAFETY: device addresses the library checks; a live stream.
        self.check("aclrtMemcpyAsync", unsafe {
            (self.f.aclrtMemcpyAsync)(
                dst.raw(),
                dst_max as usize,
                src.raw() as *const c_void,
                count as usize,
                MEMCPY_D2D,
                stream.raw(),
            )
        })
    }

    /// `aclrtMallocHost`: pinned host memory a device copy reads when it runs (the
    /// host-placed ops' outputs, `executor::dynamic::host`).
    pub fn malloc_host(self: &Arc<Self>, size: u64) -> Result<HostBuffer, RuntimeError> {
        // SAFETY: a valid out pointer and a size.
        let raw = self.create("aclrtMallocHost", |out| unsafe {
            (self.f.aclrtMallocHost)(out, size as usize)
        })?;
        Ok(HostBuffer {
            acl: Arc::clone(self),
            raw,
            size,
        })
    }

    /// `aclrtMemcpyAsync(H2D)` of `count` bytes of pinned `src` to `dst` on `stream`: the
    /// device reads `src` when the copy runs, so `src` must outlive it (its FreeMemory
    /// guarder waits for an event recorded after the copy).
    pub fn memcpy_h2d_async(
        &self,
        dst: DevicePtr,
        dst_max: u64,
        src: &HostBuffer,
        count: u64,
        stream: &Stream,
    ) -> Result<(), RuntimeError> {
        if count > src.size {
            return Err(RuntimeError::Other(format!(
                "an H2D copy of {count} bytes from a {}-byte host buffer",
                src.size
            )));
        }
        // SAFETY: `src` is live pinned memory of at least `count` bytes (checked above);
        // `dst` is a device address the library checks; a live stream.
        self.check("aclrtMemcpyAsync", unsafe {
            (self.f.aclrtMemcpyAsync)(
                dst.raw(),
                dst_max as usize,
                src.raw as *const c_void,
                count as usize,
                MEMCPY_H2D,
                stream.raw(),
            )
        })
    }

    /// `aclrtSynchronizeEventWithTimeout`: the host waits until the event's record ran.
    pub fn synchronize_event(&self, event: &Event, timeout_ms: i32) -> Result<(), RuntimeError> {
        // SAFETY: a live event.
        self.check("aclrtSynchronizeEventWithTimeout", unsafe {
            (self.f.aclrtSynchronizeEventWithTimeout)(event.raw(), timeout_ms)
        })
    }

    /// `aclrtQueryEventStatus`: whether the event's record has run (`ACL_EVENT_RECORDED_STATUS_COMPLETE`).
    pub fn event_complete(&self, event: &Event) -> Result<bool, RuntimeError> {
        let mut status: c_int = 0;
        // SAFETY: a live event and a valid out pointer.
        self.check("aclrtQueryEventStatus", unsafe {
            (self.f.aclrtQueryEventStatus)(event.raw(), &mut status)
        })?;
        Ok(status == 1)
    }

    pub fn memset_async(
        &self,
        dst: DevicePtr,
        max: u64,
        value: i32,
        count: u64,
        stream: &Stream,
    ) -> Result<(), RuntimeError> {
        // SAFETY: a device address the library checks; a live stream.
        self.check("aclrtMemsetAsync", unsafe {
            (self.f.aclrtMemsetAsync)(dst.raw(), max as usize, value, count as usize, stream.raw())
        })
    }

    pub fn record_event(&self, event: &Event, stream: &Stream) -> Result<(), RuntimeError> {
        // SAFETY: live handles.
        self.check("aclrtRecordEvent", unsafe {
            (self.f.aclrtRecordEvent)(event.raw(), stream.raw())
        })
    }

    pub fn stream_wait_event(&self, stream: &Stream, event: &Event) -> Result<(), RuntimeError> {
        // SAFETY: live handles.
        self.check("aclrtStreamWaitEvent", unsafe {
            (self.f.aclrtStreamWaitEvent)(stream.raw(), event.raw())
        })
    }

    pub fn reset_event(&self, event: &Event, stream: &Stream) -> Result<(), RuntimeError> {
        // SAFETY: live handles.
        self.check("aclrtResetEvent", unsafe {
            (self.f.aclrtResetEvent)(event.raw(), stream.raw())
        })
    }

    pub fn record_notify(&self, notify: &Notify, stream: &Stream) -> Result<(), RuntimeError> {
        // SAFETY: live handles.
        self.check("aclrtRecordNotify", unsafe {
            (self.f.aclrtRecordNotify)(notify.raw(), stream.raw())
        })
    }

    /// `timeout` 0: wait until recorded (the run's own deadlock detection bounds it).
    pub fn wait_and_reset_notify(
        &self,
        notify: &Notify,
        stream: &Stream,
        timeout: u32,
    ) -> Result<(), RuntimeError> {
        // SAFETY: live handles.
        self.check("aclrtWaitAndResetNotify", unsafe {
            (self.f.aclrtWaitAndResetNotify)(notify.raw(), stream.raw(), timeout)
        })
    }

    pub fn set_label(&self, label: &Label, stream: &Stream) -> Result<(), RuntimeError> {
        // SAFETY: live handles.
        self.check("aclrtSetLabel", unsafe {
            (self.f.aclrtSetLabel)(label.raw(), stream.raw())
        })
    }

    pub fn switch_label_by_index(
        &self,
        index: DevicePtr,
        max: u32,
        labels: &LabelList,
        stream: &Stream,
    ) -> Result<(), RuntimeError> {
        // SAFETY: a device address the library checks; live handles.
        self.check("aclrtSwitchLabelByIndex", unsafe {
            (self.f.aclrtSwitchLabelByIndex)(index.raw(), max, labels.raw(), stream.raw())
        })
    }

    pub fn active_stream(&self, target: &Stream, on: &Stream) -> Result<(), RuntimeError> {
        // SAFETY: live handles.
        self.check("aclrtActiveStream", unsafe {
            (self.f.aclrtActiveStream)(target.raw(), on.raw())
        })
    }

    /// `aclrtSwitchStream(left, cond, right, INT32, true_stream, NULL, on)`.
    pub fn switch_stream(
        &self,
        left: DevicePtr,
        cond: i32,
        right: DevicePtr,
        true_stream: &Stream,
        on: &Stream,
    ) -> Result<(), RuntimeError> {
        // SAFETY: device addresses the library checks; live handles; NULL false stream.
        self.check("aclrtSwitchStream", unsafe {
            (self.f.aclrtSwitchStream)(
                left.raw(),
                cond,
                right.raw(),
                COMPARE_INT32,
                true_stream.raw(),
                std::ptr::null_mut(),
                on.raw(),
            )
        })
    }

    pub fn synchronize_stream(&self, stream: &Stream, timeout_ms: i32) -> Result<(), RuntimeError> {
        // SAFETY: a live stream.
        self.check("aclrtSynchronizeStreamWithTimeout", unsafe {
            (self.f.aclrtSynchronizeStreamWithTimeout)(stream.raw(), timeout_ms)
        })
    }

    pub fn model_build_begin(self: &Arc<Self>) -> Result<ModelRI, RuntimeError> {
        // SAFETY: a valid out pointer.
        let raw = self.create("aclmdlRIBuildBegin", |out| unsafe {
            (self.f.aclmdlRIBuildBegin)(out, 0)
        })?;
        Ok(ModelRI(Handle::new(self, raw)))
    }

    pub fn model_bind_stream(
        &self,
        model: &ModelRI,
        stream: &Stream,
        flag: u32,
    ) -> Result<(), RuntimeError> {
        // SAFETY: live handles.
        self.check("aclmdlRIBindStream", unsafe {
            (self.f.aclmdlRIBindStream)(model.raw(), stream.raw(), flag)
        })
    }

    pub fn model_end_task(&self, model: &ModelRI, stream: &Stream) -> Result<(), RuntimeError> {
        // SAFETY: live handles.
        self.check("aclmdlRIEndTask", unsafe {
            (self.f.aclmdlRIEndTask)(model.raw(), stream.raw())
        })
    }

    pub fn model_build_end(&self, model: &ModelRI) -> Result<(), RuntimeError> {
        // SAFETY: a live model; NULL reserve.
        self.check("aclmdlRIBuildEnd", unsafe {
            (self.f.aclmdlRIBuildEnd)(model.raw(), std::ptr::null_mut())
        })
    }

    pub fn model_execute_async(
        &self,
        model: &ModelRI,
        stream: &Stream,
    ) -> Result<(), RuntimeError> {
        // SAFETY: live handles.
        self.check("aclmdlRIExecuteAsync", unsafe {
            (self.f.aclmdlRIExecuteAsync)(model.raw(), stream.raw())
        })
    }

    pub fn create_tensor_desc(
        self: &Arc<Self>,
        dtype: i32,
        dims: &[i64],
        format: i32,
    ) -> Result<TensorDescHandle, RuntimeError> {
        // SAFETY: `dims` is live for the call; the library copies it.
        let raw = unsafe {
            (self.f.aclCreateTensorDesc)(dtype, dims.len() as c_int, dims.as_ptr(), format)
        };
        self.non_null("aclCreateTensorDesc", raw)?;
        Ok(TensorDescHandle(Handle::new(self, raw)))
    }

    pub fn create_data_buffer(
        self: &Arc<Self>,
        data: DevicePtr,
        size: u64,
    ) -> Result<DataBuffer, RuntimeError> {
        // SAFETY: the library keeps the address, which it does not own.
        let raw = unsafe { (self.f.aclCreateDataBuffer)(data.raw(), size as usize) };
        self.non_null("aclCreateDataBuffer", raw)?;
        Ok(DataBuffer(Handle::new(self, raw)))
    }

    /// An `aclopAttr` holding `attrs`.
    pub fn create_attr(
        self: &Arc<Self>,
        attrs: &[(String, AttrValue)],
    ) -> Result<OpAttr, RuntimeError> {
        // SAFETY: no arguments.
        let raw = unsafe { (self.f.aclopCreateAttr)() };
        self.non_null("aclopCreateAttr", raw)?;
        let attr = OpAttr(Handle::new(self, raw));
        for (name, value) in attrs {
            self.set_attr(&attr, name, value)?;
        }
        Ok(attr)
    }

    fn set_attr(&self, attr: &OpAttr, name: &str, value: &AttrValue) -> Result<(), RuntimeError> {
        let key = c_string(name, "attribute name")?;
        let (a, k) = (attr.raw(), key.as_ptr());
        let count = |n: usize| n as c_int;
        // SAFETY (every arm): a live attr, a NUL-terminated name, and values or arrays that
        // live across the call (the library copies them).
        let (function, code) = match value {
            AttrValue::Bool(v) => ("aclopSetAttrBool", unsafe {
                (self.f.aclopSetAttrBool)(a, k, u8::from(*v))
            }),
            AttrValue::Int(v) => ("aclopSetAttrInt", unsafe {
                (self.f.aclopSetAttrInt)(a, k, *v)
            }),
            AttrValue::Float(v) => ("aclopSetAttrFloat", unsafe {
                (self.f.aclopSetAttrFloat)(a, k, *v)
            }),
            AttrValue::String(v) => {
                let text = c_string(v, "attribute value")?;
                ("aclopSetAttrString", unsafe {
                    (self.f.aclopSetAttrString)(a, k, text.as_ptr())
                })
            }
            AttrValue::DataType(v) => ("aclopSetAttrDataType", unsafe {
                (self.f.aclopSetAttrDataType)(a, k, v.acl())
            }),
            AttrValue::ListBool(v) => {
                let bytes: Vec<u8> = v.iter().map(|&b| u8::from(b)).collect();
                ("aclopSetAttrListBool", unsafe {
                    (self.f.aclopSetAttrListBool)(a, k, count(bytes.len()), bytes.as_ptr())
                })
            }
            AttrValue::ListInt(v) => ("aclopSetAttrListInt", unsafe {
                (self.f.aclopSetAttrListInt)(a, k, count(v.len()), v.as_ptr())
            }),
            AttrValue::ListFloat(v) => ("aclopSetAttrListFloat", unsafe {
                (self.f.aclopSetAttrListFloat)(a, k, count(v.len()), v.as_ptr())
            }),
            AttrValue::ListString(v) => {
                let texts = v
                    .iter()
                    .map(|s| c_string(s, "attribute value"))
                    .collect::<Result<Vec<_>, _>>()?;
                let pointers: Vec<*const c_char> = texts.iter().map(|s| s.as_ptr()).collect();
                ("aclopSetAttrListString", unsafe {
                    (self.f.aclopSetAttrListString)(a, k, count(pointers.len()), pointers.as_ptr())
                })
            }
        };
        self.check(function, code)
            .map_err(|error| error.at(|| format!("attribute `{name}`")))
    }

    /// `aclopExecuteV2(op_type, inputs, outputs, attr, stream)`.
    pub fn op_execute(
        &self,
        op_type: &str,
        inputs: &[(&TensorDescHandle, &DataBuffer)],
        outputs: &[(&TensorDescHandle, &DataBuffer)],
        attr: &OpAttr,
        stream: &Stream,
    ) -> Result<(), RuntimeError> {
        let name = c_string(op_type, "op type")?;
        let mut in_descs: Vec<Ptr> = inputs.iter().map(|(d, _)| d.raw()).collect();
        let mut in_bufs: Vec<Ptr> = inputs.iter().map(|(_, b)| b.raw()).collect();
        let mut out_descs: Vec<Ptr> = outputs.iter().map(|(d, _)| d.raw()).collect();
        let mut out_bufs: Vec<Ptr> = outputs.iter().map(|(_, b)| b.raw()).collect();
        // SAFETY: arrays of live handles, of the lengths given, live across the call.
        self.check("aclopExecuteV2", unsafe {
            (self.f.aclopExecuteV2)(
                name.as_ptr(),
                in_descs.len() as c_int,
                in_descs.as_mut_ptr(),
                in_bufs.as_mut_ptr(),
                out_descs.len() as c_int,
                out_descs.as_mut_ptr(),
                out_bufs.as_mut_ptr(),
                attr.raw(),
                stream.raw(),
            )
        })
    }

    fn non_null(&self, function: &'static str, raw: Ptr) -> Result<(), RuntimeError> {
        if raw.is_null() {
            return Err(RuntimeError::Acl {
                function,
                code: ACL_SUCCESS,
                message: format!("returned NULL {}", self.recent_error()),
                location: None,
            });
        }
        Ok(())
    }

    /// Destroys a handle of `kind` (errors are returned, not ignored, on the explicit path).
    fn destroy(&self, kind: Kind, raw: Ptr) -> Result<(), RuntimeError> {
        // SAFETY: `raw` is a live handle of `kind`, destroyed exactly once (the owner
        // nulls it first).
        unsafe {
            match kind {
                Kind::Stream => self.check("aclrtDestroyStream", (self.f.aclrtDestroyStream)(raw)),
                Kind::Event => self.check("aclrtDestroyEvent", (self.f.aclrtDestroyEvent)(raw)),
                Kind::Notify => self.check("aclrtDestroyNotify", (self.f.aclrtDestroyNotify)(raw)),
                Kind::Label => self.check("aclrtDestroyLabel", (self.f.aclrtDestroyLabel)(raw)),
                Kind::LabelList => {
                    self.check("aclrtDestroyLabelList", (self.f.aclrtDestroyLabelList)(raw))
                }
                Kind::ModelRI => self.check("aclmdlRIDestroy", (self.f.aclmdlRIDestroy)(raw)),
                Kind::Buffer => self.check("aclrtFree", (self.f.aclrtFree)(raw)),
                Kind::DataBuffer => {
                    self.check("aclDestroyDataBuffer", (self.f.aclDestroyDataBuffer)(raw))
                }
                Kind::TensorDesc => {
                    (self.f.aclDestroyTensorDesc)(raw);
                    Ok(())
                }
                Kind::Attr => {
                    (self.f.aclopDestroyAttr)(raw);
                    Ok(())
                }
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Stream,
    Event,
    Notify,
    Label,
    LabelList,
    ModelRI,
    Buffer,
    DataBuffer,
    TensorDesc,
    Attr,
}

trait HandleKind {
    const KIND: Kind;
}

/// An owned ACL handle: destroyed once, explicitly ([`Handle::release`], which reports
/// the error) or on drop (errors ignored: a drop runs on error paths, where the first
/// error is the one worth reporting).
struct Handle<K: HandleKind> {
    acl: Arc<Acl>,
    raw: Ptr,
    _kind: std::marker::PhantomData<fn() -> K>,
}

impl<K: HandleKind> Handle<K> {
    fn new(acl: &Arc<Acl>, raw: Ptr) -> Self {
        Self {
            acl: Arc::clone(acl),
            raw,
            _kind: std::marker::PhantomData,
        }
    }

    fn release(mut self) -> Result<(), RuntimeError> {
        let raw = std::mem::replace(&mut self.raw, std::ptr::null_mut());
        self.acl.destroy(K::KIND, raw)
    }
}

impl<K: HandleKind> Drop for Handle<K> {
    fn drop(&mut self) {
        if !self.raw.is_null() {
            let _ = self.acl.destroy(K::KIND, self.raw);
            self.raw = std::ptr::null_mut();
        }
    }
}

macro_rules! handle_type {
    ($(#[$doc:meta])* $name:ident, $kind:ident) => {
        $(#[$doc])*
        pub struct $name(Handle<$name>);
        impl HandleKind for $name {
            const KIND: Kind = Kind::$kind;
        }
        impl $name {
            pub(in crate::runtime) fn raw(&self) -> Ptr {
                self.0.raw
            }
            /// Destroys the handle now, reporting the library's error.
            pub fn release(self) -> Result<(), RuntimeError> {
                self.0.release()
            }
        }
        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!(stringify!($name), "({:p})"), self.0.raw)
            }
        }
    };
}

handle_type!(/// An `aclrtStream`.
    Stream, Stream);
handle_type!(/// An `aclrtEvent`.
    Event, Event);
handle_type!(/// An `aclrtNotify`.
    Notify, Notify);
handle_type!(/// An `aclrtLabel`.
    Label, Label);
handle_type!(/// An `aclrtLabelList`.
    LabelList, LabelList);
handle_type!(/// An `aclmdlRI` (model runtime instance).
    ModelRI, ModelRI);
handle_type!(/// An `aclTensorDesc`.
    TensorDescHandle, TensorDesc);
handle_type!(/// An `aclDataBuffer` (it does not own the memory it points to).
    DataBuffer, DataBuffer);
handle_type!(/// An `aclopAttr`.
    OpAttr, Attr);

/// Pinned host memory from `aclrtMallocHost`, freed by `aclrtFreeHost` ([`HostBuffer::release`]
/// or on drop).
pub struct HostBuffer {
    acl: Arc<Acl>,
    raw: Ptr,
    size: u64,
}

impl HostBuffer {
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The host address (for reports and tests).
    pub fn addr(&self) -> usize {
        self.raw as usize
    }

    /// Writes `bytes` at the start (at most `size` bytes).
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), RuntimeError> {
        if bytes.len() as u64 > self.size {
            return Err(RuntimeError::Other(format!(
                "{} bytes into a {}-byte host buffer",
                bytes.len(),
                self.size
            )));
        }
        // SAFETY: `raw` is live host memory of `size` bytes owned by this buffer; the
        // length is checked above.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.raw.cast(), bytes.len()) };
        Ok(())
    }

    /// The first `len` bytes (at most `size`): a host kernel reading another's pinned
    /// output in place (host → host, no copy through the device).
    pub fn read(&self, len: u64) -> Result<Vec<u8>, RuntimeError> {
        if len > self.size {
            return Err(RuntimeError::Other(format!(
                "{len} bytes from a {}-byte host buffer",
                self.size
            )));
        }
        let mut out = vec![0u8; len as usize];
        // SAFETY: `raw` is live host memory of `size` bytes owned by this buffer; the
        // length is checked above.
        unsafe {
            std::ptr::copy_nonoverlapping(self.raw.cast::<u8>(), out.as_mut_ptr(), out.len())
        };
        Ok(out)
    }

    /// `aclrtFreeHost`, reporting the library's error.
    pub fn release(mut self) -> Result<(), RuntimeError> {
        let raw = std::mem::replace(&mut self.raw, std::ptr::null_mut());
        // SAFETY: memory from aclrtMallocHost, freed once (nulled first).
        self.acl
            .check("aclrtFreeHost", unsafe { (self.acl.f.aclrtFreeHost)(raw) })
    }
}

impl Drop for HostBuffer {
    fn drop(&mut self) {
        if !self.raw.is_null() {
            // SAFETY: as in `release`; errors are ignored on a drop (an error path).
            let _ = unsafe { (self.acl.f.aclrtFreeHost)(self.raw) };
            self.raw = std::ptr::null_mut();
        }
    }
}

impl std::fmt::Debug for HostBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HostBuffer({:p}, {} bytes)", self.raw, self.size)
    }
}

/// Device memory from `aclrtMalloc`, freed by `aclrtFree`.
pub struct DeviceBuffer {
    handle: Handle<DeviceBufferKind>,
    size: u64,
}

struct DeviceBufferKind;
impl HandleKind for DeviceBufferKind {
    const KIND: Kind = Kind::Buffer;
}

impl DeviceBuffer {
    pub fn ptr(&self) -> DevicePtr {
        DevicePtr(self.handle.raw as usize)
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    pub fn release(self) -> Result<(), RuntimeError> {
        self.handle.release()
    }
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceBuffer({:p}, {} bytes)",
            self.handle.raw, self.size
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_header_code_has_its_name() {
        assert_eq!(error_name(507046), "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT");
        assert_eq!(error_name(100039), "ACL_ERROR_COMPILING_STUB_MODE");
        assert_eq!(error_name(207008), "ACL_ERROR_RT_NO_STREAM_RESOURCE");
        assert_eq!(error_name(12345), "unknown ACL error");
    }

    #[test]
    fn the_symbol_list_is_the_header() {
        let header = include_str!("../../tools/ascend-sim/include/ge_acl_subset.h");
        let declared: Vec<&str> = header
            .lines()
            .filter(|line| !line.trim_start().starts_with("typedef") && line.contains('('))
            .filter_map(|line| {
                let name_end = line.find('(')?;
                let name = line[..name_end].rsplit([' ', '*']).next()?;
                (name.starts_with("acl")).then_some(name)
            })
            .collect();
        for name in &declared {
            assert!(ACL_SYMBOLS.contains(name), "{name} is not bound");
        }
        assert_eq!(declared.len(), ACL_SYMBOLS.len());
    }
}
