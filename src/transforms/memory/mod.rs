//! The memory read/write conflict passes as `ge-opt` passes.
//!
//! Each pass is the same three steps, around a decision engine of
//! [`crate::analysis::memory`]:
//! 1. [`model_from_ir::IrModel::build`]: the whole module (root `@main` and its subgraphs)
//!    as a [`crate::analysis::memory::model::MemGraph`];
//! 2. the planner decides, on the model, and returns an ordered edit [`Plan`];
//! 3. [`apply_plan::apply_plan`] applies the plan to the IR: as rewrite patterns rooted at
//!    the ops the steps change, run by MLIR's walk driver in program order ([`patterns`]).
//!
//! A planner error (an invalid RW combination, a malformed subgraph) is reported as an MLIR
//! error at the op it is about and fails the pass; the IR is untouched because nothing is
//! applied before planning succeeded.
//!
//! | flag | GE | file |
//! |---|---|---|
//! | `--hccl-memcpy` | HcclMemcpyPass | [`hccl_memcpy`] |
//! | `--hccl-continuous-memcpy` | HcclContinuousMemcpyPass | [`hccl_continuous_memcpy`] |
//! | `--subgraph-isolate` | SubgraphPass | [`subgraph_isolate`] |
//! | `--atomic-addr-clean` | AtomicAddrCleanPass | [`atomic_addr_clean`] |
//! | `--mem-rw-conflict` | HandleMemoryRWConflict | [`mem_rw_conflict`] |
//! | `--mem-layout-conflict` | HandleMemoryLayoutConflict | [`mem_layout_conflict`] |
//! | `--memcpy-addr-async` | MemcpyAddrAsyncPass | [`memcpy_addr_async`] |
//! | `--mark-same-addr` | MarkSameAddrPass | [`mark_same_addr`] |
//! | `--inplace-support-check` | InplaceSupportCheckPass | [`inplace_support_check`] |
//! | `--graph-lint` | GraphLint (W18888) | [`graph_lint`] |
//! | `--mem-symbols` | GetRefMapping, printed (debug) | [`mem_symbols`] |
//! | `--ge-memory-pipeline` | the five in GE's order, then the lint | [`pipeline`] |
//! | `--ge-mem-plan-pipeline` | the static-plan passes on one model | [`mem_plan_pipeline`] |
//!
//! Every pass runs on the `builtin.module` (GE passes see the root graph with all its
//! subgraphs) and takes `root=<func>` (default `main`) and `remarks=<bool>`: with
//! `remarks=true` every op the pass inserts is announced by a remark at its location
//! (`ascend.reason` holds the same explanation on the op). Warnings, remarks and notes go
//! through [`crate::ir::diagnostics`], since the C API can only emit errors.
//!
//! Statistics (`--mlir-pass-statistics`): `num-nodes-visited`, `num-identities-inserted`,
//! `num-identities-split`, `num-identities-removed`, `num-other-nodes-inserted`,
//! `num-attrs-set`, and for the lint `num-warnings`.

pub mod apply_plan;
pub mod atomic_addr_clean;
pub mod attr_batch;
pub mod graph_lint;
pub mod hccl_continuous_memcpy;
pub mod hccl_memcpy;
pub mod inplace_support_check;
pub mod mark_same_addr;
pub mod mem_assign;
pub mod mem_inplace;
pub mod mem_layout_conflict;
pub mod mem_plan_pipeline;
pub mod mem_rw_conflict;
pub mod mem_symbols;
pub mod memcpy_addr_async;
pub mod model_from_ir;
pub mod patterns;
pub mod pipeline;
pub mod plan_attrs;
pub mod set_io_offset;
pub mod subgraph_isolate;
#[cfg(test)]
mod tests;
pub mod verify_mem_plan;

use crate::{
    analysis::memory::{
        atomic_addr_clean::AtomicOptions,
        graph_lint::{lint_with, DfsReach, Reach},
        layout::LayoutOptions,
        model::{MemError, MemGraph, NodeId},
        plan::Plan,
    },
    analysis::reachability::Reachability,
    ir::{
        diagnostics::{emit_warning, Note},
        external_pass::{as_op_ref, emit_error, mark_unchanged, PassFailed, RustPass},
        IrRewriter,
    },
    pipeline::{ModelShare, OptionKind, OptionSpec, PassOptions, Statistic},
};
use apply_plan::apply_plan;
use melior::ir::operation::{OperationLike, OperationRefMut};
use model_from_ir::{DetachedModel, IrModel, LocatedError};
use petgraph::graph::{DiGraph, NodeIndex};
use std::cell::OnceCell;

/// `root`: the function that is GE's root graph.
pub const ROOT_OPTION: OptionSpec = OptionSpec {
    name: "root",
    kind: OptionKind::String,
    default: "main",
    help: "the function that is the root graph",
};

/// `remarks`: one remark per inserted op.
pub const REMARKS_OPTION: OptionSpec = OptionSpec {
    name: "remarks",
    kind: OptionKind::Bool,
    default: "false",
    help: "emit a remark for every op the pass inserts (its ascend.reason)",
};

/// `clean-separately`: GE's `ge.atomicCleanPolicy = 1`.
pub const CLEAN_SEPARATELY_OPTION: OptionSpec = OptionSpec {
    name: "clean-separately",
    kind: OptionKind::Bool,
    default: "false",
    help: "every atomic op cleans its own output (ge.atomicCleanPolicy=1): no AtomicAddrClean",
};

/// `feature-map-refreshable`: GE's `ge.featureBaseRefreshable = 1`.
pub const FEATURE_MAP_REFRESHABLE_OPTION: OptionSpec = OptionSpec {
    name: "feature-map-refreshable",
    kind: OptionKind::Bool,
    default: "false",
    help: "the feature map base can be refreshed (ge.featureBaseRefreshable=1)",
};

/// `physical-memory-refreshable`: dynamic+static memory reuse.
pub const PHYSICAL_MEMORY_REFRESHABLE_OPTION: OptionSpec = OptionSpec {
    name: "physical-memory-refreshable",
    kind: OptionKind::Bool,
    default: "false",
    help: "dynamic and static graphs reuse memory: physical addresses may change",
};

/// `offline`: GE's offline build (`ge.buildGraphMode = offline`).
pub const OFFLINE_OPTION: OptionSpec = OptionSpec {
    name: "offline",
    kind: OptionKind::Bool,
    default: "false",
    help: "offline build (ge.buildGraphMode=offline): user inputs cannot feed no-padding \
           continuous outputs",
};

/// `max-warnings`: GraphLint prints this many W18888 warnings in full, then one count of
/// the rest. A 100k-op training graph whose updates are not ordered after their reads has
/// thousands of them (two source excerpts each: tens of megabytes at a million ops), and
/// the first few say what is wrong as well as all of them.
pub const MAX_WARNINGS_OPTION: OptionSpec = OptionSpec {
    name: "max-warnings",
    kind: OptionKind::UInt,
    default: "10",
    help: "W18888 warnings printed in full; the rest are counted in one warning (0: print all)",
};

/// The options every memory pass has.
pub const COMMON_OPTIONS: &[OptionSpec] = &[ROOT_OPTION, REMARKS_OPTION];

/// Fails (with an error at `module`) unless the pass runs on the `builtin.module`: every
/// memory pass sees a GE graph with all its subgraphs, as GE's passes do.
pub(crate) fn check_module(module: melior::ir::OperationRef, flag: &str) -> Result<(), PassFailed> {
    if module.name().as_string_ref().as_str() == Ok("builtin.module") {
        return Ok(());
    }
    emit_error(
        module.location(),
        &format!(
            "{flag}: runs on the builtin.module (a GE graph with its subgraphs), not on a nested op"
        ),
    );
    Err(PassFailed)
}

/// The model of `module` rooted at function `root`; an error is reported at its location,
/// prefixed with the pass `flag`.
pub(crate) fn build_model<'c, 'a>(
    module: melior::ir::OperationRef<'c, 'a>,
    root: &str,
    flag: &str,
) -> Result<IrModel<'c, 'a>, PassFailed> {
    IrModel::build(module, root).map_err(|e| {
        emit_error(e.location, &format!("{flag}: {}", e.message));
        PassFailed
    })
}

/// The model of `module`: the one the step before handed on ([`ModelShare`]) when it is
/// still the module's, else read from the IR.
pub(crate) fn shared_or_built<'c, 'a>(
    share: &ModelShare,
    module: melior::ir::OperationRef<'c, 'a>,
    root: &str,
    flag: &str,
) -> Result<IrModel<'c, 'a>, PassFailed> {
    match share
        .take::<DetachedModel>()
        .and_then(|detached| IrModel::reattach(detached, module, root))
    {
        Some(model) => Ok(model),
        None => build_model(module, root, flag),
    }
}

/// Hands `model` to the next step when there is one of ours. `model` must be what reading
/// the IR would give now (see [`IrModel::detach`]).
pub(crate) fn keep_model(share: &ModelShare, model: IrModel, root: &str) {
    if share.feeds_next() {
        share.keep(model.detach(root));
    }
}

/// Whether `plan` changes the graph's structure (inserts, removes or rewires nodes), after
/// which node ids and edge order no longer follow the IR's program order.
fn is_structural(plan: &Plan) -> bool {
    use crate::analysis::memory::plan::Edit;
    plan.steps.iter().any(|s| {
        !matches!(
            s.edit,
            Edit::SetAttr { .. } | Edit::SetIntAttr { .. } | Edit::SetStrAttr { .. }
        )
    })
}

/// The plans of `stage`, computed on `g` (left in the planned state): the analysis of a
/// memory pass, apart from the rewrite ([`patterns`]).
pub fn plan_stage(
    stage: Stage,
    g: &mut MemGraph,
    atomic: AtomicOptions,
    layout: LayoutOptions,
    remarks: bool,
) -> Result<Vec<Plan>, MemError> {
    use crate::analysis::memory as mem;
    Ok(match stage {
        Stage::HcclMemcpy => vec![mem::hccl_memcpy::plan_hccl_memcpy(g)?],
        Stage::HcclContinuousMemcpy => {
            vec![mem::hccl_continuous_memcpy::plan_hccl_continuous_memcpy(g)?]
        }
        Stage::SubgraphIsolate => vec![mem::subgraph_isolate::plan_subgraph_isolate(g)?],
        Stage::AtomicAddrClean => {
            vec![mem::atomic_addr_clean::plan_atomic_addr_clean(g, atomic)?]
        }
        Stage::RwConflict => vec![mem::rw_conflict::plan_rw_conflict(g)?],
        Stage::InplaceSupportCheck => {
            vec![mem::inplace_support::plan_inplace_support_check_with(
                g, remarks,
            )?]
        }
        Stage::LayoutConflict => {
            vec![mem::layout::plan_mem_layout_conflict(g, layout)?]
        }
        Stage::MemcpyAddrAsync => vec![mem::memcpy_addr_async::plan_memcpy_addr_async(
            g,
            mem::memcpy_addr_async::MemcpyAddrOptions {
                offline: layout.offline,
                feature_map_refreshable: layout.feature_map_refreshable,
            },
        )?],
        Stage::MarkSameAddr => vec![mem::mark_same_addr::plan_mark_same_addr(g)?],
        Stage::Lint => Vec::new(),
        Stage::Pipeline => mem::plan_pipeline(g, atomic)?,
    })
}

/// What a memory pass instance runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    HcclMemcpy,
    HcclContinuousMemcpy,
    SubgraphIsolate,
    AtomicAddrClean,
    RwConflict,
    InplaceSupportCheck,
    LayoutConflict,
    MemcpyAddrAsync,
    MarkSameAddr,
    Lint,
    /// Stages 1-5 in GE's order (until a round plans nothing), then the lint.
    Pipeline,
}

impl Stage {
    /// The stage of a one-plan memory pass's flag.
    pub fn of_flag(flag: &str) -> Option<Stage> {
        Some(match flag {
            "hccl-memcpy" => Stage::HcclMemcpy,
            "hccl-continuous-memcpy" => Stage::HcclContinuousMemcpy,
            "subgraph-isolate" => Stage::SubgraphIsolate,
            "atomic-addr-clean" => Stage::AtomicAddrClean,
            "mem-rw-conflict" => Stage::RwConflict,
            "inplace-support-check" => Stage::InplaceSupportCheck,
            "mem-layout-conflict" => Stage::LayoutConflict,
            "memcpy-addr-async" => Stage::MemcpyAddrAsync,
            "mark-same-addr" => Stage::MarkSameAddr,
            _ => return None,
        })
    }
}

/// The counters of one pass instance.
#[derive(Clone)]
struct Counters {
    visited: Statistic,
    /// Edit counters (not for the lint, which edits nothing).
    edits: Option<EditCounters>,
    /// W18888 warnings (lint and pipeline only).
    warnings: Option<Statistic>,
}

#[derive(Clone)]
struct EditCounters {
    inserted: Statistic,
    split: Statistic,
    removed: Statistic,
    other: Statistic,
    attrs: Statistic,
}

impl Counters {
    fn new(options: &PassOptions, stage: Stage) -> Self {
        let stat = |name, description| options.statistic(name, description);
        let visited = stat("num-nodes-visited", "Number of nodes the pass examined");
        let edits = (stage != Stage::Lint).then(|| EditCounters {
            inserted: stat(
                "num-identities-inserted",
                "Number of Identity copies inserted",
            ),
            split: stat(
                "num-identities-split",
                "Number of shared Identities split (B.9)",
            ),
            removed: stat("num-identities-removed", "Number of Identities removed"),
            other: stat(
                "num-other-nodes-inserted",
                "Number of AtomicAddrClean / Assign / MemcpyAddrAsync nodes inserted",
            ),
            attrs: stat("num-attrs-set", "Number of GE attributes set on nodes"),
        });
        let warnings = matches!(stage, Stage::Lint | Stage::Pipeline).then(|| {
            stat(
                "num-warnings",
                "Number of W18888 warnings (unordered accesses)",
            )
        });
        Counters {
            visited,
            edits,
            warnings,
        }
    }

    fn count(&self, plan: &Plan) {
        let s = &plan.stats;
        self.visited.add(s.nodes_visited);
        if let Some(e) = &self.edits {
            e.inserted.add(s.identities_inserted);
            e.split.add(s.identities_split);
            e.removed.add(s.identities_removed);
            e.other.add(s.other_nodes_inserted);
            e.attrs.add(s.attrs_set);
        }
    }
}

/// One memory pass: a stage plus its options.
#[derive(Clone)]
pub struct MemoryPass {
    stage: Stage,
    flag: &'static str,
    root: String,
    remarks: bool,
    atomic: AtomicOptions,
    layout: LayoutOptions,
    /// W18888 warnings printed in full (`usize::MAX`: all).
    max_warnings: usize,
    counters: Counters,
    share: ModelShare,
}

/// An unsigned option if the pass's row declares it, else `default`.
fn declared_uint(options: &PassOptions, spec: &OptionSpec, default: u64) -> Result<u64, String> {
    if options.info().options.iter().any(|o| o.name == spec.name) {
        options.uint(spec.name)
    } else {
        Ok(default)
    }
}

/// A bool option if the pass's row declares it, else `false`.
fn declared_bool(options: &PassOptions, spec: &OptionSpec) -> Result<bool, String> {
    if options.info().options.iter().any(|o| o.name == spec.name) {
        options.bool(spec.name)
    } else {
        Ok(false)
    }
}

impl MemoryPass {
    /// Reads the common options (and `clean-separately` where the row declares it).
    pub fn from_options(options: &PassOptions, stage: Stage) -> Result<Self, String> {
        Self::stage_of(options, stage, options.info().flag)
    }

    /// [`Self::from_options`] for a stage of a fused pipeline: errors name `flag`, the
    /// stage's own pass flag.
    pub fn stage_of(
        options: &PassOptions,
        stage: Stage,
        flag: &'static str,
    ) -> Result<Self, String> {
        let clean_separately = declared_bool(options, &CLEAN_SEPARATELY_OPTION)?;
        let layout = LayoutOptions {
            feature_map_refreshable: declared_bool(options, &FEATURE_MAP_REFRESHABLE_OPTION)?,
            physical_memory_refreshable: declared_bool(
                options,
                &PHYSICAL_MEMORY_REFRESHABLE_OPTION,
            )?,
            offline: declared_bool(options, &OFFLINE_OPTION)?,
        };
        Ok(MemoryPass {
            stage,
            flag,
            root: options.string(ROOT_OPTION.name)?.to_string(),
            remarks: options.bool(REMARKS_OPTION.name)?,
            atomic: AtomicOptions { clean_separately },
            layout,
            max_warnings: match declared_uint(options, &MAX_WARNINGS_OPTION, 0)? {
                0 => usize::MAX,
                n => usize::try_from(n).unwrap_or(usize::MAX),
            },
            counters: Counters::new(options, stage),
            share: options.model_share(),
        })
    }

    /// This pass's analysis on `module`, owned, for a host's pattern set
    /// ([`patterns::populate_memory_patterns`]).
    pub fn analyse<'c, 'a>(
        &self,
        module: melior::ir::OperationRef<'c, 'a>,
    ) -> Result<patterns::MemoryDecisions<'c, 'a>, LocatedError<'c>> {
        patterns::MemoryDecisions::analyse_with(module, &self.root, self.flag, |g| self.plan(g))
    }

    /// The plans of this stage, computed on `g` (left in the planned state).
    fn plan(&self, g: &mut MemGraph) -> Result<Vec<Plan>, MemError> {
        plan_stage(self.stage, g, self.atomic, self.layout, self.remarks)
    }

    /// Plans this stage on `model` and replays the plan on the IR, attribute edits on
    /// existing nodes queued in `batch`. Returns whether the plan changed the graph's
    /// structure (inserted, removed or rewired nodes), after which node ids and edge order
    /// of `model` no longer follow the IR's program order.
    pub(super) fn plan_and_apply<'c>(
        &self,
        model: &mut IrModel<'c, '_>,
        rw: &crate::ir::Rewriter<'c, '_>,
        batch: &mut attr_batch::AttrBatch<'c>,
    ) -> Result<bool, PassFailed> {
        let plans = self.plan(&mut model.graph).map_err(|e| {
            self.report(LocatedError {
                location: model.location(e.node),
                message: format!("{}: {}", self.flag, e.message),
            })
        })?;
        let mut structural = false;
        for plan in &plans {
            self.counters.count(plan);
            structural |= is_structural(plan);
            apply_plan::apply_plan_batched(model, plan, rw, self.remarks, batch)
                .map_err(|e| self.report(e))?;
        }
        Ok(structural)
    }

    fn report(&self, error: LocatedError) -> PassFailed {
        emit_error(error.location, &error.message);
        PassFailed
    }

    fn run_on_module(&self, module: melior::ir::OperationRef) -> Result<(), PassFailed> {
        check_module(module, self.flag)?;
        let mut model = shared_or_built(&self.share, module, &self.root, self.flag)?;
        let first_new = model.graph.nodes.len();
        let plans = self.plan(&mut model.graph).map_err(|e| {
            self.report(LocatedError {
                location: model.location(e.node),
                message: format!("{}: {}", self.flag, e.message),
            })
        })?;
        let rewriter = IrRewriter::for_op(module);
        let rw = rewriter.rewriter();
        let mut structural = false;
        for plan in &plans {
            self.counters.count(plan);
            structural |= is_structural(plan);
            apply_plan(&mut model, plan, &rw, self.remarks).map_err(|e| self.report(e))?;
        }
        if matches!(self.stage, Stage::Lint | Stage::Pipeline) {
            self.lint(&model);
        }
        if plans.iter().all(|plan| plan.steps.is_empty()) {
            mark_unchanged();
        }
        // The next pass may take the model if it is what reading the IR would give: after
        // a structural plan, once renumbered in the IR's order.
        if self.share.feeds_next() && (!structural || model.renumber_as_ir(first_new).1) {
            keep_model(&self.share, model, &self.root);
        }
        Ok(())
    }

    /// GraphLint on the (current) model: one W18888 warning per unordered pair, at the
    /// writer, with a note at the other op; past `max-warnings`, one warning at the root
    /// graph counts the rest (the statistic counts them all).
    fn lint(&self, model: &IrModel) {
        let warnings = lint_with(&model.graph, &ModelReach::new(&model.graph));
        if self.stage == Stage::Lint {
            self.counters
                .visited
                .add(model.graph.nodes.iter().filter(|n| !n.removed).count() as u64);
        }
        if let Some(counter) = &self.counters.warnings {
            counter.add(warnings.len() as u64);
        }
        for w in warnings.iter().take(self.max_warnings) {
            let other = model.graph.node(w.other);
            let note = format!(
                "the {} '{}' is here",
                if w.other_is_writer {
                    "other writer"
                } else {
                    "reader"
                },
                other.name
            );
            emit_warning(
                model.location(Some(w.writer)),
                &w.message,
                &[Note {
                    location: model.location(Some(w.other)),
                    message: &note,
                }],
            );
        }
        let hidden = warnings.len().saturating_sub(self.max_warnings);
        if hidden > 0 {
            let at =
                plan_attrs::func_of(model, 0).map_or(model.module.location(), |f| f.location());
            emit_warning(
                at,
                &format!(
                    "{}: {hidden} more W18888 warnings not shown ({} in all; max-warnings=0 \
                     shows them all)",
                    self.flag,
                    warnings.len()
                ),
                &[],
            );
        }
    }
}

/// GraphLint's reachability oracle: the crate's [`Reachability`] index (topological
/// positions, three GRAIL interval labellings, tree covers, and a search that tries the
/// successors closest to the target first) over the model's data and control edges. Its
/// positive cuts matter here: most lint pairs in a training graph *are* ordered (a forward
/// read of a weight reaches the weight's update through the whole backward pass), and a
/// plain search for such a path can cross most of the graph.
///
/// The index is built on the first question: on a graph where no writer shares an output
/// with another consumer (the generated resnet, for one) the lint asks none, and the index
/// (a copy of every edge plus its labellings, a tenth of the pass's time there) is never
/// needed. On a cycle (which the verifier reports) the lint stays total with the plain
/// search [`DfsReach`].
struct ModelReach<'g> {
    graph: &'g MemGraph,
    index: OnceCell<ReachIndex<'g>>,
}

enum ReachIndex<'g> {
    Labels(Reachability),
    Search(DfsReach<'g>),
}

impl<'g> ModelReach<'g> {
    fn new(graph: &'g MemGraph) -> Self {
        ModelReach {
            graph,
            index: OnceCell::new(),
        }
    }

    fn index(&self) -> &ReachIndex<'g> {
        self.index.get_or_init(|| match labels(self.graph) {
            Some(labels) => ReachIndex::Labels(labels),
            None => ReachIndex::Search(DfsReach::new(self.graph)),
        })
    }
}

/// The [`Reachability`] index of the model's data and control edges (`None` on a cycle).
fn labels(g: &MemGraph) -> Option<Reachability> {
    let mut graph: DiGraph<(), ()> = DiGraph::with_capacity(g.nodes.len(), g.nodes.len() * 2);
    for _ in &g.nodes {
        graph.add_node(());
    }
    for (i, node) in g.nodes.iter().enumerate().filter(|(_, n)| !n.removed) {
        let from = NodeIndex::new(i);
        let data = node
            .outputs
            .iter()
            .flat_map(|o| o.consumers.iter().map(|c| c.node));
        for to in data.chain(node.ctrl_out.iter().copied()) {
            graph.add_edge(from, NodeIndex::new(to.0 as usize), ());
        }
    }
    Reachability::new(&graph).ok()
}

impl Reach for ModelReach<'_> {
    fn reaches(&self, a: NodeId, b: NodeId) -> bool {
        match self.index() {
            ReachIndex::Labels(labels) => labels.reaches_index(a.0 as usize, b.0 as usize),
            ReachIndex::Search(search) => search.reaches(a, b),
        }
    }
}

impl RustPass for MemoryPass {
    fn run(&mut self, operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        self.run_on_module(as_op_ref(&operation))
    }
}
