//! ACL error codes (the real numbers of `acl_base_rt.h` and `rt_error_codes.h`) and the
//! thread's last error message that `aclGetRecentErrMsg` hands out.

use std::cell::RefCell;
use std::ffi::{c_char, CString};

pub const SUCCESS: i32 = 0;
pub const INVALID_PARAM: i32 = 100000;
pub const UNINITIALIZE: i32 = 100001;
pub const REPEAT_INITIALIZE: i32 = 100002;
pub const OP_NOT_FOUND: i32 = 100024;
pub const INTERNAL_ERROR: i32 = 500000;
pub const RT_PARAM_INVALID: i32 = 107000;
pub const RT_INVALID_DEVICEID: i32 = 107001;
pub const RT_CONTEXT_NULL: i32 = 107002;
pub const RT_STREAM_CONTEXT: i32 = 107003;
pub const RT_STREAM_MODEL: i32 = 107005;
pub const RT_INVALID_HANDLE: i32 = 107017;
pub const RT_FEATURE_NOT_SUPPORT: i32 = 207000;
pub const RT_MEMORY_ALLOCATION: i32 = 207001;
pub const RT_MEMORY_FREE: i32 = 207002;
pub const RT_NO_EVENT_RESOURCE: i32 = 207007;
pub const RT_NO_STREAM_RESOURCE: i32 = 207008;
pub const RT_NO_NOTIFY_RESOURCE: i32 = 207009;
pub const RT_STREAM_TASK_FULL: i32 = 507002;
pub const RT_MODEL_EXECUTE: i32 = 507011;
pub const RT_AICORE_EXCEPTION: i32 = 507015;
pub const RT_STREAM_SYNC_TIMEOUT: i32 = 507046;
pub const RT_EVENT_SYNC_TIMEOUT: i32 = 507047;

/// An ACL failure: the code the C entry point returns and the message
/// `aclGetRecentErrMsg` gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimError {
    pub code: i32,
    pub msg: String,
}

impl SimError {
    pub fn new(code: i32, msg: impl Into<String>) -> SimError {
        SimError {
            code,
            msg: msg.into(),
        }
    }
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (error {})", self.msg, self.code)
    }
}

pub type SimResult<T> = Result<T, SimError>;

/// Shorthand for an `Err` with a code and a formatted message.
macro_rules! fail {
    ($code:expr, $($arg:tt)*) => {
        return Err($crate::errors::SimError::new($code, format!($($arg)*)))
    };
}
pub(crate) use fail;

thread_local! {
    /// (message not yet read, the string last handed out). The second keeps the pointer
    /// `aclGetRecentErrMsg` returned valid until the thread's next call.
    static LAST: RefCell<(Option<String>, Option<CString>)> = const { RefCell::new((None, None)) };
}

/// Records `msg` as the thread's most recent error (replacing an unread one).
pub fn set_last_message(msg: &str) {
    LAST.with(|l| l.borrow_mut().0 = Some(msg.to_owned()));
}

/// The unread message, moved into the slot that keeps it alive; null when there is none.
/// Reading clears it, as ACL's does.
pub fn take_last_message() -> *const c_char {
    LAST.with(|l| {
        let mut l = l.borrow_mut();
        let pending = l.0.take();
        l.1 = pending.map(|m| CString::new(m.replace('\0', " ")).unwrap_or_default());
        l.1.as_ref().map_or(std::ptr::null(), |c| c.as_ptr())
    })
}
