//! HCCL entry points. They live in libascendcl.so itself so that they share its device
//! state; `libhccl.so` beside it is a symlink to the same file, which the dynamic loader
//! maps only once (README, "HCCL").

use std::ffi::c_void;

use super::{current, entry, need, put, slice, with_sim};
use crate::errors::*;
use crate::hccl::*;
use crate::task::CollectiveOp;

type Handle = *mut c_void;

fn h(p: *const c_void) -> u64 {
    p as u64
}

/// ACL codes of the shared device model as `HcclResult`s (the message stays readable with
/// aclGetRecentErrMsg).
fn hccl(code: i32) -> i32 {
    match code {
        SUCCESS => HCCL_SUCCESS,
        INVALID_PARAM | RT_PARAM_INVALID | RT_INVALID_DEVICEID | RT_STREAM_CONTEXT
        | RT_INVALID_HANDLE => HCCL_E_PARA,
        RT_FEATURE_NOT_SUPPORT => HCCL_E_NOT_SUPPORT,
        RT_MEMORY_ALLOCATION => HCCL_E_MEMORY,
        UNINITIALIZE | RT_CONTEXT_NULL => HCCL_E_UNAVAIL,
        _ => HCCL_E_INTERNAL,
    }
}

fn ptr_code(p: *const c_void) -> Option<i32> {
    p.is_null().then_some(HCCL_E_PTR)
}

const ROOT_INFO_BYTES: usize = 4108;

#[no_mangle]
pub unsafe extern "C" fn HcclGetRootInfo(root_info: *mut u8) -> i32 {
    let what = "HcclGetRootInfo";
    if let Some(c) = ptr_code(root_info as *const c_void) {
        return c;
    }
    hccl(entry(what, || {
        let info = with_sim(|s| s.get_root_info())?;
        // SAFETY: an HcclRootInfo is 4108 writable bytes; ours need 16.
        let out = unsafe { std::slice::from_raw_parts_mut(root_info, ROOT_INFO_BYTES) };
        out.fill(0);
        out[..info.len()].copy_from_slice(&info);
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn HcclCommInitRootInfo(
    n_ranks: u32,
    root_info: *const u8,
    rank: u32,
    comm: *mut Handle,
) -> i32 {
    let what = "HcclCommInitRootInfo";
    if let Some(c) = ptr_code(root_info as *const c_void).or(ptr_code(comm as *const c_void)) {
        return c;
    }
    hccl(entry(what, || {
        let info = unsafe { slice(root_info, 16, what, "rootInfo")? };
        let id = with_sim(|s| s.comm_init_root_info(current(), n_ranks, info, rank))?;
        unsafe { put(comm, id as Handle, what, "comm") }
    }))
}

#[no_mangle]
pub unsafe extern "C" fn HcclCommInitAll(
    ndev: u32,
    devices: *const i32,
    comms: *mut Handle,
) -> i32 {
    let what = "HcclCommInitAll";
    if let Some(c) = ptr_code(devices as *const c_void).or(ptr_code(comms as *const c_void)) {
        return c;
    }
    hccl(entry(what, || {
        let devs = unsafe { slice(devices, ndev as usize, what, "devices")? };
        let ids = with_sim(|s| s.comm_init_all(devs))?;
        for (i, id) in ids.into_iter().enumerate() {
            // SAFETY: `comms` holds `ndev` handles by the C contract.
            unsafe { comms.add(i).write(id as Handle) };
        }
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn HcclGetRankSize(comm: Handle, rank_size: *mut u32) -> i32 {
    if let Some(c) = ptr_code(rank_size as *const c_void) {
        return c;
    }
    hccl(entry("HcclGetRankSize", || {
        let n = with_sim(|s| s.rank_size(h(comm)))?;
        unsafe { put(rank_size, n, "HcclGetRankSize", "rankSize") }
    }))
}

#[no_mangle]
pub unsafe extern "C" fn HcclGetRankId(comm: Handle, rank: *mut u32) -> i32 {
    if let Some(c) = ptr_code(rank as *const c_void) {
        return c;
    }
    hccl(entry("HcclGetRankId", || {
        let c = with_sim(|s| s.comm(h(comm), "HcclGetRankId"))?;
        unsafe { put(rank, c.rank, "HcclGetRankId", "rank") }
    }))
}

#[no_mangle]
pub unsafe extern "C" fn HcclCommDestroy(comm: Handle) -> i32 {
    hccl(entry("HcclCommDestroy", || {
        with_sim(|s| s.comm_destroy(h(comm)))
    }))
}

#[allow(clippy::too_many_arguments)]
unsafe fn collective(
    what: &str,
    send: Handle,
    recv: Handle,
    count: u64,
    dtype: i32,
    op: impl FnOnce(&crate::sim::Sim) -> SimResult<CollectiveOp>,
    comm: Handle,
    stream: Handle,
) -> i32 {
    if let Some(c) = ptr_code(send).or(ptr_code(recv)) {
        return c;
    }
    hccl(entry(what, || {
        need(comm, what, "comm")?;
        with_sim(|s| {
            let op = op(s)?;
            s.collective(what, h(comm), op, h(send), h(recv), count, dtype, h(stream))
        })
    }))
}

#[no_mangle]
pub unsafe extern "C" fn HcclAllReduce(
    send: Handle,
    recv: Handle,
    count: u64,
    dtype: i32,
    op: i32,
    comm: Handle,
    stream: Handle,
) -> i32 {
    let what = "HcclAllReduce";
    unsafe {
        collective(
            what,
            send,
            recv,
            count,
            dtype,
            |s| Ok(CollectiveOp::AllReduce(s.reduce_op(op, what)?)),
            comm,
            stream,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn HcclBroadcast(
    buf: Handle,
    count: u64,
    dtype: i32,
    root: u32,
    comm: Handle,
    stream: Handle,
) -> i32 {
    unsafe {
        collective(
            "HcclBroadcast",
            buf,
            buf,
            count,
            dtype,
            |_| Ok(CollectiveOp::Broadcast { root }),
            comm,
            stream,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn HcclAllGather(
    send: Handle,
    recv: Handle,
    count: u64,
    dtype: i32,
    comm: Handle,
    stream: Handle,
) -> i32 {
    unsafe {
        collective(
            "HcclAllGather",
            send,
            recv,
            count,
            dtype,
            |_| Ok(CollectiveOp::AllGather),
            comm,
            stream,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn HcclReduceScatter(
    send: Handle,
    recv: Handle,
    count: u64,
    dtype: i32,
    op: i32,
    comm: Handle,
    stream: Handle,
) -> i32 {
    let what = "HcclReduceScatter";
    unsafe {
        collective(
            what,
            send,
            recv,
            count,
            dtype,
            |s| Ok(CollectiveOp::ReduceScatter(s.reduce_op(op, what)?)),
            comm,
            stream,
        )
    }
}
