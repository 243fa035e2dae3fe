//! Memory symbols: which anchors share one piece of memory (GE `GraphUtils::GetRefMapping`,
//! its `SymbolToAnchors` / `AnchorToSymbol` maps).
//!
//! An *anchor* is a data input or output of a node ([`Anchor`]). Anchors that must live at
//! the same address form one *symbol*. GE grows the symbols while walking `GetAllNodes` of a
//! graph (its nodes, each followed by the nodes of its subgraphs):
//!
//! * **data edge**: a connected input joins its producer output's symbol; an unconnected one
//!   starts its own;
//! * **ref output**: an output that shares an input's memory joins that input's symbol
//!   (GE `IsRefFromInput`, in this order: pass-through nodes, i.e. NetOutput, the While
//!   family and subgraph inputs, output *i* = input *i*; V1 `Merge` output 0 = input 0; an
//!   output named like an input; `reuse_input_index` on the output; a no-padding continuous
//!   node with `_output_reuse_input`, every output = input 0);
//! * **subgraph boundaries** (for subgraphs nested in the walked graph): a subgraph Data's
//!   input joins the symbol of whatever feeds the parent's input `_parent_node_index`; a
//!   subgraph NetOutput input *j* (parent index *p*) unions its producer with the parent's
//!   output *p* and joins it. So every branch of an If/Case that returns output *p* shares
//!   the If's output *p*, and a While's input, body, cond inputs and output are one symbol
//!   (a While cond's NetOutput is the loop predicate: it is not linked to the While);
//! * **Merge / StreamMerge**: all producers of the inputs are unioned (into the biggest
//!   symbol) and the inputs join it (GE `HandleMergeInput`);
//! * **explicit merge** ([`Symbols::merge`]): what in-place reuse does.
//!
//! Symbol names and orders follow GE exactly, because the layout pass walks symbols in GE's
//! `std::map` order and pairs within a symbol in list order:
//! * an anchor's GE name is `<node>_in_<i>` / `<node>_out_<i>` ([`Anchor::ge_name`]);
//! * a new symbol is named after the anchor that started it;
//! * a union keeps the bigger symbol (on a tie the second one named) and appends the other's
//!   anchors to its list ([`Symbols::merge`]);
//! * [`Symbols::ge_order`] sorts symbols by name bytes, like GE's map.
//!
//! Where GE would fail or leave an anchor unmapped (an unconnected subgraph input, a
//! NetOutput input with no producer, an unconnected Merge input) every anchor still gets a
//! symbol of its own, so the table is total over the walked graph.
//!
//! Cost: three `u32` per anchor (owner, symbol, list link) plus four per symbol, over the
//! walked graph only (a subgraph's table maps its nodes through a hash map); a union rewrites the smaller side
//! (O(anchors · log anchors) over any sequence of unions). Built once per pass, as GE does.

use std::cmp::Ordering;
use std::collections::HashMap;

use super::model::{GraphId, InPort, MemGraph, Node, NodeId, OutPort, ROOT};
use super::rw_types::ref_input_of_output;

/// A data anchor: an input or an output of a node.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Anchor {
    In(InPort),
    Out(OutPort),
}

impl Anchor {
    pub fn input(node: NodeId, index: u32) -> Anchor {
        Anchor::In(InPort { node, index })
    }

    pub fn output(node: NodeId, index: u32) -> Anchor {
        Anchor::Out(OutPort { node, index })
    }

    pub fn node(self) -> NodeId {
        match self {
            Anchor::In(p) => p.node,
            Anchor::Out(p) => p.node,
        }
    }

    pub fn index(self) -> u32 {
        match self {
            Anchor::In(p) => p.index,
            Anchor::Out(p) => p.index,
        }
    }

    pub fn is_input(self) -> bool {
        matches!(self, Anchor::In(_))
    }

    /// GE's `NodeIndexIO::ToString`: `<node>_in_<i>` or `<node>_out_<i>`.
    pub fn ge_name(self, g: &MemGraph) -> String {
        format!(
            "{}{}{}",
            g.node(self.node()).name,
            self.io_infix(),
            self.index()
        )
    }

    fn io_infix(self) -> &'static str {
        if self.is_input() {
            "_in_"
        } else {
            "_out_"
        }
    }

    /// Compares the GE names of two anchors byte by byte without building them (the order
    /// of GE's `std::map<std::string, ...>` keyed by anchor names).
    pub fn cmp_ge_name(self, other: Anchor, g: &MemGraph) -> Ordering {
        self.cmp_ge_name_with(
            g.node(self.node()).name.as_bytes(),
            other,
            g.node(other.node()).name.as_bytes(),
        )
    }

    /// [`Anchor::cmp_ge_name`] given the two node names. Where the names differ before
    /// the shorter one ends, that decides (one `memcmp`); only a name that is a prefix of
    /// the other (or the same node) needs the suffixes compared.
    pub fn cmp_ge_name_with(self, name: &[u8], other: Anchor, other_name: &[u8]) -> Ordering {
        let m = name.len().min(other_name.len());
        match name[..m].cmp(&other_name[..m]) {
            Ordering::Equal => {}
            decided => return decided,
        }
        let (mut a, mut b) = ([0u8; 10], [0u8; 10]);
        let da = digits(self.index(), &mut a);
        let db = digits(other.index(), &mut b);
        let left = name[m..]
            .iter()
            .copied()
            .chain(self.io_infix().bytes())
            .chain(da.iter().copied());
        let right = other_name[m..]
            .iter()
            .copied()
            .chain(other.io_infix().bytes())
            .chain(db.iter().copied());
        left.cmp(right)
    }
}

/// The first 16 bytes of anchor `a`'s GE name (`name` + `_in_`/`_out_` + index), big-endian,
/// zero padded: ordering these orders the names, up to ties.
fn ge_name_prefix(name: &[u8], a: Anchor) -> u128 {
    let mut buf = [0u8; 16];
    let mut digit_buf = [0u8; 10];
    let parts = [
        name,
        a.io_infix().as_bytes(),
        digits(a.index(), &mut digit_buf),
    ];
    let mut k = 0;
    for part in parts {
        for &b in part {
            if k == 16 {
                return u128::from_be_bytes(buf);
            }
            buf[k] = b;
            k += 1;
        }
    }
    u128::from_be_bytes(buf)
}

/// Decimal digits of `n` in `buf`.
fn digits(mut n: u32, buf: &mut [u8; 10]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

/// A symbol of a [`Symbols`] table. Stable until a [`Symbols::merge`] absorbs it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct SymbolId(pub u32);

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct SymbolData {
    head: u32,
    tail: u32,
    len: u32,
    /// The anchor the symbol is named after.
    name: u32,
}

/// The symbol table of one graph and its nested subgraphs.
#[derive(Clone, Debug)]
pub struct Symbols {
    scope: GraphId,
    /// Node -> local index, for a table of a subgraph (`None`: the root's table, where the
    /// local index is the node id). A subgraph table costs only its own nodes.
    local: Option<HashMap<u32, u32>>,
    /// Local index -> node (subgraph tables only).
    nodes: Vec<u32>,
    /// First anchor id of each local node (inputs, then outputs); one more entry at the end.
    base: Vec<u32>,
    /// Number of inputs of each local node when the table was built.
    inputs: Vec<u32>,
    /// Anchor id -> owner (local index).
    owner: Vec<u32>,
    /// Anchor id -> symbol (`NONE`: not in the walked graph).
    symbol_of: Vec<u32>,
    /// Anchor id -> next anchor of its symbol's list.
    next: Vec<u32>,
    symbols: Vec<SymbolData>,
    live: usize,
}

/// What [`Symbols::merge`] would produce, computed without changing the table.
#[derive(Clone, Copy, Debug)]
pub struct MergePreview<'s> {
    table: &'s Symbols,
    /// The symbol that survives (and names the result).
    pub survivor: SymbolId,
    /// The symbol whose anchors would be appended (`None`: already the same symbol).
    pub absorbed: Option<SymbolId>,
}

impl<'s> MergePreview<'s> {
    /// The merged symbol's name anchor.
    pub fn name(&self) -> Anchor {
        self.table.name_anchor(self.survivor)
    }

    /// The merged symbol's anchors in GE list order: the survivor's, then the absorbed's.
    pub fn anchors(&self) -> impl Iterator<Item = Anchor> + 's {
        let table = self.table;
        table.anchors(self.survivor).chain(
            self.absorbed
                .into_iter()
                .flat_map(move |s| table.anchors(s)),
        )
    }

    /// Number of anchors of the merged symbol.
    pub fn len(&self) -> usize {
        self.table.len(self.survivor) + self.absorbed.map_or(0, |s| self.table.len(s))
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Symbols {
    /// GE `GetRefMapping(scope)`: the symbols of graph `scope` and every subgraph nested in
    /// it, walked in `GetAllNodes` order. Requires a normalised model.
    pub fn build(g: &MemGraph, scope: GraphId) -> Symbols {
        Symbols::build_from_walk(g, scope, &g.all_nodes_of(scope))
    }

    /// [`Symbols::build`] from `walk` = `g.all_nodes_of(scope)`, for a caller that walks
    /// the graph anyway (at a million nodes in 160k subgraphs a walk costs ~60 ms: each
    /// subgraph's order list is another cache miss).
    pub fn build_from_walk(g: &MemGraph, scope: GraphId, walk: &[NodeId]) -> Symbols {
        // The root's table is indexed by node id; a subgraph's by position in its walk.
        let (local, nodes): (Option<HashMap<u32, u32>>, Vec<u32>) = if scope == ROOT {
            (None, Vec::new())
        } else {
            let nodes: Vec<u32> = walk.iter().map(|n| n.0).collect();
            let map = nodes
                .iter()
                .enumerate()
                .map(|(i, &n)| (n, i as u32))
                .collect();
            (Some(map), nodes)
        };
        let node_at = |i: usize| -> &Node {
            match &local {
                None => &g.nodes[i],
                Some(_) => g.node(NodeId(nodes[i])),
            }
        };
        let count = if local.is_none() {
            g.nodes.len()
        } else {
            nodes.len()
        };
        let mut base = Vec::with_capacity(count + 1);
        let mut inputs = Vec::with_capacity(count);
        let mut total = 0u32;
        for i in 0..count {
            let node = node_at(i);
            base.push(total);
            inputs.push(node.inputs.len() as u32);
            total += (node.inputs.len() + node.outputs.len()) as u32;
        }
        base.push(total);
        let mut owner = Vec::with_capacity(total as usize);
        for i in 0..count {
            let node = node_at(i);
            owner.extend(std::iter::repeat_n(
                i as u32,
                node.inputs.len() + node.outputs.len(),
            ));
        }
        let mut t = Symbols {
            scope,
            local,
            nodes,
            base,
            inputs,
            owner,
            symbol_of: vec![NONE; total as usize],
            next: vec![NONE; total as usize],
            symbols: Vec::new(),
            live: 0,
        };
        for &n in walk {
            t.map_inputs(g, n);
            t.map_outputs(g, n);
        }
        t
    }

    /// The graph the table was built for.
    pub fn scope(&self) -> GraphId {
        self.scope
    }

    // ----- queries -------------------------------------------------------------------------

    /// The symbol of an anchor (`None`: the anchor is outside the walked graph, or was
    /// created after the table).
    pub fn symbol_of(&self, a: Anchor) -> Option<SymbolId> {
        let id = self.id(a)?;
        let s = self.symbol_of[id as usize];
        (s != NONE).then_some(SymbolId(s))
    }

    pub fn symbol_of_out(&self, p: OutPort) -> Option<SymbolId> {
        self.symbol_of(Anchor::Out(p))
    }

    pub fn symbol_of_in(&self, p: InPort) -> Option<SymbolId> {
        self.symbol_of(Anchor::In(p))
    }

    /// Whether two anchors share memory.
    pub fn same_symbol(&self, a: Anchor, b: Anchor) -> bool {
        match (self.symbol_of(a), self.symbol_of(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }

    /// The anchors of a symbol in GE's list order.
    pub fn anchors(&self, s: SymbolId) -> impl Iterator<Item = Anchor> + '_ {
        self.ids_of(s).map(|id| self.anchor(id))
    }

    /// The anchor ids of a symbol in GE's list order. Ids are dense, in the walk's node
    /// order (for the root's table, node id order), inputs before outputs; see
    /// [`Symbols::anchor_at`].
    pub fn ids_of(&self, s: SymbolId) -> impl Iterator<Item = u32> + '_ {
        let mut cur = self.symbols.get(s.0 as usize).map_or(NONE, |d| d.head);
        std::iter::from_fn(move || {
            if cur == NONE {
                return None;
            }
            let id = cur;
            cur = self.next[cur as usize];
            Some(id)
        })
    }

    /// Number of anchors of a symbol (0 once absorbed by a merge).
    pub fn len(&self, s: SymbolId) -> usize {
        self.symbols.get(s.0 as usize).map_or(0, |d| d.len as usize)
    }

    /// The anchor a symbol is named after.
    pub fn name_anchor(&self, s: SymbolId) -> Anchor {
        self.anchor(self.symbols[s.0 as usize].name)
    }

    /// The symbol's GE name (its name anchor's [`Anchor::ge_name`]).
    pub fn name(&self, g: &MemGraph, s: SymbolId) -> String {
        self.name_anchor(s).ge_name(g)
    }

    /// Number of live symbols.
    pub fn count(&self) -> usize {
        self.live
    }

    /// The live symbols in creation order (cheap; deterministic).
    pub fn iter(&self) -> impl Iterator<Item = SymbolId> + '_ {
        self.symbols
            .iter()
            .enumerate()
            .filter(|(_, d)| d.len > 0)
            .map(|(i, _)| SymbolId(i as u32))
    }

    /// The live symbols in GE's map order (by name, byte-wise): the order GE's layout pass
    /// and `IsGraphExistMemConflictSymbol` walk them. O(S log S) name compares.
    pub fn ge_order(&self, g: &MemGraph) -> Vec<SymbolId> {
        // Sorted by the first 16 bytes of the GE name as one integer (zero padded: a
        // shorter name sorts first, as byte-wise), the full names compared only on a tie:
        // most compares then touch neither the nodes nor the names (a million symbols'
        // names do not stay in cache).
        let mut v: Vec<(u128, &[u8], Anchor, SymbolId)> = self
            .iter()
            .map(|s| {
                let a = self.name_anchor(s);
                let name = g.node(a.node()).name.as_bytes();
                (ge_name_prefix(name, a), name, a, s)
            })
            .collect();
        // Ties (equal names) keep id order, as a stable sort of this id-ordered list would;
        // the unstable sort needs no scratch copy of the list (a million entries).
        v.sort_unstable_by(|x, y| {
            x.0.cmp(&y.0)
                .then_with(|| x.2.cmp_ge_name_with(x.1, y.2, y.1))
                .then(x.3.cmp(&y.3))
        });
        v.into_iter().map(|(_, _, _, s)| s).collect()
    }

    // ----- merging ------------------------------------------------------------------------

    /// What merging the symbols of `a` and `b` would give (GE `UnionSymbolMapping`: the
    /// bigger symbol survives, on a tie `b`'s), without changing the table. `None` if an
    /// anchor has no symbol.
    pub fn preview_merge(&self, a: Anchor, b: Anchor) -> Option<MergePreview<'_>> {
        let (sa, sb) = (self.symbol_of(a)?, self.symbol_of(b)?);
        Some(self.preview_symbols(sa, sb))
    }

    /// [`Symbols::preview_merge`] for two symbols.
    pub fn preview_symbols(&self, sa: SymbolId, sb: SymbolId) -> MergePreview<'_> {
        if sa == sb {
            return MergePreview {
                table: self,
                survivor: sa,
                absorbed: None,
            };
        }
        let (survivor, absorbed) = if self.len(sa) > self.len(sb) {
            (sa, sb)
        } else {
            (sb, sa)
        };
        MergePreview {
            table: self,
            survivor,
            absorbed: Some(absorbed),
        }
    }

    /// Merge the symbols of `a` and `b` (GE `UnionSymbolMapping`); returns the surviving
    /// symbol. `None` if an anchor has no symbol.
    pub fn merge(&mut self, a: Anchor, b: Anchor) -> Option<SymbolId> {
        let (sa, sb) = (self.symbol_of(a)?, self.symbol_of(b)?);
        Some(self.merge_symbols(sa, sb))
    }

    /// [`Symbols::merge`] for two symbols.
    pub fn merge_symbols(&mut self, sa: SymbolId, sb: SymbolId) -> SymbolId {
        let preview = self.preview_symbols(sa, sb);
        let (keep, gone) = match preview.absorbed {
            None => return preview.survivor,
            Some(gone) => (preview.survivor, gone),
        };
        let moved = self.symbols[gone.0 as usize];
        let mut cur = moved.head;
        while cur != NONE {
            self.symbol_of[cur as usize] = keep.0;
            cur = self.next[cur as usize];
        }
        let k = &mut self.symbols[keep.0 as usize];
        self.next[k.tail as usize] = moved.head;
        k.tail = moved.tail;
        k.len += moved.len;
        self.symbols[gone.0 as usize].len = 0;
        self.symbols[gone.0 as usize].head = NONE;
        self.live -= 1;
        keep
    }

    // ----- building -----------------------------------------------------------------------

    /// The local index of a node of the table.
    fn local_of(&self, n: NodeId) -> Option<usize> {
        match &self.local {
            None => Some(n.0 as usize),
            Some(map) => map.get(&n.0).map(|&i| i as usize),
        }
    }

    fn node_of(&self, local: usize) -> NodeId {
        match &self.local {
            None => NodeId(local as u32),
            Some(_) => NodeId(self.nodes[local]),
        }
    }

    /// Number of anchor ids of the table (anchors created after it have none).
    pub fn anchor_ids(&self) -> usize {
        self.owner.len()
    }

    /// The symbol of the anchor of id `id` (`None`: outside the walked graph).
    pub fn symbol_of_id(&self, id: u32) -> Option<SymbolId> {
        let s = self.symbol_of[id as usize];
        (s != NONE).then_some(SymbolId(s))
    }

    /// The anchor of id `id` (< [`Symbols::anchor_ids`]).
    pub fn anchor_at(&self, id: u32) -> Anchor {
        self.anchor(id)
    }

    fn id(&self, a: Anchor) -> Option<u32> {
        let n = self.local_of(a.node())?;
        let start = *self.base.get(n)?;
        let end = *self.base.get(n + 1)?;
        let inputs = self.inputs[n];
        let id = match a {
            Anchor::In(p) if p.index < inputs => start + p.index,
            Anchor::Out(p) => start + inputs + p.index,
            Anchor::In(_) => return None,
        };
        (id < end).then_some(id)
    }

    fn anchor(&self, id: u32) -> Anchor {
        let n = self.owner[id as usize] as usize;
        let off = id - self.base[n];
        let inputs = self.inputs[n];
        let node = self.node_of(n);
        if off < inputs {
            Anchor::input(node, off)
        } else {
            Anchor::output(node, off - inputs)
        }
    }

    fn new_symbol(&mut self, id: u32) -> u32 {
        let s = self.symbols.len() as u32;
        self.symbols.push(SymbolData {
            head: id,
            tail: id,
            len: 1,
            name: id,
        });
        self.symbol_of[id as usize] = s;
        self.live += 1;
        s
    }

    /// GE `UpdateRefMapping`: `new` joins `existing`'s symbol (appended to its list). An
    /// unmapped `existing` first gets a symbol of its own; an already mapped `new` is a union.
    fn join(&mut self, new: u32, existing: u32) {
        let mut s = self.symbol_of[existing as usize];
        if s == NONE {
            s = self.new_symbol(existing);
        }
        let cur = self.symbol_of[new as usize];
        if cur != NONE {
            self.merge_symbols(SymbolId(cur), SymbolId(s));
            return;
        }
        self.symbol_of[new as usize] = s;
        let d = &mut self.symbols[s as usize];
        self.next[d.tail as usize] = new;
        d.tail = new;
        d.len += 1;
    }

    fn ensure(&mut self, id: u32) -> u32 {
        match self.symbol_of[id as usize] {
            NONE => self.new_symbol(id),
            s => s,
        }
    }

    /// Anchor id of input `i` of a node of the walk (callers only ask about walked nodes
    /// and their producers, which are walked too).
    fn in_id(&self, n: NodeId, i: u32) -> u32 {
        let l = self.local_of(n).expect("a node of the walked graph");
        self.base[l] + i
    }

    fn out_id(&self, n: NodeId, o: u32) -> u32 {
        let l = self.local_of(n).expect("a node of the walked graph");
        self.base[l] + self.inputs[l] + o
    }

    fn map_inputs(&mut self, g: &MemGraph, n: NodeId) {
        let node = g.node(n);
        if node.graph != self.scope && g.graph(node.graph).parent.is_some() {
            if node.sem.net_output {
                return self.subgraph_output(g, n);
            }
            if node.parent_index.is_some() {
                return self.subgraph_input(g, n);
            }
        }
        if node.sem.merge {
            return self.merge_inputs(g, n);
        }
        for (i, input) in node.inputs.iter().enumerate() {
            let me = self.in_id(n, i as u32);
            match input.src {
                Some(src) => {
                    let peer = self.out_id(src.node, src.index);
                    self.join(me, peer);
                }
                None => {
                    self.ensure(me);
                }
            }
        }
    }

    /// GE `HandleSubgraphInput`: the Data's input joins whatever feeds the parent input.
    fn subgraph_input(&mut self, g: &MemGraph, n: NodeId) {
        let node = g.node(n);
        let parent = g.graph(node.graph).parent.expect("checked by the caller");
        let peer = node
            .parent_index
            .and_then(|p| g.node(parent).inputs.get(p as usize))
            .and_then(|x| x.src);
        for i in 0..node.inputs.len() as u32 {
            let me = self.in_id(n, i);
            match (i, peer) {
                (0, Some(src)) => {
                    let peer = self.out_id(src.node, src.index);
                    self.join(me, peer);
                }
                _ => {
                    self.ensure(me);
                }
            }
        }
    }

    /// GE `HandleSubgraphOutput`: input `j` (parent index `p`) unions its producer with the
    /// parent's output `p`, then joins that symbol.
    fn subgraph_output(&mut self, g: &MemGraph, n: NodeId) {
        let node = g.node(n);
        let parent = g.graph(node.graph).parent.expect("checked by the caller");
        // A While's cond graph returns the loop predicate, not one of the While's outputs
        // (GE sets no `_parent_node_index` on it).
        let pn = g.node(parent);
        let cond = pn.sem.while_family && pn.subgraphs.first() == Some(&node.graph);
        let parent_outputs = if cond { 0 } else { pn.outputs.len() as u32 };
        for (j, input) in node.inputs.iter().enumerate() {
            let me = self.in_id(n, j as u32);
            let Some(src) = input.src else {
                self.ensure(me);
                continue;
            };
            let peer = self.out_id(src.node, src.index);
            match input.parent_index.filter(|&p| p < parent_outputs) {
                Some(p) => {
                    let parent_out = self.out_id(parent, p);
                    let a = SymbolId(self.ensure(peer));
                    let b = SymbolId(self.ensure(parent_out));
                    let s = self.merge_symbols(a, b);
                    self.join(me, self.symbols[s.0 as usize].head);
                }
                // GE leaves such an input unmapped; here it simply shares its producer.
                None => self.join(me, peer),
            }
        }
    }

    /// GE `HandleMergeInput`: the producers of all inputs are unioned into the symbol with
    /// the most anchors (the first such), then every input joins it.
    fn merge_inputs(&mut self, g: &MemGraph, n: NodeId) {
        let node = g.node(n);
        let mut peers = Vec::new();
        let mut connected = Vec::new();
        for (i, input) in node.inputs.iter().enumerate() {
            let me = self.in_id(n, i as u32);
            match input.src {
                Some(src) => {
                    let peer = self.out_id(src.node, src.index);
                    self.ensure(peer);
                    peers.push(peer);
                    connected.push(me);
                }
                None => {
                    self.ensure(me);
                }
            }
        }
        let Some(&first) = peers.first() else { return };
        let mut max = first;
        let mut max_len = 0;
        for &p in &peers {
            let len = self.symbols[self.symbol_of[p as usize] as usize].len;
            if len > max_len {
                max = p;
                max_len = len;
            }
        }
        let mut s = SymbolId(self.symbol_of[max as usize]);
        for &p in &peers {
            let a = SymbolId(self.symbol_of[max as usize]);
            let b = SymbolId(self.symbol_of[p as usize]);
            s = self.merge_symbols(a, b);
        }
        let head = self.symbols[s.0 as usize].head;
        for me in connected {
            self.join(me, head);
        }
    }

    fn map_outputs(&mut self, g: &MemGraph, n: NodeId) {
        let node = g.node(n);
        for o in 0..node.outputs.len() as u32 {
            let me = self.out_id(n, o);
            if self.symbol_of[me as usize] != NONE {
                continue;
            }
            match ref_input(g, n, o).filter(|&i| (i as usize) < node.inputs.len()) {
                Some(i) => {
                    let input = self.in_id(n, i);
                    self.join(me, input);
                }
                None => {
                    self.new_symbol(me);
                }
            }
        }
    }
}

/// GE `GraphUtils::IsRefFromInput`: the input whose memory output `o` of `n` shares, if any.
pub fn ref_input(g: &MemGraph, n: NodeId, o: u32) -> Option<u32> {
    let node = g.node(n);
    let s = node.sem;
    let subgraph_input = node.parent_index.is_some() && g.graph(node.graph).parent.is_some();
    if s.net_output || s.while_family || subgraph_input {
        return Some(o);
    }
    if s.merge && !s.stream_merge && o == 0 {
        return Some(0);
    }
    if let Some(i) = ref_input_of_output(g, n, o) {
        return Some(i);
    }
    if let Some(i) = node.outputs.get(o as usize).and_then(|x| x.reuse_input) {
        return Some(i);
    }
    let nopad = s.nopad_continuous_input || s.nopad_continuous_output;
    (nopad && s.output_reuse_input).then_some(0)
}
