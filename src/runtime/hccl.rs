//! CANN's HCCL C API (`libhccl.so`; the subset of the header), opened at run time like
//! ACL. A failure is a [`RuntimeError::Hccl`] naming the function, the `HcclResult` and its
//! name. One communicator per rank comes from `HcclCommInitAll`: one host thread drives
//! every rank (`dialects/execution.md`, "Multi-rank").
#![allow(unsafe_code)]
#![allow(non_snake_case)]

use super::{
    acl::{bindings, Acl, DevicePtr, Libraries, Ptr, Stream},
    error::RuntimeError,
};
use ascend_kernels::DType;
use std::{ffi::c_int, sync::Arc};

const RESULT_NAMES: &[(i32, &str)] = &[
    (0, "HCCL_SUCCESS"),
    (1, "HCCL_E_PARA"),
    (2, "HCCL_E_PTR"),
    (3, "HCCL_E_MEMORY"),
    (4, "HCCL_E_INTERNAL"),
    (5, "HCCL_E_NOT_SUPPORT"),
    (6, "HCCL_E_NOT_FOUND"),
    (7, "HCCL_E_UNAVAIL"),
    (9, "HCCL_E_TIMEOUT"),
];

/// The symbolic name of an `HcclResult`.
pub fn result_name(code: i32) -> &'static str {
    RESULT_NAMES
        .iter()
        .find(|(number, _)| *number == code)
        .map_or("unknown HcclResult", |(_, name)| name)
}

/// `HcclDataType` of an element type (`None`: HCCL has no such type, e.g. bool).
pub fn hccl_dtype(dtype: DType) -> Option<i32> {
    Some(match dtype {
        DType::I8 => 0,
        DType::I16 => 1,
        DType::I32 => 2,
        DType::F16 => 3,
        DType::F32 => 4,
        DType::I64 => 5,
        DType::U64 => 6,
        DType::U8 => 7,
        DType::U16 => 8,
        DType::U32 => 9,
        DType::F64 => 10,
        DType::BF16 => 11,
        DType::Bool => return None,
    })
}

bindings!(HcclFns, HCCL_SYMBOLS {
    HcclGetRootInfo: fn(Ptr) -> c_int;
    HcclCommInitRootInfo: fn(u32, *const std::ffi::c_void, u32, *mut Ptr) -> c_int;
    HcclCommInitAll: fn(u32, *mut i32, *mut Ptr) -> c_int;
    HcclGetRankSize: fn(Ptr, *mut u32) -> c_int;
    HcclGetRankId: fn(Ptr, *mut u32) -> c_int;
    HcclCommDestroy: fn(Ptr) -> c_int;
    HcclAllReduce: fn(Ptr, Ptr, u64, c_int, c_int, Ptr, Ptr) -> c_int;
    HcclBroadcast: fn(Ptr, u64, c_int, u32, Ptr, Ptr) -> c_int;
    HcclAllGather: fn(Ptr, Ptr, u64, c_int, Ptr, Ptr) -> c_int;
    HcclReduceScatter: fn(Ptr, Ptr, u64, c_int, c_int, Ptr, Ptr) -> c_int;
});

/// A loaded HCCL library. It keeps the ACL library to fetch `aclGetRecentErrMsg()` after a
/// failure (HCCL has no message function of its own).
pub struct Hccl {
    _libs: Libraries,
    f: HcclFns,
    acl: Arc<Acl>,
}

impl std::fmt::Debug for Hccl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Hccl({})", self._libs.primary_path().display())
    }
}

/// One rank's communicator.
pub struct Comm {
    hccl: Arc<Hccl>,
    raw: Ptr,
}

impl Drop for Comm {
    fn drop(&mut self) {
        if !self.raw.is_null() {
            // SAFETY: a live communicator, destroyed once.
            let _ = unsafe { (self.hccl.f.HcclCommDestroy)(self.raw) };
        }
    }
}

impl Hccl {
    pub fn bind(libs: Libraries, acl: Arc<Acl>) -> Result<Self, RuntimeError> {
        let f = HcclFns::bind(&libs)?;
        Ok(Self {
            _libs: libs,
            f,
            acl,
        })
    }

    fn check(&self, function: &'static str, code: c_int) -> Result<(), RuntimeError> {
        if code == 0 {
            return Ok(());
        }
        Err(RuntimeError::Hccl {
            function,
            code,
            message: self.acl.recent_error(),
            location: None,
        })
    }

    /// `HcclCommInitAll` over devices `0..ranks`: one communicator per rank, by rank.
    pub fn init_all(self: &Arc<Self>, ranks: u32) -> Result<Vec<Comm>, RuntimeError> {
        let mut devices: Vec<i32> = (0..ranks as i32).collect();
        let mut raws: Vec<Ptr> = vec![std::ptr::null_mut(); ranks as usize];
        // SAFETY: `devices` and `raws` hold `ranks` entries each, live across the call.
        self.check("HcclCommInitAll", unsafe {
            (self.f.HcclCommInitAll)(ranks, devices.as_mut_ptr(), raws.as_mut_ptr())
        })?;
        if raws.iter().any(|raw| raw.is_null()) {
            return Err(RuntimeError::Hccl {
                function: "HcclCommInitAll",
                code: 0,
                message: "returned success but a NULL communicator".to_owned(),
                location: None,
            });
        }
        Ok(raws
            .into_iter()
            .map(|raw| Comm {
                hccl: Arc::clone(self),
                raw,
            })
            .collect())
    }

    #[allow(clippy::too_many_arguments)]
    pub fn all_reduce(
        &self,
        send: DevicePtr,
        recv: DevicePtr,
        count: u64,
        dtype: i32,
        op: i32,
        comm: &Comm,
        stream: &Stream,
    ) -> Result<(), RuntimeError> {
        // SAFETY: device addresses the library checks; live handles.
        self.check("HcclAllReduce", unsafe {
            (self.f.HcclAllReduce)(
                send.raw(),
                recv.raw(),
                count,
                dtype,
                op,
                comm.raw,
                stream.raw(),
            )
        })
    }

    pub fn broadcast(
        &self,
        buf: DevicePtr,
        count: u64,
        dtype: i32,
        root: u32,
        comm: &Comm,
        stream: &Stream,
    ) -> Result<(), RuntimeError> {
        // SAFETY: a device address the library checks; live handles.
        self.check("HcclBroadcast", unsafe {
            (self.f.HcclBroadcast)(buf.raw(), count, dtype, root, comm.raw, stream.raw())
        })
    }

    pub fn all_gather(
        &self,
        send: DevicePtr,
        recv: DevicePtr,
        send_count: u64,
        dtype: i32,
        comm: &Comm,
        stream: &Stream,
    ) -> Result<(), RuntimeError> {
        // SAFETY: device addresses the library checks; live handles.
        self.check("HcclAllGather", unsafe {
            (self.f.HcclAllGather)(
                send.raw(),
                recv.raw(),
                send_count,
                dtype,
                comm.raw,
                stream.raw(),
            )
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub fn reduce_scatter(
        &self,
        send: DevicePtr,
        recv: DevicePtr,
        recv_count: u64,
        dtype: i32,
        op: i32,
        comm: &Comm,
        stream: &Stream,
    ) -> Result<(), RuntimeError> {
        // SAFETY: device addresses the library checks; live handles.
        self.check("HcclReduceScatter", unsafe {
            (self.f.HcclReduceScatter)(
                send.raw(),
                recv.raw(),
                recv_count,
                dtype,
                op,
                comm.raw,
                stream.raw(),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_symbol_list_is_the_header() {
        let header = include_str!("../../tools/ascend-sim/include/ge_acl_subset.h");
        let declared = header
            .lines()
            .filter(|line| line.starts_with("HcclResult Hccl"))
            .count();
        assert_eq!(declared, HCCL_SYMBOLS.len());
        assert_eq!(result_name(9), "HCCL_E_TIMEOUT");
    }
}
