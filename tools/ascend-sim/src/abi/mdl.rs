//! Labels, stream control and model RI entry points.

use std::ffi::c_void;

use super::{current, entry, need, put, slice, with_sim};

type Handle = *mut c_void;

fn h(p: *const c_void) -> u64 {
    p as u64
}

#[no_mangle]
pub unsafe extern "C" fn aclrtCreateLabel(label: *mut Handle) -> i32 {
    let what = "aclrtCreateLabel";
    entry(what, || {
        need(label, what, "label")?;
        let id = with_sim(|s| s.create_label(current()))?;
        unsafe { put(label, id as Handle, what, "label") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtSetLabel(label: Handle, stream: Handle) -> i32 {
    entry("aclrtSetLabel", || {
        with_sim(|s| s.set_label(current(), h(label), h(stream)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtDestroyLabel(label: Handle) -> i32 {
    entry("aclrtDestroyLabel", || {
        with_sim(|s| s.destroy_label(h(label)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtCreateLabelList(
    labels: *const Handle,
    num: usize,
    list: *mut Handle,
) -> i32 {
    let what = "aclrtCreateLabelList";
    entry(what, || {
        need(list, what, "labelList")?;
        need(labels, what, "labels")?;
        let ls: Vec<u64> = unsafe { slice(labels, num, what, "labels")? }
            .iter()
            .map(|&p| h(p))
            .collect();
        let id = with_sim(|s| s.create_label_list(&ls))?;
        unsafe { put(list, id as Handle, what, "labelList") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtDestroyLabelList(list: Handle) -> i32 {
    entry("aclrtDestroyLabelList", || {
        with_sim(|s| s.destroy_label_list(h(list)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtSwitchLabelByIndex(
    ptr: Handle,
    max_value: u32,
    list: Handle,
    stream: Handle,
) -> i32 {
    let what = "aclrtSwitchLabelByIndex";
    entry(what, || {
        need(ptr, what, "ptr")?;
        with_sim(|s| s.switch_label(current(), h(ptr), max_value, h(list), h(stream)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtActiveStream(active_stream: Handle, stream: Handle) -> i32 {
    let what = "aclrtActiveStream";
    entry(what, || {
        need(active_stream, what, "activeStream")?;
        with_sim(|s| s.active_stream(current(), h(active_stream), h(stream)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtSwitchStream(
    left: Handle,
    cond: i32,
    right: Handle,
    dtype: i32,
    true_stream: Handle,
    false_stream: Handle,
    stream: Handle,
) -> i32 {
    let what = "aclrtSwitchStream";
    entry(what, || {
        need(true_stream, what, "trueStream")?;
        with_sim(|s| {
            s.switch_stream(
                current(),
                h(left),
                cond,
                h(right),
                dtype,
                h(true_stream),
                h(false_stream),
                h(stream),
            )
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclmdlRIBuildBegin(model: *mut Handle, flag: u32) -> i32 {
    let what = "aclmdlRIBuildBegin";
    entry(what, || {
        need(model, what, "modelRI")?;
        let id = with_sim(|s| s.ri_build_begin(current(), flag))?;
        unsafe { put(model, id as Handle, what, "modelRI") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclmdlRIBindStream(model: Handle, stream: Handle, flag: u32) -> i32 {
    entry("aclmdlRIBindStream", || {
        with_sim(|s| s.ri_bind(h(model), h(stream), flag))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclmdlRIUnbindStream(model: Handle, stream: Handle) -> i32 {
    entry("aclmdlRIUnbindStream", || {
        with_sim(|s| s.ri_unbind(h(model), h(stream)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclmdlRIEndTask(model: Handle, stream: Handle) -> i32 {
    entry("aclmdlRIEndTask", || {
        with_sim(|s| s.ri_end_task(h(model), h(stream)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclmdlRIBuildEnd(model: Handle, _reserve: Handle) -> i32 {
    entry("aclmdlRIBuildEnd", || {
        with_sim(|s| s.ri_build_end(h(model)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclmdlRIExecuteAsync(model: Handle, stream: Handle) -> i32 {
    entry("aclmdlRIExecuteAsync", || {
        with_sim(|s| s.ri_execute(current(), h(model), h(stream)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclmdlRIDestroy(model: Handle) -> i32 {
    entry("aclmdlRIDestroy", || with_sim(|s| s.ri_destroy(h(model))))
}
