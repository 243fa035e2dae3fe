//! The safe side of the HCCL calls: communicators and enqueueing collectives.

use std::collections::VecDeque;

use crate::errors::*;
use crate::handles::{get, Id, Kind};
use crate::hccl::{reduce_op, Comm, Group, HcclType};
use crate::sim::Sim;
use crate::task::{CollectiveOp, CollectiveTask, Task};

/// What a root info holds: a tag and the group it names.
pub const ROOT_INFO_TAG: &[u8; 8] = b"GESIMRT\0";

impl Sim {
    fn new_group(&mut self, nranks: u32, devices: Vec<Option<u32>>) -> usize {
        self.groups.push(Group {
            nranks,
            devices,
            arrivals: (0..nranks).map(|_| VecDeque::new()).collect(),
        });
        self.groups.len() - 1
    }

    fn new_comm(&mut self, group: usize, rank: u32, dev: u32) -> Id {
        let id = self.handles.next(Kind::Comm);
        self.comms.insert(id, Comm { group, rank, dev });
        id
    }

    pub fn comm_init_all(&mut self, devices: &[i32]) -> SimResult<Vec<Id>> {
        let what = "HcclCommInitAll";
        self.require_init(what)?;
        if devices.is_empty() {
            fail!(INVALID_PARAM, "{what}: ndev must be at least 1");
        }
        let mut devs = Vec::with_capacity(devices.len());
        for (r, &d) in devices.iter().enumerate() {
            if d < 0 || d as u32 >= self.cfg.device_count {
                fail!(INVALID_PARAM, "{what}: rank {r}: device {d} does not exist");
            }
            if devs.contains(&(d as u32)) {
                fail!(INVALID_PARAM, "{what}: device {d} is listed twice");
            }
            devs.push(d as u32);
        }
        let g = self.new_group(devs.len() as u32, devs.iter().map(|&d| Some(d)).collect());
        Ok(devs
            .iter()
            .enumerate()
            .map(|(r, &d)| self.new_comm(g, r as u32, d))
            .collect())
    }

    /// A fresh group whose size the first `HcclCommInitRootInfo` fixes.
    pub fn get_root_info(&mut self) -> SimResult<Vec<u8>> {
        self.require_init("HcclGetRootInfo")?;
        let g = self.new_group(0, Vec::new());
        let mut info = ROOT_INFO_TAG.to_vec();
        info.extend_from_slice(&(g as u64).to_le_bytes());
        Ok(info)
    }

    pub fn comm_init_root_info(
        &mut self,
        cur: Option<u32>,
        nranks: u32,
        info: &[u8],
        rank: u32,
    ) -> SimResult<Id> {
        let what = "HcclCommInitRootInfo";
        self.require_init(what)?;
        let dev = self.current(cur, what)?;
        if &info[..8] != ROOT_INFO_TAG {
            fail!(
                INVALID_PARAM,
                "{what}: the root info was not made by HcclGetRootInfo"
            );
        }
        let g = u64::from_le_bytes(info[8..16].try_into().expect("16 bytes")) as usize;
        if g >= self.groups.len() {
            fail!(INVALID_PARAM, "{what}: the root info names no communicator");
        }
        if nranks == 0 || rank >= nranks {
            fail!(
                INVALID_PARAM,
                "{what}: rank {rank} is not below nRanks {nranks}"
            );
        }
        let group = &mut self.groups[g];
        if group.nranks == 0 {
            group.nranks = nranks;
            group.devices = vec![None; nranks as usize];
            group.arrivals = (0..nranks).map(|_| VecDeque::new()).collect();
        } else if group.nranks != nranks {
            fail!(
                INVALID_PARAM,
                "{what}: nRanks {nranks} differs from the {} of the first rank",
                group.nranks
            );
        }
        if group.devices[rank as usize].is_some() {
            fail!(INVALID_PARAM, "{what}: rank {rank} has already joined");
        }
        if group.devices.contains(&Some(dev)) {
            fail!(
                INVALID_PARAM,
                "{what}: device {dev} already holds a rank of this communicator"
            );
        }
        group.devices[rank as usize] = Some(dev);
        Ok(self.new_comm(g, rank, dev))
    }

    pub fn comm(&self, c: Id, what: &str) -> SimResult<Comm> {
        self.require_init(what)?;
        get(&self.comms, c, Kind::Comm, what).copied()
    }

    pub fn rank_size(&self, c: Id) -> SimResult<u32> {
        let comm = self.comm(c, "HcclGetRankSize")?;
        Ok(self.groups[comm.group].nranks)
    }

    pub fn comm_destroy(&mut self, c: Id) -> SimResult<()> {
        self.comm(c, "HcclCommDestroy")?;
        self.comms.remove(&c);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub fn collective(
        &mut self,
        what: &str,
        c: Id,
        op: CollectiveOp,
        send: u64,
        recv: u64,
        count: u64,
        dtype: i32,
        stream: Id,
    ) -> SimResult<()> {
        let comm = self.comm(c, what)?;
        let s = self.resolve_stream(Some(comm.dev), stream, what)?;
        // Taken before any other check: a rejected call must not leave its names to the
        // next collective of the stream.
        let (node, hccl) = self.race.take_collective(s);
        let Some(dt) = HcclType::from_code(dtype) else {
            fail!(
                RT_FEATURE_NOT_SUPPORT,
                "{what}: HcclDataType {dtype} is not supported"
            );
        };
        let n = self.groups[comm.group].nranks as u64;
        if let CollectiveOp::Broadcast { root } = op {
            if root as u64 >= n {
                fail!(
                    INVALID_PARAM,
                    "{what}: root {root} is not below the rank size {n}"
                );
            }
        }
        let bytes = count * dt.size();
        let (send_len, recv_len) = match op {
            CollectiveOp::AllReduce(_) | CollectiveOp::Broadcast { .. } => (bytes, bytes),
            CollectiveOp::AllGather => (bytes, bytes * n),
            CollectiveOp::ReduceScatter(_) => (bytes * n, bytes),
        };
        for (name, addr, len) in [
            ("send buffer", send, send_len),
            ("receive buffer", recv, recv_len),
        ] {
            let d = self.mem.check(&format!("{what} {name}"), addr, len)?;
            if d != comm.dev {
                fail!(
                    INVALID_PARAM,
                    "{what}: the {name} is on device {d}, rank {} is on device {}",
                    comm.rank,
                    comm.dev
                );
            }
        }
        let task = Task::Collective(CollectiveTask {
            group: comm.group,
            rank: comm.rank,
            op,
            send,
            recv,
            count,
            dtype: dt,
            node,
            op_type: hccl.map_or(u32::MAX, |h| h.op_type),
            part: hccl.map(|h| h.part),
        });
        self.enqueue(s, task, what)
    }

    pub fn reduce_op(&self, code: i32, what: &str) -> SimResult<crate::task::ReduceOp> {
        match reduce_op(code) {
            Some(op) => Ok(op),
            None => fail!(
                INVALID_PARAM,
                "{what}: reduce op {code} is not SUM, PROD, MAX or MIN"
            ),
        }
    }
}
