//! Which ACL library a run uses, and finding it: `--device sim` is the bundled simulator
//! (a `libascendcl.so` built by `cargo build -p ascend-sim`, next to the executable),
//! `--device ascend` the system CANN. Both go through the same loader (`acl::Libraries`,
//! `acl::Acl::bind`): the executor cannot tell them apart except by `geSimConfigure`.

use super::{
    acl::{Acl, Libraries},
    error::RuntimeError,
    hccl::Hccl,
};
use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, Mutex, MutexGuard, OnceLock},
};

/// The device a run targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Device {
    /// The bundled simulator.
    #[default]
    Sim,
    /// The system's CANN libraries and an Ascend NPU.
    Ascend,
}

impl Device {
    fn describe(self) -> &'static str {
        match self {
            Device::Sim => "--device sim",
            Device::Ascend => "--device ascend",
        }
    }
}

pub const ACL_LIBRARY: &str = "libascendcl.so";
pub const HCCL_LIBRARY: &str = "libhccl.so";

/// The directories searched for `libascendcl.so`, in order.
///
/// * sim: `$GE_SIM_LIB_DIR`, then the running executable's directory (`target/debug` for
///   `ge-run`), then `<exe dir>/../<profile>` (test binaries live in `target/debug/deps`);
/// * ascend: `acl_lib_dir` alone when given, else `$ASCEND_HOME_PATH/lib64`,
///   `$ASCEND_TOOLKIT_HOME/lib64`, then CANN's default install prefixes.
pub fn search_dirs(device: Device, acl_lib_dir: Option<&Path>) -> Vec<PathBuf> {
    if let Some(dir) = acl_lib_dir {
        return vec![dir.to_owned()];
    }
    let mut dirs = Vec::new();
    match device {
        Device::Sim => {
            if let Some(dir) = std::env::var_os("GE_SIM_LIB_DIR").filter(|d| !d.is_empty()) {
                dirs.push(PathBuf::from(dir));
            }
            if let Some(exe_dir) = std::env::current_exe()
                .ok()
                .and_then(|exe| exe.parent().map(Path::to_owned))
            {
                let profile = if cfg!(debug_assertions) {
                    "debug"
                } else {
                    "release"
                };
                dirs.push(exe_dir.join("..").join(profile));
                dirs.insert(dirs.len() - 1, exe_dir);
            }
        }
        Device::Ascend => {
            for var in ["ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"] {
                if let Some(home) = std::env::var_os(var).filter(|d| !d.is_empty()) {
                    dirs.push(PathBuf::from(home).join("lib64"));
                }
            }
            for prefix in [
                "/usr/local/Ascend/ascend-toolkit/latest",
                "/usr/local/Ascend/latest",
                "/usr/local/Ascend/cann/latest",
                "/opt/Ascend/ascend-toolkit/latest",
            ] {
                dirs.push(Path::new(prefix).join("lib64"));
            }
        }
    }
    dirs
}

/// A loaded, initialised ACL (and, on first use, HCCL) of one library directory.
pub struct Runtime {
    pub acl: Arc<Acl>,
    pub device: Device,
    dir: PathBuf,
    hccl: OnceLock<Result<Arc<Hccl>, RuntimeError>>,
    /// One run at a time per library: a simulator's device state (and its configuration)
    /// is process-wide, and tests run in parallel threads.
    session: Mutex<()>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Runtime({:?}, {})", self.device, self.dir.display())
    }
}

impl Runtime {
    /// The directory the library came from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Exclusive use of the device for one run.
    pub fn session(&self) -> MutexGuard<'_, ()> {
        self.session
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// HCCL from `libhccl.so` beside `libascendcl.so` (or, failing that, exported by
    /// `libascendcl.so` itself), loaded on first use: a model without collectives never
    /// needs it.
    pub fn hccl(&self) -> Result<Arc<Hccl>, RuntimeError> {
        self.hccl
            .get_or_init(|| {
                let path = self.dir.join(HCCL_LIBRARY);
                let libs = if path.is_file() {
                    Libraries::open(&path, &[])?
                } else {
                    let in_acl = Libraries::open(self.acl.path(), &[])?;
                    match Hccl::bind(in_acl, Arc::clone(&self.acl)) {
                        Ok(hccl) => return Ok(Arc::new(hccl)),
                        Err(_) => {
                            return Err(RuntimeError::LibraryNotFound {
                                library: HCCL_LIBRARY.to_owned(),
                                device: self.device.describe().to_owned(),
                                tried: vec![path],
                            })
                        }
                    }
                };
                Ok(Arc::new(Hccl::bind(libs, Arc::clone(&self.acl))?))
            })
            .clone()
    }
}

fn cache() -> &'static Mutex<HashMap<PathBuf, Arc<Runtime>>> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Arc<Runtime>>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// Finds, loads, binds and initialises (`aclInit`) the ACL library of `device`. A library
/// is loaded once per process and kept (see `acl::Libraries`).
pub fn open(device: Device, acl_lib_dir: Option<&Path>) -> Result<Arc<Runtime>, RuntimeError> {
    let dirs = search_dirs(device, acl_lib_dir);
    let tried: Vec<PathBuf> = dirs.iter().map(|dir| dir.join(ACL_LIBRARY)).collect();
    let Some(path) = tried.iter().find(|path| path.is_file()) else {
        return Err(RuntimeError::LibraryNotFound {
            library: ACL_LIBRARY.to_owned(),
            device: device.describe().to_owned(),
            tried,
        });
    };
    let key = path.canonicalize().unwrap_or_else(|_| path.clone());
    let mut cache = cache().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(runtime) = cache.get(&key) {
        return Ok(Arc::clone(runtime));
    }
    let dir = key.parent().map(Path::to_owned).unwrap_or_default();
    let extra = match device {
        Device::Sim => Vec::new(),
        Device::Ascend => ["libacl_op_executor.so", "libacl_rt.so"]
            .iter()
            .map(|name| dir.join(name))
            .collect(),
    };
    let acl = Arc::new(Acl::bind(Libraries::open(&key, &extra)?)?);
    acl.init()?;
    let runtime = Arc::new(Runtime {
        acl,
        device,
        dir,
        hccl: OnceLock::new(),
        session: Mutex::new(()),
    });
    cache.insert(key, Arc::clone(&runtime));
    Ok(runtime)
}
