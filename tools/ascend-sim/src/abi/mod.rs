//! The C entry points: the only `unsafe` code of the crate.
//!
//! Every function checks its pointers, turns them into safe values, calls the device
//! model under the one process-wide mutex and turns the result into an ACL code (and the
//! thread's `aclGetRecentErrMsg` message). Panics are caught at every entry point: a bug
//! becomes ACL_ERROR_INTERNAL_ERROR with a message, never an unwind across the FFI
//! boundary. Device pointers are fake addresses and are never dereferenced here; a
//! pointer documented as host memory is checked not to be one before it is read or
//! written.
#![allow(clippy::missing_safety_doc)] // The safety contract of every function is the C header's.

mod acl;
mod hccl;
mod mdl;
mod op;

use std::cell::Cell;
use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use crate::config::Config;
use crate::errors::{set_last_message, SimError, SimResult, INTERNAL_ERROR, INVALID_PARAM};
use crate::sim::Sim;

static SIM: Mutex<Option<Sim>> = Mutex::new(None);

thread_local! {
    /// The calling thread's current device (`aclrtSetDevice`).
    static CURRENT: Cell<Option<u32>> = const { Cell::new(None) };
}

pub(crate) fn current() -> Option<u32> {
    CURRENT.with(Cell::get)
}

pub(crate) fn set_current(d: Option<u32>) {
    CURRENT.with(|c| c.set(d));
}

/// Runs `f` on the simulator, then performs the host writes of D2H copies that finished
/// while it advanced the device.
pub(crate) fn with_sim<R>(f: impl FnOnce(&mut Sim) -> SimResult<R>) -> SimResult<R> {
    let mut guard = SIM.lock().unwrap_or_else(|e| e.into_inner());
    let sim = guard.get_or_insert_with(|| Sim::new(Config::default()));
    let r = f(sim);
    for (dst, bytes) in sim.host_writes.drain(..) {
        // SAFETY: `dst` is the host destination the caller passed to aclrtMemcpyAsync
        // (checked not to be a device address); ACL requires it to stay valid and
        // `destMax` bytes long until the copy is synchronized, which is now.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst as *mut u8, bytes.len()) };
    }
    r
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

/// Runs one entry point: its result as an ACL code, its error as the thread's message.
pub(crate) fn entry(what: &str, f: impl FnOnce() -> SimResult<()>) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => {
            set_last_message(&e.msg);
            e.code
        }
        Err(p) => {
            set_last_message(&format!(
                "{what}: internal error in the simulator: {}",
                panic_message(&*p)
            ));
            INTERNAL_ERROR
        }
    }
}

/// As [`entry`] for functions that return a pointer (NULL on failure).
pub(crate) fn entry_ptr<T>(what: &str, f: impl FnOnce() -> SimResult<*mut T>) -> *mut T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(p)) => p,
        Ok(Err(e)) => {
            set_last_message(&e.msg);
            std::ptr::null_mut()
        }
        Err(p) => {
            set_last_message(&format!(
                "{what}: internal error in the simulator: {}",
                panic_message(&*p)
            ));
            std::ptr::null_mut()
        }
    }
}

pub(crate) fn null(what: &str, name: &str) -> SimError {
    SimError::new(INVALID_PARAM, format!("{what}: {name} is NULL"))
}

/// Writes `value` through an out-parameter.
pub(crate) unsafe fn put<T>(p: *mut T, value: T, what: &str, name: &str) -> SimResult<()> {
    if p.is_null() {
        return Err(null(what, name));
    }
    // SAFETY: non-null, and the C contract makes it point to a writable T.
    unsafe { p.write(value) };
    Ok(())
}

/// Checks an out-parameter before the call does any work.
pub(crate) fn need<T>(p: *const T, what: &str, name: &str) -> SimResult<()> {
    if p.is_null() {
        Err(null(what, name))
    } else {
        Ok(())
    }
}

pub(crate) unsafe fn string(p: *const c_char, what: &str, name: &str) -> SimResult<String> {
    if p.is_null() {
        return Err(null(what, name));
    }
    // SAFETY: non-null and, by the C contract, NUL-terminated.
    let s = unsafe { CStr::from_ptr(p) };
    match s.to_str() {
        Ok(s) => Ok(s.to_owned()),
        Err(_) => Err(SimError::new(
            INVALID_PARAM,
            format!("{what}: {name} is not UTF-8"),
        )),
    }
}

/// `n` elements at `p` (NULL allowed only for `n == 0`).
pub(crate) unsafe fn slice<'a, T>(
    p: *const T,
    n: usize,
    what: &str,
    name: &str,
) -> SimResult<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(null(what, name));
    }
    // SAFETY: non-null and, by the C contract, `n` readable elements.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}
