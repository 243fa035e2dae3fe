//! ACL runtime entry points: init, devices, streams, events, notifies, memory, and the
//! simulator's own `geSimConfigure` / `geSimReport`.

use std::alloc::Layout;
use std::collections::HashMap;
use std::ffi::{c_char, c_void, CString};
use std::sync::Mutex;

use super::{current, entry, need, put, set_current, slice, string, with_sim};
use crate::config;
use crate::errors::*;
use crate::sim::{EventMode, Sim};
use crate::task::CopySource;

type Handle = *mut c_void;

fn h(p: *const c_void) -> u64 {
    p as u64
}

#[no_mangle]
pub unsafe extern "C" fn aclInit(_config_path: *const c_char) -> i32 {
    entry("aclInit", || with_sim(|s| s.init()))
}

#[no_mangle]
pub unsafe extern "C" fn aclFinalize() -> i32 {
    entry("aclFinalize", || {
        with_sim(|s| s.finalize())?;
        set_current(None);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtSetDevice(device_id: i32) -> i32 {
    entry("aclrtSetDevice", || {
        let d = with_sim(|s| s.set_device(device_id))?;
        set_current(Some(d));
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtResetDevice(device_id: i32) -> i32 {
    entry("aclrtResetDevice", || {
        let released = with_sim(|s| s.reset_device(device_id))?;
        if released && current() == Some(device_id as u32) {
            set_current(None);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtGetDeviceCount(count: *mut u32) -> i32 {
    entry("aclrtGetDeviceCount", || {
        let n = with_sim(|s| {
            s.require_init("aclrtGetDeviceCount")?;
            Ok(s.cfg.device_count)
        })?;
        unsafe { put(count, n, "aclrtGetDeviceCount", "count") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtGetRunMode(run_mode: *mut i32) -> i32 {
    entry("aclrtGetRunMode", || {
        with_sim(|s| s.require_init("aclrtGetRunMode"))?;
        // HOST (1): the application runs on a host next to the device, as with a PCIe card.
        unsafe { put(run_mode, 1, "aclrtGetRunMode", "runMode") }
    })
}

#[no_mangle]
pub extern "C" fn aclGetRecentErrMsg() -> *const c_char {
    take_last_message()
}

// ---- streams ----

#[no_mangle]
pub unsafe extern "C" fn aclrtCreateStream(stream: *mut Handle) -> i32 {
    unsafe { aclrtCreateStreamWithConfig(stream, 0, 0) }
}

#[no_mangle]
pub unsafe extern "C" fn aclrtCreateStreamWithConfig(
    stream: *mut Handle,
    priority: u32,
    flag: u32,
) -> i32 {
    let what = "aclrtCreateStreamWithConfig";
    entry(what, || {
        need(stream, what, "stream")?;
        let id = with_sim(|s| s.create_stream(current(), priority, flag))?;
        unsafe { put(stream, id as Handle, what, "stream") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtDestroyStream(stream: Handle) -> i32 {
    entry("aclrtDestroyStream", || {
        with_sim(|s| s.destroy_stream(h(stream)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtSynchronizeStream(stream: Handle) -> i32 {
    entry("aclrtSynchronizeStream", || {
        with_sim(|s| s.sync_stream(current(), h(stream), -1))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtSynchronizeStreamWithTimeout(stream: Handle, timeout: i32) -> i32 {
    entry("aclrtSynchronizeStreamWithTimeout", || {
        with_sim(|s| s.sync_stream(current(), h(stream), timeout))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtStreamQuery(stream: Handle, status: *mut i32) -> i32 {
    let what = "aclrtStreamQuery";
    entry(what, || {
        need(status, what, "status")?;
        let st = with_sim(|s| s.stream_query(current(), h(stream)))?;
        unsafe { put(status, st, what, "status") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtGetStreamAvailableNum(count: *mut u32) -> i32 {
    let what = "aclrtGetStreamAvailableNum";
    entry(what, || {
        need(count, what, "streamCount")?;
        let n = with_sim(|s| s.stream_available(current()))?;
        unsafe { put(count, n, what, "streamCount") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtSynchronizeDevice() -> i32 {
    entry("aclrtSynchronizeDevice", || {
        with_sim(|s| s.sync_device(current()))
    })
}

// ---- events ----

unsafe fn create_event(event: *mut Handle, mode: EventMode, flag: u32, what: &str) -> i32 {
    entry(what, || {
        need(event, what, "event")?;
        let id = with_sim(|s| s.create_event(current(), mode, flag, what))?;
        unsafe { put(event, id as Handle, what, "event") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtCreateEvent(event: *mut Handle) -> i32 {
    unsafe { create_event(event, EventMode::Plain, 0, "aclrtCreateEvent") }
}

#[no_mangle]
pub unsafe extern "C" fn aclrtCreateEventWithFlag(event: *mut Handle, flag: u32) -> i32 {
    unsafe {
        create_event(
            event,
            EventMode::Flag { sync: false },
            flag,
            "aclrtCreateEventWithFlag",
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclrtCreateEventExWithFlag(event: *mut Handle, flag: u32) -> i32 {
    unsafe { create_event(event, EventMode::Ex, flag, "aclrtCreateEventExWithFlag") }
}

#[no_mangle]
pub unsafe extern "C" fn aclrtRecordEvent(event: Handle, stream: Handle) -> i32 {
    entry("aclrtRecordEvent", || {
        with_sim(|s| s.record_event(current(), h(event), h(stream)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtStreamWaitEvent(stream: Handle, event: Handle) -> i32 {
    entry("aclrtStreamWaitEvent", || {
        with_sim(|s| s.wait_event(current(), h(stream), h(event)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtResetEvent(event: Handle, stream: Handle) -> i32 {
    entry("aclrtResetEvent", || {
        with_sim(|s| s.reset_event(current(), h(event), h(stream)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtQueryEventStatus(event: Handle, status: *mut i32) -> i32 {
    let what = "aclrtQueryEventStatus";
    entry(what, || {
        need(status, what, "status")?;
        let st = with_sim(|s| s.query_event(h(event)))?;
        unsafe { put(status, st, what, "status") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtSynchronizeEvent(event: Handle) -> i32 {
    entry("aclrtSynchronizeEvent", || {
        with_sim(|s| s.sync_event(h(event), -1))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtSynchronizeEventWithTimeout(event: Handle, timeout: i32) -> i32 {
    entry("aclrtSynchronizeEventWithTimeout", || {
        with_sim(|s| s.sync_event(h(event), timeout))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtDestroyEvent(event: Handle) -> i32 {
    entry("aclrtDestroyEvent", || {
        with_sim(|s| s.destroy_event(h(event)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtGetEventAvailNum(count: *mut u32) -> i32 {
    let what = "aclrtGetEventAvailNum";
    entry(what, || {
        need(count, what, "eventCount")?;
        let n = with_sim(|s| s.event_available(current()))?;
        unsafe { put(count, n, what, "eventCount") }
    })
}

// ---- notifies ----

#[no_mangle]
pub unsafe extern "C" fn aclrtCreateNotify(notify: *mut Handle, flag: u64) -> i32 {
    let what = "aclrtCreateNotify";
    entry(what, || {
        need(notify, what, "notify")?;
        let id = with_sim(|s| s.create_notify(current(), flag))?;
        unsafe { put(notify, id as Handle, what, "notify") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtRecordNotify(notify: Handle, stream: Handle) -> i32 {
    entry("aclrtRecordNotify", || {
        with_sim(|s| s.record_notify(current(), h(notify), h(stream)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtWaitAndResetNotify(
    notify: Handle,
    stream: Handle,
    _timeout: u32,
) -> i32 {
    entry("aclrtWaitAndResetNotify", || {
        with_sim(|s| s.wait_notify(current(), h(notify), h(stream)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtDestroyNotify(notify: Handle) -> i32 {
    entry("aclrtDestroyNotify", || {
        with_sim(|s| s.destroy_notify(h(notify)))
    })
}

// ---- memory ----

#[no_mangle]
pub unsafe extern "C" fn aclrtMalloc(dev_ptr: *mut Handle, size: usize, policy: i32) -> i32 {
    let what = "aclrtMalloc";
    entry(what, || {
        need(dev_ptr, what, "devPtr")?;
        let a = with_sim(|s| s.malloc(current(), size as u64, policy))?;
        unsafe { put(dev_ptr, a as Handle, what, "devPtr") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtFree(dev_ptr: Handle) -> i32 {
    entry("aclrtFree", || with_sim(|s| s.free(h(dev_ptr))))
}

/// Host allocations of aclrtMallocHost: address -> layout, for aclrtFreeHost.
static HOST_ALLOCS: Mutex<Option<HashMap<usize, Layout>>> = Mutex::new(None);

#[no_mangle]
pub unsafe extern "C" fn aclrtMallocHost(host_ptr: *mut Handle, size: usize) -> i32 {
    let what = "aclrtMallocHost";
    entry(what, || {
        need(host_ptr, what, "hostPtr")?;
        with_sim(|s| s.require_init(what))?;
        if size == 0 {
            fail!(INVALID_PARAM, "{what}: size 0 is not allowed");
        }
        let Ok(layout) = Layout::from_size_align(size, 64) else {
            fail!(INVALID_PARAM, "{what}: size {size} is too large");
        };
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { std::alloc::alloc(layout) };
        if p.is_null() {
            fail!(
                ACL_ERROR_BAD_ALLOC,
                "{what}: the host has no {size} bytes to give"
            );
        }
        {
            let mut allocs = HOST_ALLOCS.lock().unwrap_or_else(|e| e.into_inner());
            allocs
                .get_or_insert_with(HashMap::new)
                .insert(p as usize, layout);
        }
        with_sim(|s| {
            s.race_host_alloc(p as u64, size as u64);
            Ok(())
        })?;
        unsafe { put(host_ptr, p as Handle, what, "hostPtr") }
    })
}

const ACL_ERROR_BAD_ALLOC: i32 = 200000;

#[no_mangle]
pub unsafe extern "C" fn aclrtFreeHost(host_ptr: Handle) -> i32 {
    let what = "aclrtFreeHost";
    entry(what, || {
        need(host_ptr, what, "hostPtr")?;
        let removed = HOST_ALLOCS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(HashMap::new)
            .remove(&(host_ptr as usize));
        let Some(layout) = removed else {
            fail!(
                INVALID_PARAM,
                "{what}: {host_ptr:p} was not returned by aclrtMallocHost (or was freed)"
            );
        };
        // A copy still queued from this memory is a free while in use; when it runs, a
        // use after free (the race detector's shadow of the pinned range).
        with_sim(|s| {
            s.race_free(host_ptr as u64, layout.size() as u64);
            Ok(())
        })?;
        // SAFETY: allocated by aclrtMallocHost with this layout and not freed since.
        unsafe { std::alloc::dealloc(host_ptr as *mut u8, layout) };
        Ok(())
    })
}

/// Whether `[addr, addr+len)` lies inside one live `aclrtMallocHost` allocation.
fn pinned(addr: u64, len: u64) -> bool {
    let allocs = HOST_ALLOCS.lock().unwrap_or_else(|e| e.into_inner());
    allocs.as_ref().is_some_and(|m| {
        m.iter().any(|(&base, layout)| {
            let base = base as u64;
            addr >= base && addr.saturating_add(len) <= base + layout.size() as u64
        })
    })
}

/// The direction of a copy, with DEFAULT resolved by the address ranges: fake device
/// addresses are recognisable, so a host pointer is never mistaken for one.
fn copy_kind(sim: &Sim, dst: u64, src: u64, kind: i32, what: &str) -> SimResult<i32> {
    let (dd, sd) = (sim.is_device_ptr(dst), sim.is_device_ptr(src));
    let actual = match (sd, dd) {
        (false, false) => 0,
        (false, true) => 1,
        (true, false) => 2,
        (true, true) => 3,
    };
    let names = [
        "ACL_MEMCPY_HOST_TO_HOST",
        "ACL_MEMCPY_HOST_TO_DEVICE",
        "ACL_MEMCPY_DEVICE_TO_HOST",
        "ACL_MEMCPY_DEVICE_TO_DEVICE",
    ];
    match kind {
        4 => Ok(actual),
        0..=3 if kind == actual => Ok(kind),
        0..=3 => {
            fail!(
            INVALID_PARAM,
            "{what}: kind {} does not match the pointers (dst {dst:#x} is {}, src {src:#x} is {})",
            names[kind as usize],
            if dd { "a device address" } else { "host memory" },
            if sd { "a device address" } else { "host memory" }
        )
        }
        _ => fail!(INVALID_PARAM, "{what}: memcpy kind {kind} is not in 0..=4"),
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpy(
    dst: Handle,
    dest_max: usize,
    src: *const c_void,
    count: usize,
    kind: i32,
) -> i32 {
    let what = "aclrtMemcpy";
    entry(what, || {
        need(dst, what, "dst")?;
        need(src, what, "src")?;
        with_sim(|s| {
            s.require_init(what)?;
            let (d, sr, n) = (h(dst), h(src), count as u64);
            match copy_kind(s, d, sr, kind, what)? {
                0 => {
                    if n > dest_max as u64 {
                        fail!(
                            INVALID_PARAM,
                            "{what}: count {count} exceeds destMax {dest_max}"
                        );
                    }
                    // SAFETY: both host pointers by the range check; the caller guarantees
                    // `count` bytes at each. `copy` allows overlap.
                    unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, count) };
                    Ok(())
                }
                1 => {
                    let bytes = unsafe { slice(src as *const u8, count, what, "src")? };
                    s.memcpy_h2d(d, dest_max as u64, bytes, what)
                }
                2 => {
                    let bytes = s.memcpy_d2h(dest_max as u64, sr, n, what)?;
                    // SAFETY: host destination by the range check, `count <= destMax` bytes.
                    unsafe {
                        std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst as *mut u8, bytes.len())
                    };
                    Ok(())
                }
                _ => s.memcpy_d2d(d, dest_max as u64, sr, n, what),
            }
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpyAsync(
    dst: Handle,
    dest_max: usize,
    src: *const c_void,
    count: usize,
    kind: i32,
    stream: Handle,
) -> i32 {
    let what = "aclrtMemcpyAsync";
    entry(what, || {
        need(dst, what, "dst")?;
        need(src, what, "src")?;
        with_sim(|s| {
            s.require_init(what)?;
            let (d, sr, n, st) = (h(dst), h(src), count as u64, h(stream));
            match copy_kind(s, d, sr, kind, what)? {
                0 => {
                    if n > dest_max as u64 {
                        fail!(
                            INVALID_PARAM,
                            "{what}: count {count} exceeds destMax {dest_max}"
                        );
                    }
                    s.resolve_stream(current(), st, what)?;
                    // Host to host involves no device: done at once, as with unpinned memory.
                    // SAFETY: as in aclrtMemcpy.
                    unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, count) };
                    Ok(())
                }
                1 => {
                    let bytes = unsafe { slice(src as *const u8, count, what, "src")? };
                    let source = if pinned(sr, n) {
                        CopySource::Pinned {
                            addr: sr,
                            bytes: std::sync::Arc::from(bytes),
                        }
                    } else {
                        Sim::host_bytes(bytes)
                    };
                    s.memcpy_async_to_device(current(), d, dest_max as u64, source, n, st)
                }
                2 => s.memcpy_async_to_host(current(), d, dest_max as u64, sr, n, st),
                _ => s.memcpy_async_to_device(
                    current(),
                    d,
                    dest_max as u64,
                    CopySource::Device(sr),
                    n,
                    st,
                ),
            }
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtMemset(
    dev_ptr: Handle,
    max_count: usize,
    value: i32,
    count: usize,
) -> i32 {
    let what = "aclrtMemset";
    entry(what, || {
        need(dev_ptr, what, "devPtr")?;
        with_sim(|s| s.memset(h(dev_ptr), max_count as u64, value, count as u64))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtMemsetAsync(
    dev_ptr: Handle,
    max_count: usize,
    value: i32,
    count: usize,
    stream: Handle,
) -> i32 {
    let what = "aclrtMemsetAsync";
    entry(what, || {
        need(dev_ptr, what, "devPtr")?;
        with_sim(|s| {
            s.memset_async(
                current(),
                h(dev_ptr),
                max_count as u64,
                value,
                count as u64,
                h(stream),
            )
        })
    })
}

// ---- simulator only ----

#[no_mangle]
pub unsafe extern "C" fn geSimConfigure(text: *const c_char) -> i32 {
    let what = "geSimConfigure";
    entry(what, || {
        let text = unsafe { string(text, what, "config")? };
        let pairs = config::parse(&text)?;
        with_sim(|s| {
            let base = if pairs.iter().any(|(k, v)| k == "reset" && v == "1") {
                config::Config::default()
            } else {
                s.cfg.clone()
            };
            let (cfg, actions) = base.with(&pairs)?;
            let rebuild = actions.reset || cfg.device_count != s.cfg.device_count;
            if rebuild && !actions.reset && s.devices.iter().any(|d| d.refs > 0) {
                fail!(
                    INVALID_PARAM,
                    "{what}: device_count can change only with reset=1 or before aclrtSetDevice"
                );
            }
            let seed_given = pairs.iter().any(|(k, _)| k == "seed");
            s.cfg = cfg;
            s.race.enabled = s.cfg.race;
            if rebuild {
                s.clear_objects();
            } else if seed_given {
                s.sched.reseed(s.cfg.seed);
            }
            if actions.clear_report {
                s.stats = Default::default();
                s.race.clear_races();
            }
            Ok(())
        })?;
        if pairs.iter().any(|(k, v)| k == "reset" && v == "1") {
            set_current(None);
        }
        Ok(())
    })
}

static REPORT: Mutex<Option<CString>> = Mutex::new(None);

#[no_mangle]
pub extern "C" fn geSimReport() -> *const c_char {
    let r = std::panic::catch_unwind(|| {
        let json = with_sim(|s| {
            let mut v = s.stats.to_json(&s.op_names, &s.race.names, s.sched.now);
            if s.race.enabled {
                v["races"] = s.race.to_json();
            }
            let p2p = s.mem.p2p;
            v["p2p_memory"] = serde_json::json!({"mallocs": p2p.mallocs,
                "live_bytes": p2p.live_bytes, "peak_bytes": p2p.peak_bytes});
            Ok(v.to_string())
        })
        .unwrap_or_default();
        let mut slot = REPORT.lock().unwrap_or_else(|e| e.into_inner());
        *slot = Some(CString::new(json).unwrap_or_default());
        slot.as_ref().map_or(std::ptr::null(), |c| c.as_ptr())
    });
    r.unwrap_or(std::ptr::null())
}

/// Simulator only (declared in the simulator section of `ge_acl_subset.h`; CANN has no
/// such symbol): the node name of the next kernel, device copy or collective issued on
/// `stream` (reports of the race detector and the trace name tasks by op type and node).
/// A loader looks it up optionally.
#[no_mangle]
pub unsafe extern "C" fn geSimSetTaskName(stream: Handle, name: *const c_char) -> i32 {
    let what = "geSimSetTaskName";
    entry(what, || {
        let name = unsafe { string(name, what, "name")? };
        with_sim(|s| s.set_task_name(current(), h(stream), &name))
    })
}

/// Simulator only (a documented extension, declared in the simulator section of
/// `ge_acl_subset.h`; CANN's libraries have no such symbol, and the executor looks it up
/// optionally): the next collective issued on `stream` is input/output pair `part` of a
/// node of GE op type `op_type` (`HcomAllReduce`; NULL or empty keeps the HCCL call's
/// name). HCCL's C API has no parameter for either, and the executor makes one HCCL call
/// per pair of a fused collective node, so with this and `geSimSetTaskName` a race report
/// names the HCCL side as it names a kernel: ``HcomAllReduce `ar` (output 1)``. Without it a
/// collective's sides are `send buffer` / `receive buffer`. Any later kernel or copy on
/// `stream` drops it.
#[no_mangle]
pub unsafe extern "C" fn geSimSetHcclTask(
    stream: Handle,
    op_type: *const c_char,
    part: u32,
) -> i32 {
    let what = "geSimSetHcclTask";
    entry(what, || {
        let op_type = if op_type.is_null() {
            String::new()
        } else {
            // SAFETY: non-null; by the C contract a NUL-terminated string.
            unsafe { string(op_type, what, "opType")? }
        };
        with_sim(|s| s.set_hccl_task(current(), h(stream), &op_type, part))
    })
}
