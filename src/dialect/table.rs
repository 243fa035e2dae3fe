//! The op table: what every `ascend` op looks like (operand and result groups) and what the
//! passes must know about it, read from `dialects/ascend.ops.toml`.
//!
//! The table is the single source of truth: the IRDL definition is generated from it, the
//! `.ge` importer checks arity with it, and `semantics` answers the passes' questions from it.

use crate::analysis::fast_hash::FastMap;
use serde::Deserialize;
use std::{collections::BTreeMap, fmt, sync::OnceLock};

/// The op table as shipped in `dialects/`.
pub const TABLE_SOURCE: &str = include_str!("../../dialects/ascend.ops.toml");

/// How many values an operand or result group holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Exactly one value.
    Single,
    /// Zero or one value.
    Optional,
    /// Any number of values, all of the same type (IRDL binds one constraint per group).
    Variadic,
    /// Any number of values of possibly different types: `n` optional slots, each with its
    /// own IRDL constraint, then a homogeneous variadic overflow group.
    Slots(usize),
}

/// One named operand or result group of an op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub name: String,
    pub arity: Arity,
}

impl Group {
    /// Parses the table's group notation: `x`, `x?`, `x*` or `x[32]`.
    fn parse(spec: &str) -> Result<Self, String> {
        let (name, arity) = if let Some(name) = spec.strip_suffix('?') {
            (name, Arity::Optional)
        } else if let Some(name) = spec.strip_suffix('*') {
            (name, Arity::Variadic)
        } else if let Some(open) = spec.find('[') {
            let count = spec[open + 1..]
                .strip_suffix(']')
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("bad slot count in group `{spec}`"))?;
            (&spec[..open], Arity::Slots(count))
        } else {
            (spec, Arity::Single)
        };
        let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!("bad group name in `{spec}`"));
        }
        Ok(Group {
            name: name.to_string(),
            arity,
        })
    }
}

/// One primitive IRDL group after slots are expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrdlGroup {
    pub name: String,
    /// `Single`, `Optional` or `Variadic` only.
    pub arity: Arity,
}

/// Expands slot groups into their optional slots plus the variadic overflow group.
pub fn expand_groups(groups: &[Group]) -> Vec<IrdlGroup> {
    let mut out = Vec::new();
    for group in groups {
        match group.arity {
            Arity::Slots(n) => {
                for i in 0..n {
                    out.push(IrdlGroup {
                        name: format!("{}{}", group.name, i),
                        arity: Arity::Optional,
                    });
                }
                out.push(IrdlGroup {
                    name: format!("{}_rest", group.name),
                    arity: Arity::Variadic,
                });
            }
            arity => out.push(IrdlGroup {
                name: group.name.clone(),
                arity,
            }),
        }
    }
    out
}

/// Why a list of values does not fit an op's groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArityError {
    TooFew {
        expected_at_least: usize,
        got: usize,
    },
    TooMany {
        expected_at_most: usize,
        got: usize,
    },
    /// Values that land in one homogeneous variadic group have different types.
    MixedTypes {
        group: String,
        first: usize,
        other: usize,
    },
}

impl fmt::Display for ArityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArityError::TooFew {
                expected_at_least,
                got,
            } => write!(f, "expects at least {expected_at_least}, got {got}"),
            ArityError::TooMany {
                expected_at_most,
                got,
            } => write!(f, "expects at most {expected_at_most}, got {got}"),
            ArityError::MixedTypes {
                group,
                first,
                other,
            } => write!(
                f,
                "values #{first} and #{other} fall into the variadic group `{group}` and must \
                 have the same type (IRDL binds one type per variadic group)"
            ),
        }
    }
}

/// The primitive groups of `groups` after slot expansion, as (arity, group, slot): slot
/// `Some(i)` is optional slot `i` of a slot group, `Some(n)` past its last slot is the
/// overflow group. Names are only built when needed ([`primitive_name`]): the arity
/// questions below run for every op a pass creates.
fn primitive_groups(groups: &[Group]) -> impl Iterator<Item = (Arity, &Group, Option<usize>)> {
    groups.iter().flat_map(|group| {
        let (optional, rest) = match group.arity {
            Arity::Slots(n) => (n, 1),
            _ => (0, 0),
        };
        let own = (optional + rest == 0).then_some((group.arity, group, None));
        (0..optional)
            .map(move |i| (Arity::Optional, group, Some(i)))
            .chain((rest == 1).then_some((Arity::Variadic, group, Some(optional))))
            .chain(own)
    })
}

/// The IRDL name of a primitive group (as [`expand_groups`] spells it).
fn primitive_name(group: &Group, slot: Option<usize>) -> String {
    match (group.arity, slot) {
        (Arity::Slots(n), Some(i)) if i == n => format!("{}_rest", group.name),
        (_, Some(i)) => format!("{}{}", group.name, i),
        _ => group.name.clone(),
    }
}

/// Distributes `types.len()` values over the primitive groups of `groups` in order: singles
/// take one, optionals one while values remain, a variadic group takes the rest. Returns one
/// size per primitive group.
fn distribute<T: PartialEq>(groups: &[Group], types: &[T]) -> Result<Vec<i32>, ArityError> {
    let n = types.len();
    let singles = groups.iter().filter(|g| g.arity == Arity::Single).count();
    if n < singles {
        return Err(ArityError::TooFew {
            expected_at_least: singles,
            got: n,
        });
    }
    let mut spare = n - singles;
    let mut sizes = Vec::with_capacity(groups.len());
    let mut next = 0usize;
    for (arity, group, slot) in primitive_groups(groups) {
        let size = match arity {
            Arity::Single => 1,
            Arity::Optional => usize::from(spare > 0),
            Arity::Variadic => spare,
            Arity::Slots(_) => unreachable!("slots are expanded before distribution"),
        };
        if arity != Arity::Single {
            spare -= size;
        }
        if arity == Arity::Variadic && size > 1 {
            if let Some(offset) = (next + 1..next + size).find(|&i| types[i] != types[next]) {
                return Err(ArityError::MixedTypes {
                    group: primitive_name(group, slot),
                    first: next,
                    other: offset,
                });
            }
        }
        next += size;
        sizes.push(size as i32);
    }
    if spare > 0 {
        return Err(ArityError::TooMany {
            expected_at_most: n - spare,
            got: n,
        });
    }
    Ok(sizes)
}

/// How many primitive groups of `groups` are not single (optional or variadic).
fn non_single_count(groups: &[Group]) -> usize {
    primitive_groups(groups)
        .filter(|(arity, _, _)| *arity != Arity::Single)
        .count()
}

/// One op of the dialect.
#[derive(Clone, Debug)]
pub struct OpDef {
    /// MLIR mnemonic, e.g. `hcom_all_reduce` for `ascend.hcom_all_reduce`.
    pub mnemonic: String,
    /// GE's type name, e.g. `HcomAllReduce`.
    pub ge_type: String,
    /// GE engine that runs it (`AIcoreEngine`, `DNN_HCCL`, ...).
    pub engine: String,
    pub inputs: Vec<Group>,
    pub outputs: Vec<Group>,
    /// The semantics row as written in the table (flags the passes query).
    pub row: OpRow,
}

/// The `ge_type` of the generic op `ascend.op`, whose real GE type is its `type` attribute.
pub const GENERIC_GE_TYPE: &str = "*";

/// GE's names for the values of `groups`, given how many values each group holds: a single
/// or optional group keeps its name, a dynamic (variadic or slot) group `x` names its values
/// `x0`, `x1`, ... as GE names dynamic inputs and outputs. Ref relations compare these names.
pub fn ge_value_names(groups: &[Group], counts: &[usize]) -> Vec<String> {
    let mut names = Vec::new();
    for (group, &count) in groups.iter().zip(counts) {
        match group.arity {
            Arity::Single | Arity::Optional => {
                names.extend(std::iter::repeat_n(group.name.clone(), count.min(1)))
            }
            Arity::Variadic | Arity::Slots(_) => {
                names.extend((0..count).map(|i| format!("{}{i}", group.name)))
            }
        }
    }
    names
}

/// Folds per-IRDL-group segment sizes (slots expanded) back to one count per table group.
/// Returns `None` when `irdl_sizes` does not have one entry per expanded group.
pub fn fold_segments(groups: &[Group], irdl_sizes: &[usize]) -> Option<Vec<usize>> {
    let mut counts = Vec::with_capacity(groups.len());
    let mut next = 0usize;
    for group in groups {
        let width = match group.arity {
            Arity::Slots(n) => n + 1,
            _ => 1,
        };
        let slice = irdl_sizes.get(next..next + width)?;
        counts.push(slice.iter().sum());
        next += width;
    }
    (next == irdl_sizes.len()).then_some(counts)
}

impl OpDef {
    /// The full MLIR op name.
    pub fn op_name(&self) -> String {
        format!("ascend.{}", self.mnemonic)
    }

    /// Whether this is the generic op `ascend.op` (GE type in its `type` attribute).
    pub fn is_generic(&self) -> bool {
        self.ge_type == GENERIC_GE_TYPE
    }

    /// Whether the table gives this op the trait.
    pub fn has_trait(&self, t: Trait) -> bool {
        self.row.traits.contains(&t)
    }

    /// Subgraph attribute names in GE's subgraph order (single-symbol attributes first, as
    /// no op mixes both kinds).
    pub fn subgraph_attr_names(&self) -> impl Iterator<Item = &str> {
        self.row
            .subgraph_attrs
            .iter()
            .chain(&self.row.subgraph_list_attrs)
            .map(String::as_str)
    }

    /// Checks the semantic columns against the groups; errors name the column.
    fn validate(&self) -> Result<(), String> {
        let valid_mnemonic = !self.mnemonic.is_empty()
            && self
                .mnemonic
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !valid_mnemonic {
            return Err(format!("bad mnemonic `{}`", self.mnemonic));
        }
        let all_groups = || self.inputs.iter().chain(&self.outputs);
        if let Some(g) = all_groups().find(|g| g.name == "ctrl" || g.name == "ctrl_in") {
            return Err(format!("group name `{}` is reserved", g.name));
        }
        let mut seen = Vec::new();
        for set in &self.row.same_type {
            for name in set {
                let groups: Vec<&Group> = all_groups().filter(|g| &g.name == name).collect();
                if groups.is_empty() {
                    return Err(format!("same_type names unknown group `{name}`"));
                }
                if groups.iter().any(|g| matches!(g.arity, Arity::Slots(_))) {
                    return Err(format!(
                        "same_type group `{name}` has slots (slots are heterogeneous)"
                    ));
                }
                if seen.contains(&name) {
                    return Err(format!("group `{name}` is in two same_type sets"));
                }
                seen.push(name);
            }
        }
        let mut attrs: Vec<&str> = self.subgraph_attr_names().collect();
        attrs.extend(self.row.required_attrs.keys().map(String::as_str));
        let mut sorted = attrs.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() != attrs.len() {
            return Err("an attribute is declared twice".into());
        }
        let fixed_outputs = self.outputs.iter().all(|g| g.arity == Arity::Single);
        if let Some(&bad) = self
            .row
            .atomic_outputs
            .iter()
            .find(|&&i| fixed_outputs && i >= self.outputs.len())
        {
            return Err(format!("atomic output {bad} out of range"));
        }
        if self.is_generic() && !self.row.required_attrs.contains_key("type") {
            return Err("the generic op must require a `type` attribute".into());
        }
        Ok(())
    }

    /// Primitive operand groups as IRDL declares them, with the trailing `ctrl_in`.
    pub fn irdl_operands(&self) -> Vec<IrdlGroup> {
        let mut groups = expand_groups(&self.inputs);
        groups.push(IrdlGroup {
            name: "ctrl_in".into(),
            arity: Arity::Variadic,
        });
        groups
    }

    /// Primitive result groups as IRDL declares them, with the trailing `ctrl`. IRDL wants
    /// operand and result names distinct, so a ref output (named like its input, e.g.
    /// Assign's `ref`) is declared as `ref_out`; GE names still come from `outputs`.
    pub fn irdl_results(&self) -> Vec<IrdlGroup> {
        let operand_names: Vec<String> = self.irdl_operands().into_iter().map(|g| g.name).collect();
        let mut groups = expand_groups(&self.outputs);
        for group in &mut groups {
            if operand_names.contains(&group.name) {
                group.name.push_str("_out");
            }
        }
        groups.push(IrdlGroup {
            name: "ctrl".into(),
            arity: Arity::Single,
        });
        groups
    }

    /// The `operandSegmentSizes` for `data` data operands (their types, compared for the
    /// homogeneous groups) and `ctrl` control operands; `None` when the op needs none.
    pub fn operand_segments<T: PartialEq>(
        &self,
        data: &[T],
        ctrl: usize,
    ) -> Result<Option<Vec<i32>>, ArityError> {
        let mut sizes = distribute(&self.inputs, data)?;
        sizes.push(ctrl as i32);
        // The trailing `ctrl_in` group is variadic.
        Ok((non_single_count(&self.inputs) + 1 > 1).then_some(sizes))
    }

    /// The `resultSegmentSizes` for data results of these types; `None` when not needed.
    pub fn result_segments<T: PartialEq>(
        &self,
        data: &[T],
    ) -> Result<Option<Vec<i32>>, ArityError> {
        let mut sizes = distribute(&self.outputs, data)?;
        sizes.push(1);
        // The trailing `ctrl` result is single.
        Ok((non_single_count(&self.outputs) > 1).then_some(sizes))
    }
}

/// A closed set of op properties the passes ask about. Every question of GE's memory and
/// stream passes that GE answers by comparing type names is answered by one of these (see
/// `ge-behaviour-notes.md` B.3/B.4/B.10/B.15/C), so passes never switch on op names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trait {
    /// Produces a value with no producer in the graph (Data, RefData, Const, Variable).
    Source,
    /// GE's data-like set (`Data`, `RefData`, `AippData`, `AnnData`): a root one is Writeable
    /// (B.4 2b), a subgraph one inherits its parent producer's type (B.4 2c).
    DataLike,
    /// GE's `Data` itself (not its aliases' GE types): the node a subgraph input is; subgraph
    /// boundaries are found through it (B.5, B.16, B.20).
    GraphInput,
    /// GE's var-like set (`Variable`, `VariableV2`, `RefData`): outputs Writeable (B.4 2a),
    /// immutable address (B.19), never an in-place source (B.17).
    VarLike,
    /// `Const`, `Constant`, `ConstPlaceHolder`: outputs ReadOnlyConst (B.4 2f).
    ConstLike,
    /// `While`, `_While`, `StatelessWhile`: inputs SW, outputs Soft, subgraphs skipped (B.3 1).
    WhileFamily,
    /// `PartitionedCall`: its single subgraph's output types flow out (B.4 3, B.5).
    PartitionedCall,
    /// `If` / `Case` and their variants: in a known-shape graph SubgraphPass gives every
    /// branch output its own address when one producer feeds several of them (B.16).
    Conditional,
    /// `LoopCond`: a graph holding one is a loop graph, whose atomic ops are cleaned one by
    /// one (B.18).
    LoopCond,
    /// Reads only the shape of its input (`Shape`, `Rank`, `Size`): HcclMemcpyPass ignores it
    /// as a sibling consumer (B.15).
    ShapeOnly,
    /// `Reshape`: ignored by HcclMemcpyPass when all its consumers are shape-only (B.15).
    Reshape,
    /// `Identity` and `ReadVariableOp`: SplitIdentity / RemoveNoUseIdentity apply (B.8-B.10).
    IdentityLike,
    /// A plain copy (`Identity`, `Memcpy`, `MemcpyAsync`, `MemcpyAddrAsync`): the layout
    /// pass never inserts another copy next to one (B.19 `IsSkipInsert`).
    CopyLike,
    /// `Assign`, `AssignAdd`, `AssignSub` and their `*VariableOp` forms (B.10).
    AssignLike,
    /// `Assign` itself: the write-back HcclMemcpyPass creates for a broadcast variable; one
    /// already reading the variable makes it unnecessary (B.15).
    Assign,
    /// `Cmo` (cache maintenance): GraphLint neither reads nor writes its inputs (B.20).
    Cmo,
    /// `PhonyConcat` / `PhonySplit`: inputs always ReadOnly even when named like an output,
    /// the names only express shared memory (B.3 3b).
    Phony,
    /// An HCCL collective (C.8 task counting, independent engine).
    Hccl,
    /// `HcomAllReduce`: the seed of AllReduceParallelPass (C.3).
    AllReduce,
    /// `HcomBroadcast`: HcclMemcpyPass writes a broadcast variable back with Assign (B.15).
    Broadcast,
    /// `AtomicAddrClean`: its control edges are not moved by InsertNodeBefore (B.12, B.18).
    AtomicClean,
    /// V1 control-flow `Switch`, `RefSwitch`, `SwitchN`: InsertNodeAfter leaves their
    /// out-control edges in place (B.12).
    ControlSwitch,
    /// `RefSwitch`: as a FrameworkOp's original type, its input 0 is written and its
    /// outputs are writable (B.3 d, B.4 e).
    RefSwitch,
    /// `StreamActive`: activates streams (C.5, C.9).
    StreamActive,
    /// `StreamSwitch`: its send events are dropped after optimisation (C.6, C.9).
    StreamSwitch,
    /// `StreamMerge`: an identity feeding it is kept (B.10), user Data into it gets
    /// MemcpyAddrAsync (B.18).
    StreamMerge,
    /// `LabelSet`, `LabelGotoEx`, `LabelSwitchByIndex`: never a stream split point (C.8).
    RtsLabel,
    /// `StreamSwitch`, `LabelSwitchByIndex`: read a fixed physical address, so they can never
    /// refresh IO addresses (B.19) and get `_dynamic_shape_fixed_addr` in dynamic+static
    /// reuse mode (3.1.7).
    FixedAddress,
    /// V1 `Enter` / `RefEnter`: a loop entry; its cross-stream edges get no event unless
    /// they lead to a StreamActive (C.5).
    LoopEnter,
    /// V1 `NextIteration` / `RefNextIteration`: an activator fed only by them is skipped by
    /// OptimizeByStreamActivate (C.6).
    NextIteration,
    /// `Case`: with `_batch_num` its branches are multi-dims and reuse events (C.7).
    Case,
    /// `Send` (event record, C.10).
    Send,
    /// `Recv` (event wait, C.10); counts one extra task (C.8).
    Recv,
    /// `SendNotify` (C.10).
    SendNotify,
    /// `RecvNotify` (C.10).
    RecvNotify,
}

/// The kind of value a required attribute holds; the IRDL generator turns it into a
/// constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttrKind {
    /// Any attribute (e.g. Const `value`, a dense or resource elements attribute).
    Any,
    String,
    Integer,
    Array,
}

/// A row of `dialects/ascend.ops.toml` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpRow {
    pub mnemonic: String,
    pub ge_type: String,
    pub engine: String,
    #[serde(default)]
    pub inputs: Vec<String>,
    #[serde(default)]
    pub outputs: Vec<String>,
    /// Other GE type names with this row's semantics (e.g. `VariableV2` for `Variable`);
    /// a generic `ascend.op` of such a type is answered from this row.
    #[serde(default)]
    pub aliases: Vec<String>,
    #[serde(default)]
    pub traits: Vec<Trait>,
    /// GE `_input_mutable`: every input is scope-writeable (SW).
    #[serde(default)]
    pub input_mutable: bool,
    /// GE `atomic_output_index`: outputs written atomically (need zeroing first).
    #[serde(default)]
    pub atomic_outputs: Vec<usize>,
    /// The engine's kernel info store reports the op atomic (GE's `OpInfo.isAtomic`, asked
    /// by AtomicAddrCleanPass's `CheckAtomicFromOpsKernel`; the HCCL engine answers it). Our
    /// per-op attribute `_kernel_atomic` overrides it.
    #[serde(default)]
    pub kernel_atomic: bool,
    /// GE `continuous_input`.
    #[serde(default)]
    pub continuous_input: bool,
    /// GE `continuous_output`.
    #[serde(default)]
    pub continuous_output: bool,
    /// GE `_no_padding_continuous_input`.
    #[serde(default)]
    pub nopadding_continuous_input: bool,
    /// GE `_no_padding_continuous_output`.
    #[serde(default)]
    pub nopadding_continuous_output: bool,
    /// Attributes holding one subgraph symbol each, in GE's subgraph order
    /// (If: `then_branch`, `else_branch`; While: `cond`, `body`; PartitionedCall: `f`).
    #[serde(default)]
    pub subgraph_attrs: Vec<String>,
    /// Attributes holding an array of subgraph symbols (Case: `branches`).
    #[serde(default)]
    pub subgraph_list_attrs: Vec<String>,
    /// Sets of group names (inputs and outputs alike) whose values all have one type; the
    /// IRDL generator gives each set a single constraint variable.
    #[serde(default)]
    pub same_type: Vec<Vec<String>>,
    /// Attributes every instance must carry (declared in IRDL), besides the subgraph ones.
    #[serde(default)]
    pub required_attrs: BTreeMap<String, AttrKind>,
    /// Tasks the op generates on its stream (C.8); `None` means one. GE-local ops that
    /// generate no task (Data, Const, ...) say 0.
    #[serde(default)]
    pub task_num: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    op: Vec<OpRow>,
}

/// All ops of the dialect, indexed by MLIR name and by GE type.
pub struct OpTable {
    ops: Vec<OpDef>,
    /// Looked up for every op of every model read (a fast hash: the names are ours, not
    /// an attacker's).
    by_op_name: FastMap<String, usize>,
    by_ge_type: FastMap<String, usize>,
    by_alias: FastMap<String, usize>,
}

impl OpTable {
    /// Parses a table; errors name the offending row.
    pub fn parse(source: &str) -> Result<Self, String> {
        let file: TableFile = toml::from_str(source).map_err(|e| e.to_string())?;
        let mut table = OpTable {
            ops: Vec::with_capacity(file.op.len()),
            by_op_name: FastMap::default(),
            by_ge_type: FastMap::default(),
            by_alias: FastMap::default(),
        };
        for row in file.op {
            let parse_groups = |specs: &[String]| -> Result<Vec<Group>, String> {
                specs
                    .iter()
                    .map(|s| Group::parse(s).map_err(|e| format!("op `{}`: {e}", row.ge_type)))
                    .collect()
            };
            let def = OpDef {
                mnemonic: row.mnemonic.clone(),
                ge_type: row.ge_type.clone(),
                engine: row.engine.clone(),
                inputs: parse_groups(&row.inputs)?,
                outputs: parse_groups(&row.outputs)?,
                row,
            };
            def.validate()
                .map_err(|e| format!("op `{}`: {e}", def.ge_type))?;
            let index = table.ops.len();
            if table.by_op_name.insert(def.op_name(), index).is_some() {
                return Err(format!("duplicate op `{}`", def.op_name()));
            }
            if table
                .by_ge_type
                .insert(def.ge_type.clone(), index)
                .is_some()
            {
                return Err(format!("duplicate GE type `{}`", def.ge_type));
            }
            table.ops.push(def);
        }
        for (index, def) in table.ops.iter().enumerate() {
            for alias in &def.row.aliases {
                let clash = table.by_ge_type.contains_key(alias)
                    || table.by_alias.insert(alias.clone(), index).is_some();
                if clash {
                    return Err(format!("alias `{alias}` of `{}` is taken", def.ge_type));
                }
            }
        }
        Ok(table)
    }

    /// The row whose semantics apply to GE type `ge_type`: its own row, or the row naming it
    /// as an alias. Used for generic ops, whose real type is an attribute.
    pub fn semantics_for_ge_type(&self, ge_type: &str) -> Option<&OpDef> {
        self.by_ge_type(ge_type)
            .or_else(|| self.by_alias.get(ge_type).map(|&i| &self.ops[i]))
    }

    /// The generic op `ascend.op`.
    pub fn generic(&self) -> Option<&OpDef> {
        self.by_ge_type(GENERIC_GE_TYPE)
    }

    pub fn ops(&self) -> &[OpDef] {
        &self.ops
    }

    /// Looks an op up by its full MLIR name (`ascend.add`).
    pub fn by_op_name(&self, name: &str) -> Option<&OpDef> {
        self.by_op_name.get(name).map(|&i| &self.ops[i])
    }

    /// Looks an op up by GE type name (`Add`).
    pub fn by_ge_type(&self, ge_type: &str) -> Option<&OpDef> {
        self.by_ge_type.get(ge_type).map(|&i| &self.ops[i])
    }
}

/// The shipped op table, parsed once.
pub fn op_table() -> &'static OpTable {
    static TABLE: OnceLock<OpTable> = OnceLock::new();
    TABLE.get_or_init(|| OpTable::parse(TABLE_SOURCE).expect("shipped op table must parse"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(inputs: &[&str], outputs: &[&str]) -> OpDef {
        let row = OpRow {
            mnemonic: "t".into(),
            ge_type: "T".into(),
            engine: "AIcoreEngine".into(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            outputs: outputs.iter().map(|s| s.to_string()).collect(),
            ..OpRow::default()
        };
        OpDef {
            mnemonic: row.mnemonic.clone(),
            ge_type: row.ge_type.clone(),
            engine: row.engine.clone(),
            inputs: row
                .inputs
                .iter()
                .map(|s| Group::parse(s).unwrap())
                .collect(),
            outputs: row
                .outputs
                .iter()
                .map(|s| Group::parse(s).unwrap())
                .collect(),
            row,
        }
    }

    #[test]
    fn fixed_inputs_need_no_segments() {
        let add = op(&["x1", "x2"], &["y"]);
        assert_eq!(add.operand_segments(&["a", "a"], 3), Ok(None));
        assert_eq!(
            add.operand_segments(&["a"], 0),
            Err(ArityError::TooFew {
                expected_at_least: 2,
                got: 1
            })
        );
        assert_eq!(
            add.operand_segments(&["a", "a", "a"], 0),
            Err(ArityError::TooMany {
                expected_at_most: 2,
                got: 3
            })
        );
        assert_eq!(add.result_segments(&["a"]), Ok(None));
    }

    #[test]
    fn variadic_inputs_need_segments_beside_ctrl() {
        let add_n = op(&["x*"], &["y"]);
        assert_eq!(
            add_n.operand_segments(&["a", "a", "a"], 1),
            Ok(Some(vec![3, 1]))
        );
        assert!(matches!(
            add_n.operand_segments(&["a", "b"], 0),
            Err(ArityError::MixedTypes { .. })
        ));
    }

    #[test]
    fn slots_take_heterogeneous_values_then_overflow() {
        let if_op = op(&["cond", "input[2]"], &["output[2]"]);
        assert_eq!(
            if_op.operand_segments(&["c", "a", "b"], 0),
            Ok(Some(vec![1, 1, 1, 0, 0]))
        );
        assert_eq!(
            if_op.operand_segments(&["c", "a", "b", "d", "d"], 2),
            Ok(Some(vec![1, 1, 1, 2, 2]))
        );
        assert!(if_op
            .operand_segments(&["c", "a", "b", "d", "e"], 0)
            .is_err());
        assert_eq!(if_op.result_segments(&["a"]), Ok(Some(vec![1, 0, 0, 1])));
    }

    /// The allocation-free arity walk used when building ops agrees with the IRDL groups
    /// the generator declares (names and arities), for every op of the table.
    #[test]
    fn primitive_groups_match_the_irdl_groups() {
        for def in op_table().ops() {
            for (groups, irdl) in [
                (&def.inputs, expand_groups(&def.inputs)),
                (&def.outputs, expand_groups(&def.outputs)),
            ] {
                let fast: Vec<IrdlGroup> = primitive_groups(groups)
                    .map(|(arity, group, slot)| IrdlGroup {
                        name: primitive_name(group, slot),
                        arity,
                    })
                    .collect();
                assert_eq!(fast, irdl, "{}", def.op_name());
            }
            let non_single =
                |gs: &[IrdlGroup]| gs.iter().filter(|g| g.arity != Arity::Single).count();
            assert_eq!(
                non_single_count(&def.inputs) + 1,
                non_single(&def.irdl_operands())
            );
            assert_eq!(
                non_single_count(&def.outputs),
                non_single(&def.irdl_results())
            );
        }
    }

    #[test]
    fn group_notation_is_validated() {
        assert_eq!(Group::parse("x[4]").unwrap().arity, Arity::Slots(4));
        assert!(Group::parse("x[0]").is_err());
        assert!(Group::parse("").is_err());
        assert!(Group::parse("a-b").is_err());
    }

    /// Every op of the table appears in a positive lit test under `test/Dialect/`, so the
    /// generated IRDL is exercised by stock mlir-opt for each of them.
    #[test]
    fn every_op_has_a_positive_lit_test() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/test/Dialect");
        let mut text = String::new();
        for entry in std::fs::read_dir(dir).expect("test/Dialect exists") {
            let path = entry.unwrap().path();
            let is_positive = path.extension().is_some_and(|e| e == "mlir")
                && !path
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("invalid");
            if is_positive {
                text.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
        let missing: Vec<String> = op_table()
            .ops()
            .iter()
            .map(|d| d.op_name())
            .filter(|name| !text.contains(&format!("\"{name}\"(")))
            .collect();
        assert!(
            missing.is_empty(),
            "ops without a positive lit test: {missing:?}"
        );
    }

    #[test]
    fn table_rows_are_validated() {
        let bad = |extra: &str| {
            OpTable::parse(&format!(
                "[[op]]\nmnemonic = \"t\"\nge_type = \"T\"\nengine = \"E\"\n\
                 inputs = [\"x\", \"s[2]\"]\noutputs = [\"y\"]\n{extra}"
            ))
        };
        assert!(bad("").is_ok());
        assert!(bad("same_type = [[\"nope\"]]").is_err());
        assert!(bad("same_type = [[\"s\"]]").is_err());
        assert!(bad("same_type = [[\"x\"], [\"x\", \"y\"]]").is_err());
        assert!(bad("atomic_outputs = [1]").is_err());
        assert!(bad("subgraph_attrs = [\"f\"]\nrequired_attrs = { f = \"any\" }").is_err());
        assert!(bad("traits = [\"no_such_trait\"]").is_err());
        assert!(bad("unknown_column = 1").is_err());
        assert!(
            OpTable::parse("[[op]]\nmnemonic = \"Bad\"\nge_type = \"T\"\nengine = \"E\"\n")
                .is_err()
        );
        assert!(OpTable::parse(
            "[[op]]\nmnemonic = \"t\"\nge_type = \"T\"\nengine = \"E\"\ninputs = [\"ctrl\"]\n"
        )
        .is_err());
        assert!(
            OpTable::parse("[[op]]\nmnemonic = \"op\"\nge_type = \"*\"\nengine = \"E\"\n").is_err()
        );
    }

    #[test]
    fn aliases_resolve_to_rows_and_cannot_clash() {
        let t = op_table();
        assert_eq!(
            t.semantics_for_ge_type("VariableV2").unwrap().ge_type,
            "Variable"
        );
        assert_eq!(t.semantics_for_ge_type("While").unwrap().ge_type, "While");
        assert!(t.semantics_for_ge_type("NoSuchType").is_none());
        assert!(t.by_ge_type("VariableV2").is_none());
        assert!(t.generic().unwrap().is_generic());
        let clash = "[[op]]\nmnemonic = \"a\"\nge_type = \"A\"\nengine = \"E\"\n\
                     [[op]]\nmnemonic = \"b\"\nge_type = \"B\"\nengine = \"E\"\naliases = [\"A\"]\n";
        assert!(OpTable::parse(clash).is_err());
    }

    #[test]
    fn ref_outputs_get_distinct_irdl_names() {
        let assign = op_table().by_ge_type("Assign").unwrap();
        let names: Vec<String> = assign.irdl_results().into_iter().map(|g| g.name).collect();
        assert_eq!(names, vec!["ref_out", "ctrl"]);
        assert_eq!(
            ge_value_names(&assign.outputs, &[1]),
            vec!["ref".to_string()]
        );
    }

    #[test]
    fn segments_fold_back_to_table_groups() {
        let if_op = op(&["cond", "input[2]"], &["output[2]"]);
        assert_eq!(
            fold_segments(&if_op.inputs, &[1, 1, 1, 3]),
            Some(vec![1, 5])
        );
        assert_eq!(fold_segments(&if_op.inputs, &[1, 1, 1]), None);
        assert_eq!(
            ge_value_names(&if_op.inputs, &[1, 2]),
            vec!["cond", "input0", "input1"]
        );
    }

    #[test]
    fn shipped_table_parses() {
        assert!(op_table().by_ge_type("Add").is_some());
        assert_eq!(op_table().by_op_name("ascend.add").unwrap().ge_type, "Add");
    }
}
