//! The one error type of the runtime: every failure of loading a library, binding a
//! symbol, an ACL or HCCL call, or a model the executor cannot load, with enough context
//! (function, code, symbolic name, the library's own message, the task) to act on it.

use std::{fmt, path::PathBuf};

/// Why a run failed.
#[derive(Debug, Clone, PartialEq)]
pub enum RuntimeError {
    /// No library file at any candidate path.
    LibraryNotFound {
        /// `libascendcl.so` or `libhccl.so`.
        library: String,
        /// What was asked for (`--device sim`, `--device ascend`).
        device: String,
        tried: Vec<PathBuf>,
    },
    /// The file exists but `dlopen` refused it.
    LibraryOpen { path: PathBuf, message: String },
    /// A symbol of the header is not exported by the library.
    MissingSymbol { symbol: String, path: PathBuf },
    /// An ACL call returned an error code.
    Acl {
        function: &'static str,
        code: i32,
        /// `aclGetRecentErrMsg()` right after the failure (may be empty).
        message: String,
        /// Where in the model (`stream 1, task 3 (KERNEL node `relu`)`), when it applies.
        location: Option<String>,
    },
    /// An HCCL call returned an error code.
    Hccl {
        function: &'static str,
        code: i32,
        message: String,
        location: Option<String>,
    },
    /// The model cannot be loaded as given (an id or an address out of range).
    Model(String),
    /// A user input does not fit the model.
    Input(String),
    /// Anything else (a file that cannot be written, a malformed report).
    Other(String),
}

impl RuntimeError {
    /// Attaches a location to an ACL or HCCL error that has none yet; other errors get
    /// it as a prefix.
    pub fn at(self, where_: impl FnOnce() -> String) -> Self {
        match self {
            RuntimeError::Acl {
                function,
                code,
                message,
                location: None,
            } => RuntimeError::Acl {
                function,
                code,
                message,
                location: Some(where_()),
            },
            RuntimeError::Hccl {
                function,
                code,
                message,
                location: None,
            } => RuntimeError::Hccl {
                function,
                code,
                message,
                location: Some(where_()),
            },
            RuntimeError::Model(message) => RuntimeError::Model(format!("{}: {message}", where_())),
            other => other,
        }
    }

    /// The ACL code of an [`RuntimeError::Acl`] error.
    pub fn acl_code(&self) -> Option<i32> {
        match self {
            RuntimeError::Acl { code, .. } => Some(*code),
            _ => None,
        }
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeError::LibraryNotFound {
                library,
                device,
                tried,
            } => {
                write!(f, "cannot find {library} for {device}; tried:")?;
                for path in tried {
                    write!(f, "\n  {}", path.display())?;
                }
                if device.contains("ascend") {
                    write!(
                        f,
                        "\n(install CANN, set ASCEND_HOME_PATH, or pass --acl-lib DIR)"
                    )?;
                } else {
                    write!(
                        f,
                        "\n(build it with `cargo build -p ascend-sim`, or set GE_SIM_LIB_DIR)"
                    )?;
                }
                Ok(())
            }
            RuntimeError::LibraryOpen { path, message } => {
                write!(f, "cannot load {}: {message}", path.display())
            }
            RuntimeError::MissingSymbol { symbol, path } => write!(
                f,
                "{} does not export `{symbol}` (not an ACL/HCCL library of the version \
                 ge-mlir binds?)",
                path.display()
            ),
            RuntimeError::Acl {
                function,
                code,
                message,
                location,
            } => {
                if let Some(location) = location {
                    write!(f, "{location}: ")?;
                }
                write!(
                    f,
                    "{function} failed: error {code} ({})",
                    crate::runtime::acl::error_name(*code)
                )?;
                if !message.is_empty() {
                    write!(f, ": {}", message.trim_end())?;
                }
                if *code == crate::runtime::acl::ACL_ERROR_COMPILING_STUB_MODE {
                    write!(
                        f,
                        "\n(this libascendcl.so is CANN's compile stub: every call fails; \
                         install the runtime package)"
                    )?;
                }
                Ok(())
            }
            RuntimeError::Hccl {
                function,
                code,
                message,
                location,
            } => {
                if let Some(location) = location {
                    write!(f, "{location}: ")?;
                }
                write!(
                    f,
                    "{function} failed: HCCL error {code} ({})",
                    crate::runtime::hccl::result_name(*code)
                )?;
                if !message.is_empty() {
                    write!(f, ": {}", message.trim_end())?;
                }
                Ok(())
            }
            RuntimeError::Model(message)
            | RuntimeError::Input(message)
            | RuntimeError::Other(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for RuntimeError {}
