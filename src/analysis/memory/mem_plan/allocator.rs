//! Offsets for lifetimes: a best-fit linear scan over the timeline, with lookahead.
//!
//! Every block to place has a size (a multiple of 512) and a lifetime `[begin, end]` on the
//! timeline. The scan walks the positions once: at position `t` it places the blocks that
//! start at `t` (largest first), then releases the blocks whose last use is `t`, so a block
//! starting at `t + 1` may take their memory (GE reuses a block only when the new life
//! begins after the old one ends). Free memory is a set of regions kept twice, by offset
//! (to coalesce neighbours) and by (size, offset) (to find the smallest region that fits:
//! best fit, lowest offset on ties). A block that fits nowhere goes to the free region at
//! the top of the workspace if there is one (growing it), else above everything. The
//! workspace size is the high-water mark. O(B log B) for B blocks.
//!
//! Lookahead (the plan is offline, so the future is known): a block smaller than a region
//! does not split it when, during the block's lifetime, a bigger block starts that the
//! region would hold but the remainder would not (`Demand`): a long-lived scalar in the
//! slot a large activation needs next is what makes plain best fit grow the workspace on
//! control-flow graphs (1.24x the lower bound there, 1.00x with the lookahead). Such a
//! block tries the next fitting region, and if none qualifies, takes fresh memory at the
//! top.
//!
//! Size classes that nest: GE's sizes carry slack (a tensor of 2^k bytes takes 2^k + 512
//! after the 32-byte slack and the 512 alignment), so two halves never fit exactly where a
//! whole was (2 * (2^(k-1) + 512) = 2^k + 1024) and a long-lived half cut into a whole's slot
//! leaves 512 bytes too little for the next half: 1.25x the lower bound on ResNet. The scan
//! therefore places every block at a *normalised* size ([`nested_sizes`]): a size just
//! below a multiple of a smaller size class (within 1/256) is rounded up to that multiple,
//! so slots nest exactly. The bounds stay computed on the true sizes.
//!
//! Why this and not greedy-by-size: placing the largest tensors first needs, for every
//! tensor, the address ranges of all placed tensors whose lifetimes overlap it, which is
//! quadratic on training graphs where thousands of activations stay live from the forward
//! to the backward pass. Training graphs free activations in the reverse order they were
//! made, which best fit packs without holes; `tools/bench-mem-plan.sh` reports the peak
//! against the max-live lower bound per family.
//!
//! Streams: a region remembers the last users of the memory it came from (the latest use
//! per graph and stream, see [`super::timeline::Order::lane`]). A block may take a region
//! only when every such use is ordered before each of the block's writers
//! ([`super::timeline::Order::before`]). Regions coalesce only while the merged record
//! stays within [`MAX_RECORD`] entries, so checks stay cheap.

use super::super::model::{GraphId, NodeId};
use super::timeline::Order;
use std::collections::{BTreeMap, BTreeSet};

/// How many fitting regions a block tries (lookahead and stream checks) before taking
/// fresh memory.
pub const CANDIDATES: usize = 16;

/// Most size classes one lookahead query inspects; with more, the split is allowed.
pub const DEMAND_CLASSES: usize = 32;

/// Most last-use entries one free region carries.
pub const MAX_RECORD: usize = 8;

/// A lane: uses in one graph on one stream are ordered by stream order.
pub type Lane = (GraphId, Option<i64>);

/// Keeps, of `uses` (lane, node, timeline end), the latest per lane: the first listed of
/// those with the largest end. Collected first and reduced once, sorted: a scan of the
/// lanes per use was quadratic in the lanes, and a symbol handed down a chain of nested
/// calls has one per graph (20,000 nested PartitionedCalls took seconds here).
pub fn latest_per_lane(uses: &mut Vec<(Lane, NodeId, u32)>) {
    uses.sort_by(|a, b| a.0.cmp(&b.0).then(b.2.cmp(&a.2)));
    uses.dedup_by_key(|x| x.0);
}

/// One block to place.
#[derive(Clone, Debug)]
pub struct Block {
    pub size: i64,
    pub begin: u32,
    pub end: u32,
    /// With streams: the latest use of the block per lane (node, its timeline end).
    pub last_uses: Vec<(Lane, NodeId, u32)>,
    /// With streams: the nodes that write the block.
    pub writers: Vec<NodeId>,
}

/// Offsets of the blocks, and how the scan went.
#[derive(Clone, Debug, Default)]
pub struct Placement {
    pub offsets: Vec<i64>,
    /// The high-water mark: bytes the workspace needs.
    pub peak: i64,
    /// Max over time of the sum of live block sizes (no placement can need less).
    pub max_live: i64,
    /// Sum of all block sizes (no reuse at all).
    pub total: i64,
    /// Fitting regions rejected because a use on another stream was not ordered before.
    pub cross_stream_rejections: u64,
}

#[derive(Clone, Debug)]
struct Region {
    size: i64,
    record: Vec<(Lane, NodeId, u32)>,
}

/// When blocks of each size start: answers "does a block of a size in `(lo, hi]` start in
/// `(from, to]`" with one binary search per size class.
struct Demand {
    starts: BTreeMap<i64, Vec<u32>>,
}

impl Demand {
    fn new(blocks: &[Block]) -> Demand {
        let mut starts: BTreeMap<i64, Vec<u32>> = BTreeMap::new();
        for b in blocks {
            starts.entry(b.size).or_default().push(b.begin);
        }
        for v in starts.values_mut() {
            v.sort_unstable();
        }
        Demand { starts }
    }

    fn any(&self, lo: i64, hi: i64, from: u32, to: u32) -> bool {
        use std::ops::Bound::{Excluded, Included};
        if lo >= hi || from >= to {
            return false;
        }
        self.starts
            .range((Excluded(lo), Included(hi)))
            .rev()
            .take(DEMAND_CLASSES)
            .any(|(_, v)| {
                let k = v.partition_point(|&t| t <= from);
                k < v.len() && v[k] <= to
            })
    }
}

struct Free<'o, 'g> {
    demand: Demand,
    by_offset: BTreeMap<i64, Region>,
    by_size: BTreeSet<(i64, i64)>,
    top: i64,
    order: Option<&'o Order<'g>>,
    rejections: u64,
}

impl Free<'_, '_> {
    fn usable(&mut self, record: &[(Lane, NodeId, u32)], block: &Block) -> bool {
        let Some(order) = self.order else {
            return true;
        };
        let ok = record
            .iter()
            .all(|&(_, u, _)| block.writers.iter().all(|&d| order.before(u, d)));
        if !ok {
            self.rejections += 1;
        }
        ok
    }

    fn take(&mut self, off: i64) -> Region {
        let r = self.by_offset.remove(&off).expect("listed region");
        self.by_size.remove(&(r.size, off));
        r
    }

    fn put(&mut self, off: i64, r: Region) {
        self.by_size.insert((r.size, off));
        self.by_offset.insert(off, r);
    }

    fn alloc(&mut self, block: &Block) -> i64 {
        let s = block.size;
        let candidates: Vec<(i64, i64)> = self
            .by_size
            .range((s, i64::MIN)..)
            .take(CANDIDATES)
            .copied()
            .collect();
        for (size, off) in candidates {
            // Splitting would leave too little for a bigger block starting while this one
            // lives: keep the region whole.
            if size > s
                && self
                    .demand
                    .any((size - s).max(s), size, block.begin, block.end)
            {
                continue;
            }
            let record = self.by_offset[&off].record.clone();
            if self.usable(&record, block) {
                let r = self.take(off);
                if size > s {
                    self.put(
                        off + s,
                        Region {
                            size: size - s,
                            record: r.record,
                        },
                    );
                }
                return off;
            }
        }
        // The free region touching the top can grow.
        if let Some((&off, r)) = self.by_offset.last_key_value() {
            if off + r.size == self.top && r.size < s {
                let record = r.record.clone();
                if self.usable(&record, block) {
                    self.take(off);
                    self.top = off + s;
                    return off;
                }
            }
        }
        let off = self.top;
        self.top += s;
        off
    }

    fn release(&mut self, off: i64, block: &Block) {
        let mut region = Region {
            size: block.size,
            record: if self.order.is_some() {
                block.last_uses.clone()
            } else {
                Vec::new()
            },
        };
        let mut start = off;
        if let Some((&l, left)) = self.by_offset.range(..off).next_back() {
            if l + left.size == off {
                if let Some(rec) = merge_records(&left.record, &region.record) {
                    let left = self.take(l);
                    region = Region {
                        size: left.size + region.size,
                        record: rec,
                    };
                    start = l;
                }
            }
        }
        let end = start + region.size;
        if let Some(right) = self.by_offset.get(&end) {
            if let Some(rec) = merge_records(&region.record, &right.record) {
                let right = self.take(end);
                region = Region {
                    size: region.size + right.size,
                    record: rec,
                };
            }
        }
        self.put(start, region);
    }
}

/// The union of two records (latest use per lane), or `None` when it would exceed
/// [`MAX_RECORD`] entries.
fn merge_records(
    a: &[(Lane, NodeId, u32)],
    b: &[(Lane, NodeId, u32)],
) -> Option<Vec<(Lane, NodeId, u32)>> {
    let mut out = a.to_vec();
    for &(lane, n, t) in b {
        match out.iter_mut().find(|x| x.0 == lane) {
            Some(x) if x.2 < t => *x = (lane, n, t),
            Some(_) => {}
            None => out.push((lane, n, t)),
        }
    }
    (out.len() <= MAX_RECORD).then_some(out)
}

/// Most extra bytes, relative to a size, a size class may be rounded up by to nest.
pub const NEST_TOLERANCE: i64 = 256;

/// Most copies of a smaller class a size may be rounded up to (and most smaller classes
/// tried per size).
pub const NEST_FACTOR: i64 = 16;
const NEST_CANDIDATES: usize = 64;

/// The size each distinct block size is placed at (see the module doc): ascending, each
/// size becomes the smallest `k * t` (t an already normalised smaller class, k <= 16) that
/// is at least the size and at most 1/256 above it, else stays.
pub fn nested_sizes(sizes: impl Iterator<Item = i64>) -> BTreeMap<i64, i64> {
    let distinct: BTreeSet<i64> = sizes.collect();
    let mut map: BTreeMap<i64, i64> = BTreeMap::new();
    for &s in &distinct {
        let mut best = s;
        let lo = (s + NEST_FACTOR - 1) / NEST_FACTOR;
        for (_, &t) in map.range(lo..s).rev().take(NEST_CANDIDATES) {
            if t <= 0 {
                continue;
            }
            let k = (s + t - 1) / t;
            let rounded = k * t;
            if k <= NEST_FACTOR
                && (rounded - s) * NEST_TOLERANCE <= s
                && (best == s || rounded < best)
            {
                best = rounded;
            }
        }
        map.insert(s, best);
    }
    map
}

/// Places `blocks` on a timeline of `len` positions (see the module doc). With `order`
/// (several streams), reuse across lanes needs the order's blessing.
pub fn place(blocks: &[Block], len: u32, order: Option<&Order>) -> Placement {
    let len = len as usize;
    let nested = nested_sizes(blocks.iter().map(|b| b.size));
    let sized: Vec<Block> = blocks
        .iter()
        .map(|b| Block {
            size: nested[&b.size],
            ..b.clone()
        })
        .collect();
    let mut out = place_sized(&sized, len, order);
    out.total = blocks.iter().map(|b| b.size).sum();
    out.max_live = max_live(blocks, len);
    out
}

/// Max over time of the sum of live block sizes.
fn max_live(blocks: &[Block], len: usize) -> i64 {
    let mut delta = vec![0i64; len + 1];
    for b in blocks {
        delta[b.begin as usize] += b.size;
        delta[b.end as usize + 1] -= b.size;
    }
    let mut live = 0;
    delta
        .into_iter()
        .map(|d| {
            live += d;
            live
        })
        .max()
        .unwrap_or(0)
}

fn place_sized(blocks: &[Block], len: usize, order: Option<&Order>) -> Placement {
    // Counting sort by begin (largest first within a position) and by end.
    let starts = buckets(len, blocks.iter().map(|b| b.begin as usize));
    let ends = buckets(len, blocks.iter().map(|b| b.end as usize));
    let mut free = Free {
        demand: Demand::new(blocks),
        by_offset: BTreeMap::new(),
        by_size: BTreeSet::new(),
        top: 0,
        order: order.filter(|o| o.multi_stream()),
        rejections: 0,
    };
    let mut out = Placement {
        offsets: vec![-1; blocks.len()],
        ..Placement::default()
    };
    let mut starting: Vec<usize> = Vec::new();
    for t in 0..len {
        starting.clear();
        starting.extend(starts.at(t));
        starting.sort_by_key(|&b| std::cmp::Reverse(blocks[b].size));
        for &b in &starting {
            out.offsets[b] = free.alloc(&blocks[b]);
        }
        for b in ends.at(t) {
            free.release(out.offsets[b], &blocks[b]);
        }
    }
    out.peak = free.top;
    out.cross_stream_rejections = free.rejections;
    out
}

/// Indices grouped by a key in `0..len` (CSR).
struct Buckets {
    offsets: Vec<u32>,
    items: Vec<u32>,
}

impl Buckets {
    fn at(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        self.items[self.offsets[k] as usize..self.offsets[k + 1] as usize]
            .iter()
            .map(|&i| i as usize)
    }
}

fn buckets(len: usize, keys: impl Iterator<Item = usize> + Clone) -> Buckets {
    let mut offsets = vec![0u32; len + 1];
    for k in keys.clone() {
        offsets[k + 1] += 1;
    }
    for i in 0..len {
        offsets[i + 1] += offsets[i];
    }
    let mut fill = offsets.clone();
    let mut items = vec![0u32; offsets[len] as usize];
    for (i, k) in keys.enumerate() {
        items[fill[k] as usize] = i as u32;
        fill[k] += 1;
    }
    Buckets { offsets, items }
}
