//! `--verify-mem-plan`: an independent check of a static memory plan, like MindSpore
//! SOMAS's checker: the plan is read back from the IR's offset attributes and checked
//! against the graph, not against the planner's own bookkeeping.
//!
//! What must hold ([`verify_plan`]):
//! 1. **Coverage**: every op lists one offset per data output (`output_offset`) and per
//!    data input (`input_offset`); every tensor the workspace must hold (a
//!    [`MemKind::Workspace`] symbol) has an offset.
//! 2. **Consistency**: anchors that share memory (one GE symbol: a data edge, a ref
//!    output, a subgraph boundary, a Merge, an in-place reuse) are at the same address, up
//!    to the displacement of outputs laid over their input ([`anchor_deltas`]).
//! 3. **Alignment**: every symbol starts on a 512-byte boundary, except the members after
//!    the first of a no-padding continuous group (they follow the previous member's raw
//!    bytes, by definition).
//! 4. **Bounds**: every symbol lies inside `[0, memory_size)`.
//! 5. **Contiguity**: every continuous group's members sit at exactly their slot: member
//!    `k` at member 0 plus the slots before it (512-aligned tensor sizes with padding, raw
//!    sizes without).
//! 6. **No overlap**: two symbols live at the same time never share a byte. A no-padding
//!    continuous input whose node reuses it as output (PhonyConcat) is one object: its
//!    members may overlap each other.
//! 7. **Streams**: memory reused by a symbol was last used, on every other stream, by a node
//!    ordered before the new symbol's writers (a data, control, stream-order or event path).
//! 8. **Reuse claims**: an output with `reuse_input_index = i` lives where input `i` does:
//!    both in the workspace or both outside it (`-1`, e.g. variable memory). An in-place
//!    claim on an output in variable memory, beside an input in the workspace, is what
//!    the claim and the offsets disagreeing looks like.
//!
//! Lifetimes and sizes are computed here from the graph: a symbol lives from the first to
//! the last position of its anchors on the [`Timeline`] and holds its largest tensor.
//! The overlap check is a sweep over time with the live symbols in an address-ordered map
//! (each new symbol is compared with its two neighbours), the stream check keeps the last
//! occupant of every address range (only the most recent one needs checking: earlier ones
//! were checked against it). O(S log S) for S symbols.

use super::mem_plan::facts::{
    anchor_deltas, continuous_groups, Group, SymbolFacts, TensorSizes, MEM_ALIGN_SIZE,
};
use super::mem_plan::{MemKind, Order, StreamInfo, Timeline};
use super::model::{MemError, MemGraph, NodeId};
use super::symbols::{Anchor, SymbolId, Symbols};
use std::collections::{BTreeMap, HashMap};

/// The plan as read from the IR.
pub struct PlanView<'a> {
    /// `output_offset` of each node (empty when absent), indexed by [`NodeId`].
    pub outputs: &'a [Vec<i64>],
    /// `input_offset` of each node.
    pub inputs: &'a [Vec<i64>],
    /// The root function's `memory_size`, if any.
    pub memory_size: Option<i64>,
}

/// One violation, located at a node (with another node to point at, if any).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub node: NodeId,
    pub message: String,
    pub other: Option<(NodeId, String)>,
}

/// Most findings reported; the rest are counted.
pub const MAX_FINDINGS: usize = 20;

/// The findings of one check, and how many were left out.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub findings: Vec<Finding>,
    pub omitted: usize,
    /// Symbols with an offset that were checked.
    pub symbols_checked: usize,
}

impl Report {
    fn add(&mut self, f: Finding) {
        if self.findings.len() < MAX_FINDINGS {
            self.findings.push(f);
        } else {
            self.omitted += 1;
        }
    }

    pub fn is_ok(&self) -> bool {
        self.findings.is_empty()
    }
}

/// Checks `view` against `g` (see the module doc). `symbols` is the root-scope table.
/// Errors only when the graph itself is unusable (a cycle).
pub fn verify_plan(
    g: &MemGraph,
    symbols: &Symbols,
    streams: &StreamInfo,
    view: &PlanView,
) -> Result<Report, MemError> {
    let timeline = Timeline::new(g);
    let order = Order::new(g, &timeline, streams)?;
    let mut sizes = TensorSizes::new();
    let walk = g.all_nodes();
    let deltas = anchor_deltas(g, &walk);
    let facts = SymbolFacts::new(g, symbols, &timeline, &mut sizes, &deltas);
    let mut report = Report::default();
    if !coverage(g, view, &mut report) {
        return Ok(report); // the other checks index the lists
    }
    reuse_claims(g, view, &mut report);
    let at = |a: Anchor| -> i64 {
        match a {
            Anchor::In(p) => view.inputs[p.node.0 as usize][p.index as usize],
            Anchor::Out(p) => view.outputs[p.node.0 as usize][p.index as usize],
        }
    };
    let delta = |a: Anchor| deltas.get(&a).copied().unwrap_or(0);

    // 2. Consistency, giving each symbol its base.
    let mut base: Vec<Option<i64>> = vec![None; facts.kind.len()];
    for s in symbols.iter() {
        let mut first: Option<(Anchor, i64)> = None;
        for a in symbols.anchors(s) {
            let off = at(a);
            let want_base = if off < 0 {
                -1
            } else {
                off.saturating_sub(delta(a))
            };
            match first {
                None => first = Some((a, want_base)),
                Some((f, b)) if b != want_base => {
                    report.add(Finding {
                        node: a.node(),
                        message: format!(
                            "{} is at {} but {} shares its memory and is at {}",
                            describe(g, a),
                            show(off),
                            describe(g, f),
                            show(at(f))
                        ),
                        other: Some((f.node(), format!("{} is here", describe(g, f)))),
                    });
                }
                Some(_) => {}
            }
        }
        let Some((f, b)) = first else { continue };
        let size = facts.size[s.0 as usize].unwrap_or(0);
        if b >= 0 && b.checked_add(size).is_none() {
            // An offset read back from the IR: the end address must be representable, or
            // every later check would wrap (and the sweep's ranges would invert).
            report.add(Finding {
                node: f.node(),
                message: format!(
                    "{} at offset {b} with {size} bytes ends past the largest address \
                    (i64 overflow)",
                    describe(g, f)
                ),
                other: None,
            });
        } else if b >= 0 {
            base[s.0 as usize] = Some(b);
        } else if facts.kind[s.0 as usize] == MemKind::Workspace {
            report.add(Finding {
                node: f.node(),
                message: format!(
                    "{} needs workspace memory ({} bytes) but has no offset",
                    describe(g, f),
                    facts.size[s.0 as usize].unwrap_or(0)
                ),
                other: None,
            });
        }
    }

    let groups = match continuous_groups(g, &walk, &mut sizes) {
        Ok(groups) => groups,
        Err(e) => {
            report.add(Finding {
                node: e.node.unwrap_or(NodeId(0)),
                message: e.message,
                other: None,
            });
            return Ok(report);
        }
    };
    // 3. Alignment and 4. bounds.
    let mut unaligned_ok = vec![false; facts.kind.len()];
    for group in groups.iter().filter(|gr| !gr.padded) {
        for &(a, _) in group.members.iter().skip(1) {
            if let Some(s) = symbols.symbol_of(a) {
                unaligned_ok[s.0 as usize] = true;
            }
        }
    }
    for s in symbols.iter() {
        let i = s.0 as usize;
        let Some(b) = base[i] else { continue };
        let name = symbols.name_anchor(s);
        if b % MEM_ALIGN_SIZE != 0 && !unaligned_ok[i] {
            report.add(Finding {
                node: name.node(),
                message: format!(
                    "{} starts at {b}, not a multiple of {MEM_ALIGN_SIZE} bytes",
                    describe(g, name)
                ),
                other: None,
            });
        }
        if let (Some(limit), Some(size)) = (view.memory_size, facts.size[i]) {
            if b + size > limit {
                report.add(Finding {
                    node: name.node(),
                    message: format!(
                        "{} occupies [{b}, {}) beyond the workspace's memory_size {limit}",
                        describe(g, name),
                        b + size
                    ),
                    other: None,
                });
            }
        }
    }

    // 5. Contiguity.
    for group in &groups {
        contiguity(g, group, &at, &mut report);
    }

    // 6./7. Overlap and stream order, per object (alias clusters of symbols).
    let objects = objects(g, symbols, &groups, &facts, &base);
    report.symbols_checked = objects.len();
    sweep(g, symbols, &objects, &order, &timeline, &mut report);
    Ok(report)
}

/// `-1` as "no offset".
fn show(off: i64) -> String {
    if off < 0 {
        "no offset (-1)".into()
    } else {
        off.to_string()
    }
}

/// "`a` output 0" / "`NetOutput` input 1".
pub fn describe(g: &MemGraph, a: Anchor) -> String {
    format!(
        "`{}` {} {}",
        g.node(a.node()).name,
        if a.is_input() { "input" } else { "output" },
        a.index()
    )
}

/// 1. Coverage of the offset lists; `false` when some list is missing or short.
fn coverage(g: &MemGraph, view: &PlanView, report: &mut Report) -> bool {
    let mut ok = true;
    for n in g.all_nodes() {
        let node = g.node(n);
        let i = n.0 as usize;
        for (what, want, have) in [
            ("output_offset", node.outputs.len(), view.outputs.get(i)),
            ("input_offset", node.inputs.len(), view.inputs.get(i)),
        ] {
            let got = have.map_or(0, Vec::len);
            if want > 0 && got != want {
                ok = false;
                report.add(Finding {
                    node: n,
                    message: if got == 0 {
                        format!("`{}` has no {what} (run --mem-assign first)", node.name)
                    } else {
                        format!(
                            "`{}` lists {got} entries in {what}, it has {want} data {}s",
                            node.name,
                            if what == "output_offset" {
                                "output"
                            } else {
                                "input"
                            }
                        )
                    },
                    other: None,
                });
            }
        }
    }
    ok
}

/// Check 8: every `reuse_input_index` claim agrees with the offsets on where the memory is
/// (in the workspace or not); the lists are known to be complete.
fn reuse_claims(g: &MemGraph, view: &PlanView, report: &mut Report) {
    for n in g.all_nodes() {
        let node = g.node(n);
        for (o, out) in node.outputs.iter().enumerate() {
            let Some(i) = out.reuse_input else { continue };
            let Some(&inp) = view.inputs[n.0 as usize].get(i as usize) else {
                continue;
            };
            let outp = view.outputs[n.0 as usize][o];
            if (outp < 0) != (inp < 0) {
                report.add(Finding {
                    node: n,
                    message: format!(
                        "`{}` output {o} claims the memory of input {i} (reuse_input_index) \
                         but is at {} while input {i} is at {}",
                        node.name,
                        show(outp),
                        show(inp)
                    ),
                    other: None,
                });
            }
        }
    }
}

fn contiguity(g: &MemGraph, group: &Group, at: &impl Fn(Anchor) -> i64, report: &mut Report) {
    let Some(&(first, first_slot)) = group.members.first() else {
        return;
    };
    let start = at(first);
    for &(a, slot) in &group.members[1..] {
        let want = start.saturating_add(slot - first_slot);
        let got = at(a);
        if start >= 0 && got != want {
            report.add(Finding {
                node: group.node,
                message: format!(
                    "{} of `{}`: {} is at {}, expected {want} ({} is at {start}, \
                     {} slot bytes before it)",
                    group.describe(),
                    g.node(group.node).name,
                    describe(g, a),
                    show(got),
                    describe(g, first),
                    slot - first_slot
                ),
                other: None,
            });
        }
    }
}

/// A piece of memory with one lifetime: a symbol, or symbols aliased by a no-padding
/// input reused as output.
struct Object {
    lo: i64,
    hi: i64,
    begin: u32,
    end: u32,
    symbols: Vec<SymbolId>,
}

fn objects(
    g: &MemGraph,
    symbols: &Symbols,
    groups: &[Group],
    facts: &SymbolFacts,
    base: &[Option<i64>],
) -> Vec<Object> {
    // Alias sets: union-find over symbols.
    let mut parent: Vec<u32> = (0..facts.kind.len() as u32).collect();
    fn find(p: &mut [u32], mut x: u32) -> u32 {
        while p[x as usize] != x {
            p[x as usize] = p[p[x as usize] as usize];
            x = p[x as usize];
        }
        x
    }
    for group in groups {
        let s = g.node(group.node).sem;
        if !(group.inputs && !group.padded && s.output_reuse_input) {
            continue;
        }
        let syms: Vec<u32> = group
            .members
            .iter()
            .filter_map(|&(a, _)| symbols.symbol_of(a))
            .map(|s| s.0)
            .collect();
        for w in syms.windows(2) {
            let (a, b) = (find(&mut parent, w[0]), find(&mut parent, w[1]));
            parent[a as usize] = b;
        }
    }
    let mut index: HashMap<u32, usize> = HashMap::new();
    let mut out: Vec<Object> = Vec::new();
    for s in symbols.iter() {
        let i = s.0 as usize;
        let (Some(b), Some(size)) = (base[i], facts.size[i]) else {
            continue;
        };
        let r = find(&mut parent, s.0);
        let k = *index.entry(r).or_insert_with(|| {
            out.push(Object {
                lo: i64::MAX,
                hi: i64::MIN,
                begin: u32::MAX,
                end: 0,
                symbols: Vec::new(),
            });
            out.len() - 1
        });
        let o = &mut out[k];
        o.lo = o.lo.min(b);
        o.hi = o.hi.max(b + size);
        o.begin = o.begin.min(facts.begin[i]);
        o.end = o.end.max(facts.end[i]);
        o.symbols.push(s);
    }
    out
}

/// The object's anchor to name in messages.
fn anchor_of(symbols: &Symbols, o: &Object) -> Anchor {
    symbols.name_anchor(o.symbols[0])
}

/// 6. and 7.: the time sweep (see the module doc).
fn sweep(
    g: &MemGraph,
    symbols: &Symbols,
    objects: &[Object],
    order: &Order,
    timeline: &Timeline,
    report: &mut Report,
) {
    let mut by_begin: Vec<usize> = (0..objects.len()).collect();
    by_begin.sort_by_key(|&k| (objects[k].begin, objects[k].lo));
    let mut by_end: Vec<usize> = by_begin.clone();
    by_end.sort_by_key(|&k| objects[k].end);
    // Live objects by start address -> (end address, object).
    let mut live: BTreeMap<i64, (i64, usize)> = BTreeMap::new();
    // Last occupant of each address segment: start -> (end, object).
    let mut last: BTreeMap<i64, (i64, usize)> = BTreeMap::new();
    let multi = order.multi_stream();
    let mut e = 0;
    for &k in &by_begin {
        let o = &objects[k];
        while e < by_end.len() && objects[by_end[e]].end < o.begin {
            let d = by_end[e];
            e += 1;
            if live.get(&objects[d].lo).is_some_and(|&(_, x)| x == d) {
                live.remove(&objects[d].lo);
                if multi {
                    occupy(&mut last, objects[d].lo, objects[d].hi, d);
                }
            }
        }
        if let Some(other) = overlapping(&live, o.lo, o.hi) {
            let (a, b) = (anchor_of(symbols, o), anchor_of(symbols, &objects[other]));
            let p = &objects[other];
            report.add(Finding {
                node: a.node(),
                message: format!(
                    "{} [{}, {}) overlaps {} [{}, {}) while both are live \
                     (positions {}..{} and {}..{})",
                    describe(g, a),
                    o.lo,
                    o.hi,
                    describe(g, b),
                    p.lo,
                    p.hi,
                    o.begin,
                    o.end,
                    p.begin,
                    p.end
                ),
                other: Some((b.node(), format!("{} is here", describe(g, b)))),
            });
            continue; // keep the live map disjoint
        }
        if multi {
            stream_check(g, symbols, objects, k, &last, order, timeline, report);
        }
        live.insert(o.lo, (o.hi, k));
    }
}

/// A live object overlapping `[lo, hi)`, if any (the live map is disjoint).
fn overlapping(live: &BTreeMap<i64, (i64, usize)>, lo: i64, hi: i64) -> Option<usize> {
    if let Some((_, &(end, k))) = live.range(..=lo).next_back() {
        if end > lo {
            return Some(k);
        }
    }
    live.range(lo..hi).next().map(|(_, &(_, k))| k)
}

/// Records `k` as the last occupant of `[lo, hi)`, splitting the segments it cuts.
fn occupy(last: &mut BTreeMap<i64, (i64, usize)>, lo: i64, hi: i64, k: usize) {
    if let Some((&s, &(end, x))) = last.range(..lo).next_back() {
        if end > lo {
            last.insert(s, (lo, x));
            if end > hi {
                last.insert(hi, (end, x));
            }
        }
    }
    let inside: Vec<i64> = last.range(lo..hi).map(|(&s, _)| s).collect();
    for s in inside {
        let (end, x) = last.remove(&s).expect("listed");
        if end > hi {
            last.insert(hi, (end, x));
        }
    }
    last.insert(lo, (hi, k));
}

/// The latest use per lane and the writers of an object.
fn uses(symbols: &Symbols, o: &Object, order: &Order, t: &Timeline) -> (Vec<NodeId>, Vec<NodeId>) {
    let mut last = Vec::new();
    let mut writers = Vec::new();
    for &s in &o.symbols {
        for a in symbols.anchors(s) {
            let n = a.node();
            last.push((order.lane(n), n, t.end[n.0 as usize]));
            if !a.is_input() {
                writers.push(n);
            }
        }
    }
    // Once at the end: a membership scan per writer was quadratic on in-place chains.
    writers.sort_unstable();
    writers.dedup();
    super::mem_plan::allocator::latest_per_lane(&mut last);
    (last.into_iter().map(|x| x.1).collect(), writers)
}

#[allow(clippy::too_many_arguments)]
fn stream_check(
    g: &MemGraph,
    symbols: &Symbols,
    objects: &[Object],
    k: usize,
    last: &BTreeMap<i64, (i64, usize)>,
    order: &Order,
    t: &Timeline,
    report: &mut Report,
) {
    let o = &objects[k];
    let mut previous: Vec<usize> = Vec::new();
    if let Some((_, &(end, x))) = last.range(..o.lo).next_back() {
        if end > o.lo {
            previous.push(x);
        }
    }
    previous.extend(last.range(o.lo..o.hi).map(|(_, &(_, x))| x));
    previous.sort_unstable();
    previous.dedup();
    if previous.is_empty() {
        return;
    }
    let (_, writers) = uses(symbols, o, order, t);
    for p in previous {
        let (last_uses, _) = uses(symbols, &objects[p], order, t);
        for &u in &last_uses {
            if let Some(&d) = writers.iter().find(|&&d| !order.before(u, d)) {
                let (a, b) = (anchor_of(symbols, o), anchor_of(symbols, &objects[p]));
                report.add(Finding {
                    node: d,
                    message: format!(
                        "{} reuses the memory of {} but `{}` (stream {}) may still use it: \
                         no data, control, stream or event path orders it before `{}` \
                         (stream {})",
                        describe(g, a),
                        describe(g, b),
                        g.node(u).name,
                        stream_name(order.streams().of(u)),
                        g.node(d).name,
                        stream_name(order.streams().of(d))
                    ),
                    other: Some((u, format!("the last use `{}` is here", g.node(u).name))),
                });
                return;
            }
        }
    }
}

fn stream_name(s: Option<i64>) -> String {
    s.map_or("none".into(), |s| s.to_string())
}
