//! GE's `ProcessInplace` (spec 3.4, notes B.17, `mem_inplace.cc`): which outputs reuse the
//! memory of an input, decided on the memory symbols.
//!
//! Candidates are the outputs InplaceSupportCheckPass marked (`_inplace_support_input_index`
//! on output 0, [`super::model::Output::inplace_input`]). Walking `GetAllNodes`, each
//! (output, input) candidate goes through GE's filters, in order:
//! 1. **size** ([`Rejection::SizeMismatch`]): the input and output tensors must have the
//!    same GE size (an unknown size never matches);
//! 2. **read conflict** ([`Rejection::ReadOnlyInput`]): the input's symbol holds an output
//!    of a Data, Variable or Const node (anywhere, subgraph Datas included, as GE walks every
//!    node): those bytes must survive;
//! 3. **write conflict** ([`Rejection::ContinuousOutput`], [`Rejection::VariableOutput`]):
//!    a node with continuous or no-padding continuous outputs reuses nothing, nor does an
//!    output that aliases a variable: one with `ref_var_src_var_name`, or one whose symbol
//!    holds a Variable-like node's output (a ref output of a variable: `ApplyMomentum`'s
//!    `var`, `Assign`'s `ref`). GE gives the latter the attribute itself
//!    (VariablePrepareOpPass puts a VariableRef after the last writer of a variable,
//!    VariableRefDeleteOpPass moves its name onto that writer's output desc) before
//!    `RemoveOutRwConflicts` reads it; this pipeline has no VariableRef, so the symbol
//!    says it. Such an output lives at the variable's address (the plan writes
//!    `output_offset = -1`), so a reuse claim would disagree with the offsets. Data and
//!    Const outputs (a subgraph's Data included) are not variables and are left alone;
//! 4. **symbol conflict** ([`Rejection::SameSymbol`], [`Rejection::LayoutConflict`]): an
//!    input already sharing the output's symbol needs no merge; otherwise (after the alias
//!    readers below) the two symbols are merged in a dry run (input symbol's anchors, then
//!    the output symbol's: GE's `ConstructSingleNodeSymbolTable`) and the merged symbol is
//!    checked with the layout-conflict table and checkers (GE
//!    `IsGraphExistMemConflictSymbol`, [`LayoutFacts::find_conflicts`]); a conflict rejects.
//!    **Alias readers** ([`Rejection::ReadLater`], ours): every other reader of the input's
//!    symbol (every alias: a Reshape shares its input's memory, so the readers of `a` and of
//!    `Reshape(a)` read one buffer) must have run before the node: earlier on the timeline
//!    and, with streams, ordered before it ([`super::mem_plan::Order`], the memory plan's
//!    reuse rule), else the node would overwrite a value still to be read. GE tests only
//!    the direct edge (InplaceSupportCheckPass: the producer has one consumer;
//!    `GetSupportInplaceOutput`: the node is the producer's last consumer on its stream),
//!    which suffices there because ReshapeRemovePass deletes static Reshapes earlier in the
//!    same pass run; ours keeps them as no-task aliases;
//! 5. **one reuse per input** ([`Rejection::InputTaken`]): an input already chosen by an
//!    earlier output of the node is not chosen again.
//!
//! All filters see the symbols as they were before any merge (GE decides every node first
//! and merges at the end). Then GE records the reuses (`reuse_input` on the output desc) and
//! asks once whether CtrlNodeConflict would now find a conflict in a control-flow
//! subgraph (GE `IsCtrlNodeSubgraphExistMemConflictSymbol`); if so every reuse is dropped
//! ([`Rejection::CtrlSubgraphConflict`]). Otherwise the merges stand: the IR records each as
//! `reuse_input_index` on the node, which makes the output share the input's symbol for
//! every later pass (`--mem-assign` gives them one offset).

use super::layout::{ctrl_node_subgraph_has_conflict, LayoutFacts, LayoutOptions};
use super::mem_plan::{Order, StreamInfo, Timeline};
use super::model::{MemError, MemGraph, NodeId, ROOT};
use super::symbols::Anchor;
use std::cell::OnceCell;
use std::fmt;

/// Why a candidate is not reused in place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The input and output GE sizes differ (`None`: unknown).
    SizeMismatch {
        input: Option<i64>,
        output: Option<i64>,
    },
    /// The input's memory is a Data, Variable or Const output (this node's).
    ReadOnlyInput { source: NodeId },
    /// Another reader of the input's memory (through an alias too) is not ordered before
    /// the node: the write would clobber what it reads.
    ReadLater { reader: NodeId },
    /// The node has continuous or no-padding continuous outputs.
    ContinuousOutput,
    /// The output aliases a variable (`ref_var_src_var_name`, or its symbol holds a
    /// Variable-like output: a ref output of a variable).
    VariableOutput,
    /// The input already shares the output's memory.
    SameSymbol,
    /// The merged symbol would hold a layout conflict.
    LayoutConflict { reason: String },
    /// An earlier output of the node already reuses this input.
    InputTaken,
    /// After recording every reuse, CtrlNodeConflict would find a conflict in a
    /// control-flow subgraph: GE drops all reuses.
    CtrlSubgraphConflict,
    /// The input anchor has no symbol (not connected).
    NoSymbol,
}

impl Rejection {
    /// A short name for statistics and tests.
    pub fn kind(&self) -> &'static str {
        match self {
            Rejection::SizeMismatch { .. } => "size",
            Rejection::ReadOnlyInput { .. } => "read-only-input",
            Rejection::ReadLater { .. } => "read-later",
            Rejection::ContinuousOutput => "continuous-output",
            Rejection::VariableOutput => "variable-output",
            Rejection::SameSymbol => "same-symbol",
            Rejection::LayoutConflict { .. } => "layout-conflict",
            Rejection::InputTaken => "input-taken",
            Rejection::CtrlSubgraphConflict => "ctrl-subgraph-conflict",
            Rejection::NoSymbol => "no-symbol",
        }
    }
}

/// The verdict on one candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub node: NodeId,
    pub output: u32,
    pub input: u32,
    pub verdict: Result<(), Rejection>,
}

impl Decision {
    /// Human text: "`r` output 0 reuses input 0" or "... cannot reuse input 0: (why)".
    pub fn describe(&self, g: &MemGraph) -> String {
        let head = format!(
            "`{}` output {} {} input {}",
            g.node(self.node).name,
            self.output,
            if self.verdict.is_ok() {
                "reuses the memory of"
            } else {
                "cannot reuse"
            },
            self.input
        );
        match &self.verdict {
            Ok(()) => head,
            Err(r) => format!("{head}: {}", Why(g, r)),
        }
    }
}

struct Why<'a>(&'a MemGraph, &'a Rejection);

impl fmt::Display for Why<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let size = |x: &Option<i64>| x.map_or("unknown".to_string(), |v| format!("{v} bytes"));
        match self.1 {
            Rejection::SizeMismatch { input, output } => write!(
                f,
                "size: the input is {}, the output {}",
                size(input),
                size(output)
            ),
            Rejection::ReadOnlyInput { source } => write!(
                f,
                "read conflict: the input is the memory of `{}`, a Data/Variable/Const output",
                self.0.node(*source).name
            ),
            Rejection::ReadLater { reader } => write!(
                f,
                "read conflict: `{}` reads the same memory (through an alias) and is not \
                 ordered before this node",
                self.0.node(*reader).name
            ),
            Rejection::ContinuousOutput => {
                f.write_str("write conflict: the node has continuous outputs")
            }
            Rejection::VariableOutput => {
                f.write_str("write conflict: the output aliases a variable (ref_var_src_var_name)")
            }
            Rejection::SameSymbol => f.write_str("the input already shares the output's memory"),
            Rejection::LayoutConflict { reason } => {
                write!(f, "symbol conflict: the merged memory would hold {reason}")
            }
            Rejection::InputTaken => f.write_str("an earlier output already reuses that input"),
            Rejection::CtrlSubgraphConflict => f.write_str(
                "a control-flow subgraph would hold a layout conflict after the reuses: GE \
                 drops them all",
            ),
            Rejection::NoSymbol => f.write_str("the input is not connected"),
        }
    }
}

/// What `--mem-inplace` decided.
#[derive(Clone, Debug, Default)]
pub struct InplacePlan {
    /// Every candidate's verdict, in `GetAllNodes` order.
    pub decisions: Vec<Decision>,
    /// Candidates examined.
    pub candidates: usize,
}

impl InplacePlan {
    /// The accepted reuses: (node, output, input).
    pub fn accepted(&self) -> impl Iterator<Item = (NodeId, u32, u32)> + '_ {
        self.decisions
            .iter()
            .filter(|d| d.verdict.is_ok())
            .map(|d| (d.node, d.output, d.input))
    }
}

/// Decides in-place reuse on `g` without streams (one execution order); see
/// [`plan_inplace_on`].
pub fn plan_inplace(g: &mut MemGraph, opts: LayoutOptions) -> Result<InplacePlan, MemError> {
    plan_inplace_on(g, opts, &StreamInfo::none())
}

/// Decides in-place reuse on `g` (see the module doc) whose ops run on `streams`. `opts` are
/// the layout pass's options (they change what the checkers decide).
pub fn plan_inplace_on(
    g: &mut MemGraph,
    opts: LayoutOptions,
    streams: &StreamInfo,
) -> Result<InplacePlan, MemError> {
    g.normalize();
    let symbols = super::mem_plan::plan_symbols(g);
    // Built on the first candidate whose memory has other readers (rare: aliases).
    let timeline: OnceCell<Timeline> = OnceCell::new();
    let order: OnceCell<Result<Order, MemError>> = OnceCell::new();
    let cap = symbols.iter().map(|s| s.0 as usize + 1).max().unwrap_or(0);
    let nodes = g.all_nodes();
    // 1. Read-only symbols: the outputs of Data, Variable and Const nodes.
    // Variable symbols: the memory of a Variable-like output (where a ref output of it
    // lives).
    let mut read_only: Vec<Option<NodeId>> = vec![None; cap];
    let mut variable = vec![false; cap];
    for &n in &nodes {
        let s = g.node(n).sem;
        if s.data_like || s.var_like || s.const_like {
            for o in 0..g.node(n).outputs.len() as u32 {
                if let Some(sym) = symbols.symbol_of(Anchor::output(n, o)) {
                    read_only[sym.0 as usize].get_or_insert(n);
                    variable[sym.0 as usize] |= s.var_like;
                }
            }
        }
    }
    let mut plan = InplacePlan::default();
    let mut facts: Option<LayoutFacts> = None;
    for &n in &nodes {
        let node = g.node(n);
        let mut taken: Vec<u32> = Vec::new();
        for (o, out) in node.outputs.iter().enumerate() {
            let Some(i) = out.inplace_input else { continue };
            if i as usize >= node.inputs.len() {
                continue;
            }
            plan.candidates += 1;
            let o = o as u32;
            let verdict = (|| {
                filter_size(g, n, o, i)?;
                let sin = symbols
                    .symbol_of(Anchor::input(n, i))
                    .ok_or(Rejection::NoSymbol)?;
                if let Some(source) = read_only[sin.0 as usize] {
                    return Err(Rejection::ReadOnlyInput { source });
                }
                let s = node.sem;
                if s.continuous_output || s.nopad_continuous_output {
                    return Err(Rejection::ContinuousOutput);
                }
                let sout = symbols
                    .symbol_of(Anchor::output(n, o))
                    .ok_or(Rejection::NoSymbol)?;
                if out.ref_var_src.is_some() || variable[sout.0 as usize] {
                    return Err(Rejection::VariableOutput);
                }
                if sin == sout {
                    return Err(Rejection::SameSymbol);
                }
                let mut readers = symbols
                    .anchors(sin)
                    .filter(|a| a.is_input() && a.node() != n)
                    .map(|a| a.node())
                    .peekable();
                if readers.peek().is_some() {
                    let timeline = timeline.get_or_init(|| Timeline::new(g));
                    let order = order
                        .get_or_init(|| Order::new(g, timeline, streams))
                        .as_ref()
                        .map_err(|e| Rejection::LayoutConflict {
                            reason: e.message.clone(),
                        })?;
                    let (start, _) = timeline.span(n);
                    for r in readers {
                        if timeline.span(r).1 >= start || !order.before(r, n) {
                            return Err(Rejection::ReadLater { reader: r });
                        }
                    }
                }
                let merged: Vec<Anchor> =
                    symbols.anchors(sin).chain(symbols.anchors(sout)).collect();
                let facts = facts.get_or_insert_with(|| LayoutFacts::new(g, ROOT, opts));
                let conflicts = facts
                    .find_conflicts(g, &symbols, &merged)
                    .map_err(|e| Rejection::LayoutConflict { reason: e.message })?;
                if let Some(d) = conflicts.decisions().first() {
                    return Err(Rejection::LayoutConflict {
                        reason: format!(
                            "{} {} and {} {} ({})",
                            d.pair.0,
                            super::layout::anchor_text(g, d.between.0),
                            d.pair.1,
                            super::layout::anchor_text(g, d.between.1),
                            d.decider.name()
                        ),
                    });
                }
                if taken.contains(&i) {
                    return Err(Rejection::InputTaken);
                }
                Ok(())
            })();
            if verdict.is_ok() {
                taken.push(i);
            }
            plan.decisions.push(Decision {
                node: n,
                output: o,
                input: i,
                verdict,
            });
        }
    }
    // GE MergeSymbolTable: record the reuses, then the control-flow subgraph check.
    if plan.accepted().next().is_some() && in_control_flow(g, &plan) {
        // The reuses are recorded on the model for the check and taken back after it (a
        // copy of a million-node model cost more than the rest of the pass).
        g.normalize();
        let accepted: Vec<(NodeId, u32, u32)> = plan.accepted().collect();
        let before: Vec<Option<u32>> = accepted
            .iter()
            .map(|&(n, o, i)| g.node_mut(n).outputs[o as usize].reuse_input.replace(i))
            .collect();
        let conflict = ctrl_node_subgraph_has_conflict(g, ROOT);
        for (&(n, o, _), old) in accepted.iter().zip(before) {
            g.node_mut(n).outputs[o as usize].reuse_input = old;
        }
        if conflict? {
            for d in &mut plan.decisions {
                if d.verdict.is_ok() {
                    d.verdict = Err(Rejection::CtrlSubgraphConflict);
                }
            }
        }
    }
    Ok(plan)
}

/// GE's size filter: `GetTensorSizeInBytes` of the output and the input must be equal.
fn filter_size(g: &MemGraph, n: NodeId, o: u32, i: u32) -> Result<(), Rejection> {
    let node = g.node(n);
    let output = g.tensor(node.outputs[o as usize].tensor).byte_size();
    let input = g.tensor(node.inputs[i as usize].tensor).byte_size();
    match (input, output) {
        (Some(a), Some(b)) if a == b => Ok(()),
        _ => Err(Rejection::SizeMismatch { input, output }),
    }
}

/// Whether an accepted reuse sits in a subgraph of a control-flow node (only there can a
/// reuse change what CtrlNodeConflict, which builds each branch's own symbols, finds).
fn in_control_flow(g: &MemGraph, plan: &InplacePlan) -> bool {
    plan.accepted().any(|(n, _, _)| {
        let mut cur = g.parent_of(n);
        while let Some(p) = cur {
            if matches!(
                g.node(p).ty.as_str(),
                "If" | "StatelessIf" | "Case" | "StatelessCase" | "While" | "StatelessWhile"
            ) {
                return true;
            }
            cur = g.parent_of(p);
        }
        false
    })
}
