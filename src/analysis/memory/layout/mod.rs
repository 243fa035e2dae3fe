//! HandleMemoryLayoutConflict (spec 3.3, ge-behaviour-notes B.19): `--mem-layout-conflict`.
//!
//! Anchors that share one memory symbol ([`crate::analysis::memory::symbols`]) must agree on
//! where that memory may live. Every anchor gets attributes ([`attrs::AnchorAttr`]: user
//! input/output, immutable, unrefreshable, continuous, no-padding continuous, RTS special
//! memory, reference, normal); every pair of anchors of one symbol is looked up in the one
//! symmetric table ([`table::TABLE`]): never a conflict, always a conflict (isolate an input),
//! or a checker decides ([`table::Checker`], GE's 22 functions, some once per symbol). A
//! conflicting anchor is isolated by an `Identity` (`_cannot_be_deleted`): before an input,
//! or after an output taking over all its consumers.
//!
//! The run, per GE:
//! 1. the top static graphs: the root if it is static, else every static subgraph whose
//!    parent graph is dynamic ([`top_static_graphs`]);
//! 2. `CtrlNodeConflict` on each of them first (module `ctrl_node`): If/Case branch outputs fed by
//!    a Data/Const/Variable or sharing a symbol, While bodies whose outputs would overwrite
//!    inputs;
//! 3. per top graph: build the symbols, mark the attributes, walk the symbols in GE's map
//!    order; per symbol find the conflicting anchors ([`LayoutFacts::find_conflicts`]) and
//!    solve them at once in anchor-name order, skipping anchors whose peer already is a copy
//!    (Identity / MemcpyAsync / MemcpyAddrAsync with a single consumer) and anchors of
//!    unknown shape.
//!
//! Beyond GE: each inserted copy's `ascend.reason` names the attribute pair, the two anchors
//! and the checker (or "always conflict") that decided.
//!
//! Cost: the symbol table and the facts are built once per top graph (O(anchors)); pairs
//! are only formed inside a symbol, and a pair of two anchors that can never conflict
//! (normal / reference attributes only) is not even formed, so a symbol with one special
//! anchor and k plain ones costs O(k).
//!
//! Documented choices: the run repeats until quiet (see [`plan_mem_layout_conflict`]); GE's
//! multi-continuous-input rule counts edges and isolates every consumer after the second
//! continuous one, continuous or not; here it counts continuous ops and isolates only them. An unconnected input cannot be isolated and is skipped (GE fails).
//! HCCL ops count as not supporting address refresh (GE asks the HCCL kernel). Node ids
//! (GE's topological `GetId`) are positions in the `GetAllNodes` walk of the root.

pub mod attrs;
mod checkers;
mod ctrl_node;
mod partners;
pub mod table;

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::edits::{insert_identity_after, insert_identity_before};
use super::model::{GraphId, InPort, MemError, MemGraph, NodeId, Origin, OutPort, Sym, ROOT};
use super::plan::{Plan, Rule};
use super::symbols::{ref_input, Anchor, SymbolId, Symbols};
use attrs::{AnchorAttr, AttrSet, ATTR_COUNT};
use table::{Checker, PairRule};

/// The GE options the layout pass reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutOptions {
    /// `ge.featureBaseRefreshable = 1`: the feature map's base address can be refreshed.
    pub feature_map_refreshable: bool,
    /// Dynamic+static memory reuse (GE `IsGeUseExtendSizeMemoryFull`): physical addresses may
    /// change, so ops reading a fixed physical address must be isolated.
    pub physical_memory_refreshable: bool,
    /// Offline build (`ge.buildGraphMode = offline`, also single-op or heterogeneous): a
    /// user input cannot feed a no-padding continuous output directly.
    pub offline: bool,
}

/// GE's `GraphInfo` of one top static graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GraphInfo {
    pub root_static: bool,
    pub feature_map_refreshable: bool,
    pub user_input_nopadding_continuous_output: bool,
    pub physical_memory_refreshable: bool,
}

/// Who decided that an anchor needs a copy.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Decider {
    /// The pair is in the always-conflict set.
    Always,
    /// A checker.
    Checker(Checker),
}

impl Decider {
    pub fn name(self) -> &'static str {
        match self {
            Decider::Always => "always-conflict",
            Decider::Checker(c) => c.name(),
        }
    }
}

/// Why one anchor is in a symbol's conflict set: the first pair that put it there.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Decision {
    /// The anchor to isolate.
    pub anchor: Anchor,
    /// The attribute pair being checked.
    pub pair: (AnchorAttr, AnchorAttr),
    /// The two anchors of the pair.
    pub between: (Anchor, Anchor),
    pub decider: Decider,
}

/// A symbol's conflict set (GE `AnchorSet`), with the first decision per anchor.
#[derive(Clone, Debug, Default)]
pub struct Conflicts {
    decisions: Vec<Decision>,
    seen: HashSet<Anchor>,
}

impl Conflicts {
    pub fn is_empty(&self) -> bool {
        self.decisions.is_empty()
    }

    pub fn len(&self) -> usize {
        self.decisions.len()
    }

    /// The decisions, in the order they were made.
    pub fn decisions(&self) -> &[Decision] {
        &self.decisions
    }

    pub fn contains(&self, a: Anchor) -> bool {
        self.seen.contains(&a)
    }

    fn insert(&mut self, d: Decision) {
        if self.seen.insert(d.anchor) {
            self.decisions.push(d);
        }
    }
}

/// What the checkers know about one top static graph, computed once: the graph, its
/// `GraphInfo`, GE node ids, and the variables named by `ref_var_src_var_name`. Methods take
/// the model, so the planner can edit it between symbols.
#[derive(Clone, Debug)]
pub struct LayoutFacts {
    graph: GraphId,
    info: GraphInfo,
    /// GE node id (position in the root's `GetAllNodes` walk), `u32::MAX` if not walked;
    /// shared by the facts of all top graphs of one run.
    topo: Rc<Vec<u32>>,
    /// Variable name -> node, for names some output references.
    vars: HashMap<Sym, NodeId>,
}

impl LayoutFacts {
    /// The facts of top graph `graph` (O(nodes)).
    pub fn new(g: &MemGraph, graph: GraphId, opts: LayoutOptions) -> LayoutFacts {
        LayoutFacts::with(&RunFacts::new(g), g, graph, &g.all_nodes_of(graph), opts)
    }

    /// The facts of top graph `graph` from the whole-model facts of this run (O(nodes of
    /// `graph`), so a dynamic root with many static subgraphs stays linear). `walk` =
    /// `g.all_nodes_of(graph)`.
    fn with(
        run: &RunFacts,
        g: &MemGraph,
        graph: GraphId,
        walk: &[NodeId],
        opts: LayoutOptions,
    ) -> LayoutFacts {
        let statics = &run.statics;
        let root_static = statics.is_static(ROOT);
        let wanted: HashSet<Sym> = walk
            .iter()
            .flat_map(|&n| g.node(n).outputs.iter().filter_map(|o| o.ref_var_src))
            .collect();
        let mut vars = HashMap::new();
        if !wanted.is_empty() {
            let names: HashMap<&str, Sym> = wanted.iter().map(|&s| (g.sym_str(s), s)).collect();
            for &n in walk {
                if let Some(&s) = names.get(&*g.node(n).name) {
                    vars.entry(s).or_insert(n);
                }
            }
        }
        LayoutFacts {
            graph,
            info: GraphInfo {
                root_static,
                feature_map_refreshable: feature_map_refreshable(statics, graph, opts),
                user_input_nopadding_continuous_output: !opts.offline,
                physical_memory_refreshable: opts.physical_memory_refreshable,
            },
            topo: run.topo.clone(),
            vars,
        }
    }

    /// The graph these facts are about.
    pub fn graph(&self) -> GraphId {
        self.graph
    }

    pub fn info(&self) -> GraphInfo {
        self.info
    }

    fn topo(&self, n: NodeId) -> u32 {
        self.topo.get(n.0 as usize).copied().unwrap_or(u32::MAX)
    }

    /// GE `IsAddressRefreshable`: StreamSwitch/LabelSwitchByIndex never, ops marked
    /// unrefreshable never, HCCL ops only with a refreshable feature map (GE asks the node's
    /// own graph; every graph nested in a top static graph is static too, so the top graph's
    /// answer is theirs).
    pub fn address_refreshable(&self, g: &MemGraph, n: NodeId) -> bool {
        let s = g.node(n).sem;
        if s.fixed_address || s.address_unrefreshable {
            return false;
        }
        !s.hccl || self.info.feature_map_refreshable
    }

    /// GE `IsPhysicalAddressRefreshable`: only ops reading a fixed physical address cannot.
    pub fn physical_address_refreshable(&self, g: &MemGraph, n: NodeId) -> bool {
        !g.node(n).sem.fixed_address
    }

    /// GE `IsRefFromVar`: the variable node an output references through
    /// `ref_var_src_var_name`, when that variable's output 0 shares the output's symbol.
    pub fn ref_var_source(&self, g: &MemGraph, symbols: &Symbols, p: OutPort) -> Option<NodeId> {
        let var = g.node(p.node).outputs.get(p.index as usize)?.ref_var_src?;
        let v = *self.vars.get(&var)?;
        let sv = symbols.symbol_of(Anchor::output(v, 0))?;
        (symbols.symbol_of_out(p)? == sv).then_some(v)
    }

    /// The attributes of one anchor (GE `MarkInTypes` / `MarkOutTypes` for the top graph).
    pub fn attrs(&self, g: &MemGraph, symbols: &Symbols, a: Anchor) -> AttrSet {
        use AnchorAttr::*;
        let node = g.node(a.node());
        let s = node.sem;
        let mut t = AttrSet::default();
        match a {
            Anchor::In(p) => {
                if s.net_output && node.graph == self.graph {
                    t.insert(UserMemoryOutput);
                }
                if !self.address_refreshable(g, p.node) {
                    t.insert(UnsupportedAddressRefreshInput);
                }
                if s.nopad_continuous_input && node.inputs.len() > 1 {
                    t.insert(NopaddingContinuousInput);
                }
                if s.continuous_input && node.inputs.len() > 1 {
                    t.insert(ContinuousInput);
                }
                let mem = node.inputs.get(p.index as usize).map_or(0, |x| x.mem_type);
                if super::model::mem_type::is_special(mem) {
                    t.insert(RtsSpecialTypeInput);
                }
                if t.is_empty() {
                    t.insert(NormalInput);
                }
            }
            Anchor::Out(p) => {
                let user_input = s.data_like && node.graph == self.graph;
                if user_input {
                    t.insert(UserMemoryInput);
                }
                // RefData is a user input, not an immutable address (GE's AssignVar note).
                if s.const_like || (s.var_like && !s.data_like) {
                    t.insert(ImmutableAddressOutput);
                }
                if !self.address_refreshable(g, p.node) {
                    t.insert(UnsupportedAddressRefreshOutput);
                }
                if s.nopad_continuous_output && node.outputs.len() > 1 {
                    t.insert(NopaddingContinuousOutput);
                }
                if s.continuous_output && node.outputs.len() > 1 {
                    t.insert(ContinuousOutput);
                }
                if !user_input
                    && (self.ref_var_source(g, symbols, p).is_some()
                        || ref_input(g, p.node, p.index).is_some())
                {
                    t.insert(ReferenceOutput);
                }
                let mem = node.outputs.get(p.index as usize).map_or(0, |x| x.mem_type);
                if super::model::mem_type::is_special(mem) {
                    t.insert(RtsSpecialTypeOutput);
                }
                if t.is_empty() {
                    t.insert(NormalOutput);
                }
            }
        }
        t
    }

    /// GE `FindConflictNodes`: every pair of `anchors` (one symbol, in list order) through
    /// the table. Pairs that cannot decide anything in this graph (two inert anchors, or
    /// attribute sets that meet only `Never` rules or dormant checkers) are not formed; the
    /// rest keep GE's order (see `partners`).
    pub fn find_conflicts(
        &self,
        g: &MemGraph,
        symbols: &Symbols,
        anchors: &[Anchor],
    ) -> Result<Conflicts, MemError> {
        let types: Vec<AttrSet> = anchors.iter().map(|&a| self.attrs(g, symbols, a)).collect();
        self.find_conflicts_typed(g, symbols, anchors, &types)
    }

    /// Every anchor's attributes in `symbols`, by anchor id: one pass over the nodes in
    /// table order. A symbol's anchors are scattered over the graph, so asking per symbol
    /// read each node where it lay (at a million nodes, a cache miss per anchor); this
    /// reads the nodes in memory order once and leaves a table of two bytes per anchor.
    /// The attributes of an anchor depend on its node, the facts and the table only, so
    /// copies inserted while symbols are solved do not change it.
    pub fn attr_table(&self, g: &MemGraph, symbols: &Symbols) -> Vec<AttrSet> {
        (0..symbols.anchor_ids() as u32)
            .map(|id| self.attrs(g, symbols, symbols.anchor_at(id)))
            .collect()
    }

    /// [`LayoutFacts::find_conflicts`] on `anchors` whose attribute sets are given, in the
    /// same order (from an [`LayoutFacts::attr_table`]).
    pub fn find_conflicts_typed(
        &self,
        g: &MemGraph,
        symbols: &Symbols,
        anchors: &[Anchor],
        types: &[AttrSet],
    ) -> Result<Conflicts, MemError> {
        // Most symbols hold only plain anchors: no pair to form, nothing to allocate.
        if types.iter().all(|t| t.is_inert()) {
            return Ok(Conflicts::default());
        }
        // Only the pairs whose attribute sets meet a rule, in GE's pair order (see
        // `partners`): a symbol with thousands of written anchors stays linear.
        let partners = partners::Partners::new(types, self.info);
        self.check_pairs(g, symbols, anchors, types, |i, later| partners.of(i, later))
    }

    /// [`LayoutFacts::find_conflicts`] visiting every pair but those of two inert anchors,
    /// as it did before it grouped anchors: the oracle of the property test.
    #[cfg(test)]
    pub(crate) fn find_conflicts_all_pairs(
        &self,
        g: &MemGraph,
        symbols: &Symbols,
        anchors: &[Anchor],
    ) -> Result<Vec<Decision>, MemError> {
        let types: Vec<AttrSet> = anchors.iter().map(|&a| self.attrs(g, symbols, a)).collect();
        let all_but_inert = |i: usize, later: &mut Vec<usize>| {
            later.clear();
            later.extend(
                (i + 1..anchors.len()).filter(|&j| !(types[i].is_inert() && types[j].is_inert())),
            );
        };
        let result = self.check_pairs(g, symbols, anchors, &types, all_but_inert)?;
        Ok(result.decisions)
    }

    /// Runs `check_pair` on anchor `i` and each anchor `later(i)` lists (ascending), for `i`
    /// in order: one symbol's conflict set.
    fn check_pairs(
        &self,
        g: &MemGraph,
        symbols: &Symbols,
        anchors: &[Anchor],
        types: &[AttrSet],
        mut later: impl FnMut(usize, &mut Vec<usize>),
    ) -> Result<Conflicts, MemError> {
        let mut result = Conflicts::default();
        let mut visited = [[false; ATTR_COUNT]; ATTR_COUNT];
        let index = std::cell::OnceCell::new();
        let mut partners = Vec::new();
        for i in 0..anchors.len() {
            later(i, &mut partners);
            for &j in &partners {
                let mut ctx = checkers::Ctx {
                    g,
                    facts: self,
                    symbols,
                    all: anchors,
                    index: &index,
                    a: anchors[i],
                    b: anchors[j],
                    ta: types[i],
                    tb: types[j],
                    pair: (AnchorAttr::NormalInput, AnchorAttr::NormalInput),
                    decider: Decider::Always,
                    result: &mut result,
                };
                check_pair(&mut ctx, &mut visited)?;
            }
        }
        Ok(result)
    }

    /// Whether symbol `s` holds a conflict.
    pub fn symbol_has_conflict(
        &self,
        g: &MemGraph,
        symbols: &Symbols,
        s: SymbolId,
    ) -> Result<bool, MemError> {
        let anchors: Vec<Anchor> = symbols.anchors(s).collect();
        Ok(!self.find_conflicts(g, symbols, &anchors)?.is_empty())
    }

    /// GE `MemLayoutConflictUtil::IsGraphExistMemConflictSymbol`: whether any symbol of the
    /// table holds a conflict (symbols in GE's map order; stops at the first).
    pub fn graph_has_conflict_symbol(
        &self,
        g: &MemGraph,
        symbols: &Symbols,
    ) -> Result<bool, MemError> {
        for s in symbols.ge_order(g) {
            if self.symbol_has_conflict(g, symbols, s)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// GE `IsGraphExistMemConflictSymbol(graph, symbols)`, for callers that ask once (in-place
/// reuse asks it after a merge; build [`LayoutFacts`] once and use
/// [`LayoutFacts::symbol_has_conflict`] on the merged symbol to ask many times cheaply).
pub fn is_graph_exist_mem_conflict_symbol(
    g: &MemGraph,
    graph: GraphId,
    symbols: &Symbols,
    opts: LayoutOptions,
) -> Result<bool, MemError> {
    LayoutFacts::new(g, graph, opts).graph_has_conflict_symbol(g, symbols)
}

/// GE `Checker::CheckConflict` for one pair.
fn check_pair(
    ctx: &mut checkers::Ctx,
    visited: &mut [[bool; ATTR_COUNT]; ATTR_COUNT],
) -> Result<(), MemError> {
    if checkers::is_skip(ctx) {
        return Ok(());
    }
    let (ta, tb) = (ctx.ta, ctx.tb);
    for x in ta.iter() {
        for y in tb.iter() {
            ctx.pair = (x, y);
            match table::rule(x, y) {
                PairRule::Never | PairRule::Unregistered => {}
                PairRule::Always => {
                    ctx.decider = Decider::Always;
                    checkers::absolute(ctx)?;
                }
                PairRule::Check {
                    checker,
                    per_symbol,
                } => {
                    if per_symbol {
                        if visited[x as usize][y as usize] {
                            continue;
                        }
                        visited[x as usize][y as usize] = true;
                        visited[y as usize][x as usize] = true;
                    }
                    ctx.decider = Decider::Checker(checker);
                    checkers::run(checker, ctx)?;
                }
            }
        }
    }
    Ok(())
}

/// What every top graph's facts share: GE node ids and which graphs are static.
struct RunFacts {
    topo: Rc<Vec<u32>>,
    statics: StaticGraphs,
}

impl RunFacts {
    fn new(g: &MemGraph) -> RunFacts {
        let mut topo = vec![u32::MAX; g.nodes.len()];
        for (i, n) in g.all_nodes().into_iter().enumerate() {
            topo[n.0 as usize] = i as u32;
        }
        RunFacts {
            topo: Rc::new(topo),
            statics: StaticGraphs::new(g),
        }
    }
}

/// Which graphs are static: no unknown-shape node in them or any subgraph nested in them
/// (GE `IsStaticGraph`).
struct StaticGraphs {
    dynamic: Vec<bool>,
}

impl StaticGraphs {
    fn new(g: &MemGraph) -> StaticGraphs {
        let mut dynamic: Vec<bool> = g.graphs.iter().map(|gr| gr.unknown_shape).collect();
        // Children come after parents in `all_subgraphs`; fold innermost first.
        for sg in g.all_subgraphs().into_iter().rev() {
            if dynamic[sg.0 as usize] {
                if let Some(p) = g.graph(sg).parent {
                    dynamic[g.node(p).graph.0 as usize] = true;
                }
            }
        }
        StaticGraphs { dynamic }
    }

    fn is_static(&self, gid: GraphId) -> bool {
        !self.dynamic.get(gid.0 as usize).copied().unwrap_or(true)
    }
}

/// GE `IsGraphFeatureMapRefreshable`: the option, or a static graph inside a dynamic root.
fn feature_map_refreshable(statics: &StaticGraphs, graph: GraphId, opts: LayoutOptions) -> bool {
    opts.feature_map_refreshable || (!statics.is_static(ROOT) && statics.is_static(graph))
}

/// The top static graphs: the root if static, else every static subgraph whose parent
/// graph is dynamic (in `GetAllSubgraphs` order).
pub fn top_static_graphs(g: &MemGraph) -> Vec<GraphId> {
    let statics = StaticGraphs::new(g);
    if statics.is_static(ROOT) {
        return vec![ROOT];
    }
    g.all_subgraphs()
        .into_iter()
        .filter(|&sg| {
            statics.is_static(sg)
                && g.graph(sg)
                    .parent
                    .is_some_and(|p| !statics.is_static(g.node(p).graph))
        })
        .collect()
}

/// GE `IsSkipInsert` for an input: unknown shape, or fed by a copy with a single consumer.
pub fn skip_insert_in(g: &MemGraph, c: InPort) -> bool {
    if g.in_tensor(c).is_unknown_shape() {
        return true;
    }
    match g.src(c.node, c.index) {
        Some(src) => g.node(src.node).sem.copy_like && g.consumers(src.node, src.index).len() == 1,
        None => true, // nothing to isolate
    }
}

/// GE `IsSkipInsert` for an output: unknown shape, or its single consumer is a copy.
pub fn skip_insert_out(g: &MemGraph, p: OutPort) -> bool {
    if g.out_tensor(p).is_unknown_shape() {
        return true;
    }
    let consumers = g.consumers(p.node, p.index);
    consumers.len() == 1 && g.node(consumers[0].node).sem.copy_like
}

/// Names of inserted copies: GE's `identity_<in idx>_<consumer>_MemLayoutConflict_<n>`, with
/// a per-run counter (GE's is process-wide).
struct Namer {
    next: u32,
}

impl Namer {
    fn name(&mut self, g: &mut MemGraph, first: InPort) -> String {
        let base = format!(
            "identity_{}_{}_MemLayoutConflict_{}",
            first.index,
            g.node(first.node).name,
            self.next
        );
        self.next += 1;
        g.fresh_name(&base)
    }
}

/// `%node:in<i>` / `%node:out<o>`.
pub fn anchor_text(g: &MemGraph, a: Anchor) -> String {
    let io = if a.is_input() { "in" } else { "out" };
    format!("%{}:{io}{}", g.node(a.node()).name, a.index())
}

/// Upper bound on the rounds of [`plan_mem_layout_conflict`].
pub const MAX_LAYOUT_ROUNDS: usize = 8;

/// Plan `--mem-layout-conflict` on `g` (left in the planned state).
///
/// GE runs the pass once. One run decides each symbol on the graph as it was before that
/// symbol's copies, so a copy can invalidate an exemption decided next to it (a no-padding
/// block whose real inputs were all one anchor until one of them got a copy; a While body
/// whose symbol count a copy changed). The run is therefore repeated until a round inserts
/// nothing, which makes the pass idempotent; on graphs where one run suffices (the usual
/// case) the result is GE's. Not settling within [`MAX_LAYOUT_ROUNDS`] is an error.
pub fn plan_mem_layout_conflict(g: &mut MemGraph, opts: LayoutOptions) -> Result<Plan, MemError> {
    g.normalize();
    let mut plan = Plan::new(Origin::MemLayoutConflict, g);
    let tops = top_static_graphs(g);
    let mut namer = Namer { next: 0 };
    for round in 0..MAX_LAYOUT_ROUNDS {
        let before = plan.steps.len();
        for &t in &tops {
            ctrl_node::solve(g, &mut plan, &mut namer, t)?;
        }
        g.normalize();
        let run = RunFacts::new(g);
        for &t in &tops {
            process(g, &mut plan, &mut namer, &run, t, opts)?;
            g.normalize();
        }
        plan.stats.rounds = round as u64 + 1;
        if plan.steps.len() == before {
            return Ok(plan);
        }
    }
    Err(MemError::global(format!(
        "mem-layout-conflict did not settle in {MAX_LAYOUT_ROUNDS} rounds"
    )))
}

/// One top static graph: symbols, attributes, conflicts per symbol, solutions.
fn process(
    g: &mut MemGraph,
    plan: &mut Plan,
    namer: &mut Namer,
    run: &RunFacts,
    graph: GraphId,
    opts: LayoutOptions,
) -> Result<(), MemError> {
    let walk = g.all_nodes_of(graph);
    let symbols = Symbols::build_from_walk(g, graph, &walk);
    let facts = LayoutFacts::with(run, g, graph, &walk, opts);
    plan.stats.nodes_visited += walk.len() as u64;
    let table = facts.attr_table(g, &symbols);
    let (mut anchors, mut types): (Vec<Anchor>, Vec<AttrSet>) = (Vec::new(), Vec::new());
    for s in symbols.ge_order(g) {
        anchors.clear();
        types.clear();
        for id in symbols.ids_of(s) {
            anchors.push(symbols.anchor_at(id));
            types.push(table[id as usize]);
        }
        let conflicts = facts.find_conflicts_typed(g, &symbols, &anchors, &types)?;
        if conflicts.is_empty() {
            continue;
        }
        let symbol_name = symbols.name(g, s);
        let mut ordered: Vec<Decision> = conflicts.decisions().to_vec();
        ordered.sort_by(|x, y| x.anchor.cmp_ge_name(y.anchor, g));
        for d in ordered {
            solve(g, plan, namer, &symbol_name, d)?;
        }
    }
    Ok(())
}

/// GE `SolveConflict` for one anchor.
fn solve(
    g: &mut MemGraph,
    plan: &mut Plan,
    namer: &mut Namer,
    symbol: &str,
    d: Decision,
) -> Result<(), MemError> {
    let reason = |g: &MemGraph, side: &str| {
        format!(
            "{} {} and {} {} share symbol {symbol}: {} ({}); isolate {side} {}",
            d.pair.0,
            anchor_text(g, d.between.0),
            d.pair.1,
            anchor_text(g, d.between.1),
            if d.decider == Decider::Always {
                "always a conflict"
            } else {
                "conflict"
            },
            d.decider.name(),
            anchor_text(g, d.anchor)
        )
    };
    match d.anchor {
        Anchor::In(c) => {
            if skip_insert_in(g, c) {
                return Ok(());
            }
            let name = namer.name(g, c);
            let why = reason(g, "input");
            insert_identity_before(g, plan, c, name, true, Rule::LayoutConflict, why)?;
        }
        Anchor::Out(p) => {
            if skip_insert_out(g, p) {
                return Ok(());
            }
            let consumers = g.consumers(p.node, p.index).to_vec();
            let Some(&first) = consumers.first() else {
                return Ok(());
            };
            let name = namer.name(g, first);
            let why = reason(g, "output");
            insert_identity_after(g, plan, p, consumers, name, true, Rule::LayoutConflict, why)?;
        }
    }
    Ok(())
}

/// GE's own way to answer [`ctrl_node_subgraph_has_conflict`]: run the rules on a copy and
/// look for an insertion. The oracle of the read-only answer's tests.
#[cfg(test)]
pub(crate) fn ctrl_node_rules_insert_on_copy(
    mut copy: MemGraph,
    graph: GraphId,
) -> Result<bool, MemError> {
    copy.normalize();
    let mut plan = Plan::new(Origin::MemLayoutConflict, &copy);
    let mut namer = Namer { next: 0 };
    ctrl_node::solve(&mut copy, &mut plan, &mut namer, graph)?;
    Ok(!plan.steps.is_empty())
}

/// GE `MemLayoutConflictUtil::IsCtrlNodeSubgraphExistMemConflictSymbol`: whether
/// CtrlNodeConflict would isolate anything in top graph `graph` of `g` (normalized). GE
/// runs the rules on a copy of the graph and looks for an insertion; reading the graph
/// for the first rule that would fire gives the same answer without the copy (in-place
/// reuse asks it once, with its reuses tentatively recorded on the model; see
/// [`crate::analysis::memory::inplace`]).
pub fn ctrl_node_subgraph_has_conflict(g: &MemGraph, graph: GraphId) -> Result<bool, MemError> {
    ctrl_node::would_insert(g, graph)
}
