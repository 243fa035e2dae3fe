//! The lowered model: what `--lower-to-tasks` decides and the `ascend_task` dialect prints,
//! and what the runtime loads. Plain Rust, no MLIR: the lowering builds it from the
//! compiled module (`lower.rs`), `emit.rs` writes it as MLIR, `read.rs` reads that MLIR
//! back, `verify.rs` checks it, and `ge_mlir::runtime::executor` loads and runs it.
//!
//! It follows GE's `ModelTaskDef` (`task.proto`): model sizes and counts, then the tasks of
//! every stream in GE's order (the global node order filtered by stream), each task one of
//! GE's TaskDef types. Addresses stay symbolic ([`Addr`]: a region and an offset) until the
//! runtime resolves them at load, as DavinciModel does with `mem_base + offset`.

pub use ascend_kernels::{AttrValue, Attrs, DType};

/// The memory a task address points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Region {
    /// The feature-map workspace of `memory_size` bytes (the static plan's offsets).
    Workspace,
    /// The weight region: every Const's bytes, at [`Weight::offset`].
    Weight,
    /// The variable region: every Variable, at [`Variable::offset`]; kept across runs.
    Variable,
    /// The buffer the user binds to model input `k` (zero copy).
    Input(u32),
    /// The buffer the user binds to model output `k`.
    Output(u32),
}

/// A symbolic device address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Addr {
    pub region: Region,
    pub offset: u64,
}

/// A tensor's description (`aclTensorDesc`): element type, shape, format (`ND` unless the
/// graph says otherwise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorDesc {
    pub dtype: DType,
    pub dims: Vec<i64>,
    /// `aclFormat` number: ND = 2.
    pub format: i32,
}

impl TensorDesc {
    /// Bytes of the tensor's elements (no alignment padding).
    pub fn bytes(&self) -> u64 {
        self.dims.iter().map(|&d| d.max(0) as u64).product::<u64>() * self.dtype.size() as u64
    }
}

/// One input or output of a task: where it lives, how many bytes, and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operand {
    pub addr: Addr,
    pub size: u64,
    pub desc: TensorDesc,
}

/// HCCL collectives (`kernel_hccl.hccl_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collective {
    AllReduce,
    Broadcast,
    AllGather,
    ReduceScatter,
}

/// HCCL reduction (`HcclReduceOp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduction {
    Sum = 0,
    Prod = 1,
    Max = 2,
    Min = 3,
}

/// Where a kernel runs (`placement` in the task dialect), as the execute graph places tensors.
pub use crate::rtgraph::model::Placement;

/// A task, as GE's TaskDef types (`runtime_model_ge.h`). `node` is the GE node the task
/// comes from (empty for none), for reports and the race detector.
#[derive(Debug, Clone, PartialEq)]
pub enum Task {
    /// MODEL_TASK_KERNEL: one `aclopExecuteV2`.
    Kernel {
        op_type: String,
        node: String,
        attrs: Attrs,
        inputs: Vec<Operand>,
        outputs: Vec<Operand>,
        /// Where it runs and its outputs live (`_placement`, or `host` for a shape
        /// computation without one, as `--lower-to-rt` places it). Under `ge-run
        /// --memory=dynamic` a `host` kernel is computed on the host and copies its
        /// outputs to their device addresses (`runtime::executor::dynamic::host`), a
        /// `p2p` kernel's outputs are in P2P memory (`dynamic::p2p`); elsewhere every
        /// kernel runs on the device in HBM.
        placement: Placement,
    },
    /// MODEL_TASK_EVENT_RECORD (a Send).
    EventRecord { node: String, event: u32 },
    /// MODEL_TASK_EVENT_WAIT (a Recv); GE follows it with an EVENT_RESET.
    EventWait { node: String, event: u32 },
    /// MODEL_TASK_EVENT_RESET, right after the wait of the same event.
    EventReset { node: String, event: u32 },
    /// MODEL_TASK_NOTIFY_RECORD (SendNotify).
    NotifyRecord { node: String, notify: u32 },
    /// MODEL_TASK_NOTIFY_WAIT (RecvNotify).
    NotifyWait { node: String, notify: u32 },
    /// MODEL_TASK_MEMCPY_ASYNC: Identity/Memcpy copies, MemcpyAddrAsync, and the copies the
    /// lowering adds at subgraph boundaries.
    MemcpyAsync {
        node: String,
        src: Operand,
        dst: Operand,
    },
    /// A memset task (AtomicAddrClean / MemSet zeroing atomic outputs).
    Memset {
        node: String,
        dst: Addr,
        size: u64,
        value: u8,
    },
    /// MODEL_TASK_HCCL.
    Hccl {
        node: String,
        collective: Collective,
        group: String,
        reduction: Reduction,
        root_rank: u32,
        inputs: Vec<Operand>,
        outputs: Vec<Operand>,
    },
    /// MODEL_TASK_STREAM_ACTIVE: one per activated stream.
    StreamActive { node: String, stream: u32 },
    /// MODEL_TASK_STREAM_SWITCH: activate `true_stream` when `value <cond> target`, where
    /// `value` is an int32 scalar in device memory.
    StreamSwitch {
        node: String,
        value: Operand,
        /// `aclrtCondition`: EQUAL 0, NOT_EQUAL 1, GREATER 2, GREATER_OR_EQUAL 3, LESS 4,
        /// LESS_OR_EQUAL 5.
        cond: i32,
        target: Operand,
        true_stream: u32,
    },
    /// MODEL_TASK_LABEL_SET.
    LabelSet { node: String, label: u32 },
    /// MODEL_TASK_LABEL_GOTO (LabelGotoEx: a switch with one label on a word holding 0).
    LabelGoto { node: String, label: u32 },
    /// MODEL_TASK_STREAM_LABEL_SWITCH_BY_INDEX: jump to `labels[index]` (the last one when
    /// the index is out of range), `index` a uint32/int32 scalar in device memory.
    LabelSwitchByIndex {
        node: String,
        index: Operand,
        labels: Vec<u32>,
    },
    /// MODEL_TASK_MODEL_END_GRAPH: the end of the model on the stream that ends it.
    ModelEndGraph,
}

/// A Const's bytes in the weight region.
#[derive(Debug, Clone, PartialEq)]
pub struct Weight {
    pub node: String,
    pub offset: u64,
    pub desc: TensorDesc,
    pub bytes: Vec<u8>,
}

/// A Variable's slot in the variable region. Its initial value is
/// `ascend_kernels::seeded_fill(seed, name, ...)` unless `init` gives one.
#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    pub node: String,
    pub offset: u64,
    pub desc: TensorDesc,
    pub init: Option<Vec<u8>>,
}

/// Model input `index` (GE's Data `index`): the user's buffer is bound to `Region::Input`.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    pub index: u32,
    pub node: String,
    pub desc: TensorDesc,
}

/// Model output `index` (the root graph's return operand `index`): where its bytes are
/// after a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub index: u32,
    /// The node (and output) that produces it, `name:k`.
    pub source: String,
    pub operand: Operand,
}

/// One physical stream's ordered task list.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamTasks {
    pub id: u32,
    /// Whether something activates this stream (a subgraph's stream, GE's DEFAULT bind
    /// flag) rather than the model's start (HEAD).
    pub activated: bool,
    pub tasks: Vec<Task>,
}

/// The lowered model.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskModel {
    /// The root graph's name.
    pub name: String,
    pub stream_num: u32,
    pub event_num: u32,
    pub notify_num: u32,
    pub label_num: u32,
    /// Workspace bytes.
    pub memory_size: u64,
    pub weight_size: u64,
    pub var_size: u64,
    pub weights: Vec<Weight>,
    pub variables: Vec<Variable>,
    pub inputs: Vec<Input>,
    pub outputs: Vec<Output>,
    /// `stream_num` entries, by id.
    pub streams: Vec<StreamTasks>,
}
