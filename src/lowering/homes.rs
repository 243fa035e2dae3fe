//! Where each physical stream lives in the tree of graph instances, and which compiled
//! events cross instances: the analysis the control-flow lowering needs when the physical
//! split shares a stream between graphs.
//!
//! A *graph instance* is one place a graph runs: the root, or subgraph `i` of one
//! functional node of an instance (a function referenced twice gives two instances). A
//! stream's *home* is the deepest instance whose subtree holds every task of the stream.
//! That decides how a functional node `N` (on stream `S`, in instance `P`) treats another
//! stream `s` that runs tasks of its subgraphs (see `control_flow.rs`):
//!
//! * home(s) = subgraph `i` of `N`: `s` runs nothing else, so `N` activates it at the start
//!   of subgraph `i` and joins it at its end (GE's first-active StreamActive);
//! * home(s) deeper inside a subgraph: a node further down handles it;
//! * home(s) = `P` or above: `s` is already running (a HEAD stream, or activated for an
//!   enclosing graph) and also runs tasks outside `N`; it *mirrors* `N`'s labels with its
//!   own, driven by `N`'s index through events.
//!
//! A compiled Send/Recv pair whose ends sit in different instances cannot stay: a record in
//! a loop body and a wait outside it would be recorded once per trip and waited once. With
//! `L` the lowest common instance and `N_u` / `N_v` the nodes of `L` whose subtrees hold
//! the two ends, the record moves to the end of `N_u` (on its stream), the wait to the start
//! of `N_v`, with a fresh event. The lowering orders everything in a node's subtree after
//! its start and before its end, so the moved pair orders at least what the original did.
//! When `N_u` = `N_v` (two subgraphs of one node: exclusive branches, or a loop's cond and
//! body) the pair is dropped: the node's segments are ordered by its own joins and starts,
//! and every stream it mirrors reports its arrival before the node starts.

use super::lower::Role;
use crate::{dialect::semantics, ir::ops};
use melior::ir::{operation::OperationLike, BlockLike, OperationRef, RegionLike};
use std::collections::{BTreeSet, HashMap};

/// Deepest nesting the lowering follows (recursion is rejected when the module is read;
/// this only keeps a malformed module from exhausting the stack).
const MAX_DEPTH: u32 = 256;

/// The raw handle of an op, as a map key.
pub(crate) fn op_key(op: OperationRef) -> usize {
    op.to_raw().ptr as usize
}

/// One graph instance.
struct Instance {
    /// The instance the parent node is in, and the parent node.
    parent: Option<(u32, usize)>,
    depth: u32,
    /// Streams of the instance's own tasks (a functional node's labels included).
    direct: BTreeSet<u32>,
}

/// One end of a compiled sync: the instance and op.
#[derive(Clone, Copy)]
struct End {
    instance: u32,
    op: usize,
}

/// What the lowering does with a compiled Send or Recv.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SyncFate {
    /// Lowered where it is with its own id.
    Keep,
    /// Lowered where it is with a fresh event id.
    Renamed(u32),
    /// Dropped here (moved to a node boundary, or dropped altogether).
    Dropped,
    /// A notify pair across instances: not lowered (a located error).
    Crossing,
}

/// The analysis (see the module doc).
#[derive(Default)]
pub(crate) struct Homes {
    instances: Vec<Instance>,
    /// (parent instance, functional node, subgraph index) → instance.
    children: HashMap<(u32, usize, usize), u32>,
    /// Streams used anywhere in each instance's subtree.
    subtree: Vec<BTreeSet<u32>>,
    home: HashMap<u32, u32>,
    fates: HashMap<(u32, usize), SyncFate>,
    /// (instance, functional node) → fresh events its stream waits for before the node.
    pub wait_before: HashMap<(u32, usize), Vec<u32>>,
    /// (instance, functional node) → fresh events its stream records after the node.
    pub record_after: HashMap<(u32, usize), Vec<u32>>,
}

/// The walk's record of compiled syncs, by kind and id, in GE order.
#[derive(Default)]
struct Syncs {
    sends: HashMap<u32, Vec<End>>,
    recvs: HashMap<u32, Vec<End>>,
    notify_sends: HashMap<u32, Vec<End>>,
    notify_recvs: HashMap<u32, Vec<End>>,
}

impl Homes {
    /// Analyses the graph `root` and everything below it; `stream_of` and `funcs` are the
    /// lowering's; `new_event` hands out fresh event ids.
    pub fn build<'c, 'a>(
        root: OperationRef<'c, 'a>,
        funcs: &HashMap<String, OperationRef<'c, 'a>>,
        stream_of: impl Fn(OperationRef) -> u32,
        mut new_event: impl FnMut() -> u32,
    ) -> Homes {
        let mut h = Homes::default();
        let mut syncs = Syncs::default();
        h.instances.push(Instance {
            parent: None,
            depth: 0,
            direct: BTreeSet::new(),
        });
        h.walk(0, root, funcs, &stream_of, &mut syncs);
        h.subtrees();
        h.homes();
        h.route(&syncs, &mut new_event);
        h
    }

    fn walk<'c, 'a>(
        &mut self,
        inst: u32,
        func: OperationRef<'c, 'a>,
        funcs: &HashMap<String, OperationRef<'c, 'a>>,
        stream_of: &impl Fn(OperationRef) -> u32,
        syncs: &mut Syncs,
    ) {
        let Some(block) = func.region(0).ok().and_then(|r| r.first_block()) else {
            return;
        };
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            let Some(ge_type) = ops::ge_type(op) else {
                continue;
            };
            let role = Role::of(ge_type);
            let end = End {
                instance: inst,
                op: op_key(op),
            };
            let id = |attr: &str| ops::int_attr(op, attr).and_then(|v| u32::try_from(v).ok());
            let notify = || id("notify_id").or_else(|| id("event_id"));
            match role {
                Role::Data | Role::Const | Role::Variable => continue,
                Role::Send => {
                    if let Some(e) = id("event_id") {
                        syncs.sends.entry(e).or_default().push(end);
                    }
                }
                Role::Recv => {
                    if let Some(e) = id("event_id") {
                        syncs.recvs.entry(e).or_default().push(end);
                    }
                }
                Role::SendNotify => {
                    if let Some(e) = notify() {
                        syncs.notify_sends.entry(e).or_default().push(end);
                    }
                }
                Role::RecvNotify => {
                    if let Some(e) = notify() {
                        syncs.notify_recvs.entry(e).or_default().push(end);
                    }
                }
                _ => {}
            }
            self.instances[inst as usize].direct.insert(stream_of(op));
            if role != Role::Functional || self.instances[inst as usize].depth >= MAX_DEPTH {
                continue;
            }
            for (i, symbol) in semantics::subgraph_symbols(&op).into_iter().enumerate() {
                let Some(&f) = funcs.get(&symbol) else {
                    continue;
                };
                let child = self.instances.len() as u32;
                self.instances.push(Instance {
                    parent: Some((inst, op_key(op))),
                    depth: self.instances[inst as usize].depth + 1,
                    direct: BTreeSet::new(),
                });
                self.children.insert((inst, op_key(op), i), child);
                self.walk(child, f, funcs, stream_of, syncs);
            }
        }
    }

    /// Children are numbered after their parents: one backward pass unions subtrees.
    fn subtrees(&mut self) {
        self.subtree = self.instances.iter().map(|i| i.direct.clone()).collect();
        for i in (1..self.instances.len()).rev() {
            if let Some((p, _)) = self.instances[i].parent {
                let streams = std::mem::take(&mut self.subtree[i]);
                self.subtree[p as usize].extend(streams.iter().copied());
                self.subtree[i] = streams;
            }
        }
    }

    fn lca(&self, mut a: u32, mut b: u32) -> u32 {
        let depth = |i: u32| self.instances[i as usize].depth;
        let up = |i: u32| self.instances[i as usize].parent.map_or(0, |p| p.0);
        while depth(a) > depth(b) {
            a = up(a);
        }
        while depth(b) > depth(a) {
            b = up(b);
        }
        while a != b {
            a = up(a);
            b = up(b);
        }
        a
    }

    fn homes(&mut self) {
        for i in 0..self.instances.len() as u32 {
            for &s in &self.instances[i as usize].direct {
                let home = match self.home.get(&s) {
                    Some(&h) => self.lca(h, i),
                    None => i,
                };
                self.home.insert(s, home);
            }
        }
    }

    /// The node of `lca` whose subtree holds instance `i` (`None` when `i` is `lca`).
    fn node_below(&self, lca: u32, mut i: u32) -> Option<usize> {
        while let Some((p, node)) = self.instances[i as usize].parent {
            if p == lca {
                return Some(node);
            }
            i = p;
        }
        None
    }

    fn route(&mut self, syncs: &Syncs, new_event: &mut impl FnMut() -> u32) {
        let mut ids: Vec<&u32> = syncs.sends.keys().collect();
        ids.sort();
        for id in ids {
            let (sends, Some(recvs)) = (&syncs.sends[id], syncs.recvs.get(id)) else {
                continue;
            };
            if sends.len() != recvs.len() {
                continue;
            }
            for (u, v) in sends.iter().zip(recvs) {
                if u.instance == v.instance {
                    continue;
                }
                let l = self.lca(u.instance, v.instance);
                let (nu, nv) = (
                    self.node_below(l, u.instance),
                    self.node_below(l, v.instance),
                );
                if nu.is_some() && nu == nv {
                    self.fates.insert((u.instance, u.op), SyncFate::Dropped);
                    self.fates.insert((v.instance, v.op), SyncFate::Dropped);
                    continue;
                }
                let event = new_event();
                match nu {
                    Some(n) => {
                        self.fates.insert((u.instance, u.op), SyncFate::Dropped);
                        self.record_after.entry((l, n)).or_default().push(event);
                    }
                    None => {
                        self.fates
                            .insert((u.instance, u.op), SyncFate::Renamed(event));
                    }
                }
                match nv {
                    Some(n) => {
                        self.fates.insert((v.instance, v.op), SyncFate::Dropped);
                        self.wait_before.entry((l, n)).or_default().push(event);
                    }
                    None => {
                        self.fates
                            .insert((v.instance, v.op), SyncFate::Renamed(event));
                    }
                }
            }
        }
        for (id, sends) in &syncs.notify_sends {
            let Some(recvs) = syncs.notify_recvs.get(id) else {
                continue;
            };
            for (u, v) in sends.iter().zip(recvs) {
                if u.instance != v.instance {
                    self.fates.insert((u.instance, u.op), SyncFate::Crossing);
                    self.fates.insert((v.instance, v.op), SyncFate::Crossing);
                }
            }
        }
    }

    /// The instance of subgraph `index` of `node` in instance `inst`.
    pub fn child(&self, inst: u32, node: OperationRef, index: usize) -> Option<u32> {
        self.children.get(&(inst, op_key(node), index)).copied()
    }

    /// What becomes of the compiled Send/Recv `op` of instance `inst`.
    pub fn fate(&self, inst: u32, op: OperationRef) -> SyncFate {
        self.fates
            .get(&(inst, op_key(op)))
            .copied()
            .unwrap_or(SyncFate::Keep)
    }

    /// Streams `node` (in `inst`, on stream `own`) activates at the start of subgraph
    /// instance `child`: those whose home is `child`, but `own`.
    pub fn activated_at(&self, child: u32, own: u32) -> Vec<u32> {
        self.subtree[child as usize]
            .iter()
            .copied()
            .filter(|&s| s != own && self.home.get(&s) == Some(&child))
            .collect()
    }

    /// Streams that mirror the labels of `node` (in `inst`, on stream `own`, with subgraph
    /// instances `children`): used below it, homed at `inst` or above.
    pub fn mirrored(&self, inst: u32, own: u32, children: &[u32]) -> Vec<u32> {
        let depth = self.instances[inst as usize].depth;
        let mut out = BTreeSet::new();
        for &c in children {
            for &s in &self.subtree[c as usize] {
                let home = self.home.get(&s).copied().unwrap_or(0);
                if s != own && self.instances[home as usize].depth <= depth {
                    out.insert(s);
                }
            }
        }
        out.into_iter().collect()
    }
}
