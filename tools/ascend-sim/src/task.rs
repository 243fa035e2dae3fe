//! What a stream holds: tasks as the ACL calls issued them, before they run.

use std::sync::Arc;

use ascend_kernels::{Attrs, DType};
use smallvec::SmallVec;

use crate::handles::Id;

/// A tensor descriptor as `aclCreateTensorDesc` made it.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorDesc {
    pub dtype: DType,
    pub dims: Vec<i64>,
    pub format: i32,
}

/// One kernel operand: its descriptor and the device bytes it covers.
#[derive(Debug, Clone)]
pub struct Operand {
    pub desc: Arc<TensorDesc>,
    pub addr: u64,
    /// The bytes the descriptor's shape needs (the buffer may be longer).
    pub len: u64,
}

#[derive(Debug, Clone)]
pub struct KernelTask {
    /// Index into the simulator's interned op type names.
    pub op: u32,
    pub inputs: SmallVec<[Operand; 4]>,
    pub outputs: SmallVec<[Operand; 2]>,
    pub attrs: Arc<Attrs>,
    /// The node name given by `geSimSetTaskName` before the issue (`u32::MAX`: none),
    /// interned in the race detector's names.
    pub node: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduceOp {
    Sum,
    Prod,
    Max,
    Min,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CollectiveOp {
    AllReduce(ReduceOp),
    Broadcast { root: u32 },
    AllGather,
    ReduceScatter(ReduceOp),
}

impl CollectiveOp {
    pub fn name(self) -> &'static str {
        match self {
            CollectiveOp::AllReduce(_) => "HcclAllReduce",
            CollectiveOp::Broadcast { .. } => "HcclBroadcast",
            CollectiveOp::AllGather => "HcclAllGather",
            CollectiveOp::ReduceScatter(_) => "HcclReduceScatter",
        }
    }
}

#[derive(Debug, Clone)]
pub struct CollectiveTask {
    pub group: usize,
    pub rank: u32,
    pub op: CollectiveOp,
    pub send: u64,
    pub recv: u64,
    /// Elements per rank (AllReduce, Broadcast: the buffer; AllGather: sent;
    /// ReduceScatter: received).
    pub count: u64,
    pub dtype: crate::hccl::HcclType,
    /// The node name given by `geSimSetTaskName` before the issue (`u32::MAX`: none), as
    /// for kernels.
    pub node: u32,
    /// The node's op type (`HcomAllReduce`, interned in `Sim::op_names`) given by
    /// `geSimSetHcclTask` before the issue; `u32::MAX` when none was, and reports name the
    /// HCCL call (`HcclAllReduce`) instead.
    pub op_type: u32,
    /// Which input/output pair of its node this call is (`geSimSetHcclTask`): GE fuses
    /// several tensors into one collective node and the executor makes one HCCL call per
    /// pair, so a race report names `input part` / `output part`. `None` when not given:
    /// the report says `send buffer` / `receive buffer`.
    pub part: Option<u32>,
}

/// Where a copy's bytes come from.
#[derive(Debug, Clone)]
pub enum CopySource {
    Device(u64),
    /// Host bytes, taken when the copy was issued.
    Host(Arc<[u8]>),
    /// Pinned host memory (`aclrtMallocHost`) at `addr`: a DMA reads it when the copy
    /// runs, so the race detector checks `[addr, addr + len)` then (a free before that is
    /// a use after free). The bytes are still taken at issue, so a premature free never
    /// makes the simulator itself read freed memory.
    Pinned {
        addr: u64,
        bytes: Arc<[u8]>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    Equal,
    NotEqual,
    Greater,
    GreaterOrEqual,
    Less,
    LessOrEqual,
}

impl Condition {
    pub fn from_acl(c: i32) -> Option<Condition> {
        Some(match c {
            0 => Condition::Equal,
            1 => Condition::NotEqual,
            2 => Condition::Greater,
            3 => Condition::GreaterOrEqual,
            4 => Condition::Less,
            5 => Condition::LessOrEqual,
            _ => return None,
        })
    }

    pub fn holds(self, l: i32, r: i32) -> bool {
        match self {
            Condition::Equal => l == r,
            Condition::NotEqual => l != r,
            Condition::Greater => l > r,
            Condition::GreaterOrEqual => l >= r,
            Condition::Less => l < r,
            Condition::LessOrEqual => l <= r,
        }
    }
}

#[derive(Debug, Clone)]
pub enum Task {
    Kernel(KernelTask),
    /// A copy into device memory (H2D or D2D).
    CopyToDevice {
        dst: u64,
        src: CopySource,
        len: u64,
        /// The node name given by `geSimSetTaskName` before the issue (`u32::MAX`: none),
        /// as for kernels.
        node: u32,
    },
    /// A D2H copy: `dst` is a host address, written when the copy ends.
    CopyToHost {
        dst: u64,
        src: u64,
        len: u64,
    },
    Memset {
        dst: u64,
        len: u64,
        value: u8,
    },
    /// `version`: the Ex-event record number (0 for latch events, or "assign when it
    /// runs" inside a model).
    Record {
        ev: Id,
        version: u64,
    },
    /// `version`: the Ex-event record this wait is for (`None`: the latest when the wait
    /// reaches the head of its stream).
    Wait {
        ev: Id,
        version: Option<u64>,
    },
    Reset {
        ev: Id,
    },
    NotifyRecord {
        notify: Id,
    },
    NotifyWait {
        notify: Id,
    },
    LabelSet {
        label: Id,
    },
    /// `targets`: for each label of the list, the program position right after its
    /// LabelSet (filled by BuildEnd).
    LabelSwitch {
        index_addr: u64,
        max: u32,
        list: Id,
        targets: Arc<[usize]>,
    },
    Active {
        target: Id,
    },
    Switch {
        left: u64,
        right: u64,
        cond: Condition,
        target: Id,
    },
    EndGraph,
    ExecModel {
        model: Id,
    },
    Collective(CollectiveTask),
}

/// Task kinds, for the report's counts and the trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskKind {
    Kernel,
    Memcpy,
    Memset,
    EventRecord,
    EventWait,
    EventReset,
    NotifyRecord,
    NotifyWait,
    LabelSet,
    LabelSwitch,
    StreamActive,
    StreamSwitch,
    EndGraph,
    ModelExecute,
    Hccl,
}

pub const TASK_KINDS: usize = 15;

impl TaskKind {
    pub const ALL: [TaskKind; TASK_KINDS] = [
        TaskKind::Kernel,
        TaskKind::Memcpy,
        TaskKind::Memset,
        TaskKind::EventRecord,
        TaskKind::EventWait,
        TaskKind::EventReset,
        TaskKind::NotifyRecord,
        TaskKind::NotifyWait,
        TaskKind::LabelSet,
        TaskKind::LabelSwitch,
        TaskKind::StreamActive,
        TaskKind::StreamSwitch,
        TaskKind::EndGraph,
        TaskKind::ModelExecute,
        TaskKind::Hccl,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TaskKind::Kernel => "kernel",
            TaskKind::Memcpy => "memcpy",
            TaskKind::Memset => "memset",
            TaskKind::EventRecord => "event_record",
            TaskKind::EventWait => "event_wait",
            TaskKind::EventReset => "event_reset",
            TaskKind::NotifyRecord => "notify_record",
            TaskKind::NotifyWait => "notify_wait",
            TaskKind::LabelSet => "label_set",
            TaskKind::LabelSwitch => "label_switch",
            TaskKind::StreamActive => "stream_active",
            TaskKind::StreamSwitch => "stream_switch",
            TaskKind::EndGraph => "end_graph",
            TaskKind::ModelExecute => "model_execute",
            TaskKind::Hccl => "hccl",
        }
    }
}

impl Task {
    pub fn kind(&self) -> TaskKind {
        match self {
            Task::Kernel(_) => TaskKind::Kernel,
            Task::CopyToDevice { .. } | Task::CopyToHost { .. } => TaskKind::Memcpy,
            Task::Memset { .. } => TaskKind::Memset,
            Task::Record { .. } => TaskKind::EventRecord,
            Task::Wait { .. } => TaskKind::EventWait,
            Task::Reset { .. } => TaskKind::EventReset,
            Task::NotifyRecord { .. } => TaskKind::NotifyRecord,
            Task::NotifyWait { .. } => TaskKind::NotifyWait,
            Task::LabelSet { .. } => TaskKind::LabelSet,
            Task::LabelSwitch { .. } => TaskKind::LabelSwitch,
            Task::Active { .. } => TaskKind::StreamActive,
            Task::Switch { .. } => TaskKind::StreamSwitch,
            Task::EndGraph => TaskKind::EndGraph,
            Task::ExecModel { .. } => TaskKind::ModelExecute,
            Task::Collective(_) => TaskKind::Hccl,
        }
    }
}
