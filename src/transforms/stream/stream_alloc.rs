//! `stream-alloc`: GE's multi-stream allocation as an MLIR pass.
//!
//! The pass runs on the module (it needs the root graph and all its subgraphs):
//! 1. [`super::model_from_ir`] fills the frozen [`StreamGraph`];
//! 2. [`allocate`] decides everything on it — logical streams (GE's pass chain), attached
//!    streams, events and notifies (GE's three optimisations, renumbering, multi-dims
//!    reuse), activation, the physical split;
//! 3. [`apply`](super::apply) mutates the IR once: stream attributes on every op, the
//!    planned StreamActive ops, then the Send/Recv ops;
//! 4. [`super::report`] writes the summary (JSON or table) and Graphviz on request.
//!
//! ```text
//! ge-opt g.ge --stream-alloc --stream-alloc-summary=- -o out.mlir
//! ge-opt g.ge --stream-alloc=max-parallel={AIcoreEngine:2},hcom-parallel,summary=s.json
//! ge-opt g.ge --pass-pipeline='builtin.module(stream-alloc{single-stream dot=g.dot})'
//! ```
//!
//! Options carry GE's meanings (the JSON summary lists them by GE name):
//! `single-stream` (`ge.enableSingleStream`), `hcom-parallel` (`ge.hcomParallel`),
//! `max-parallel` (`ge.streamMaxParallelNum`, `ENGINE:N,...`; quote or brace it on the
//! command line because commas separate options), `memory-priority`
//! (`ge.exec.memoryOptimizationPolicy=MemoryPriority`), `event` (`ge.event`: `event` or
//! `notify`), `auto-multistream-mode` (`ge.autoMultistreamParallelMode`, only checked
//! against single-stream mode), the runtime limits (`max-task-normal`/`-huge`,
//! `max-stream-normal`/`-huge`, `huge-stream`, `unlimited-stream-depth`, `max-events`,
//! `max-notifies`, `event-reuse-threshold`), and dynamic shape: `dynamic-shape=auto`
//! (default: the graph is dynamic when a data value has a dynamic or unranked shape, GE's
//! unknown-shape graph), `true` or `false`; `dynamic-multi-stream`
//! (`ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1`).
//!
//! Beyond GE, `subgraph-entry-parent` (default **on**) moves a subgraph node fed only by
//! the subgraph's inputs onto the parent stream before its consumer (one stream per While
//! body otherwise; `analysis::stream::subgraph_entry`), and `minimize-events` (default
//! **on**) drops the events that stream order plus the remaining events already imply,
//! after GE's three rules, and after the physical split
//! the split events whose cut the other events already order: the synchronisation is the
//! same, with fewer events (`minimize-events=false` gives GE's event set and ids). The
//! statistics report GE's count (`num-events-ge`), the transitive-reduction minimum on the
//! logical streams (`num-events-minimal`) and on the physical streams
//! (`num-events-minimal-physical`: the logical minimum plus the cuts nothing else orders),
//! and the final ids (`num-events`). Each
//! op's `ascend.stream_reason` names the rule behind its stream (`explain=false` omits it);
//! `verify` re-checks the result (every cross-stream dependency covered, no sync implied by
//! the others, on the logical and on the physical streams) and fails the pass on a
//! problem. `partition-budget` bounds the cycle search of GE's engine partitioner (see
//! `analysis::stream::partition`: the search only crosses clusters that can still reach
//! the child, so it is exact and near-linear on the generated graphs, and the budget is a
//! safety net that can only yield more engine subgraphs).
//!
//! With `--split-input-file`, each chunk's pass writes its summary / Graphviz after the
//! previous chunks' (the first write of the process truncates the file): the file holds
//! one JSON document (or table, or `digraph`) per chunk, in chunk order; `-` prints them
//! the same way.
//!
//! Idempotence: a module that is already allocated (it holds Send/Recv/notify ops or ops
//! with `_logic_stream_id`) is left unchanged — running the pass again must not add events.
//! `on-allocated=error` makes that an error at the first such op instead.
//!
//! Errors (limits exceeded, single-stream mode with a stream label, bad attributes, ...) are
//! reported at the op they are about, with GE's error code, and fail the pass.

use super::{
    apply::apply,
    model_from_ir::{self, IrModel},
    report::{self, SummaryFormat},
};
use crate::{
    analysis::stream::{
        allocate, check, dependencies, Allocation, EngineTable, StreamError, StreamGraph,
        StreamOptions,
    },
    ir::external_pass::{emit_error, PassFailed, PassId, RustPass},
    pipeline::{ModelShare, OptionKind, OptionSpec, PassOptions, Statistic},
    transforms::memory::model_from_ir::{DetachedModel, IrModel as MemoryModel},
};
use melior::{
    ir::{
        operation::{OperationLike, OperationRefMut},
        Location, RegionLike,
    },
    pass::Pass,
};

/// Command-line spellings that set an option of this pass (`--stream-alloc-summary=F` is
/// `--stream-alloc=summary=F`): (flag, option).
pub const FLAG_ALIASES: &[(&str, &str)] = &[
    ("stream-alloc-summary", "summary"),
    ("stream-alloc-dot", "dot"),
];

const fn opt(
    name: &'static str,
    kind: OptionKind,
    default: &'static str,
    help: &'static str,
) -> OptionSpec {
    OptionSpec {
        name,
        kind,
        default,
        help,
    }
}

/// Options of the pass (see the module docs).
pub const OPTIONS: &[OptionSpec] = &[
    opt("root", OptionKind::String, "main", "root graph (function)"),
    opt(
        "single-stream",
        OptionKind::Bool,
        "false",
        "ge.enableSingleStream",
    ),
    opt(
        "hcom-parallel",
        OptionKind::Bool,
        "false",
        "ge.hcomParallel",
    ),
    opt(
        "max-parallel",
        OptionKind::String,
        "",
        "ge.streamMaxParallelNum: {ENGINE:N,...}",
    ),
    opt(
        "memory-priority",
        OptionKind::Bool,
        "false",
        "ge.exec.memoryOptimizationPolicy=MemoryPriority (no engine-conflict check)",
    ),
    opt(
        "event",
        OptionKind::String,
        "event",
        "ge.event: event | notify",
    ),
    opt(
        "auto-multistream-mode",
        OptionKind::String,
        "",
        "ge.autoMultistreamParallelMode (an error with single-stream)",
    ),
    opt(
        "max-task-normal",
        OptionKind::Int,
        "1024",
        "tasks per normal stream",
    ),
    opt(
        "max-task-huge",
        OptionKind::Int,
        "8192",
        "tasks per huge stream",
    ),
    opt("max-stream-normal", OptionKind::Int, "1024", "stream limit"),
    opt(
        "max-stream-huge",
        OptionKind::Int,
        "8192",
        "stream limit with a huge stream",
    ),
    opt(
        "huge-stream",
        OptionKind::Bool,
        "true",
        "the runtime supports huge streams (single-stream mode)",
    ),
    opt(
        "unlimited-stream-depth",
        OptionKind::Bool,
        "false",
        "the runtime splits streams itself (no physical split)",
    ),
    opt(
        "dynamic-shape",
        OptionKind::String,
        "auto",
        "auto | true | false: dynamic-shape graphs use one stream",
    ),
    opt(
        "dynamic-multi-stream",
        OptionKind::Bool,
        "false",
        "ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1",
    ),
    opt("max-events", OptionKind::Int, "65536", "event id limit"),
    opt("max-notifies", OptionKind::Int, "1024", "notify id limit"),
    opt(
        "event-reuse-threshold",
        OptionKind::Int,
        "65500",
        "above it _event_multiplexing applies",
    ),
    opt(
        "minimize-events",
        OptionKind::Bool,
        "true",
        "beyond GE: drop events implied by stream order and the others",
    ),
    opt(
        "subgraph-entry-parent",
        OptionKind::Bool,
        "true",
        "beyond GE: a subgraph node fed only by its inputs joins the parent stream",
    ),
    opt(
        "partition-budget",
        OptionKind::Int,
        "4096",
        "clusters the engine partitioner's cycle search may visit before refusing a merge",
    ),
    opt(
        "explain",
        OptionKind::Bool,
        "true",
        "write ascend.stream_reason on every op",
    ),
    opt(
        "verify",
        OptionKind::Bool,
        "false",
        "re-check coverage and minimality; fail on a problem",
    ),
    opt(
        "on-allocated",
        OptionKind::String,
        "skip",
        "skip | error: a module that is already allocated",
    ),
    opt(
        "summary",
        OptionKind::String,
        "",
        "write the summary to a file (- = stdout); also --stream-alloc-summary=<file>",
    ),
    opt("summary-format", OptionKind::String, "json", "json | table"),
    opt(
        "dot",
        OptionKind::String,
        "",
        "write Graphviz to a file (- = stdout); also --stream-alloc-dot=<file>",
    ),
];

static ID: PassId = PassId::new();

/// `dynamic-shape`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dynamic {
    Auto,
    Yes,
    No,
}

/// Resolved configuration (validated when the pipeline is built, before any input).
#[derive(Clone, Debug)]
struct Config {
    root: String,
    opts: StreamOptions,
    dynamic: Dynamic,
    explain: bool,
    verify: bool,
    refuse_allocated: bool,
    summary: Option<String>,
    summary_format: SummaryFormat,
    dot: Option<String>,
}

fn config(o: &PassOptions) -> Result<Config, String> {
    let fail = |e: StreamError| format!("pass 'stream-alloc': {}", e.message);
    let mut opts = StreamOptions::default();
    for key in ["single-stream", "hcom-parallel", "huge-stream"] {
        opts.set(key, &o.bool(key)?.to_string()).map_err(fail)?;
    }
    for key in [
        "unlimited-stream-depth",
        "dynamic-multi-stream",
        "minimize-events",
        "subgraph-entry-parent",
    ] {
        opts.set(key, &o.bool(key)?.to_string()).map_err(fail)?;
    }
    let max_parallel = o.string("max-parallel")?;
    let max_parallel = max_parallel
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .unwrap_or(max_parallel);
    opts.set("max-parallel", max_parallel).map_err(fail)?;
    opts.memory_priority = o.bool("memory-priority")?;
    opts.set("event", o.string("event")?).map_err(fail)?;
    opts.set(
        "ge.autoMultistreamParallelMode",
        o.string("auto-multistream-mode")?,
    )
    .map_err(fail)?;
    for key in [
        "max-task-normal",
        "max-task-huge",
        "max-stream-normal",
        "max-stream-huge",
        "max-events",
        "max-notifies",
        "event-reuse-threshold",
    ] {
        opts.set(key, &o.int(key)?.to_string()).map_err(fail)?;
    }
    opts.partition_search_budget = usize::try_from(o.int("partition-budget")?)
        .ok()
        .filter(|&b| b > 0)
        .ok_or("pass 'stream-alloc': option 'partition-budget' must be positive")?;
    let dynamic = match o.string("dynamic-shape")? {
        "auto" => Dynamic::Auto,
        "true" | "1" => Dynamic::Yes,
        "false" | "0" => Dynamic::No,
        other => {
            return Err(format!(
                "pass 'stream-alloc': option 'dynamic-shape': '{other}' is not auto, true or false"
            ))
        }
    };
    let refuse_allocated = match o.string("on-allocated")? {
        "skip" => false,
        "error" => true,
        other => {
            return Err(format!(
                "pass 'stream-alloc': option 'on-allocated': '{other}' is not skip or error"
            ))
        }
    };
    let path = |key: &str| -> Result<Option<String>, String> {
        let v = o.string(key)?;
        Ok((!v.is_empty()).then(|| v.to_string()))
    };
    Ok(Config {
        root: o.string("root")?.to_string(),
        opts,
        dynamic,
        explain: o.bool("explain")?,
        verify: o.bool("verify")?,
        refuse_allocated,
        summary: path("summary")?,
        summary_format: SummaryFormat::parse(o.string("summary-format")?)?,
        dot: path("dot")?,
    })
}

#[derive(Clone)]
struct Stats {
    streams: Statistic,
    main_streams: Statistic,
    events: Statistic,
    events_ge: Statistic,
    events_minimal: Statistic,
    events_minimal_physical: Statistic,
    notifies: Statistic,
    split_streams: Statistic,
    sync_ops: Statistic,
    active_ops: Statistic,
    skipped: Statistic,
}

/// Registry constructor.
pub fn create(options: &PassOptions) -> Result<Pass, String> {
    let config = config(options)?;
    let s = |name, help| options.statistic(name, help);
    let stats = Stats {
        streams: s(
            "num-streams",
            "Physical streams (main, attached, split, StreamActive)",
        ),
        main_streams: s("num-main-streams", "Logical main streams"),
        events: s("num-events", "Events (final ids)"),
        events_ge: s(
            "num-events-ge",
            "Events after GE's three rules (GE's count before renumbering)",
        ),
        events_minimal: s(
            "num-events-minimal",
            "Events of the transitive reduction on the logical streams (the minimum)",
        ),
        events_minimal_physical: s(
            "num-events-minimal-physical",
            "The minimum on the physical streams (plus the split cuts nothing else orders)",
        ),
        notifies: s("num-notifies", "Notifies"),
        split_streams: s("num-split-streams", "Physical streams added by the split"),
        sync_ops: s("num-sync-ops", "Send/Recv/notify ops created"),
        active_ops: s("num-stream-active-ops", "StreamActive ops created"),
        skipped: s(
            "num-skipped-allocated",
            "Modules left unchanged because they were already allocated",
        ),
    };
    let share = options.model_share();
    Ok(options.build_pass(
        StreamAlloc {
            config,
            stats,
            share,
        },
        &ID,
    ))
}

#[derive(Clone)]
struct StreamAlloc {
    config: Config,
    stats: Stats,
    /// The pass keeps no model of its own, but hands on the memory passes' model: the
    /// memory pass before it kept one, the memory pass after it takes it, with the ops this
    /// pass inserts read into it ([`MemoryModel::reattach_after_control_inserts`]) instead
    /// of the whole module read again.
    share: ModelShare,
}

fn fail(location: Location, message: &str) -> PassFailed {
    emit_error(location, message);
    PassFailed
}

impl RustPass for StreamAlloc {
    fn run(&mut self, operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        let location = operation.location();
        if operation.name().as_string_ref().as_str() != Ok("builtin.module") {
            return Err(fail(
                location,
                "stream-alloc runs on the module (it needs the root graph and its \
                 subgraphs); do not nest it under another op",
            ));
        }
        let Some(body) = operation.region(0).ok().and_then(|r| r.first_block()) else {
            return Err(fail(location, "stream-alloc: the module has no body"));
        };
        let memory = self.share.take::<DetachedModel>();
        let mut model = model_from_ir::build(body, location, &self.config.root)
            .map_err(|e| fail(e.location, &format!("stream-alloc: {}", e.message)))?;
        if let (Some(op), Some(bare)) = (model.allocated, model.unallocated) {
            // Skipping would leave `bare` without a stream and the plan without the
            // module's real streams; allocating would add events next to the existing ones.
            return Err(fail(
                op.location(),
                &format!(
                    "stream-alloc: the module is only partly stream-allocated: `{}` has a \
                     stream or is a sync op, but `{}` has no `_logic_stream_id`; give the pass \
                     a module without stream attributes and Send/Recv ops, or one it allocated",
                    crate::ir::ops::display_name(op),
                    crate::ir::ops::display_name(bare)
                ),
            ));
        }
        if let Some(op) = model.allocated {
            let why = format!(
                "the module is already stream-allocated (`{}` has a stream or is a sync op)",
                crate::ir::ops::display_name(op)
            );
            if self.config.refuse_allocated {
                return Err(fail(
                    op.location(),
                    &format!("stream-alloc: {why}; run it on the module before allocation"),
                ));
            }
            self.stats.skipped.add(1);
            // Unchanged: the memory model is still the module's.
            if let Some(memory) = memory {
                self.share.keep(memory);
            }
            let text = report::skipped_text(&self.config.root, &why, self.config.summary_format);
            if let Some(path) = &self.config.summary {
                report::write_to(path, &text).map_err(|e| fail(location, &e))?;
            }
            return Ok(());
        }
        let (alloc, opts) =
            decide(&self.config, &model).map_err(|e| fail(e.location, &e.message))?;
        if self.config.verify {
            self.verify(&model, &alloc)?;
        }
        let applied =
            apply(&model, &alloc, self.config.explain).map_err(|e| fail(e.location, &e.message))?;
        self.count(&alloc, applied);
        if let Some(memory) = memory.filter(|_| self.share.feeds_next()) {
            let module = crate::ir::external_pass::as_op_ref(&operation);
            if let Some(memory) =
                MemoryModel::reattach_after_control_inserts(memory, module, &self.config.root)
            {
                self.share.keep(memory.detach(&self.config.root));
            }
        }
        if let Some(path) = &self.config.summary {
            let text =
                report::summary_text(&model.graph, &alloc, &opts, self.config.summary_format);
            report::write_to(path, &text)
                .map_err(|e| fail(location, &format!("stream-alloc: {e}")))?;
        }
        if let Some(path) = &self.config.dot {
            report::write_to(path, &alloc.to_dot(&model.graph))
                .map_err(|e| fail(location, &format!("stream-alloc: {e}")))?;
        }
        // The view and the allocation are freed here, on the pass's thread: a detached
        // thread freeing them could still run while a host process (stock mlir-opt with
        // the plugin) exits, which crashed it under load.
        drop((
            std::mem::replace(&mut model.graph, StreamGraph::new("")),
            alloc,
        ));
        Ok(())
    }
}

/// The allocation of `model` under `config` (the analysis, apart from the rewrite), with
/// the options it ran with.
fn decide<'c>(
    config: &Config,
    model: &IrModel<'c, '_>,
) -> Result<(Allocation, StreamOptions), crate::ir::LocatedError<'c>> {
    let mut opts = config.opts.clone();
    opts.dynamic_shape = match config.dynamic {
        Dynamic::Auto => model.dynamic_shape,
        Dynamic::Yes => true,
        Dynamic::No => false,
    };
    let alloc = allocate(&model.graph, &EngineTable::ge_default(), &opts).map_err(|e| {
        crate::ir::LocatedError {
            location: model.location_of(e.node.as_deref()),
            message: format!("stream-alloc: {e}"),
        }
    })?;
    Ok((alloc, opts))
}

/// The pass's analysis on a module, owned, for a toolchain that applies it with its own
/// pattern set and walk driver: the frozen view and the allocation.
pub struct StreamAllocDecisions<'c, 'a> {
    model: IrModel<'c, 'a>,
    alloc: Allocation,
    explain: bool,
}

/// Runs the pass's analysis on `module` with `options` (pipeline syntax, as for
/// `--pass-pipeline`: `max-task-normal=64`). Nothing is changed yet. A module that is
/// already (even partly) allocated is an error here: there is nothing to apply.
/// `summary`, `dot` and `verify` belong to the pass run, not to the analysis.
pub fn analyse<'c, 'a>(
    module: melior::ir::OperationRef<'c, 'a>,
    options: &str,
) -> Result<StreamAllocDecisions<'c, 'a>, crate::ir::LocatedError<'c>> {
    let at = |message: String| crate::ir::LocatedError::at(module, message);
    let info =
        crate::pipeline::lookup("stream-alloc").ok_or_else(|| at("no stream-alloc".into()))?;
    let assignments = crate::pipeline::options::parse_assignments(options).map_err(at)?;
    let config = PassOptions::resolve(info, &assignments)
        .and_then(|o| config(&o))
        .map_err(at)?;
    let Some(body) = module.region(0).ok().and_then(|r| r.first_block()) else {
        return Err(at("stream-alloc: the module has no body".into()));
    };
    let model = model_from_ir::build(body, module.location(), &config.root).map_err(|e| {
        crate::ir::LocatedError {
            location: e.location,
            message: format!("stream-alloc: {}", e.message),
        }
    })?;
    if let Some(op) = model.allocated {
        return Err(crate::ir::LocatedError::at(
            op,
            format!(
                "stream-alloc: the module is already stream-allocated (`{}` has a stream or is \
                 a sync op)",
                crate::ir::ops::display_name(op)
            ),
        ));
    }
    let (alloc, _) = decide(&config, &model)?;
    Ok(StreamAllocDecisions {
        model,
        alloc,
        explain: config.explain,
    })
}

/// Adds the patterns that apply `decisions` ([`analyse`]) to `set`, for MLIR's walk
/// driver (program order): stream attributes, StreamActive and Send/Recv ops, each rooted
/// at the op it changes. The pass itself is the analysis + these patterns
/// ([`super::apply::apply`]). An error while they run is reported at the op it is about.
pub fn populate_stream_alloc_patterns<'c, 'p>(
    set: &mut crate::ir::PatternSet<'c, 'p>,
    decisions: StreamAllocDecisions<'c, 'p>,
) -> Result<(), crate::ir::LocatedError<'c>> {
    let table = super::apply::StreamDecisions::new(&decisions.model, &decisions.alloc);
    let writer = super::apply::Writer::new((decisions.model, decisions.alloc), decisions.explain)?;
    super::apply::populate_stream_alloc_patterns(
        set,
        table,
        std::rc::Rc::new(std::cell::RefCell::new(writer.reporting())),
    );
    Ok(())
}

impl StreamAlloc {
    fn verify(&self, model: &IrModel, alloc: &Allocation) -> Result<(), PassFailed> {
        let problems = check(&model.graph, alloc, &dependencies(&model.graph));
        if problems.is_empty() {
            return Ok(());
        }
        let shown: Vec<&str> = problems.iter().take(10).map(String::as_str).collect();
        Err(fail(
            model.funcs[0].location(),
            &format!(
                "stream-alloc: verify found {} problem(s): {}",
                problems.len(),
                shown.join("; ")
            ),
        ))
    }

    fn count(&self, alloc: &Allocation, applied: super::apply::Applied) {
        let s = &self.stats;
        s.streams.add(alloc.stream_num.max(0) as u64);
        s.main_streams
            .add(alloc.logical.main_stream_num.max(0) as u64);
        s.events.add(u64::from(alloc.event_num));
        s.events_ge.add(alloc.stats.after_ge_rules as u64);
        s.events_minimal.add(alloc.stats.minimal as u64);
        s.events_minimal_physical
            .add(alloc.stats.minimal_physical as u64);
        s.notifies.add(u64::from(alloc.notify_num));
        let split: usize = alloc.split.split_streams.iter().map(|s| s.len()).sum();
        s.split_streams.add(split as u64);
        s.sync_ops.add(applied.sync_ops as u64);
        s.active_ops.add(applied.stream_active_ops as u64);
    }
}
