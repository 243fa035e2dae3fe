//! GE's placement copies (`runtime/v2/lowering/placement/placed_lowering_result.cc`,
//! `kOutputDataCopyer`): when a consumer needs a tensor where it is not, a copy by the
//! (source, destination) table, one per (output, destination placement) however many
//! consumers share it:
//!
//! | from → to | nodes |
//! |---|---|
//! | host → hbm, host → p2p | `CopyH2D` + `FreeMemory` guarder |
//! | hbm → host, p2p → host | `SyncStream` (one per producing node) + `CopyD2H` + `FreeMemory` |
//! | hbm → p2p, p2p → hbm | `MakeSureTensorAtDevice` + `FreeMemory` |
//! | same → same | none |
//!
//! Where a tensor is: its producer's `placement` (model inputs, weights and unplaced
//! kernels: hbm); pass-throughs (`PointFromInputs`, `IdentityAddr`) keep their input's;
//! an `inner_data` is where the lowering says the parent's input is (its `placement`); a
//! `cond`'s outputs are wherever the branch taken put them (unknown: no copy). Where it is
//! needed: a kernel reads its inputs at its own placement, except
//! shape computations (`Shape`, `Rank`, `Size`), which read no data, and the copies
//! themselves (and `SyncStream`), which read theirs where it is; a `cond` reads its
//! predicate on the host (input 0); the root `netoutput` takes its inputs at its
//! `placement` (hbm unless it says otherwise); guarders and pass-throughs need nothing.

use crate::{
    dialect::table::{op_table, Trait},
    rtgraph::model::{Endpoint, Graph, Kind, NodeId, Placement},
};
use std::collections::BTreeMap;

/// The copy of one table row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CopyKind {
    /// host → hbm / p2p.
    HostToDevice,
    /// hbm / p2p → host.
    DeviceToHost,
    /// hbm ↔ p2p.
    DeviceToDevice,
}

impl CopyKind {
    /// The table: `None` for host → host (and any same → same).
    pub fn of(from: Placement, to: Placement) -> Option<CopyKind> {
        use Placement::*;
        match (from, to) {
            (a, b) if a == b => None,
            (Host, _) => Some(CopyKind::HostToDevice),
            (_, Host) => Some(CopyKind::DeviceToHost),
            _ => Some(CopyKind::DeviceToDevice),
        }
    }

    /// The copy a kernel of GE type `op_type` makes, if it is one of the three.
    pub fn of_kernel(op_type: &str) -> Option<CopyKind> {
        [
            CopyKind::HostToDevice,
            CopyKind::DeviceToHost,
            CopyKind::DeviceToDevice,
        ]
        .into_iter()
        .find(|k| k.kernel() == op_type)
    }

    /// The GE kernel that copies.
    pub fn kernel(self) -> &'static str {
        match self {
            CopyKind::HostToDevice => "CopyH2D",
            CopyKind::DeviceToHost => "CopyD2H",
            CopyKind::DeviceToDevice => "MakeSureTensorAtDevice",
        }
    }

    /// Whether a `SyncStream` on the producer's stream goes first (the device must have
    /// finished writing before the host reads).
    pub fn needs_sync_stream(self) -> bool {
        self == CopyKind::DeviceToHost
    }
}

/// One copy to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedCopy {
    pub src: Endpoint,
    pub from: Placement,
    pub to: Placement,
    pub kind: CopyKind,
    /// (consumer, input index) reading the copy instead of `src`.
    pub consumers: Vec<(NodeId, usize)>,
}

/// Where `e` is, following pass-throughs; `None` when unknown.
pub fn placement_of(graph: &Graph, e: Endpoint) -> Option<Placement> {
    let node = graph.node(e.node)?;
    match &node.kind {
        Kind::PointFromInputs | Kind::IdentityAddr => {
            placement_of(graph, *node.inputs.get(e.output as usize)?)
        }
        Kind::Cond { .. } | Kind::InnerData { .. } => node.placement,
        Kind::Data { .. } | Kind::Const | Kind::Kernel { .. } => {
            Some(node.placement.unwrap_or(Placement::Hbm))
        }
        _ => None,
    }
}

/// The kernel that waits for a stream before a device-to-host copy.
pub const SYNC_STREAM: &str = "SyncStream";

/// The copies and the stream sync read their input where it is.
fn is_copy(op_type: &str) -> bool {
    op_type == SYNC_STREAM || CopyKind::of_kernel(op_type).is_some()
}

fn is_shape_only(op_type: &str) -> bool {
    op_table()
        .by_ge_type(op_type)
        .is_some_and(|d| d.has_trait(Trait::ShapeOnly))
}

/// Where the consumer `node` needs its input `k`; `None`: anywhere.
pub fn needed_at(node: &crate::rtgraph::model::Node, k: usize) -> Option<Placement> {
    match &node.kind {
        Kind::Kernel { op_type } if is_shape_only(op_type) || is_copy(op_type) => None,
        Kind::Kernel { .. } => Some(node.placement.unwrap_or(Placement::Hbm)),
        Kind::Cond { .. } if k == 0 => Some(Placement::Host),
        Kind::NetOutput => Some(node.placement.unwrap_or(Placement::Hbm)),
        _ => None,
    }
}

/// Every copy `graph` needs, in the order of the sources' first need.
pub fn plan_copies(graph: &Graph) -> Vec<PlannedCopy> {
    let mut plan: BTreeMap<(Endpoint, Placement), usize> = BTreeMap::new();
    let mut copies: Vec<PlannedCopy> = Vec::new();
    for node in &graph.nodes {
        for (k, &src) in node.inputs.iter().enumerate() {
            let (Some(to), Some(from)) = (needed_at(node, k), placement_of(graph, src)) else {
                continue;
            };
            let Some(kind) = CopyKind::of(from, to) else {
                continue;
            };
            let at = *plan.entry((src, to)).or_insert_with(|| {
                copies.push(PlannedCopy {
                    src,
                    from,
                    to,
                    kind,
                    consumers: Vec::new(),
                });
                copies.len() - 1
            });
            copies[at].consumers.push((node.id, k));
        }
    }
    copies
}
