//! What each memory symbol is, how big it is, and where it must sit relative to others.
//!
//! * [`SymbolFacts`]: per symbol its [`MemKind`] (workspace, user input, constant,
//!   variable, dynamic, unused), its size (the largest tensor of its anchors, GE's block
//!   size rule: the block holds its largest tensor) and its lifetime on the [`Timeline`].
//! * [`anchor_deltas`]: anchors that sit *inside* their symbol's memory rather than at its
//!   start: the outputs of a no-padding continuous-output node that reuses its input
//!   (`_output_reuse_input`, e.g. PhonySplit) are laid out one after the other over input 0's
//!   memory, and whatever shares such an output inherits its displacement.
//! * [`continuous_groups`]: the inputs of a `continuous_input` / `_no_padding_continuous_input`
//!   node, and the outputs of a `continuous_output` / `_no_padding_continuous_output` node,
//!   must be contiguous, in order (GE `AssignContinuousInputMemory` /
//!   `AssignContinuousOutputMemory`): with padding every member starts on a 512-byte
//!   boundary ([`MEM_ALIGN_SIZE`]), its slot is its tensor size rounded up to 512, and a
//!   continuous *input* group gets 512 bytes before and after (GE: "the head and tail of hcom
//!   continuous input should be added 512"); without padding the members follow each other
//!   at their raw byte sizes (elements × dtype size).
//! * [`Clusters`]: the groups tie symbols together at fixed distances; a weighted union–find
//!   keeps, for every symbol, its offset relative to its cluster's root, so two groups that
//!   share a symbol either agree on the layout or report where they disagree.

use super::super::model::{MemError, MemGraph, NodeId, TensorDesc, TensorId, ROOT};
use super::super::symbols::{ref_input, Anchor, SymbolId, Symbols};
use super::timeline::Timeline;
use crate::analysis::fast_hash::FastMap as HashMap;
use std::fmt;

/// GE's memory alignment for blocks and offsets (`MEM_ALIGN_SIZE`).
pub const MEM_ALIGN_SIZE: i64 = 512;

/// `size` rounded up to [`MEM_ALIGN_SIZE`] (GE `AlignMemOffset`).
pub fn align_up(size: i64) -> i64 {
    (size + MEM_ALIGN_SIZE - 1) / MEM_ALIGN_SIZE * MEM_ALIGN_SIZE
}

/// Bytes of a tensor without GE's 32-byte slack: the size a no-padding continuous group
/// lays out (elements × dtype size). `None` for an unknown shape or dtype.
pub fn raw_size(desc: &TensorDesc) -> Option<i64> {
    desc.element_count()?.checked_mul(desc.dtype.size()?)
}

/// Where a symbol's memory lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemKind {
    /// The workspace (feature map) the plan lays out.
    Workspace,
    /// User memory: a root Data output (the runtime passes its address).
    UserInput(NodeId),
    /// Constant (weight) memory.
    Constant,
    /// Variable memory: a Variable-family output, or one that aliases a variable
    /// (`ref_var_src_var_name`).
    Variable,
    /// Unknown size (a dynamic shape, or a dtype without a GE size): allocated at run time.
    Dynamic,
    /// Nothing produces it (an unconnected input, a root Data's own argument input).
    Unused,
}

impl MemKind {
    /// The name written into the IR (`ascend.output_memory`).
    pub fn name(self) -> &'static str {
        match self {
            MemKind::Workspace => "workspace",
            MemKind::UserInput(_) => "user-input",
            MemKind::Constant => "constant",
            MemKind::Variable => "variable",
            MemKind::Dynamic => "dynamic",
            MemKind::Unused => "unused",
        }
    }
}

impl fmt::Display for MemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// GE byte sizes of the model's tensor descs, computed once per interned desc.
pub struct TensorSizes {
    padded: Vec<Option<Option<i64>>>,
}

impl TensorSizes {
    pub fn new() -> TensorSizes {
        TensorSizes { padded: Vec::new() }
    }

    /// GE's tensor size of `id` (with its 32-byte slack), `None` when unknown.
    pub fn of(&mut self, g: &MemGraph, id: TensorId) -> Option<i64> {
        let i = id.0 as usize;
        if i >= self.padded.len() {
            self.padded.resize(i + 1, None);
        }
        *self.padded[i].get_or_insert_with(|| g.tensor(id).byte_size())
    }

    /// The size of an anchor's tensor.
    pub fn anchor(&mut self, g: &MemGraph, a: Anchor) -> Option<i64> {
        let node = g.node(a.node());
        let id = match a {
            Anchor::In(p) => node.inputs[p.index as usize].tensor,
            Anchor::Out(p) => node.outputs[p.index as usize].tensor,
        };
        self.of(g, id)
    }
}

impl Default for TensorSizes {
    fn default() -> Self {
        TensorSizes::new()
    }
}

/// Per-symbol facts, indexed by [`SymbolId`].
pub struct SymbolFacts {
    pub kind: Vec<MemKind>,
    /// Bytes the symbol spans: the furthest end of its anchors' tensors (GE sizes) from its
    /// start, displacements included; `None` when some anchor's size is unknown.
    pub size: Vec<Option<i64>>,
    /// First and last timeline position any anchor of the symbol is live at.
    pub begin: Vec<u32>,
    pub end: Vec<u32>,
}

impl SymbolFacts {
    /// Facts of every live symbol of `symbols`; `deltas` from [`anchor_deltas`].
    ///
    /// One pass over the anchors in id order (the nodes in memory order) folding each into
    /// its symbol's entry: a symbol's anchors lie all over the graph, and visiting them
    /// symbol by symbol read each node where it lay, a cache miss per anchor at a million
    /// nodes. Every fact but the user input is a min, max or "any" over the anchors; the
    /// user input is the first root Data output in the symbol's own anchor order, so a
    /// symbol with more than one is walked in that order afterwards.
    pub fn new(
        g: &MemGraph,
        symbols: &Symbols,
        timeline: &Timeline,
        sizes: &mut TensorSizes,
        deltas: &HashMap<Anchor, i64>,
    ) -> SymbolFacts {
        const CONSTANT: u8 = 1;
        const VARIABLE: u8 = 2;
        const OUTPUT: u8 = 4;
        let cap = symbols.iter().map(|s| s.0 as usize + 1).max().unwrap_or(0);
        let mut f = SymbolFacts {
            kind: vec![MemKind::Unused; cap],
            size: vec![Some(0); cap],
            begin: vec![u32::MAX; cap],
            end: vec![0; cap],
        };
        let mut flags = vec![0u8; cap];
        // The first user-input candidate met in id order, and how many the symbol has.
        let mut user: Vec<Option<NodeId>> = vec![None; cap];
        let mut users = vec![0u32; cap];
        for id in 0..symbols.anchor_ids() as u32 {
            let Some(s) = symbols.symbol_of_id(id) else {
                continue;
            };
            let i = s.0 as usize;
            let a = symbols.anchor_at(id);
            let n = a.node();
            let node = g.node(n);
            let (b, e) = timeline.span(n);
            f.begin[i] = f.begin[i].min(b);
            f.end[i] = f.end[i].max(e);
            let shift = if deltas.is_empty() {
                0
            } else {
                deltas.get(&a).copied().unwrap_or(0)
            };
            f.size[i] = match (f.size[i], sizes.anchor(g, a)) {
                (Some(x), Some(y)) => Some(x.max(shift + y)),
                _ => None,
            };
            if let Anchor::Out(p) = a {
                flags[i] |= OUTPUT;
                if node.sem.const_like {
                    flags[i] |= CONSTANT;
                }
                if node.sem.var_like || node.outputs[p.index as usize].ref_var_src.is_some() {
                    flags[i] |= VARIABLE;
                }
                if is_user_input(g, n) {
                    user[i].get_or_insert(n);
                    users[i] += 1;
                }
            }
        }
        for s in symbols.iter() {
            let i = s.0 as usize;
            if users[i] > 1 {
                user[i] = symbols
                    .anchors(s)
                    .find(|a| matches!(a, Anchor::Out(_)) && is_user_input(g, a.node()))
                    .map(|a| a.node());
            }
            f.kind[i] = if flags[i] & CONSTANT != 0 {
                MemKind::Constant
            } else if let Some(d) = user[i] {
                MemKind::UserInput(d)
            } else if flags[i] & VARIABLE != 0 {
                MemKind::Variable
            } else if flags[i] & OUTPUT == 0 {
                MemKind::Unused
            } else if f.size[i].is_none() {
                MemKind::Dynamic
            } else {
                MemKind::Workspace
            };
        }
        f
    }
}

/// Whether an output of node `n` is user memory: a Data of the root graph.
fn is_user_input(g: &MemGraph, n: NodeId) -> bool {
    let node = g.node(n);
    node.sem.data_like && node.graph == ROOT
}

/// Whether a node lays its outputs over its input 0 (no-padding continuous output that
/// reuses its input, e.g. PhonySplit).
pub fn outputs_over_input0(g: &MemGraph, n: NodeId) -> bool {
    let s = g.node(n).sem;
    s.nopad_continuous_output && s.output_reuse_input
}

/// Displacements of anchors inside their symbol's memory (see the module doc); only
/// non-zero ones are listed. O(nodes) when no node lays its outputs over its input.
/// `walk` = `g.all_nodes()`.
pub fn anchor_deltas(g: &MemGraph, walk: &[NodeId]) -> HashMap<Anchor, i64> {
    let mut d: HashMap<Anchor, i64> = HashMap::default();
    let any = (0..g.nodes.len())
        .map(|i| NodeId(i as u32))
        .any(|n| !g.node(n).removed && outputs_over_input0(g, n));
    if !any {
        return d;
    }
    for &n in walk {
        let node = g.node(n);
        for (i, input) in node.inputs.iter().enumerate() {
            let from = match input.src {
                Some(src) => d.get(&Anchor::Out(src)).copied(),
                None => subgraph_feed(g, n, i as u32).and_then(|a| d.get(&a).copied()),
            };
            if let Some(x) = from.filter(|&x| x != 0) {
                d.insert(Anchor::input(n, i as u32), x);
            }
        }
        if outputs_over_input0(g, n) {
            let base = d.get(&Anchor::input(n, 0)).copied().unwrap_or(0);
            let mut prefix = 0;
            for (o, out) in node.outputs.iter().enumerate() {
                if base + prefix != 0 {
                    d.insert(Anchor::output(n, o as u32), base + prefix);
                }
                prefix += raw_size(g.tensor(out.tensor)).unwrap_or(0);
            }
        } else {
            for o in 0..node.outputs.len() as u32 {
                let from = ref_input(g, n, o).and_then(|i| d.get(&Anchor::input(n, i)).copied());
                if let Some(x) = from {
                    d.insert(Anchor::output(n, o), x);
                }
            }
        }
    }
    d
}

/// For input `i` of a subgraph Data: the parent input it stands for.
fn subgraph_feed(g: &MemGraph, n: NodeId, i: u32) -> Option<Anchor> {
    let node = g.node(n);
    let parent = g.parent_of(n)?;
    if i != 0 || node.sem.net_output {
        return None;
    }
    let p = node.parent_index?;
    (p < g.node(parent).inputs.len() as u32).then(|| Anchor::input(parent, p))
}

/// A continuous group: anchors of one node that must be contiguous, in order.
#[derive(Clone, Debug)]
pub struct Group {
    pub node: NodeId,
    /// The node's inputs (else its outputs).
    pub inputs: bool,
    /// With padding (512-aligned slots); else no padding (raw sizes back to back).
    pub padded: bool,
    /// Each member and its offset from the group's start.
    pub members: Vec<(Anchor, i64)>,
    /// Bytes the group spans, padding included.
    pub extent: i64,
}

impl Group {
    /// "continuous input" / "no-padding continuous output" ...
    pub fn describe(&self) -> &'static str {
        match (self.padded, self.inputs) {
            (true, true) => "continuous input",
            (true, false) => "continuous output",
            (false, true) => "no-padding continuous input",
            (false, false) => "no-padding continuous output",
        }
    }
}

/// The continuous groups of the model (see the module doc), in `GetAllNodes` order (`walk` =
/// `g.all_nodes()`). A member of unknown size is an error at the node.
pub fn continuous_groups(
    g: &MemGraph,
    walk: &[NodeId],
    sizes: &mut TensorSizes,
) -> Result<Vec<Group>, MemError> {
    let mut groups = Vec::new();
    for &n in walk {
        let s = g.node(n).sem;
        if s.continuous_input || s.nopad_continuous_input {
            groups.push(input_group(g, n, s.continuous_input, sizes)?);
        }
        let outputs = (s.continuous_output && !s.reference)
            || (s.nopad_continuous_output && !s.output_reuse_input);
        if outputs && !s.net_output {
            groups.push(output_group(
                g,
                n,
                !s.nopad_continuous_output || s.continuous_output,
                sizes,
            )?);
        }
    }
    Ok(groups)
}

/// The slot a member takes: its GE size rounded to 512 with padding, its raw size without.
fn slot(
    g: &MemGraph,
    n: NodeId,
    what: &str,
    desc: TensorId,
    padded: bool,
    sizes: &mut TensorSizes,
) -> Result<i64, MemError> {
    let size = if padded {
        sizes.of(g, desc).map(align_up)
    } else {
        raw_size(g.tensor(desc))
    };
    size.ok_or_else(|| {
        MemError::at(
            g,
            n,
            format!(
                "{what} has an unknown size ({}): a continuous group needs static sizes",
                g.tensor(desc)
            ),
        )
    })
}

fn input_group(
    g: &MemGraph,
    n: NodeId,
    padded: bool,
    sizes: &mut TensorSizes,
) -> Result<Group, MemError> {
    let head = if padded { MEM_ALIGN_SIZE } else { 0 };
    let mut at = head;
    let mut members = Vec::new();
    for (i, input) in g.node(n).inputs.iter().enumerate() {
        let Some(src) = input.src else { continue };
        let desc = g.node(src.node).outputs[src.index as usize].tensor;
        let what = format!("continuous input {i}");
        let size = slot(g, n, &what, desc, padded, sizes)?;
        members.push((Anchor::input(n, i as u32), at));
        at += size;
    }
    Ok(Group {
        node: n,
        inputs: true,
        padded,
        members,
        extent: at + head,
    })
}

fn output_group(
    g: &MemGraph,
    n: NodeId,
    padded: bool,
    sizes: &mut TensorSizes,
) -> Result<Group, MemError> {
    let mut at = 0;
    let mut members = Vec::new();
    for (o, out) in g.node(n).outputs.iter().enumerate() {
        let what = format!("continuous output {o}");
        let size = slot(g, n, &what, out.tensor, padded, sizes)?;
        members.push((Anchor::output(n, o as u32), at));
        at += size;
    }
    Ok(Group {
        node: n,
        inputs: false,
        padded,
        members,
        extent: at,
    })
}

/// Symbols tied together at fixed distances by continuous groups (weighted union–find).
pub struct Clusters {
    parent: Vec<u32>,
    /// Offset of a symbol relative to its parent.
    rel: Vec<i64>,
    /// Extent `[lo, hi)` of a root's cluster, relative to the root.
    lo: Vec<i64>,
    hi: Vec<i64>,
    /// Whether the symbol is a member of some group.
    pub grouped: Vec<bool>,
}

/// Two groups disagree about where a symbol sits.
#[derive(Clone, Copy, Debug)]
pub struct LayoutConflict {
    /// The symbol both groups place.
    pub symbol: SymbolId,
    /// Its offset from the cluster root under the earlier groups, and under this one.
    pub had: i64,
    pub wants: i64,
}

impl Clusters {
    /// One cluster per symbol, spanning `[0, size)`.
    pub fn new(facts: &SymbolFacts) -> Clusters {
        let n = facts.size.len();
        Clusters {
            parent: (0..n as u32).collect(),
            rel: vec![0; n],
            lo: vec![0; n],
            hi: facts.size.iter().map(|s| s.unwrap_or(0)).collect(),
            grouped: vec![false; n],
        }
    }

    /// The root of `s` and the offset of `s` from it.
    pub fn find(&mut self, s: SymbolId) -> (SymbolId, i64) {
        let mut path = Vec::new();
        let mut cur = s.0;
        while self.parent[cur as usize] != cur {
            path.push(cur);
            cur = self.parent[cur as usize];
        }
        let root = cur;
        // Compress: walk the path from the top so each node's rel becomes root-relative.
        let mut acc = 0;
        for &x in path.iter().rev() {
            acc += self.rel[x as usize];
            self.rel[x as usize] = acc;
            self.parent[x as usize] = root;
        }
        (
            SymbolId(root),
            if path.is_empty() {
                0
            } else {
                self.rel[s.0 as usize]
            },
        )
    }

    /// Extent `[lo, hi)` of the cluster of root `r`, relative to `r`.
    pub fn extent(&self, r: SymbolId) -> (i64, i64) {
        (self.lo[r.0 as usize], self.hi[r.0 as usize])
    }

    /// Place the members of `group` (symbols `syms`, one per member): member `k` at the
    /// group's start plus its offset. Fails when a member is already placed elsewhere.
    pub fn place(&mut self, group: &Group, syms: &[SymbolId]) -> Result<(), LayoutConflict> {
        let Some((&first, _)) = syms.split_first() else {
            return Ok(());
        };
        let base_off = group.members[0].1;
        for (k, &s) in syms.iter().enumerate() {
            self.grouped[s.0 as usize] = true;
            let want = group.members[k].1 - base_off; // offset from member 0
            let (ra, oa) = self.find(first);
            let (rb, ob) = self.find(s);
            if ra == rb {
                if ob - oa != want {
                    return Err(LayoutConflict {
                        symbol: s,
                        had: ob - oa,
                        wants: want,
                    });
                }
                continue;
            }
            // Attach rb under ra: off(rb) relative to ra = oa + want - ob.
            let shift = oa + want - ob;
            self.parent[rb.0 as usize] = ra.0;
            self.rel[rb.0 as usize] = shift;
            let (blo, bhi) = (
                self.lo[rb.0 as usize] + shift,
                self.hi[rb.0 as usize] + shift,
            );
            let a = ra.0 as usize;
            self.lo[a] = self.lo[a].min(blo);
            self.hi[a] = self.hi[a].max(bhi);
        }
        // The group's own span (padding) around member 0.
        let (r, o) = self.find(first);
        let start = o - base_off;
        let a = r.0 as usize;
        self.lo[a] = self.lo[a].min(start);
        self.hi[a] = self.hi[a].max(start + group.extent);
        Ok(())
    }
}
