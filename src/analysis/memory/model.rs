//! `MemGraph`: the plain graph model the memory passes decide on.
//!
//! The memory passes (GE's HcclMemcpyPass, HcclContinuousMemcpyPass, SubgraphPass,
//! AtomicAddrCleanPass, HandleMemoryRWConflict and GraphLint) only need a few facts per node:
//! its GE type, a handful of semantic flags, its input/output *names* (GE's ref rule is "an
//! input whose name equals an output name"), data edges with ports in GE's edge order, control
//! edges, and how subgraphs hang off their parent node. The IR layer fills this model from the
//! `ascend` dialect; the passes return edit plans ([`super::plan::Plan`]) that the IR layer
//! applies with rewrite patterns. Keeping the decisions on this small model makes them testable
//! without MLIR and keeps each rule close to the spec's wording.
//!
//! Conventions (what the IR layer must fill in):
//! * `graphs[0]` is the root graph (`@main`); every other graph is a subgraph with `parent`
//!   set to the node that references it, in the parent's subgraph order (While: cond, body).
//! * `Graph::order` lists the graph's nodes in a topological order (block order in MLIR).
//! * Every graph has at most one NetOutput node (`func.return`), whose inputs are the return
//!   operands; in a subgraph, input j carries `parent_index = Some(j)` (GE's
//!   `_parent_node_index` on the NetOutput input desc).
//! * A subgraph Data node (`ascend.data` fed by argument i) has `parent_index = Some(i)`.
//! * `Output::consumers` is in GE's edge order; new edges are appended (GE's `AddEdge`).
//! * Control edges: `ctrl_in` / `ctrl_out` mirror each other.

use super::super::fast_hash::{FastMap, FastSet};
use super::super::interner::Interned;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;

/// Index of a node in [`MemGraph::nodes`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct NodeId(pub u32);

/// Index of a graph in [`MemGraph::graphs`]; `GraphId(0)` is the root graph.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct GraphId(pub u32);

/// The root graph.
pub const ROOT: GraphId = GraphId(0);

/// A producer side anchor: output `index` of `node`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct OutPort {
    pub node: NodeId,
    pub index: u32,
}

/// A consumer side anchor: input `index` of `node`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct InPort {
    pub node: NodeId,
    pub index: u32,
}

/// An interned port name. Equal names are equal symbols, so the ref rule is an integer compare.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Sym(u32);

/// The semantic questions the memory passes ask about a node. The dialect's op table answers
/// them (per type) and the node's attributes (per op); [`Sem::of_type`] is the built-in
/// fallback for GE's own type lists.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Sem {
    /// `Const`, `Constant`, `ConstPlaceHolder`: output type ReadOnlyConst (B.4 f).
    pub const_like: bool,
    /// `Variable`, `VariableV2`, `RefData`: output type Writeable (B.4 a).
    pub var_like: bool,
    /// `Data`, `RefData`, `AippData`, `AnnData` (B.4 b/c).
    pub data_like: bool,
    /// GE's `Data` itself: in a subgraph, the node an input of the parent enters through
    /// (GE compares the type with `DATA`: B.5, B.16, B.20).
    pub data: bool,
    /// `While`, `_While`, `StatelessWhile` (B.3 1, B.4 1).
    pub while_family: bool,
    /// `If`, `_If`, `StatelessIf`, `Case`, `StatelessCase` (B.16).
    pub conditional: bool,
    /// `PartitionedCall` (B.4 3, B.5, B.16).
    pub partitioned_call: bool,
    /// `Reshape`: a sibling HcclMemcpyPass ignores when its consumers only read shapes (B.15).
    pub reshape: bool,
    /// `HcomBroadcast`: HcclMemcpyPass writes its variable back with an Assign (B.15).
    pub broadcast: bool,
    /// `Assign` itself (B.15: an existing one makes the write-back unnecessary).
    pub assign: bool,
    /// The (original) type is `Cmo`: GraphLint ignores its inputs (B.20).
    pub cmo: bool,
    /// A `FrameworkOp` whose original type is `RefSwitch`: input 0 written, outputs
    /// writable (B.3 d, B.4 e).
    pub ref_switch: bool,
    /// `Shape`, `Rank`: only read the shape, never the bytes (B.15 exemption).
    pub shape_only: bool,
    /// `Identity`, `ReadVariableOp` (B.8-B.10).
    pub identity_like: bool,
    /// `Assign`, `AssignAdd`, `AssignSub`, `AssignVariableOp`, ... (B.10).
    pub assign_like: bool,
    /// HCCL collective (engine DNN_HCCL).
    pub hccl: bool,
    /// The op's kernel reports it atomic (GE's `OpInfo.isAtomic`; the HCCL engine does this).
    pub kernel_atomic: bool,
    /// `StreamMerge` (B.10: an Identity feeding it is kept).
    pub stream_merge: bool,
    /// The graph output (`func.return`).
    pub net_output: bool,
    /// `PhonyConcat`, `PhonySplit`: fake ref names, inputs are ReadOnly (B.3 b).
    pub phony: bool,
    /// `AtomicAddrClean`, `MemSet`: their control edges stay put on insertion (B.12).
    pub atomic_clean: bool,
    /// `Switch`, `RefSwitch`, `SwitchN`: out-control edges stay put on InsertNodeAfter (B.12).
    pub switch_like: bool,
    /// `LoopCond`: its graph is a loop graph (B.18).
    pub loop_cond: bool,
    /// `_input_mutable` = true: inputs are ScopeWriteable (B.3 a).
    pub input_mutable: bool,
    /// `_skip_rw_conflict` = true (set by HcclMemcpyPass, read by B.11).
    pub skip_rw_conflict: bool,
    /// `_cannot_be_deleted` = true (B.8 skips such nodes).
    pub cannot_be_deleted: bool,
    /// `reference` = true (written by MarkRefRelations, B.2).
    pub reference: bool,
    /// `continuous_input`.
    pub continuous_input: bool,
    /// `continuous_output`.
    pub continuous_output: bool,
    /// `_no_padding_continuous_input`.
    pub nopad_continuous_input: bool,
    /// `_no_padding_continuous_output`.
    pub nopad_continuous_output: bool,
    /// GE's `NodeUtils::IsDynamicShape`: the model is dynamic-shape partitioned (a property
    /// of the root graph that every node reports; see the IR layer's model builder).
    pub unknown_shape: bool,
    /// `_no_task` = true: the op generates no task (B.18: atomic producers feeding it clean
    /// themselves).
    pub no_task: bool,
    /// The op reads a fixed physical address (`StreamSwitch`, `LabelSwitchByIndex`): it can
    /// never refresh its IO addresses (B.19 `IsAddressRefreshable`) and gets the fixed-address
    /// mark in dynamic+static reuse mode (3.1.7 MarkSameAddrPass).
    pub fixed_address: bool,
    /// Ours, `_address_unrefreshable` = true: the op's kernel cannot refresh IO addresses (GE:
    /// ops of the custom kernel lib). HCCL ops are handled by the checkers, which know the
    /// feature-map option.
    pub address_unrefreshable: bool,
    /// `Merge` (V1 control flow) or `StreamMerge`: all inputs and output 0 share one symbol
    /// (GE `HandleMergeInput`).
    pub merge: bool,
    /// `_output_reuse_input` = true: with a no-padding continuous flag, every output shares
    /// input 0's memory (GE `IsNoPaddingRefFromInput`).
    pub output_reuse_input: bool,
    /// A plain copy (`Identity`, `Memcpy`, `MemcpyAsync`, `MemcpyAddrAsync`): the layout pass
    /// never puts another copy next to one (B.19 `IsSkipInsert`).
    pub copy_like: bool,
    /// `_is_unknown_shape = false` on a `PartitionedCall`: a known-shape partition of a
    /// dynamic model (B.18: user Data found inside is copied inside).
    pub known_shape_call: bool,
}

impl Sem {
    /// GE's built-in type lists (`OpTypeUtils` and the pass files), for models built without
    /// the op table (unit tests); the IR layer fills the flags from the table instead.
    /// Attribute-driven flags (`_input_mutable`, continuous flags, ...) are not type
    /// properties and stay false, and so do the flags that depend on a `FrameworkOp`'s
    /// original type (see [`Sem::of_framework_op`]).
    pub fn of_type(ty: &str) -> Sem {
        Sem {
            const_like: matches!(ty, "Const" | "Constant" | "ConstPlaceHolder"),
            var_like: matches!(ty, "Variable" | "VariableV2" | "RefData"),
            data_like: matches!(ty, "Data" | "RefData" | "AippData" | "AnnData"),
            data: ty == "Data",
            while_family: matches!(ty, "While" | "_While" | "StatelessWhile"),
            conditional: matches!(ty, "If" | "_If" | "StatelessIf" | "Case" | "StatelessCase"),
            partitioned_call: ty == "PartitionedCall",
            reshape: ty == "Reshape",
            broadcast: ty == "HcomBroadcast",
            assign: ty == "Assign",
            cmo: ty == "Cmo",
            shape_only: matches!(ty, "Shape" | "Rank"),
            identity_like: matches!(ty, "Identity" | "ReadVariableOp"),
            assign_like: matches!(
                ty,
                "Assign"
                    | "AssignAdd"
                    | "AssignSub"
                    | "AssignVariableOp"
                    | "AssignAddVariableOp"
                    | "AssignSubVariableOp"
            ),
            hccl: ty.starts_with("Hcom"),
            stream_merge: ty == "StreamMerge",
            net_output: ty == "NetOutput",
            phony: matches!(ty, "PhonyConcat" | "PhonySplit"),
            atomic_clean: matches!(ty, "AtomicAddrClean" | "MemSet"),
            switch_like: matches!(ty, "Switch" | "RefSwitch" | "SwitchN"),
            loop_cond: ty == "LoopCond",
            fixed_address: matches!(ty, "StreamSwitch" | "LabelSwitchByIndex"),
            merge: matches!(ty, "Merge" | "RefMerge" | "StreamMerge"),
            copy_like: matches!(
                ty,
                "Identity" | "Memcpy" | "MemcpyAsync" | "MemcpyAddrAsync"
            ),
            ..Sem::default()
        }
    }

    /// [`Sem::of_type`] for a `FrameworkOp` wrapping `original` (GE's `GetOriginalType`):
    /// the flags GE derives from the original type.
    pub fn of_framework_op(original: &str) -> Sem {
        Sem {
            cmo: original == "Cmo",
            ref_switch: original == "RefSwitch",
            ..Sem::of_type("FrameworkOp")
        }
    }
}

/// One input anchor of a node.
#[derive(Clone, Debug, Default)]
pub struct Input {
    /// GE input name; `None` for unnamed inputs (never ref, B.2).
    pub name: Option<Sym>,
    /// The producer, if connected.
    pub src: Option<OutPort>,
    /// `_special_input_size` on the input desc (B.3 2: > 0 makes it ScopeWriteable).
    pub special_input_size: i64,
    /// On a subgraph NetOutput input: `_parent_node_index`.
    pub parent_index: Option<u32>,
    /// The input tensor desc (the operand's type), interned (see [`MemGraph::tensor`]).
    pub tensor: TensorId,
    /// `_input_memory_type` entry of this input (runtime memory type, [`mem_type`]).
    pub mem_type: i64,
}

/// The consumer edges of an output. Most outputs feed one or two inputs: those live inline,
/// without a heap block of their own (the list takes a `Vec`'s 24 bytes either way).
pub type Consumers = smallvec::SmallVec<[InPort; 2]>;

/// A node's list of control edges or subgraphs: empty on most nodes, so it takes one word
/// and no heap block while empty (a `Vec` takes three words), and a `Vec` once it has an
/// entry. Reads go through the slice it dereferences to.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(clippy::box_collection)] // the box is the point: one word in the node while empty
pub struct IdList<T>(Option<Box<Vec<T>>>);

impl<T> Default for IdList<T> {
    fn default() -> Self {
        IdList(None)
    }
}

impl<T> IdList<T> {
    pub fn push(&mut self, x: T) {
        self.0.get_or_insert_with(Box::default).push(x);
    }

    /// `Vec::swap_remove`.
    pub fn swap_remove(&mut self, index: usize) -> T {
        let list = self.0.as_mut().expect("swap_remove on an empty list");
        let x = list.swap_remove(index);
        if list.is_empty() {
            self.0 = None;
        }
        x
    }
}

impl<T> std::ops::Deref for IdList<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }
}

impl<T> std::ops::DerefMut for IdList<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.0.as_deref_mut().map_or(&mut [], Vec::as_mut_slice)
    }
}

impl<T> IntoIterator for IdList<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.map_or_else(Vec::new, |v| *v).into_iter()
    }
}

impl<'a, T> IntoIterator for &'a IdList<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: PartialEq> PartialEq<Vec<T>> for IdList<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        **self == other[..]
    }
}

impl<T> FromIterator<T> for IdList<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let v: Vec<T> = iter.into_iter().collect();
        IdList((!v.is_empty()).then(|| Box::new(v)))
    }
}

/// One output anchor of a node.
#[derive(Clone, Debug, Default)]
pub struct Output {
    /// GE output name; `None` for unnamed outputs.
    pub name: Option<Sym>,
    /// Consumer inputs in GE's edge order.
    pub consumers: Consumers,
    /// `ref_var_src_var_name` on the output desc: the variable (node name) this output aliases
    /// (B.18: such atomic ops clean themselves; B.19: REFERENCE_OUTPUT).
    pub ref_var_src: Option<Sym>,
    /// The output tensor desc (the result's type), interned (see [`MemGraph::tensor`]).
    pub tensor: TensorId,
    /// `_output_memory_type` entry of this output (runtime memory type, [`mem_type`]).
    pub mem_type: i64,
    /// GE's `reuse_input` / `reuse_input_index` on the output desc (`reuse_input_index` attr
    /// here): the output shares the memory of that input (GE `IsRefFromInput`).
    pub reuse_input: Option<u32>,
    /// `_inplace_support_input_index` on output 0 (InplaceSupportCheckPass, B.17): the input
    /// whose memory this output may reuse.
    pub inplace_input: Option<u32>,
}

/// GE data type of a tensor: the element type of the MLIR tensor type.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum DType {
    F16,
    F32,
    F64,
    BF16,
    /// `i1` (GE `DT_BOOL`, one byte).
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    /// Any other element type (index, complex, float8, ...): no GE size.
    #[default]
    Other,
}

impl DType {
    /// Bytes per element (GE `GetDataTypeLength`); `None` for [`DType::Other`].
    pub fn size(self) -> Option<i64> {
        use DType::*;
        Some(match self {
            Bool | I8 | U8 => 1,
            F16 | BF16 | I16 | U16 => 2,
            F32 | I32 | U32 => 4,
            F64 | I64 | U64 => 8,
            Other => return None,
        })
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use DType::*;
        f.write_str(match self {
            F16 => "f16",
            F32 => "f32",
            F64 => "f64",
            BF16 => "bf16",
            Bool => "bool",
            I8 => "i8",
            I16 => "i16",
            I32 => "i32",
            I64 => "i64",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            Other => "other",
        })
    }
}

/// GE's unknown dimension (`UNKNOWN_DIM`).
pub const UNKNOWN_DIM: i64 = -1;

/// GE's memory alignment unit (`kDataMemAlignSize`).
pub const MEM_ALIGN: i64 = 32;

/// What the memory passes know about one tensor desc (port): dtype, dims, byte size. Interned
/// in the model ([`MemGraph::intern_tensor`]), since a graph has few distinct tensor types and every port
/// names one.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct TensorDesc {
    pub dtype: DType,
    /// `None`: unranked (GE `UNKNOWN_RANK`); an entry [`UNKNOWN_DIM`]: a dynamic dimension.
    pub dims: Option<Box<[i64]>>,
}

impl TensorDesc {
    pub fn new(dtype: DType, dims: Option<Vec<i64>>) -> TensorDesc {
        TensorDesc {
            dtype,
            dims: dims.map(Vec::into_boxed_slice),
        }
    }

    /// GE `GeShape::IsUnknownShape`: unranked or some dynamic dimension.
    pub fn is_unknown_shape(&self) -> bool {
        self.dims.as_ref().is_none_or(|d| d.iter().any(|&x| x < 0))
    }

    /// Number of elements (1 for a scalar); `None` for an unknown shape or on overflow.
    pub fn element_count(&self) -> Option<i64> {
        if self.is_unknown_shape() {
            return None;
        }
        let dims = self.dims.as_ref()?;
        dims.iter().try_fold(1i64, |acc, &d| acc.checked_mul(d))
    }

    /// GE `TensorUtils::GetTensorMemorySizeInBytes`, the size the memory passes compare:
    /// elements × dtype size, then `((size + 2·32 − 1) / 32) · 32` (rounded up to 32 bytes with
    /// 32 bytes of slack, so even an empty tensor takes 32). Format is ND (this IR has no
    /// private formats). `None` when the shape is unknown, the dtype has no GE size, or the
    /// size overflows.
    pub fn byte_size(&self) -> Option<i64> {
        let raw = self.element_count()?.checked_mul(self.dtype.size()?)?;
        let padded = raw.checked_add(2 * MEM_ALIGN - 1)?;
        Some(padded / MEM_ALIGN * MEM_ALIGN)
    }
}

impl fmt::Display for TensorDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[", self.dtype)?;
        match &self.dims {
            None => f.write_str("*")?,
            Some(dims) => {
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    if *d < 0 {
                        f.write_str("?")?;
                    } else {
                        write!(f, "{d}")?;
                    }
                }
            }
        }
        f.write_str("]")
    }
}

/// Index of an interned [`TensorDesc`]. `TensorId::UNKNOWN` (the default) is an unranked
/// tensor of unknown dtype: what a port built without type information gets.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct TensorId(pub u32);

impl TensorId {
    pub const UNKNOWN: TensorId = TensorId(0);
}

/// The runtime's memory types (`rtMemType_t`), as GE stores them in `_input_memory_type` /
/// `_output_memory_type`.
pub mod mem_type {
    /// `RT_MEMORY_DEFAULT`: no entry.
    pub const DEFAULT: i64 = 0x0;
    /// `RT_MEMORY_DDR`.
    pub const DDR: i64 = 0x1;
    /// `RT_MEMORY_HBM`.
    pub const HBM: i64 = 0x2;
    /// `RT_MEMORY_P2P_HBM`.
    pub const P2P_HBM: i64 = 0x10;
    /// `RT_MEMORY_P2P_DDR`.
    pub const P2P_DDR: i64 = 0x11;
    /// `RT_MEMORY_TS`.
    pub const TS: i64 = 0x40;

    /// GE `MemTypeUtils::IsMemoryTypeSpecial`: anything but default, HBM or DDR (P2P, TS,
    /// ...): the anchor is RTS_SPECIAL_TYPE (B.19).
    pub fn is_special(t: i64) -> bool {
        !matches!(t, DEFAULT | HBM | DDR)
    }

    /// A P2P memory type (HcclContinuousMemcpyPass, 3.1.2).
    pub fn is_p2p(t: i64) -> bool {
        matches!(t, P2P_HBM | P2P_DDR)
    }
}

/// Atomic attributes of a node (`atomic_input_index`, `atomic_output_index`, workspace).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Atomic {
    /// `atomic_input_index` is present.
    pub input: bool,
    /// `atomic_output_index`: the outputs that are written atomically.
    pub outputs: Vec<u32>,
    /// The atomic workspace info is non-empty.
    pub workspace: bool,
}

/// Which pass inserted a node. The IR must keep it on the op (`ascend.inserted_by = "<pass
/// flag>"`) and fill it back in: SubgraphIsolate recognises its own copies by it (so a second
/// run adds nothing) and HcclMemcpy ignores its own Identities as siblings.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Origin {
    HcclMemcpy,
    HcclContinuousMemcpy,
    SubgraphIsolate,
    AtomicAddrClean,
    RwConflict,
    InplaceSupportCheck,
    MemLayoutConflict,
    MemcpyAddrAsync,
    MarkSameAddr,
}

impl Origin {
    /// All origins.
    pub const ALL: [Origin; 9] = [
        Origin::HcclMemcpy,
        Origin::HcclContinuousMemcpy,
        Origin::SubgraphIsolate,
        Origin::AtomicAddrClean,
        Origin::RwConflict,
        Origin::InplaceSupportCheck,
        Origin::MemLayoutConflict,
        Origin::MemcpyAddrAsync,
        Origin::MarkSameAddr,
    ];

    /// Parse a pass flag back (the IR stores it in `ascend.inserted_by`).
    pub fn from_pass_name(s: &str) -> Option<Origin> {
        Origin::ALL.into_iter().find(|o| o.pass_name() == s)
    }

    /// The pass flag, as `ge-opt` spells it.
    pub fn pass_name(self) -> &'static str {
        match self {
            Origin::HcclMemcpy => "hccl-memcpy",
            Origin::HcclContinuousMemcpy => "hccl-continuous-memcpy",
            Origin::SubgraphIsolate => "subgraph-isolate",
            Origin::AtomicAddrClean => "atomic-addr-clean",
            Origin::RwConflict => "mem-rw-conflict",
            Origin::InplaceSupportCheck => "inplace-support-check",
            Origin::MemLayoutConflict => "mem-layout-conflict",
            Origin::MemcpyAddrAsync => "memcpy-addr-async",
            Origin::MarkSameAddr => "mark-same-addr",
        }
    }
}

/// A node (a GE op).
///
/// A model holds one per op and every memory pass builds one, so a node keeps few heap
/// blocks: the type is a shared copy ([`Interned`]), the name is an exact-size box, and a
/// consumer list of up to two edges lives inline ([`Consumers`]). At a million ops every
/// byte and block here is a fresh page touched per pass.
#[derive(Clone, Debug)]
pub struct Node {
    /// The `name` attribute (unique in the module).
    pub name: Box<str>,
    /// GE type (`Identity`, `HcomAllReduce`, ...), one copy shared by the nodes of a model
    /// build ([`crate::analysis::interner`]).
    pub ty: Interned,
    /// The graph the node lives in.
    pub graph: GraphId,
    pub sem: Sem,
    pub inputs: Vec<Input>,
    pub outputs: Vec<Output>,
    /// Sources of control edges into this node.
    pub ctrl_in: IdList<NodeId>,
    /// Targets of control edges out of this node.
    pub ctrl_out: IdList<NodeId>,
    /// Subgraphs referenced by this node, in the parent's order.
    pub subgraphs: IdList<GraphId>,
    /// On a subgraph Data: `_parent_node_index`.
    pub parent_index: Option<u32>,
    /// On a `FrameworkOp`: `original_type` (B.3 d, B.4 e, B.20 Cmo).
    pub original_type: Option<Box<str>>,
    /// Atomic attributes, if any.
    pub atomic: Option<Box<Atomic>>,
    /// The pass that inserted this node (None for nodes of the input graph).
    pub origin: Option<Origin>,
    /// Why the node was inserted (the `ascend.reason` attribute).
    pub reason: Option<Box<str>>,
    /// `_alloc_fixed_addr_index` (MarkSameAddrPass, 3.1.7): the output that must keep a
    /// fixed address.
    pub fixed_addr_output: Option<u32>,
    /// Erased by an edit; kept in the arena so ids stay stable.
    pub removed: bool,
}

impl Node {
    /// The GE type, or the `original_type` of a `FrameworkOp` (GE's `GetOriginalType`).
    pub fn effective_type(&self) -> &str {
        match (&self.original_type, self.ty.as_str()) {
            (Some(t), "FrameworkOp") => t,
            (_, ty) => ty,
        }
    }

    /// Number of consumer edges of output `o` (GE counts edges, not distinct nodes).
    pub fn consumer_count(&self, o: u32) -> usize {
        self.outputs
            .get(o as usize)
            .map_or(0, |out| out.consumers.len())
    }

    /// Total number of data consumer edges over all outputs.
    pub fn out_data_edges(&self) -> usize {
        self.outputs.iter().map(|o| o.consumers.len()).sum()
    }
}

/// One bit per node: does it own a subgraph ([`MemGraph::parent_mask`]).
struct ParentMask(Vec<u64>);

impl ParentMask {
    fn has(&self, n: NodeId) -> bool {
        self.0
            .get(n.0 as usize / 64)
            .is_some_and(|word| word & (1 << (n.0 % 64)) != 0)
    }
}

/// Where a new node goes in its graph's order.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Placement {
    /// First node of the graph (GE's `AddNodeFront`).
    Head,
    /// Right before an existing node.
    Before(NodeId),
    /// Right after an existing node.
    After(NodeId),
}

/// A graph: the root or a subgraph.
#[derive(Clone, Debug)]
pub struct Graph {
    /// Graph name (the func symbol).
    pub name: String,
    /// The node that references this subgraph (`None` for the root).
    pub parent: Option<NodeId>,
    /// GE's graph unknown-shape flag.
    pub unknown_shape: bool,
    /// Nodes in a topological order (materialised: see [`MemGraph::normalize`]).
    pub order: Vec<NodeId>,
    /// The NetOutput node, if any.
    pub net_output: Option<NodeId>,
    pending: Vec<(Placement, NodeId)>,
}

/// The whole model: all graphs and all nodes.
#[derive(Clone, Debug, Default)]
pub struct MemGraph {
    /// The graphs, root first. Change a graph's order or parent through
    /// [`MemGraph::graph_mut`]: the whole-model walks are kept until it is called.
    pub graphs: Vec<Graph>,
    /// The nodes by id. A node's subgraph list changes only through
    /// [`MemGraph::add_subgraph`], for the same reason.
    pub nodes: Vec<Node>,
    syms: Vec<Box<str>>,
    sym_index: HashMap<Box<str>, Sym>,
    /// Interned tensor descs; entry 0 is [`TensorId::UNKNOWN`] (see [`MemGraph::tensor`]).
    tensors: Vec<TensorDesc>,
    tensor_index: HashMap<TensorDesc, TensorId>,
    /// Hashes of the node names, built on the first `fresh_name` (8 bytes a node, not a
    /// copy of every name).
    name_hashes: Option<HashSet<u64>>,
    /// The suffix `fresh_name` last returned per base name: every smaller suffix was taken
    /// then, and `name_hashes` only grows, so the next search starts there (a pass naming
    /// thousands of copies after one base tried every suffix again each time).
    name_suffix: HashMap<Box<str>, u32>,
    /// Graphs with pending insertions or removals, so [`MemGraph::normalize`] costs nothing
    /// for untouched graphs (a model can hold thousands of subgraphs, and planners
    /// normalise after every graph they process).
    dirty: Vec<GraphId>,
    /// Bumped by every change that can move a node in a graph's order or change which
    /// subgraphs hang where (see [`MemGraph::graph_mut`]); [`Walks`] are valid for one value.
    structure: u64,
    walks: RefCell<Walks>,
}

/// The whole-model walks in GE order, kept while the structure they were taken on lasts.
/// The memory pipeline asks for them a dozen times between two changes (every planner
/// builds its facts from them), and on a model of a million nodes and a hundred thousand
/// subgraphs each walk was a chain of cache misses through graphs, order lists and
/// subgraph lists.
#[derive(Clone, Debug, Default)]
struct Walks {
    /// The [`MemGraph::structure`] the entries below were taken at.
    at: u64,
    all_nodes: Option<Vec<NodeId>>,
    all_subgraphs: Option<Vec<GraphId>>,
}

/// An error of a memory pass, located at a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemError {
    /// The node the error is about (for the MLIR location), if any.
    pub node: Option<NodeId>,
    pub message: String,
}

impl MemError {
    pub fn at(g: &MemGraph, node: NodeId, message: impl Into<String>) -> MemError {
        MemError {
            node: Some(node),
            message: format!("node '{}': {}", g.node(node).name, message.into()),
        }
    }

    pub fn global(message: impl Into<String>) -> MemError {
        MemError {
            node: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for MemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for MemError {}

impl MemGraph {
    /// An empty model whose root graph is called `root_name`.
    pub fn new(root_name: &str) -> MemGraph {
        let mut g = MemGraph::default();
        g.graphs.push(Graph {
            name: root_name.to_string(),
            parent: None,
            unknown_shape: false,
            order: Vec::new(),
            net_output: None,
            pending: Vec::new(),
        });
        g
    }

    // ----- queries -------------------------------------------------------------------------

    pub fn node(&self, n: NodeId) -> &Node {
        &self.nodes[n.0 as usize]
    }

    pub fn node_mut(&mut self, n: NodeId) -> &mut Node {
        &mut self.nodes[n.0 as usize]
    }

    pub fn graph(&self, g: GraphId) -> &Graph {
        &self.graphs[g.0 as usize]
    }

    /// A graph to change. Any change may touch its order (or its parent), so the cached
    /// whole-model walks ([`MemGraph::all_nodes`], [`MemGraph::all_subgraphs`]) are
    /// dropped; the model's own mutators go through here or drop them themselves.
    pub fn graph_mut(&mut self, g: GraphId) -> &mut Graph {
        self.structure += 1;
        &mut self.graphs[g.0 as usize]
    }

    /// Intern a port name.
    pub fn sym(&mut self, s: &str) -> Sym {
        if let Some(&k) = self.sym_index.get(s) {
            return k;
        }
        let k = Sym(self.syms.len() as u32);
        self.syms.push(s.into());
        self.sym_index.insert(s.into(), k);
        k
    }

    /// The text of an interned name.
    pub fn sym_str(&self, s: Sym) -> &str {
        &self.syms[s.0 as usize]
    }

    /// Intern a tensor desc.
    pub fn intern_tensor(&mut self, desc: TensorDesc) -> TensorId {
        if self.tensors.is_empty() {
            self.tensors.push(TensorDesc::default());
            self.tensor_index
                .insert(TensorDesc::default(), TensorId::UNKNOWN);
        }
        if let Some(&id) = self.tensor_index.get(&desc) {
            return id;
        }
        let id = TensorId(self.tensors.len() as u32);
        self.tensors.push(desc.clone());
        self.tensor_index.insert(desc, id);
        id
    }

    /// An interned tensor desc ([`TensorId::UNKNOWN`]: unranked, unknown dtype).
    pub fn tensor(&self, id: TensorId) -> &TensorDesc {
        static UNKNOWN: TensorDesc = TensorDesc {
            dtype: DType::Other,
            dims: None,
        };
        self.tensors.get(id.0 as usize).unwrap_or(&UNKNOWN)
    }

    /// The tensor desc of output `o` of `n`.
    pub fn out_tensor(&self, p: OutPort) -> &TensorDesc {
        self.tensor(self.node(p.node).outputs[p.index as usize].tensor)
    }

    /// The tensor desc of input `i` of `n`.
    pub fn in_tensor(&self, p: InPort) -> &TensorDesc {
        self.tensor(self.node(p.node).inputs[p.index as usize].tensor)
    }

    /// The producer feeding input `i` of `n`.
    pub fn src(&self, n: NodeId, i: u32) -> Option<OutPort> {
        self.node(n).inputs.get(i as usize).and_then(|x| x.src)
    }

    /// Consumers of output `o` of `n`, in edge order.
    pub fn consumers(&self, n: NodeId, o: u32) -> &[InPort] {
        self.node(n)
            .outputs
            .get(o as usize)
            .map_or(&[], |x| x.consumers.as_slice())
    }

    /// The parent node of the graph `n` lives in.
    pub fn parent_of(&self, n: NodeId) -> Option<NodeId> {
        self.graph(self.node(n).graph).parent
    }

    /// A Data node of a subgraph (GE's `IsSubgraphInputNode`: Data whose graph has a parent).
    pub fn is_subgraph_data(&self, n: NodeId) -> bool {
        let node = self.node(n);
        node.sem.data && self.graph(node.graph).parent.is_some()
    }

    /// A NetOutput of a subgraph (GE's `IsSubgraphOutputNode`).
    pub fn is_subgraph_net_output(&self, n: NodeId) -> bool {
        let node = self.node(n);
        node.sem.net_output && self.graph(node.graph).parent.is_some()
    }

    /// Whether the node sits directly in a subgraph of a While-family node.
    pub fn in_while_subgraph(&self, n: NodeId) -> bool {
        self.parent_of(n)
            .is_some_and(|p| self.node(p).sem.while_family)
    }

    /// The node named `name` (linear scan; for tests and diagnostics).
    pub fn find(&self, name: &str) -> Option<NodeId> {
        self.nodes
            .iter()
            .position(|n| !n.removed && *n.name == *name)
            .map(|i| NodeId(i as u32))
    }

    /// All subgraphs in GE's `GetAllSubgraphs` order: a depth-first pre-order over the root's
    /// nodes, so a parent's subgraphs come before the subgraphs nested in them. Reverse it for
    /// innermost-first (B.5).
    pub fn all_subgraphs(&self) -> Vec<GraphId> {
        self.cached(
            |w| &mut w.all_subgraphs,
            || {
                let mut out = Vec::with_capacity(self.graphs.len().saturating_sub(1));
                if self.graphs.len() > 1 {
                    self.collect_subgraphs(ROOT, &self.parent_mask(), &mut out);
                }
                out
            },
        )
    }

    /// A whole-model walk from the cache, or taken by `walk` and kept (see [`Walks`]). Debug
    /// builds take the walk anyway and check the cached one against it, so a mutation that
    /// bypassed [`MemGraph::graph_mut`] fails the tests instead of going stale silently.
    fn cached<T: Clone + PartialEq + fmt::Debug>(
        &self,
        slot: fn(&mut Walks) -> &mut Option<T>,
        walk: impl FnOnce() -> T,
    ) -> T {
        let mut walks = self.walks.borrow_mut();
        if walks.at != self.structure {
            *walks = Walks {
                at: self.structure,
                ..Walks::default()
            };
        }
        if let Some(kept) = slot(&mut walks) {
            let kept = kept.clone();
            drop(walks);
            debug_assert_eq!(kept, walk(), "a cached walk of the memory model went stale");
            return kept;
        }
        let fresh = walk();
        *slot(&mut walks) = Some(fresh.clone());
        fresh
    }

    fn collect_subgraphs(&self, g: GraphId, parents: &ParentMask, out: &mut Vec<GraphId>) {
        for &n in &self.graph(g).order {
            if parents.has(n) {
                for &sg in &self.node(n).subgraphs {
                    out.push(sg);
                    self.collect_subgraphs(sg, parents, out);
                }
            }
        }
    }

    /// All nodes in GE's `GetAllNodes` order: each graph in order, a node with subgraphs
    /// followed by the nodes of its subgraphs (recursively).
    pub fn all_nodes(&self) -> Vec<NodeId> {
        self.cached(
            |w| &mut w.all_nodes,
            || {
                let mut out = Vec::with_capacity(self.nodes.len());
                self.collect_nodes(ROOT, Some(&self.parent_mask()), &mut out);
                out
            },
        )
    }

    /// GE's `GetAllNodes` of graph `g`: its nodes, each followed by the nodes of its subgraphs
    /// (recursively).
    ///
    /// A subgraph is walked without the mask: its own nodes are few, and building the
    /// mask (a pass over every graph of the model) for each of thousands of subgraphs
    /// would cost (subgraphs x graphs).
    pub fn all_nodes_of(&self, g: GraphId) -> Vec<NodeId> {
        if g == ROOT {
            return self.all_nodes();
        }
        let mut out = Vec::new();
        self.collect_nodes(g, None, &mut out);
        out
    }

    /// `parents`: the mask of subgraph owners, or `None` to look at every node.
    fn collect_nodes(&self, g: GraphId, parents: Option<&ParentMask>, out: &mut Vec<NodeId>) {
        for &n in &self.graph(g).order {
            out.push(n);
            if parents.is_none_or(|mask| mask.has(n)) {
                for &sg in &self.node(n).subgraphs {
                    self.collect_nodes(sg, parents, out);
                }
            }
        }
    }

    /// The nodes that own a subgraph. The walks above read only the graphs' order lists
    /// and this mask, and look at a node itself only when it owns a subgraph: at a
    /// million nodes, reading each node's subgraph list cost one cache miss per node, on
    /// every walk of every planner.
    fn parent_mask(&self) -> ParentMask {
        let mut mask = ParentMask(vec![0; self.nodes.len().div_ceil(64)]);
        for g in &self.graphs {
            if let Some(p) = g.parent {
                mask.0[p.0 as usize / 64] |= 1 << (p.0 % 64);
            }
        }
        debug_assert!(
            self.nodes
                .iter()
                .enumerate()
                .all(|(i, n)| n.subgraphs.is_empty() || mask.has(NodeId(i as u32))),
            "a node lists a subgraph whose parent is another node"
        );
        mask
    }

    /// Position of each node in its graph's order (`u32::MAX` for removed nodes). Requires a
    /// normalised model.
    pub fn topo_index(&self) -> Vec<u32> {
        let mut idx = vec![u32::MAX; self.nodes.len()];
        for g in &self.graphs {
            for (i, &n) in g.order.iter().enumerate() {
                idx[n.0 as usize] = i as u32;
            }
        }
        idx
    }

    // ----- building ------------------------------------------------------------------------

    /// Add a subgraph referenced by `parent` (appended to the parent's subgraph list).
    pub fn add_subgraph(&mut self, name: &str, parent: NodeId) -> GraphId {
        let id = GraphId(self.graphs.len() as u32);
        self.structure += 1;
        self.graphs.push(Graph {
            name: name.to_string(),
            parent: Some(parent),
            unknown_shape: false,
            order: Vec::new(),
            net_output: None,
            pending: Vec::new(),
        });
        self.node_mut(parent).subgraphs.push(id);
        id
    }

    /// Append a node to `graph` (the caller adds nodes in a topological order). Port names
    /// equal to `""` are unnamed. Flags start from [`Sem::of_type`]. The node gets a copy of
    /// `ty` of its own: nodes added by hand or inserted by a planner are few, builders share
    /// one copy per type with [`MemGraph::add_node_syms`].
    pub fn add_node(
        &mut self,
        graph: GraphId,
        name: &str,
        ty: &str,
        inputs: &[&str],
        outputs: &[&str],
    ) -> NodeId {
        let id = self.push_node(graph, name, ty, inputs, outputs);
        self.graph_mut(graph).order.push(id);
        id
    }

    /// [`MemGraph::add_node`] with the type shared ([`Interned`]), the flags and the port
    /// names (`None`: unnamed) known already, for builders that meet the same op shape many
    /// times.
    pub fn add_node_syms(
        &mut self,
        graph: GraphId,
        name: &str,
        ty: Interned,
        sem: Sem,
        inputs: &[Option<Sym>],
        outputs: &[Option<Sym>],
    ) -> NodeId {
        let inputs = inputs
            .iter()
            .map(|&name| Input {
                name,
                ..Input::default()
            })
            .collect();
        let outputs = outputs
            .iter()
            .map(|&name| Output {
                name,
                ..Output::default()
            })
            .collect();
        let id = self.push_ports(graph, name, ty, sem, inputs, outputs);
        self.graph_mut(graph).order.push(id);
        id
    }

    fn push_node(
        &mut self,
        graph: GraphId,
        name: &str,
        ty: &str,
        inputs: &[&str],
        outputs: &[&str],
    ) -> NodeId {
        let inputs = inputs
            .iter()
            .map(|s| Input {
                name: (!s.is_empty()).then(|| self.sym(s)),
                ..Input::default()
            })
            .collect();
        let outputs = outputs
            .iter()
            .map(|s| Output {
                name: (!s.is_empty()).then(|| self.sym(s)),
                ..Output::default()
            })
            .collect();
        self.push_ports(
            graph,
            name,
            Interned::from(ty),
            Sem::of_type(ty),
            inputs,
            outputs,
        )
    }

    fn push_ports(
        &mut self,
        graph: GraphId,
        name: &str,
        ty: Interned,
        sem: Sem,
        inputs: Vec<Input>,
        outputs: Vec<Output>,
    ) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node {
            name: name.into(),
            ty,
            graph,
            sem,
            inputs,
            outputs,
            ctrl_in: IdList::default(),
            ctrl_out: IdList::default(),
            subgraphs: IdList::default(),
            parent_index: None,
            original_type: None,
            atomic: None,
            origin: None,
            reason: None,
            fixed_addr_output: None,
            removed: false,
        });
        if let Some(set) = &mut self.name_hashes {
            set.insert(name_hash(name));
        }
        id
    }

    /// Add a Data node to subgraph `graph` for parent input `index`.
    pub fn add_subgraph_data(&mut self, graph: GraphId, name: &str, index: u32) -> NodeId {
        let d = self.add_node(graph, name, "Data", &["x"], &["y"]);
        self.node_mut(d).parent_index = Some(index);
        d
    }

    /// Add the NetOutput of `graph` with `n` unnamed inputs (parent indices 0..n in a
    /// subgraph). Add it last.
    pub fn add_net_output(&mut self, graph: GraphId, name: &str, n: usize) -> NodeId {
        let names: Vec<&str> = vec![""; n];
        let id = self.add_node(graph, name, "NetOutput", &names, &[]);
        if self.graph(graph).parent.is_some() {
            for (j, inp) in self.node_mut(id).inputs.iter_mut().enumerate() {
                inp.parent_index = Some(j as u32);
            }
        }
        self.graph_mut(graph).net_output = Some(id);
        id
    }

    /// Data edge `from:out -> to:input` (appended to the producer's consumer list).
    pub fn connect(&mut self, from: NodeId, out: u32, to: NodeId, input: u32) {
        self.set_src(
            InPort {
                node: to,
                index: input,
            },
            Some(OutPort {
                node: from,
                index: out,
            }),
        );
    }

    /// Whether the control edge `from -> to` exists. Scans the shorter of the two lists: a
    /// head AtomicAddrClean can have a control edge to a large part of the graph.
    pub fn has_ctrl(&self, from: NodeId, to: NodeId) -> bool {
        let (a, b) = (self.node(from), self.node(to));
        if a.ctrl_out.len() <= b.ctrl_in.len() {
            a.ctrl_out.contains(&to)
        } else {
            b.ctrl_in.contains(&from)
        }
    }

    /// Control edge `from -> to` (no duplicates, no self loops).
    pub fn add_ctrl(&mut self, from: NodeId, to: NodeId) -> bool {
        if from == to || self.has_ctrl(from, to) {
            return false;
        }
        self.node_mut(from).ctrl_out.push(to);
        self.node_mut(to).ctrl_in.push(from);
        true
    }

    /// Control edges from a node that has none yet (a node just inserted) to `targets`,
    /// skipping duplicates; O(targets) instead of a membership scan per edge.
    pub fn add_ctrl_from_new(&mut self, from: NodeId, targets: &[NodeId]) {
        let mut seen = HashSet::with_capacity(targets.len());
        for &t in targets {
            if t != from && seen.insert(t) && !self.node(t).ctrl_in.contains(&from) {
                self.node_mut(from).ctrl_out.push(t);
                self.node_mut(t).ctrl_in.push(from);
            }
        }
    }

    /// Remove the control edge `from -> to` if present.
    pub fn remove_ctrl(&mut self, from: NodeId, to: NodeId) {
        // Edges are unique; control-edge order carries no meaning, so swap_remove.
        let out = &mut self.node_mut(from).ctrl_out;
        if let Some(k) = out.iter().rposition(|&x| x == to) {
            out.swap_remove(k);
        }
        let inn = &mut self.node_mut(to).ctrl_in;
        if let Some(k) = inn.iter().rposition(|&x| x == from) {
            inn.swap_remove(k);
        }
    }

    /// Point input `inp` at `src` (or disconnect it), keeping consumer lists in sync.
    pub fn set_src(&mut self, inp: InPort, src: Option<OutPort>) {
        if let Some(old) = self.node(inp.node).inputs[inp.index as usize].src {
            let list = &mut self.node_mut(old.node).outputs[old.index as usize].consumers;
            if let Some(pos) = list.iter().position(|&c| c == inp) {
                list.remove(pos);
            }
        }
        self.node_mut(inp.node).inputs[inp.index as usize].src = src;
        if let Some(s) = src {
            self.node_mut(s.node).outputs[s.index as usize]
                .consumers
                .push(inp);
        }
    }

    /// Create a node at `placement` in `graph`. The order is materialised by
    /// [`MemGraph::normalize`]; until then `Graph::order` does not list it.
    pub fn insert_node(
        &mut self,
        graph: GraphId,
        name: &str,
        ty: &str,
        inputs: &[&str],
        outputs: &[&str],
        placement: Placement,
    ) -> NodeId {
        let id = self.push_node(graph, name, ty, inputs, outputs);
        self.mark_pending(graph, (placement, id));
        id
    }

    /// Erase a node: disconnect its inputs, drop its control edges, and mark it removed. Its
    /// outputs must have no consumers left.
    pub fn remove_node(&mut self, n: NodeId) -> Result<(), MemError> {
        if self.node(n).out_data_edges() > 0 {
            return Err(MemError::at(
                self,
                n,
                "cannot remove a node that still has consumers",
            ));
        }
        for i in 0..self.node(n).inputs.len() {
            self.set_src(
                InPort {
                    node: n,
                    index: i as u32,
                },
                None,
            );
        }
        for s in self.node(n).ctrl_in.clone() {
            self.remove_ctrl(s, n);
        }
        for t in self.node(n).ctrl_out.clone() {
            self.remove_ctrl(n, t);
        }
        self.node_mut(n).removed = true;
        let g = self.node(n).graph;
        self.mark_pending(g, (Placement::Head, n));
        Ok(())
    }

    /// Forgets what [`Self::fresh_name`] learnt (the names of nodes since removed among
    /// them), so the next search sees the nodes there are now, as a freshly read model does.
    pub fn reset_name_search(&mut self) {
        self.name_hashes = None;
        self.name_suffix.clear();
    }

    /// A node name not used yet: `base`, else `base_1`, `base_2`, ... (A hash collision only
    /// makes a free name look taken, which is harmless.)
    pub fn fresh_name(&mut self, base: &str) -> String {
        if self.name_hashes.is_none() {
            self.name_hashes = Some(self.nodes.iter().map(|n| name_hash(&n.name)).collect());
        }
        let set = self.name_hashes.as_ref().expect("built above");
        if !set.contains(&name_hash(base)) {
            return base.to_string();
        }
        let first = self.name_suffix.get(base).copied().unwrap_or(1);
        let (k, name) = (first..)
            .map(|k| (k, format!("{base}_{k}")))
            .find(|(_, c)| !set.contains(&name_hash(c)))
            .expect("an unused suffix exists");
        match self.name_suffix.get_mut(base) {
            Some(last) => *last = k,
            None => {
                self.name_suffix.insert(base.into(), k);
            }
        }
        name
    }

    fn mark_pending(&mut self, graph: GraphId, entry: (Placement, NodeId)) {
        let pending = &mut self.graph_mut(graph).pending;
        if pending.is_empty() {
            self.dirty.push(graph);
        }
        self.graph_mut(graph).pending.push(entry);
    }

    /// Materialise pending insertions and removals into `Graph::order`. If an insertion left
    /// the order non-topological (an anchor choice that cannot satisfy every edge), the graph
    /// is re-sorted stably by the old positions. O(nodes) per touched graph.
    pub fn normalize(&mut self) {
        if !self.dirty.is_empty() {
            self.structure += 1;
        }
        let mut dirty = std::mem::take(&mut self.dirty);
        dirty.sort_unstable();
        dirty.dedup();
        for gi in dirty.into_iter().map(|g| g.0 as usize) {
            if self.graphs[gi].pending.is_empty() {
                continue;
            }
            let pending = std::mem::take(&mut self.graphs[gi].pending);
            let mut head = Vec::new();
            let mut before: FastMap<NodeId, Vec<NodeId>> = FastMap::default();
            let mut after: FastMap<NodeId, Vec<NodeId>> = FastMap::default();
            for (p, n) in pending {
                if self.node(n).removed {
                    continue;
                }
                match p {
                    Placement::Head => head.push(n),
                    Placement::Before(a) => before.entry(a).or_default().push(n),
                    Placement::After(a) => after.entry(a).or_default().push(n),
                }
            }
            // "Right after X" and "at the head" put the newest insertion closest to the
            // anchor, exactly as inserting one at a time would (and as an MLIR builder set
            // after an op does); "right before X" keeps insertion order.
            head.reverse();
            after.values_mut().for_each(|v| v.reverse());
            let old = std::mem::take(&mut self.graphs[gi].order);
            let mut out = Vec::with_capacity(old.len() + head.len());
            for n in head {
                self.emit(n, &mut before, &mut after, &mut out);
            }
            for n in old {
                self.emit(n, &mut before, &mut after, &mut out);
            }
            // Anchors that were themselves removed: place their dependents in any case.
            let rest: Vec<NodeId> = before
                .drain()
                .chain(after.drain())
                .flat_map(|(_, v)| v)
                .collect();
            for n in rest {
                if !self.node(n).removed {
                    out.push(n);
                }
            }
            out.retain(|&n| !self.node(n).removed);
            if !self.is_topological(&out) {
                out = self.stable_topo_sort(&out);
            }
            self.graphs[gi].order = out;
        }
    }

    /// Renumbers the nodes as reading the IR would: graph by graph (in graph id order, the
    /// order the model was built in), each graph's nodes in its [`Graph::order`]; removed
    /// nodes are dropped. Consumer lists are sorted by (node, input) and control lists by
    /// node, the order a fresh build appends them in (control-edge order carries no
    /// meaning). Returns the new id of every old node (`u32::MAX` for a dropped one).
    ///
    /// Used after a plan inserted nodes (which get ids at the end) by a driver that runs
    /// later planners on the same model: their node-order choices must not depend on
    /// whether the model was planned on or read back from the IR.
    pub fn renumber(&mut self) -> Vec<u32> {
        self.normalize();
        self.structure += 1;
        let mut new_of = vec![u32::MAX; self.nodes.len()];
        let mut next = 0u32;
        for g in &self.graphs {
            for &n in &g.order {
                if !self.nodes[n.0 as usize].removed && new_of[n.0 as usize] == u32::MAX {
                    new_of[n.0 as usize] = next;
                    next += 1;
                }
            }
        }
        let map = |n: NodeId| NodeId(new_of[n.0 as usize]);
        self.nodes = permute_in_place(std::mem::take(&mut self.nodes), &new_of, next as usize);
        for node in &mut self.nodes {
            for input in &mut node.inputs {
                if let Some(src) = &mut input.src {
                    src.node = map(src.node);
                }
            }
            for output in &mut node.outputs {
                for c in &mut output.consumers {
                    c.node = map(c.node);
                }
                output.consumers.sort_unstable_by_key(|c| (c.node, c.index));
            }
            for list in [&mut node.ctrl_in, &mut node.ctrl_out] {
                for x in list.iter_mut() {
                    *x = map(*x);
                }
                list.sort_unstable();
            }
        }
        for g in &mut self.graphs {
            g.parent = g.parent.map(map);
            g.net_output = g.net_output.map(map);
            for n in &mut g.order {
                *n = map(*n);
            }
            g.order.retain(|n| n.0 != u32::MAX);
        }
        new_of
    }

    fn emit(
        &self,
        n: NodeId,
        before: &mut FastMap<NodeId, Vec<NodeId>>,
        after: &mut FastMap<NodeId, Vec<NodeId>>,
        out: &mut Vec<NodeId>,
    ) {
        if let Some(bs) = before.remove(&n) {
            for b in bs {
                self.emit(b, before, after, out);
            }
        }
        out.push(n);
        if let Some(as_) = after.remove(&n) {
            for a in as_ {
                self.emit(a, before, after, out);
            }
        }
    }

    /// Whether `order` respects every data and control edge inside the graph.
    pub fn is_topological(&self, order: &[NodeId]) -> bool {
        let mut pos = FastMap::with_capacity_and_hasher(order.len(), Default::default());
        for (i, &n) in order.iter().enumerate() {
            pos.insert(n, i);
        }
        order.iter().enumerate().all(|(i, &n)| {
            let node = self.node(n);
            node.inputs
                .iter()
                .filter_map(|x| x.src)
                .map(|s| s.node)
                .chain(node.ctrl_in.iter().copied())
                .all(|p| pos.get(&p).is_none_or(|&pi| pi < i))
        })
    }

    fn preds(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let node = self.node(n);
        node.inputs
            .iter()
            .filter_map(|x| x.src)
            .map(|s| s.node)
            .chain(node.ctrl_in.iter().copied())
    }

    fn stable_topo_sort(&self, order: &[NodeId]) -> Vec<NodeId> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let pos: FastMap<NodeId, usize> = order.iter().enumerate().map(|(i, &n)| (n, i)).collect();
        let mut indeg: FastMap<NodeId, usize> = FastMap::default();
        let mut succ: FastMap<NodeId, Vec<NodeId>> = FastMap::default();
        for &n in order {
            let mut seen = FastSet::default();
            for p in self.preds(n) {
                if pos.contains_key(&p) && seen.insert(p) {
                    *indeg.entry(n).or_default() += 1;
                    succ.entry(p).or_default().push(n);
                }
            }
        }
        let mut heap: BinaryHeap<Reverse<(usize, NodeId)>> = order
            .iter()
            .filter(|n| indeg.get(n).copied().unwrap_or(0) == 0)
            .map(|&n| Reverse((pos[&n], n)))
            .collect();
        let mut out = Vec::with_capacity(order.len());
        while let Some(Reverse((_, n))) = heap.pop() {
            out.push(n);
            for &s in succ.get(&n).map_or(&[][..], |v| v.as_slice()) {
                let d = indeg.get_mut(&s).expect("counted");
                *d -= 1;
                if *d == 0 {
                    heap.push(Reverse((pos[&s], s)));
                }
            }
        }
        if out.len() < order.len() {
            // A cycle: keep the remaining nodes in their old order (the verifier reports it).
            let placed: FastSet<NodeId> = out.iter().copied().collect();
            out.extend(order.iter().filter(|n| !placed.contains(n)));
        }
        out
    }

    /// Structural self-check used by tests: edge lists mirror each other, every input
    /// points at an existing output, orders are topological and list every live node once.
    pub fn check_consistency(&self) -> Result<(), String> {
        let mut listed = vec![0u32; self.nodes.len()];
        for (gi, g) in self.graphs.iter().enumerate() {
            if !g.pending.is_empty() {
                return Err(format!("graph {} has pending insertions", g.name));
            }
            for &n in &g.order {
                listed[n.0 as usize] += 1;
                if self.node(n).graph != GraphId(gi as u32) {
                    return Err(format!("{} listed in the wrong graph", self.node(n).name));
                }
            }
            if !self.is_topological(&g.order) {
                return Err(format!("graph {} order is not topological", g.name));
            }
        }
        for (i, node) in self.nodes.iter().enumerate() {
            let id = NodeId(i as u32);
            let want = u32::from(!node.removed);
            if listed[i] != want {
                return Err(format!("{} listed {} times", node.name, listed[i]));
            }
            for (j, inp) in node.inputs.iter().enumerate() {
                if let Some(s) = inp.src {
                    let p = self.node(s.node);
                    let me = InPort {
                        node: id,
                        index: j as u32,
                    };
                    let count = p
                        .outputs
                        .get(s.index as usize)
                        .map_or(0, |o| o.consumers.iter().filter(|&&c| c == me).count());
                    if count != 1 || p.removed || node.removed {
                        return Err(format!(
                            "edge {}:{} -> {}:{} is broken",
                            p.name, s.index, node.name, j
                        ));
                    }
                    if p.graph != node.graph {
                        return Err(format!("edge {} -> {} crosses graphs", p.name, node.name));
                    }
                }
            }
            for (o, out) in node.outputs.iter().enumerate() {
                for c in &out.consumers {
                    let src = self
                        .node(c.node)
                        .inputs
                        .get(c.index as usize)
                        .and_then(|x| x.src);
                    if src
                        != Some(OutPort {
                            node: id,
                            index: o as u32,
                        })
                    {
                        return Err(format!("consumer list of {}:{} is stale", node.name, o));
                    }
                }
            }
            for &t in &node.ctrl_out {
                if !self.node(t).ctrl_in.contains(&id) {
                    return Err(format!(
                        "ctrl {} -> {} not mirrored",
                        node.name,
                        self.node(t).name
                    ));
                }
            }
            for &s in &node.ctrl_in {
                if !self.node(s).ctrl_out.contains(&id) {
                    return Err(format!(
                        "ctrl {} -> {} not mirrored",
                        self.node(s).name,
                        node.name
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Moves every node to its slot `new_of[i]` (`u32::MAX`: dropped) of a vector of `len`,
/// in place and in address order.
///
/// Renumbering keeps the nodes of the model in their order and slots the inserted ones
/// (created last) in between, so most nodes shift by a few places. Following the
/// permutation's cycles moved each node to a far slot and the node there to another (a
/// cache and TLB miss per node on a million nodes); here the nodes out of that order (the
/// inserted ones) are set aside, the rest slide in two sweeps (those moving down in
/// increasing order, those moving up in decreasing order, so no slide overwrites a node
/// that has not moved yet), and the set-aside ones drop into the gaps. No second arena of
/// nodes is written.
fn permute_in_place(nodes: Vec<Node>, new_of: &[u32], len: usize) -> Vec<Node> {
    // `Option<Node>` is as big as `Node` (a niche in its boxed name), so these conversions
    // reuse the allocation.
    let mut slots: Vec<Option<Node>> = nodes.into_iter().map(Some).collect();
    let mut aside: Vec<(u32, Node)> = Vec::new();
    let mut sliding: Vec<u32> = Vec::with_capacity(len);
    let mut highest = None;
    for (old, &new) in new_of.iter().enumerate() {
        if new == u32::MAX {
            slots[old] = None;
        } else if highest.is_some_and(|h| new < h) {
            aside.push((new, slots[old].take().expect("each node moves once")));
        } else {
            highest = Some(new);
            sliding.push(old as u32);
        }
    }
    // `sliding` is increasing in both old and new slot: a node moving down lands where a
    // node that moved down before it (or nothing) was, one moving up where one that
    // moves up later in the list (processed first) was.
    for &old in &sliding {
        let new = new_of[old as usize] as usize;
        if new < old as usize {
            debug_assert!(slots[new].is_none(), "a slide down overwrote a node");
            slots[new] = slots[old as usize].take();
        }
    }
    for &old in sliding.iter().rev() {
        let new = new_of[old as usize] as usize;
        if new > old as usize {
            debug_assert!(slots[new].is_none(), "a slide up overwrote a node");
            slots[new] = slots[old as usize].take();
        }
    }
    for (new, node) in aside {
        debug_assert!(slots[new as usize].is_none(), "a gap holds a node");
        slots[new as usize] = Some(node);
    }
    slots.truncate(len);
    slots
        .into_iter()
        .map(|n| n.expect("every slot below the kept count gets a node"))
        .collect()
}

fn name_hash(s: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod permute_tests {
    use super::super::tests::support::Rng;
    use super::*;

    /// `permute_in_place` puts every kept node where `new_of` says, for renumbering's own
    /// shape (nodes kept in order, some dropped, new ones from the tail slotted in between)
    /// and for arbitrary permutations (where most nodes are set aside).
    #[test]
    fn permuting_in_place_puts_every_kept_node_in_its_slot() {
        let mut rng = Rng::new(0x5107);
        for round in 0..300 {
            let count = 1 + rng.below(60);
            let mut g = MemGraph::new("main");
            for i in 0..count {
                g.add_node(ROOT, &format!("n{i}"), "Relu", &["x"], &["y"]);
            }
            let kept: Vec<usize> = (0..count).filter(|_| !rng.chance(15)).collect();
            let order: Vec<usize> = if round % 3 == 0 {
                let mut order = kept.clone();
                for i in (1..order.len()).rev() {
                    order.swap(i, rng.below(i + 1));
                }
                order
            } else {
                // The first nodes in their order, the last few (the "inserted") between them.
                let inserted = rng.below(kept.len().min(6) + 1);
                let (base, tail) = kept.split_at(kept.len() - inserted);
                let mut order = base.to_vec();
                for &t in tail {
                    order.insert(rng.below(order.len() + 1), t);
                }
                order
            };
            let mut new_of = vec![u32::MAX; count];
            for (new, &old) in order.iter().enumerate() {
                new_of[old] = new as u32;
            }
            let nodes = permute_in_place(std::mem::take(&mut g.nodes), &new_of, order.len());
            let names: Vec<String> = nodes.iter().map(|n| n.name.to_string()).collect();
            let expected: Vec<String> = order.iter().map(|i| format!("n{i}")).collect();
            assert_eq!(names, expected, "round {round}");
        }
    }
}
