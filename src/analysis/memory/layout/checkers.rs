//! GE's 22 layout checkers (`checker/funcs/`), the absolute-conflict rule and
//! `Checker::IsSkip`, over one pair of anchors of one symbol.
//!
//! Each checker reads the pair (`a`, `b`, their attributes), the symbol's anchors (`all`, in
//! GE list order) and the graph, and adds the anchors to isolate to the symbol's conflict
//! set. Where GE picks "node_a unless node_b has the attribute", so does the code here.

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};

use super::super::model::{mem_type, MemError, MemGraph, NodeId, OutPort};
use super::super::symbols::{ref_input, Anchor, Symbols};
use super::attrs::{AnchorAttr, AttrSet};
use super::table::Checker;
use super::{Conflicts, Decider, Decision, LayoutFacts};
use AnchorAttr::*;

/// Who owns the anchors of one symbol, built on the first question (so a pair check does
/// not rescan the symbol: a symbol with k special anchors stays O(k^2) pairs, not O(k^3)).
pub(super) struct SymbolIndex {
    /// Nodes with an output in the symbol.
    out_nodes: HashSet<NodeId>,
    /// Each node's inputs in the symbol, in list order.
    inputs: HashMap<NodeId, Vec<Anchor>>,
}

impl SymbolIndex {
    fn build(all: &[Anchor]) -> SymbolIndex {
        let mut out_nodes = HashSet::new();
        let mut inputs: HashMap<NodeId, Vec<Anchor>> = HashMap::new();
        for &x in all {
            match x {
                Anchor::Out(p) => {
                    out_nodes.insert(p.node);
                }
                Anchor::In(p) => inputs.entry(p.node).or_default().push(x),
            }
        }
        SymbolIndex { out_nodes, inputs }
    }

    fn inputs_of(&self, n: NodeId) -> &[Anchor] {
        self.inputs.get(&n).map_or(&[], Vec::as_slice)
    }
}

/// One pair being checked.
pub(super) struct Ctx<'c> {
    pub g: &'c MemGraph,
    pub facts: &'c LayoutFacts,
    pub symbols: &'c Symbols,
    pub all: &'c [Anchor],
    /// The symbol's [`SymbolIndex`], built on demand.
    pub index: &'c OnceCell<SymbolIndex>,
    pub a: Anchor,
    pub b: Anchor,
    pub ta: AttrSet,
    pub tb: AttrSet,
    /// The attribute pair being decided (`ta` side, `tb` side).
    pub pair: (AnchorAttr, AnchorAttr),
    pub decider: Decider,
    pub result: &'c mut Conflicts,
}

impl Ctx<'_> {
    /// Puts `anchor` into the conflict set (first decision wins).
    fn mark(&mut self, anchor: Anchor) {
        self.result.insert(Decision {
            anchor,
            pair: self.pair,
            between: (self.a, self.b),
            decider: self.decider,
        });
    }

    /// `(carrier, other)`: the anchor whose side carries `attr` and the other one, looking
    /// at side `b` first (so `b` when both sides carry it), as the GE checker does.
    fn carrier_b_first(&self, attr: AnchorAttr) -> (Anchor, Anchor) {
        if self.tb.contains(attr) {
            (self.b, self.a)
        } else {
            (self.a, self.b)
        }
    }

    /// [`Self::carrier_b_first`], looking at side `a` first.
    fn carrier_a_first(&self, attr: AnchorAttr) -> (Anchor, Anchor) {
        if self.ta.contains(attr) {
            (self.a, self.b)
        } else {
            (self.b, self.a)
        }
    }

    fn info(&self) -> super::GraphInfo {
        self.facts.info
    }

    /// GE `HasNotSupportPhysicalMemoryRefreshNode`.
    fn has_fixed_physical_address(&self) -> bool {
        self.info().physical_memory_refreshable
            && (!self
                .facts
                .physical_address_refreshable(self.g, self.a.node())
                || !self
                    .facts
                    .physical_address_refreshable(self.g, self.b.node()))
    }

    fn topo(&self, n: NodeId) -> u32 {
        self.facts.topo(n)
    }

    fn index(&self) -> &SymbolIndex {
        self.index.get_or_init(|| SymbolIndex::build(self.all))
    }
}

/// The anchor of `x`'s node with `x`'s index on the input side (GE `GetInAnchor(index)`).
fn as_in(x: Anchor) -> Anchor {
    Anchor::input(x.node(), x.index())
}

/// ... on the output side (GE `GetOutAnchor(index)`).
fn as_out(x: Anchor) -> Anchor {
    Anchor::output(x.node(), x.index())
}

/// GE `Checker::IsSkip`: anchors of one node, or two outputs (neither continuous) where one
/// references the other's variable through `ref_var_src_var_name`.
pub(super) fn is_skip(ctx: &Ctx) -> bool {
    if ctx.a.node() == ctx.b.node() {
        return true;
    }
    if let (Anchor::Out(pa), Anchor::Out(pb)) = (ctx.a, ctx.b) {
        if !ctx.ta.contains(ContinuousOutput) && !ctx.tb.contains(ContinuousOutput) {
            let src_a = ctx.facts.ref_var_source(ctx.g, ctx.symbols, pa);
            let src_b = ctx.facts.ref_var_source(ctx.g, ctx.symbols, pb);
            return src_a == Some(pb.node) || src_b == Some(pa.node);
        }
    }
    false
}

/// GE `IsNodeOutRefFromInput`: an output of the input's node is in the same symbol (the
/// node's output references this input, so a copy before it would not help).
fn node_out_ref_from_input(ctx: &Ctx, x: Anchor) -> bool {
    ctx.index().out_nodes.contains(&x.node())
}

/// GE `Checker::CheckAbsoluteConflict`: isolate an input; of two inputs the one with the
/// smaller node id, unless its node's output references it.
pub(super) fn absolute(ctx: &mut Ctx) -> Result<(), MemError> {
    match (ctx.a.is_input(), ctx.b.is_input()) {
        (true, true) => {
            let pick_a = ctx.topo(ctx.a.node()) < ctx.topo(ctx.b.node())
                && !node_out_ref_from_input(ctx, ctx.a);
            let x = if pick_a { ctx.a } else { ctx.b };
            ctx.mark(x);
        }
        (true, false) => ctx.mark(ctx.a),
        (false, true) => ctx.mark(ctx.b),
        (false, false) => {
            return Err(MemError::at(
                ctx.g,
                ctx.a.node(),
                format!(
                    "always-conflicting attributes {} and {} on two outputs (%{} and %{}): GE \
                     does not support this case",
                    ctx.pair.0,
                    ctx.pair.1,
                    ctx.g.node(ctx.a.node()).name,
                    ctx.g.node(ctx.b.node()).name
                ),
            ))
        }
    }
    Ok(())
}

/// Whether `checker` returns at once on every pair of a graph with these facts: its first
/// test reads only `info` (see `unrefresh_in`, `unrefresh_out`, `user_out_and_immutable_out`).
/// The conflict search leaves such pairs out (`partners`).
pub(super) fn dormant(checker: Checker, info: super::GraphInfo) -> bool {
    match checker {
        Checker::UnrefreshIn | Checker::UnrefreshOut => {
            !info.feature_map_refreshable && !info.physical_memory_refreshable
        }
        Checker::UserOutAndImmutableOut => !info.root_static,
        _ => false,
    }
}

/// Runs one checker on the pair.
pub(super) fn run(checker: Checker, ctx: &mut Ctx) -> Result<(), MemError> {
    use Checker as C;
    match checker {
        C::UnrefreshIn => unrefresh_in(ctx),
        C::UnrefreshOut => unrefresh_out(ctx),
        C::UserOutAndImmutableOut => user_out_and_immutable_out(ctx),
        C::UserInAndContinuousInOut => user_in_and_continuous_in_out(ctx),
        C::UserInAndUnrefreshOut => user_in_and_unrefresh_out(ctx),
        C::UserInAndRtsSpecialOut => user_in_and_rts_special_out(ctx),
        C::UserOutAndUnrefreshOut => user_out_and_unrefresh_out(ctx),
        C::UserOutAndUnrefreshIn => user_out_and_unrefresh_in(ctx),
        C::UserOutAndContinuousInput => user_out_and_continuous_input(ctx),
        C::ImmutableOutAndRtsSpecialOut => immutable_out_and_rts_special_out(ctx),
        C::ImmutableOutAndNopaddingContinuousIn => immutable_out_and_nopadding_continuous_in(ctx),
        C::ImmutableOutAndContinuousOut => return immutable_out_and_continuous_out(ctx),
        C::ContinuousInputAndContinuousInput => continuous_input_and_continuous_input(ctx),
        C::ContinuousOutputAndContinuousInput => continuous_output_and_continuous_input(ctx),
        C::ContinuousOutAndContinuousOut => continuous_out_and_continuous_out(ctx, false),
        C::NopaddingContinuousOutAndNopaddingContinuousOut => {
            continuous_out_and_continuous_out(ctx, true)
        }
        C::NopaddingContinuousInputAndNopaddingContinuousInput => {
            nopadding_input_and_nopadding_input(ctx)
        }
        C::NopaddingContinuousInputAndNopaddingContinuousOut => {
            nopadding_input_and_nopadding_out(ctx)
        }
        C::ContinuousInOutAndRtsSpecialMemInOut => continuous_and_rts_special(ctx),
        C::RtsSpecialInAndRtsSpecialIn => rts_in_and_rts_in(ctx),
        C::RtsSpecialInAndRtsSpecialOut => rts_in_and_rts_out(ctx),
        C::RtsSpecialOutAndRtsSpecialOut => rts_out_and_rts_out(ctx),
    }
    Ok(())
}

/// `unrefresh_in_checker`: with a refreshable feature map (or a fixed-physical-address op
/// in dynamic+static reuse), isolate the unrefreshable input.
fn unrefresh_in(ctx: &mut Ctx) {
    if !ctx.info().feature_map_refreshable && !ctx.has_fixed_physical_address() {
        return;
    }
    let x = ctx.carrier_b_first(UnsupportedAddressRefreshInput).0;
    ctx.mark(as_in(x));
}

/// `unrefresh_out_checker`: the same for the unrefreshable output.
fn unrefresh_out(ctx: &mut Ctx) {
    if !ctx.info().feature_map_refreshable && !ctx.has_fixed_physical_address() {
        return;
    }
    let x = ctx.carrier_a_first(UnsupportedAddressRefreshOutput).0;
    ctx.mark(as_out(x));
}

/// `user_out_and_immutable_out_checker`: in a fully static root graph a graph output must
/// not be a constant's (or variable-free immutable) address: isolate the NetOutput input,
/// unless the producer is var-like.
fn user_out_and_immutable_out(ctx: &mut Ctx) {
    if !ctx.info().root_static {
        return;
    }
    let (out, inp) = if ctx.a.is_input() {
        (ctx.b, ctx.a)
    } else {
        (ctx.a, ctx.b)
    };
    if ctx.g.node(out.node()).sem.var_like {
        return;
    }
    ctx.mark(as_in(inp));
}

/// GE `AssignVarInsertIdentity`: when the non-`var_type` side's node reads, through an input
/// in this symbol, an Assign-like node's output (a variable updated by Assign), isolate
/// those inputs instead (so the variable can still be updated). Returns whether it did.
fn assign_var_insert_identity(ctx: &mut Ctx, var_type: AnchorAttr) -> bool {
    let ref_node = ctx.carrier_b_first(var_type).1.node();
    let found: Vec<Anchor> = ctx
        .index()
        .inputs_of(ref_node)
        .iter()
        .copied()
        .filter(|x| {
            ctx.g
                .src(x.node(), x.index())
                .is_some_and(|p| ctx.g.node(p.node).sem.assign_like)
        })
        .collect();
    for x in &found {
        ctx.mark(*x);
    }
    !found.is_empty()
}

/// `user_in_and_continuous_in_out_checker` (4 pairs): a user input in a continuous block is
/// copied right after the Data (unless an Assign feeds the block, or a no-padding input's
/// real inputs are all one anchor, or user inputs may feed no-padding outputs here).
fn user_in_and_continuous_in_out(ctx: &mut Ctx) {
    let other = if ctx.pair.0 == UserMemoryInput {
        ctx.pair.1
    } else {
        ctx.pair.0
    };
    if other == NopaddingContinuousInput {
        let pc = ctx.carrier_b_first(NopaddingContinuousInput).0;
        if all_real_inputs_are_one_anchor(ctx.g, pc.node()) {
            return;
        }
    }
    if other == NopaddingContinuousOutput && ctx.info().user_input_nopadding_continuous_output {
        return;
    }
    if assign_var_insert_identity(ctx, UserMemoryInput) {
        return;
    }
    let user_in = if ctx.g.node(ctx.b.node()).sem.data_like {
        ctx.b
    } else {
        ctx.a
    };
    ctx.mark(as_out(user_in));
}

/// `user_in_and_unrefresh_out_checker`: copy after the unrefreshable op when the feature
/// map is refreshable (or a fixed physical address is involved), else after the user input.
fn user_in_and_unrefresh_out(ctx: &mut Ctx) {
    if assign_var_insert_identity(ctx, UserMemoryInput) {
        return;
    }
    let (not_refresh, user_in) = ctx.carrier_b_first(UnsupportedAddressRefreshOutput);
    if ctx.info().feature_map_refreshable || ctx.has_fixed_physical_address() {
        ctx.mark(as_out(not_refresh));
    } else {
        ctx.mark(as_out(user_in));
    }
}

/// `user_in_and_rts_special_out_checker`: copy after the user input.
fn user_in_and_rts_special_out(ctx: &mut Ctx) {
    if assign_var_insert_identity(ctx, UserMemoryInput) {
        return;
    }
    let user_in = ctx.carrier_a_first(UserMemoryInput).0;
    ctx.mark(as_out(user_in));
}

/// `user_out_and_unrefresh_out_checker`: copy after the unrefreshable op when the feature
/// map is refreshable, else before the NetOutput.
fn user_out_and_unrefresh_out(ctx: &mut Ctx) {
    let (not_refresh, user_out) = ctx.carrier_b_first(UnsupportedAddressRefreshOutput);
    if ctx.info().feature_map_refreshable || ctx.has_fixed_physical_address() {
        ctx.mark(as_out(not_refresh));
    } else {
        ctx.mark(as_in(user_out));
    }
}

/// `user_out_and_unrefresh_in_checker`: copy before the unrefreshable input when the
/// feature map is refreshable, else before the NetOutput.
fn user_out_and_unrefresh_in(ctx: &mut Ctx) {
    let (not_refresh, user_out) = ctx.carrier_b_first(UnsupportedAddressRefreshInput);
    if ctx.info().feature_map_refreshable || ctx.has_fixed_physical_address() {
        ctx.mark(as_in(not_refresh));
    } else {
        ctx.mark(as_in(user_out));
    }
}

/// `user_out_and_continuous_input` (2 pairs): a graph output that also sits in another
/// op's continuous input block is copied before the NetOutput, unless the NetOutput reads
/// the continuous op itself.
fn user_out_and_continuous_input(ctx: &mut Ctx) {
    let (net_output, continuous) = if ctx.g.node(ctx.b.node()).sem.net_output {
        (ctx.b, ctx.a)
    } else {
        (ctx.a, ctx.b)
    };
    let Some(src) = ctx.g.src(net_output.node(), net_output.index()) else {
        return;
    };
    if src.node != continuous.node() {
        ctx.mark(as_in(net_output));
    }
}

/// `immutable_out_and_rts_specail_out_checker`: copy after the immutable output.
fn immutable_out_and_rts_special_out(ctx: &mut Ctx) {
    if assign_var_insert_identity(ctx, ImmutableAddressOutput) {
        return;
    }
    let immutable = ctx.carrier_b_first(ImmutableAddressOutput).0;
    ctx.mark(as_out(immutable));
}

/// `immutable_out_and_nopadding_continuous_in_checker`: copy before the no-padding input,
/// unless all its real inputs are one anchor (slices of one variable assigned in place).
fn immutable_out_and_nopadding_continuous_in(ctx: &mut Ctx) {
    let continuous = ctx.carrier_b_first(ImmutableAddressOutput).1;
    if all_real_inputs_are_one_anchor(ctx.g, continuous.node()) {
        return;
    }
    ctx.mark(as_in(continuous));
}

/// `immutable_out_and_continuous_out_checker` (2 pairs): a variable reaches a
/// continuous-output op through a ref output: copy before that op's referenced input (not
/// after the variable, which others may update).
fn immutable_out_and_continuous_out(ctx: &mut Ctx) -> Result<(), MemError> {
    if assign_var_insert_identity(ctx, ImmutableAddressOutput) {
        return Ok(());
    }
    let ref_out = ctx.carrier_a_first(ImmutableAddressOutput).1;
    let ref_in = ctx.index().inputs_of(ref_out.node()).first().copied();
    match ref_in {
        Some(x) => {
            ctx.mark(x);
            Ok(())
        }
        None => Err(MemError::at(
            ctx.g,
            ref_out.node(),
            "an immutable address shares a continuous output without a referenced input \
             (immutable_out_and_continuous_out_checker)",
        )),
    }
}

/// Whether `n` needs (no-padding) continuous inputs (GE requires more than one input).
fn needs_continuous_input(g: &MemGraph, n: NodeId, nopadding_only: bool) -> bool {
    let node = g.node(n);
    node.inputs.len() > 1
        && (node.sem.nopad_continuous_input || (!nopadding_only && node.sem.continuous_input))
}

/// Whether `n` produces (no-padding) continuous outputs (more than one output).
fn gives_continuous_output(g: &MemGraph, n: NodeId, nopadding_only: bool) -> bool {
    let node = g.node(n);
    node.outputs.len() > 1
        && (node.sem.nopad_continuous_output || (!nopadding_only && node.sem.continuous_output))
}

/// One output feeding several continuous-input ops: every such op's edge after the first
/// op's is isolated (GE's `ConnectToMultiContinuousInputNode`). GE counts edges, not ops, so
/// a block reading one value twice would copy its own second read, and it also isolates the
/// plain consumers after the second continuous one; neither constrains anything, and the
/// first makes the pass undo itself on the next run (the block's real inputs then differ),
/// so both are left out.
fn isolate_extra_continuous_consumers(ctx: &mut Ctx, nopadding_only: bool) {
    let outs: Vec<OutPort> = ctx
        .all
        .iter()
        .filter_map(|x| match x {
            Anchor::Out(p) => Some(*p),
            Anchor::In(_) => None,
        })
        .collect();
    for p in outs {
        let mut first: Option<NodeId> = None;
        for &c in ctx.g.consumers(p.node, p.index) {
            if !needs_continuous_input(ctx.g, c.node, nopadding_only) {
                continue;
            }
            match first {
                None => first = Some(c.node),
                Some(f) if f != c.node => ctx.mark(Anchor::In(c)),
                Some(_) => {}
            }
        }
    }
}

/// The distinct nodes of the symbol's anchors that satisfy `f`, in list order.
fn symbol_nodes(ctx: &Ctx, f: impl Fn(NodeId) -> bool) -> Vec<NodeId> {
    let mut seen = HashSet::new();
    ctx.all
        .iter()
        .map(|x| x.node())
        .filter(|&n| seen.insert(n) && f(n))
        .collect()
}

/// `continuous_input_and_continuous_input` (per symbol; also with no-padding inputs): one
/// output feeding several continuous-input ops, and continuous-input ops feeding each other
/// (cascades), get copies.
fn continuous_input_and_continuous_input(ctx: &mut Ctx) {
    isolate_extra_continuous_consumers(ctx, false);
    let g = ctx.g;
    let nodes = symbol_nodes(ctx, |n| needs_continuous_input(g, n, false));
    let set: HashSet<NodeId> = nodes.iter().copied().collect();
    for n in nodes {
        for o in 0..g.node(n).outputs.len() as u32 {
            for &c in g.consumers(n, o) {
                if set.contains(&c.node) {
                    ctx.mark(Anchor::In(c));
                }
            }
        }
    }
}

/// GE `GetRealOutAnchor`: follow ref outputs back to the output that really holds the data.
fn real_out_anchor(g: &MemGraph, mut p: OutPort) -> OutPort {
    for _ in 0..=g.nodes.len() {
        let Some(i) = ref_input(g, p.node, p.index) else {
            break;
        };
        match g.src(p.node, i) {
            Some(src) => p = src,
            None => break,
        }
    }
    p
}

/// GE `GetAllRealInPeer`: the real producers of `n`'s connected inputs.
fn real_in_peers(g: &MemGraph, n: NodeId) -> Vec<OutPort> {
    (0..g.node(n).inputs.len() as u32)
        .filter_map(|i| g.src(n, i))
        .map(|p| real_out_anchor(g, p))
        .collect()
}

/// GE `GetAllInAnchorsPeer`: the producers of `n`'s connected inputs.
fn in_peers(g: &MemGraph, n: NodeId) -> Vec<OutPort> {
    (0..g.node(n).inputs.len() as u32)
        .filter_map(|i| g.src(n, i))
        .collect()
}

/// GE `AllRealInputsAreTheSameOutAnchor`.
fn all_real_inputs_are_one_anchor(g: &MemGraph, n: NodeId) -> bool {
    let peers = real_in_peers(g, n);
    peers.first().is_some_and(|f| peers.iter().all(|p| p == f))
}

/// GE `GetFirstSameIndex`: the first `(i, j)` with `a[i] == b[j]`.
fn first_same_index(a: &[OutPort], b: &[OutPort]) -> Option<(usize, usize)> {
    a.iter()
        .enumerate()
        .find_map(|(i, x)| b.iter().position(|y| y == x).map(|j| (i, j)))
}

/// GE `IsSubVector(vec, sub)`: `sub` appears in `vec` as a contiguous run.
fn is_sub_vector(vec: &[OutPort], sub: &[OutPort]) -> bool {
    let Some((mut j, _)) = first_same_index(vec, sub) else {
        return sub.is_empty();
    };
    let mut i = 0;
    while i < sub.len() && j < vec.len() {
        if sub[i] != vec[j] {
            return false;
        }
        i += 1;
        j += 1;
    }
    i == sub.len()
}

/// GE `IsSameOrPartialSame(lh, rh)`: equal, one a prefix/suffix-aligned part of the other, or
/// overlapping as one contiguous run in the same order, with nothing else shared.
fn is_same_or_partial_same(lh: &[OutPort], rh: &[OutPort]) -> bool {
    let Some((mut li, mut ri)) = first_same_index(lh, rh) else {
        return false;
    };
    if li != 0 && ri != 0 {
        return false;
    }
    while ri < rh.len() && li < lh.len() {
        if rh[ri] != lh[li] {
            return false;
        }
        ri += 1;
        li += 1;
    }
    if li != lh.len() && ri != rh.len() {
        return false;
    }
    if lh[li..].iter().any(|x| rh.contains(x)) {
        return false;
    }
    !rh[ri..].iter().any(|x| lh.contains(x))
}

/// `continuous_output_and_continuous_input`: a continuous-output op's outputs and a
/// continuous-input op's real inputs must be the same block (or one a part of the other,
/// or overlapping as one run); otherwise anchor `a` of the pair is isolated.
fn continuous_output_and_continuous_input(ctx: &mut Ctx) {
    let (in_anchor, out_anchor) = ctx.carrier_a_first(ContinuousInput);
    let (out_node, in_node) = (out_anchor.node(), in_anchor.node());
    let outs: Vec<OutPort> = (0..ctx.g.node(out_node).outputs.len() as u32)
        .map(|o| OutPort {
            node: out_node,
            index: o,
        })
        .collect();
    let peers = real_in_peers(ctx.g, in_node);
    if !is_same_or_partial_same(&outs, &peers) {
        ctx.mark(ctx.a);
    }
}

/// `continuous_out_and_continuous_out` / `nopadding_continuous_out_and_nopadding_continuous_out`
/// (per symbol): continuous-output ops of the symbol feeding each other: copy after the
/// upstream output.
fn continuous_out_and_continuous_out(ctx: &mut Ctx, nopadding_only: bool) {
    let g = ctx.g;
    let nodes = symbol_nodes(ctx, |n| gives_continuous_output(g, n, nopadding_only));
    let set: HashSet<NodeId> = nodes.iter().copied().collect();
    for n in nodes {
        for i in 0..g.node(n).inputs.len() as u32 {
            if let Some(src) = g.src(n, i) {
                if set.contains(&src.node) {
                    ctx.mark(Anchor::Out(src));
                }
            }
        }
    }
}

/// `nopadding_continuous_input_and_nopadding_continuous_input` (per symbol): two no-padding
/// input blocks sharing an input conflict unless one block is a contiguous part of the
/// other; then every no-padding consumer after the first of a shared output is isolated.
fn nopadding_input_and_nopadding_input(ctx: &mut Ctx) {
    let a = in_peers(ctx.g, ctx.a.node());
    let b = in_peers(ctx.g, ctx.b.node());
    if first_same_index(&a, &b).is_none() || is_sub_vector(&a, &b) || is_sub_vector(&b, &a) {
        return;
    }
    isolate_extra_continuous_consumers(ctx, true);
}

/// `nopadding_continuous_input_and_nopadding_continuous_out`: isolate the no-padding input
/// side, unless the no-padding output op reads the no-padding input op's output 0 directly
/// (PhonyConcat -> PhonySplit).
fn nopadding_input_and_nopadding_out(ctx: &mut Ctx) {
    let (cin, cout) = ctx.carrier_b_first(NopaddingContinuousInput);
    let direct = ctx.g.src(cout.node(), 0)
        == Some(OutPort {
            node: cin.node(),
            index: 0,
        });
    if !direct {
        ctx.mark(cin);
    }
}

/// The runtime memory type of an anchor (`_input_memory_type` / `_output_memory_type`).
fn anchor_mem_type(g: &MemGraph, x: Anchor) -> i64 {
    let node = g.node(x.node());
    match x {
        Anchor::In(p) => node.inputs.get(p.index as usize).map_or(0, |i| i.mem_type),
        Anchor::Out(p) => node.outputs.get(p.index as usize).map_or(0, |o| o.mem_type),
    }
}

/// `continuous_in_out_and_rts_special_mem_in_out` (8 pairs): a continuous block in ordinary
/// memory sharing a special-memory anchor: isolate the continuous side, or the special side
/// when the continuous input is referenced by its own node's output.
fn continuous_and_rts_special(ctx: &mut Ctx) {
    let a_special = ctx.ta.contains(RtsSpecialTypeInput) || ctx.ta.contains(RtsSpecialTypeOutput);
    let (continuous, special) = if a_special {
        (ctx.b, ctx.a)
    } else {
        (ctx.a, ctx.b)
    };
    if mem_type::is_special(anchor_mem_type(ctx.g, continuous)) {
        return;
    }
    if continuous.is_input() && node_out_ref_from_input(ctx, continuous) {
        ctx.mark(special);
    } else {
        ctx.mark(continuous);
    }
}

fn same_mem_type(ctx: &Ctx) -> bool {
    anchor_mem_type(ctx.g, ctx.a) == anchor_mem_type(ctx.g, ctx.b)
}

/// `rts_special_in_and_rts_special_in_checker`: two inputs of different special memory
/// types: isolate the one with the smaller node id (unless its output references it).
fn rts_in_and_rts_in(ctx: &mut Ctx) {
    if same_mem_type(ctx) {
        return;
    }
    let pick_a =
        ctx.topo(ctx.a.node()) < ctx.topo(ctx.b.node()) && !node_out_ref_from_input(ctx, ctx.a);
    let x = if pick_a { ctx.a } else { ctx.b };
    ctx.mark(as_in(x));
}

/// `rts_special_in_and_rts_special_out_checker`: different types: isolate the output.
fn rts_in_and_rts_out(ctx: &mut Ctx) {
    if same_mem_type(ctx) {
        return;
    }
    let x = if ctx.a.is_input() { ctx.b } else { ctx.a };
    ctx.mark(as_out(x));
}

/// `rts_special_out_and_rts_special_out_checker`: different types: isolate the output with
/// the smaller node id.
fn rts_out_and_rts_out(ctx: &mut Ctx) {
    if same_mem_type(ctx) {
        return;
    }
    let x = if ctx.topo(ctx.a.node()) < ctx.topo(ctx.b.node()) {
        ctx.a
    } else {
        ctx.b
    };
    ctx.mark(as_out(x));
}

#[cfg(test)]
mod tests {
    //! GE's list predicates on producer lists (the continuous checkers' core).
    use super::*;

    fn ports(ids: &[u32]) -> Vec<OutPort> {
        ids.iter()
            .map(|&i| OutPort {
                node: NodeId(i),
                index: 0,
            })
            .collect()
    }

    #[test]
    fn same_or_partial_same_accepts_the_notes_cases_and_rejects_the_rest() {
        let ok = |l: &[u32], r: &[u32]| is_same_or_partial_same(&ports(l), &ports(r));
        assert!(ok(&[1, 2, 3, 4], &[2, 3]), "subset");
        assert!(ok(&[2, 3], &[1, 2, 3, 4]), "superset");
        assert!(ok(&[1, 2, 3], &[1, 2, 3]), "same");
        assert!(ok(&[1, 2, 3, 4], &[2, 3, 4, 5]), "overlap, out first");
        assert!(ok(&[2, 3, 4, 5], &[1, 2, 3, 4]), "overlap, in first");
        assert!(!ok(&[1, 2], &[2, 1]), "crossed");
        assert!(!ok(&[1, 2, 3, 4], &[2, 4]), "gap");
        assert!(!ok(&[1, 2, 3, 4], &[2, 5]), "diverges");
        assert!(!ok(&[1, 2, 3, 4], &[5, 2]), "late");
        assert!(!ok(&[1, 2, 3, 4], &[5, 6, 3, 4]), "offset on both sides");
        assert!(!ok(&[1, 2], &[3, 4]), "nothing shared");
    }

    #[test]
    fn sub_vector_is_a_contiguous_run() {
        let sub = |v: &[u32], s: &[u32]| is_sub_vector(&ports(v), &ports(s));
        assert!(sub(&[1, 2, 3, 4], &[2, 3]));
        assert!(sub(&[1, 2, 3], &[1, 2, 3]));
        assert!(!sub(&[1, 2, 3, 4], &[2, 4]));
        assert!(
            !sub(&[1, 2, 3, 4], &[2, 3, 4, 5]),
            "partial overlap is not a part"
        );
        assert!(!sub(&[1, 2], &[3]));
        assert_eq!(
            first_same_index(&ports(&[7, 8, 9]), &ports(&[9, 8])),
            Some((1, 1))
        );
    }
}
