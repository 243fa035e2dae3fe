//! The static memory plan of `--mem-assign` (GE's graph memory assigner, simplified): every
//! memory symbol of the model gets an offset in one workspace, reusing memory between
//! symbols whose lifetimes do not overlap.
//!
//! Steps ([`plan_memory`]):
//! 1. [`facts::SymbolFacts`]: what each symbol is ([`MemKind`]): symbols holding a root
//!    Data output live in user memory, constants in weight memory, variables in variable
//!    memory; symbols of unknown size are left to the runtime; only the rest (and the user
//!    inputs a continuous group needs inside the workspace, as GE copies them in) are
//!    planned. A symbol's size is its largest tensor, its lifetime the span of its anchors
//!    on the [`timeline::Timeline`].
//! 2. [`facts::continuous_groups`] tie symbols at fixed distances ([`facts::Clusters`]);
//!    each cluster is one block of the workspace, 512-aligned, live over the union of its
//!    members' lifetimes.
//! 3. [`allocator::place`] gives every block an offset (best-fit linear scan; with several
//!    streams, reuse across streams only after an ordering path, [`timeline::Order`]).
//! 4. Anchor offsets: the symbol's offset, plus the anchor's displacement inside it
//!    ([`facts::anchor_deltas`]).
//!
//! Beyond GE, the plan reports its peak against two bounds computed on the same blocks and
//! lifetimes: the max-live lower bound (no placement needs less) and the no-reuse upper
//! bound (every block on its own).

pub mod allocator;
pub mod facts;
pub mod timeline;

use super::model::{MemError, MemGraph, NodeId, ROOT};
use super::symbols::{Anchor, SymbolId, Symbols};
use crate::analysis::fast_hash::FastMap as HashMap;
use allocator::{Block, Lane};
pub use facts::{align_up, MemKind, MEM_ALIGN_SIZE};
use facts::{anchor_deltas, continuous_groups, Clusters, SymbolFacts, TensorSizes};
pub use timeline::{Order, StreamInfo, Timeline};

/// The plan: where every symbol lives.
#[derive(Clone, Debug)]
pub struct MemPlan {
    /// Kind of each symbol, indexed by [`SymbolId`].
    pub kind: Vec<MemKind>,
    /// Workspace offset of each symbol's start (-1 outside the workspace).
    pub offset: Vec<i64>,
    /// Non-zero displacements of anchors inside their symbol.
    pub deltas: HashMap<Anchor, i64>,
    /// Bytes of workspace the plan needs (its peak).
    pub workspace_size: i64,
    /// Max over time of the live block sizes: no plan of these blocks needs less.
    pub lower_bound: i64,
    /// Sum of the block sizes: what no reuse at all would need.
    pub upper_bound: i64,
    /// Blocks placed (a continuous group is one block).
    pub blocks: usize,
    /// Continuous groups laid out.
    pub groups: usize,
    /// Root Data outputs placed in the workspace because a continuous group holds them.
    pub promoted_user_inputs: usize,
    /// Whether several streams constrained reuse.
    pub multi_stream: bool,
    /// Free regions a block could not take because a use on another stream was not
    /// ordered before it.
    pub cross_stream_rejections: u64,
}

impl MemPlan {
    /// The workspace offset of an anchor (-1 outside the workspace).
    pub fn anchor_offset(&self, symbols: &Symbols, a: Anchor) -> i64 {
        match symbols.symbol_of(a) {
            Some(s) if self.offset[s.0 as usize] >= 0 => {
                self.offset[s.0 as usize] + self.deltas.get(&a).copied().unwrap_or(0)
            }
            _ => -1,
        }
    }

    /// Where an anchor's memory lives.
    pub fn anchor_kind(&self, symbols: &Symbols, a: Anchor) -> MemKind {
        symbols
            .symbol_of(a)
            .map_or(MemKind::Unused, |s| self.kind[s.0 as usize])
    }

    /// GE `output_reuse_input_mem_indexes`: the root NetOutput inputs whose memory is a
    /// user input, as (root Data node, NetOutput input index).
    pub fn outputs_reusing_inputs(&self, g: &MemGraph, symbols: &Symbols) -> Vec<(NodeId, u32)> {
        let Some(net) = g.graph(super::model::ROOT).net_output else {
            return Vec::new();
        };
        (0..g.node(net).inputs.len() as u32)
            .filter_map(|j| match self.anchor_kind(symbols, Anchor::input(net, j)) {
                MemKind::UserInput(d) => Some((d, j)),
                _ => None,
            })
            .collect()
    }

    /// The peak over the lower bound (1.0 when there is nothing to place).
    pub fn ratio_to_lower_bound(&self) -> f64 {
        if self.lower_bound == 0 {
            1.0
        } else {
            self.workspace_size as f64 / self.lower_bound as f64
        }
    }
}

/// Most bytes the static tensors of one graph may add up to (1 PiB, far beyond any
/// device). Below it every sum the planner forms (a continuous group's extent, the
/// workspace top, offset plus size, the no-reuse total, the checker's end addresses) fits
/// in an `i64` with room to spare, so none of them can wrap.
pub const MAX_PLAN_BYTES: i64 = 1 << 50;

/// A static tensor whose byte size does not fit in 64 bits cannot be planned; without this
/// check it would silently count as dynamic (unplanned) memory. The outputs' sizes must
/// also add up to at most [`MAX_PLAN_BYTES`], or the workspace total could overflow.
fn check_sizes_fit(g: &MemGraph, walk: &[NodeId]) -> Result<(), MemError> {
    let mut total: i64 = 0;
    for &n in walk {
        for (k, out) in g.node(n).outputs.iter().enumerate() {
            let desc = g.tensor(out.tensor);
            if desc.is_unknown_shape() || desc.dtype.size().is_none() {
                continue;
            }
            let Some(bytes) = desc.byte_size() else {
                return Err(MemError::at(
                    g,
                    n,
                    format!("output {k} ({desc}) is too large: its byte size overflows 64 bits"),
                ));
            };
            total = total.saturating_add(bytes);
            if total > MAX_PLAN_BYTES {
                return Err(MemError::at(
                    g,
                    n,
                    format!(
                        "output {k} ({desc}, {bytes} bytes) brings the graph's static tensors \
                         past {MAX_PLAN_BYTES} bytes (1 PiB), the most the static plan \
                         places: its offsets and workspace total would overflow"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The symbols the static plan (and in-place reuse, and the plan's checker) work on: GE's
/// `GetRefMapping` table of the root scope, plus the output of every Reshape merged with
/// its input. A Reshape has no task (it only reinterprets the shape), so its output *is*
/// its input's bytes: GE's Reshape output reuses its input's memory. A buffer of its own
/// would hold bytes nothing wrote, and its consumer would read them.
pub fn plan_symbols(g: &MemGraph) -> Symbols {
    let mut symbols = Symbols::build(g, ROOT);
    merge_aliases(g, &g.all_nodes(), &mut symbols);
    symbols
}

/// Merges each alias output (a Reshape's output 0) into its input 0's symbol.
pub fn merge_aliases(g: &MemGraph, walk: &[NodeId], symbols: &mut Symbols) {
    for &n in walk {
        let node = g.node(n);
        if node.sem.reshape && !node.outputs.is_empty() && !node.inputs.is_empty() {
            symbols.merge(Anchor::output(n, 0), Anchor::input(n, 0));
        }
    }
}

/// The static memory plan of `g` (see the module doc). `symbols` must be the root-scope
/// table of `g` ([`plan_symbols`]), built after any in-place merges. Errors: a
/// cycle, a continuous group with a constant, variable or unknown-size member, two groups
/// that disagree about a symbol's place.
pub fn plan_memory(
    g: &MemGraph,
    symbols: &Symbols,
    streams: &StreamInfo,
) -> Result<MemPlan, MemError> {
    // One `GetAllNodes` walk for the checks that follow it (a walk is a cache miss per
    // subgraph: ~60 ms on a million nodes in 160k subgraphs).
    let walk = g.all_nodes();
    check_sizes_fit(g, &walk)?;
    let timeline = Timeline::new(g);
    let order = Order::new(g, &timeline, streams)?;
    let mut sizes = TensorSizes::new();
    let deltas = anchor_deltas(g, &walk);
    let mut facts = SymbolFacts::new(g, symbols, &timeline, &mut sizes, &deltas);
    let groups = continuous_groups(g, &walk, &mut sizes)?;
    let mut clusters = Clusters::new(&facts);
    let mut promoted = 0;
    for group in &groups {
        let mut syms = Vec::with_capacity(group.members.len());
        for &(a, _) in &group.members {
            let Some(s) = symbols.symbol_of(a) else {
                continue;
            };
            check_member(g, &mut facts, group, a, s, &mut promoted)?;
            syms.push(s);
        }
        if syms.len() != group.members.len() {
            continue; // a member outside the table's scope: nothing to tie
        }
        clusters.place(group, &syms).map_err(|c| {
            MemError::at(
                g,
                group.node,
                format!(
                    "{}s: the memory of {} is already laid out {} bytes from member 0 (by \
                     this or another continuous group), this group needs it {} bytes from \
                     member 0 (GE's layout pass isolates such symbols: --mem-layout-conflict)",
                    group.describe(),
                    super::mem_verify::describe(g, symbols.name_anchor(c.symbol)),
                    c.had,
                    c.wants
                ),
            )
        })?;
    }

    check_cluster_overlaps(g, symbols, &facts, &groups, &mut clusters)?;
    let starts = cluster_starts(g, symbols, &groups, &mut clusters)?;

    // Blocks: one per cluster of workspace symbols.
    let mut block_of: HashMap<SymbolId, usize> = HashMap::default();
    let mut blocks: Vec<Block> = Vec::new();
    let mut root_of = vec![(SymbolId(u32::MAX), 0i64); facts.kind.len()];
    for s in symbols.iter() {
        let i = s.0 as usize;
        if facts.kind[i] != MemKind::Workspace {
            continue;
        }
        let (root, rel) = clusters.find(s);
        root_of[i] = (root, rel);
        let (low, hi) = clusters.extent(root);
        let lo = starts.get(&root).copied().unwrap_or(low);
        let b = *block_of.entry(root).or_insert_with(|| {
            blocks.push(Block {
                size: align_up(hi - lo),
                begin: u32::MAX,
                end: 0,
                last_uses: Vec::new(),
                writers: Vec::new(),
            });
            blocks.len() - 1
        });
        let block = &mut blocks[b];
        block.begin = block.begin.min(facts.begin[i]);
        block.end = block.end.max(facts.end[i]);
        if order.multi_stream() {
            add_uses(block, symbols, s, &order, &timeline);
        }
    }
    dedup_uses(&mut blocks);
    let placed = allocator::place(&blocks, timeline.len, Some(&order));

    let mut offset = vec![-1i64; facts.kind.len()];
    for s in symbols.iter() {
        let i = s.0 as usize;
        if facts.kind[i] != MemKind::Workspace {
            continue;
        }
        let (root, rel) = root_of[i];
        let lo = starts
            .get(&root)
            .copied()
            .unwrap_or_else(|| clusters.extent(root).0);
        offset[i] = placed.offsets[block_of[&root]] + rel - lo;
    }
    Ok(MemPlan {
        kind: facts.kind,
        offset,
        deltas,
        workspace_size: placed.peak,
        lower_bound: placed.max_live,
        upper_bound: placed.total,
        blocks: blocks.len(),
        groups: groups.len(),
        promoted_user_inputs: promoted,
        multi_stream: order.multi_stream(),
        cross_stream_rejections: placed.cross_stream_rejections,
    })
}

/// A continuous group's member must be workspace memory: a user input is copied in (GE
/// gives the Data output the slot), constants, variables and unknown sizes are errors.
fn check_member(
    g: &MemGraph,
    facts: &mut SymbolFacts,
    group: &facts::Group,
    a: Anchor,
    s: SymbolId,
    promoted: &mut usize,
) -> Result<(), MemError> {
    let i = s.0 as usize;
    let kind = facts.kind[i];
    match kind {
        MemKind::Workspace => Ok(()),
        MemKind::UserInput(_) if facts.size[i].is_some() => {
            facts.kind[i] = MemKind::Workspace;
            *promoted += 1;
            Ok(())
        }
        _ => Err(MemError::at(
            g,
            group.node,
            format!(
                "{} {} is {} memory: a continuous group is laid out in the workspace (GE \
                 isolates such inputs with an Identity: --hccl-continuous-memcpy, \
                 --mem-layout-conflict)",
                group.describe(),
                a.index(),
                kind
            ),
        )),
    }
}

/// Two groups that share a symbol tie their other members into one block at fixed
/// distances; those members must not overlap (unless a no-padding input reused as output
/// makes them one object, PhonyConcat). GE's layout pass isolates such symbols.
fn check_cluster_overlaps(
    g: &MemGraph,
    symbols: &Symbols,
    facts: &SymbolFacts,
    groups: &[facts::Group],
    clusters: &mut Clusters,
) -> Result<(), MemError> {
    // Alias sets: the members of a no-padding input group reused as output.
    let mut alias: HashMap<SymbolId, usize> = HashMap::default();
    for (k, group) in groups.iter().enumerate() {
        if group.inputs && !group.padded && g.node(group.node).sem.output_reuse_input {
            for &(a, _) in &group.members {
                if let Some(s) = symbols.symbol_of(a) {
                    alias.entry(s).or_insert(k);
                }
            }
        }
    }
    let grouped: Vec<SymbolId> = symbols
        .iter()
        .filter(|s| clusters.grouped[s.0 as usize])
        .collect();
    let mut placed: Vec<(SymbolId, i64, i64, SymbolId)> = grouped
        .into_iter()
        .map(|s| {
            let (root, rel) = clusters.find(s);
            (root, rel, rel + facts.size[s.0 as usize].unwrap_or(0), s)
        })
        .collect();
    placed.sort_unstable_by_key(|&(root, rel, _, s)| (root, rel, s));
    let mut reach: Option<(SymbolId, i64, SymbolId)> = None; // (root, furthest end, owner)
    for &(root, rel, end, s) in &placed {
        if let Some((r, far, owner)) = reach {
            let same_alias = alias.contains_key(&s) && alias.get(&s) == alias.get(&owner);
            if r == root && far > rel && !same_alias {
                let (a, b) = (symbols.name_anchor(owner), symbols.name_anchor(s));
                return Err(MemError::at(
                    g,
                    b.node(),
                    format!(
                        "continuous groups tie {} and {} into one block where they overlap \
                         ({} bytes): GE's layout pass isolates such symbols \
                         (--mem-layout-conflict)",
                        super::mem_verify::describe(g, a),
                        super::mem_verify::describe(g, b),
                        far - rel
                    ),
                ));
            }
            if r == root && far >= end {
                continue;
            }
        }
        reach = Some((root, end, s));
    }
    Ok(())
}

/// Where each multi-symbol cluster's block starts, relative to its root: at or before the
/// cluster's lowest byte, so that every member that must be 512-aligned (all but the
/// members after the first of a no-padding group) is. Members that need different
/// residues modulo 512 cannot all be aligned: an error.
fn cluster_starts(
    g: &MemGraph,
    symbols: &Symbols,
    groups: &[facts::Group],
    clusters: &mut Clusters,
) -> Result<HashMap<SymbolId, i64>, MemError> {
    let mut free: HashMap<SymbolId, ()> = HashMap::default();
    for group in groups.iter().filter(|gr| !gr.padded) {
        for &(a, _) in group.members.iter().skip(1) {
            if let Some(s) = symbols.symbol_of(a) {
                free.insert(s, ());
            }
        }
    }
    let mut residue: HashMap<SymbolId, (i64, SymbolId)> = HashMap::default();
    let grouped: Vec<SymbolId> = symbols
        .iter()
        .filter(|s| clusters.grouped[s.0 as usize] && !free.contains_key(s))
        .collect();
    for s in grouped {
        let (root, rel) = clusters.find(s);
        let r = rel.rem_euclid(MEM_ALIGN_SIZE);
        match residue.get(&root) {
            None => {
                residue.insert(root, (r, s));
            }
            Some(&(have, other)) if have != r => {
                let (a, b) = (symbols.name_anchor(other), symbols.name_anchor(s));
                return Err(MemError::at(
                    g,
                    b.node(),
                    format!(
                        "continuous groups tie {} and {} into one block at a distance that is \
                         not a multiple of {MEM_ALIGN_SIZE}: both cannot be aligned (GE's layout \
                         pass isolates such symbols: --mem-layout-conflict)",
                        super::mem_verify::describe(g, a),
                        super::mem_verify::describe(g, b)
                    ),
                ));
            }
            Some(_) => {}
        }
    }
    let mut starts = HashMap::default();
    for (root, (r, _)) in residue {
        let (lo, _) = clusters.extent(root);
        starts.insert(root, lo - (lo - r).rem_euclid(MEM_ALIGN_SIZE));
    }
    Ok(starts)
}

/// Each writer of a block once, and its latest use per lane (see [`add_uses`]).
fn dedup_uses(blocks: &mut [Block]) {
    for block in blocks {
        block.writers.sort_unstable();
        block.writers.dedup();
        allocator::latest_per_lane(&mut block.last_uses);
    }
}

/// Records the uses per lane and the writers of symbol `s` in `block`.
fn add_uses(block: &mut Block, symbols: &Symbols, s: SymbolId, order: &Order, t: &Timeline) {
    for a in symbols.anchors(s) {
        let n = a.node();
        let lane: Lane = order.lane(n);
        // Both reduced once the block is complete ([`dedup_uses`]): a membership scan per
        // writer was quadratic on a chain of in-place ops (one symbol, 160k writers), and
        // one per use on a chain of nested calls (a lane per graph).
        block.last_uses.push((lane, n, t.end[n.0 as usize]));
        if !a.is_input() {
            block.writers.push(n);
        }
    }
}
