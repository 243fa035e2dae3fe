//! GE's `ScalableAllocator` (`kernel/memory/allocator/scalable_allocator.cc`,
//! `config/default_config.h`): page-granular spans carved out of *roots* (blocks from the
//! level below: device memory for L1, L1 blocks for an L2 pool).
//!
//! * Pages are 64 KiB; a request is rounded up to whole pages; a free span sits in the
//!   layer of its page count.
//! * Allocation: the exact layer first, then the smallest larger layer holding a span
//!   (split: the front part stays free in its new layer, the tail is handed out), then a
//!   new root from below.
//! * Free merges the span with its free address neighbours (buddies) of the same root.
//! * Caps: the total held from below is bounded by 95 % of HBM (when a new root would
//!   cross it and idle memory exists, the caller must recycle first); spans of 16 GiB
//!   or more are never split; spans of 16 GiB (32 GiB on devices above 32 GB) or more
//!   are not cached: they go back below when freed.
//! * `Recycle` gives every idle whole root back below.
//!
//! The allocator does not call the level below itself: [`ScalableAllocator::fetch`] says
//! when a root is needed and the caller adds it ([`ScalableAllocator::add_root`]), so L1,
//! the L2 pools and their retry loops stay separate objects without shared ownership.

use super::MemError;
use std::collections::{BTreeMap, BTreeSet};

pub const KIB: u64 = 1 << 10;
pub const GIB: u64 = 1 << 30;
/// `PAGE_SIZE_IDEM_DEFAULT` = 16: 2^16 bytes.
pub const PAGE_SIZE: u64 = 64 * KIB;

/// GE's `ScalableConfig` with the defaults of `default_config.h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScalableConfig {
    pub page_size: u64,
    /// `page_mem_size_total_threshold`.
    pub total_threshold: u64,
    /// `unsplitable_size_threshold`.
    pub unsplitable_threshold: u64,
    /// `uncacheable_size_threshold`.
    pub uncacheable_threshold: u64,
}

impl ScalableConfig {
    /// The configuration for a device of `hbm_bytes` (GE asks `aclrtGetMemInfo`; `None`
    /// when unknown): 30 GiB total and 16 GiB uncacheable by default, 60 / 32 GiB above
    /// 32 GB, and then the total is 95 % of the device's memory.
    pub fn for_device(hbm_bytes: Option<u64>) -> Self {
        let mut config = ScalableConfig {
            page_size: PAGE_SIZE,
            total_threshold: 30 * GIB,
            unsplitable_threshold: 16 * GIB,
            uncacheable_threshold: 16 * GIB,
        };
        if let Some(total) = hbm_bytes.filter(|&t| t > 0) {
            if total > 32 * GIB {
                config.total_threshold = 60 * GIB;
                config.uncacheable_threshold = 32 * GIB;
            }
            config.total_threshold = (total as f64 * 0.95).floor() as u64;
        }
        config
    }
}

/// A span's number in its allocator.
pub type SpanId = usize;

#[derive(Debug, Clone)]
struct Span {
    addr: u64,
    pages: u64,
    root: usize,
    prev: Option<SpanId>,
    next: Option<SpanId>,
    occupied: bool,
}

/// A block from the level below: `handle` is what that level needs to take it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Root {
    pub handle: u64,
    pub addr: u64,
    pub bytes: u64,
}

/// What [`ScalableAllocator::fetch`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fetch {
    /// A cached span, now occupied.
    Span(SpanId),
    /// Nothing cached fits: add a root of `bytes` ([`ScalableAllocator::add_root`]).
    NeedRoot { bytes: u64 },
    /// A new root would exceed the total cap while idle memory is cached: recycle and
    /// retry (GE's `FetchNewSpan` returning null).
    OverCap,
}

/// See the module documentation.
#[derive(Debug)]
pub struct ScalableAllocator {
    config: ScalableConfig,
    spans: Vec<Option<Span>>,
    free_span_ids: Vec<SpanId>,
    roots: Vec<Option<Root>>,
    free_root_ids: Vec<usize>,
    /// Free spans by page count (GE's span layers).
    layers: BTreeMap<u64, BTreeSet<SpanId>>,
    held_bytes: u64,
    peak_held_bytes: u64,
    occupied_bytes: u64,
    idle_bytes: u64,
}

impl ScalableAllocator {
    pub fn new(config: ScalableConfig) -> Self {
        Self {
            config,
            spans: Vec::new(),
            free_span_ids: Vec::new(),
            roots: Vec::new(),
            free_root_ids: Vec::new(),
            layers: BTreeMap::new(),
            held_bytes: 0,
            peak_held_bytes: 0,
            occupied_bytes: 0,
            idle_bytes: 0,
        }
    }

    pub fn config(&self) -> &ScalableConfig {
        &self.config
    }

    /// `GetAllocSize`: whole pages, at least one.
    pub fn alloc_size(&self, size: u64) -> u64 {
        size.max(1).div_ceil(self.config.page_size) * self.config.page_size
    }

    /// Bytes held from the level below.
    pub fn held_bytes(&self) -> u64 {
        self.held_bytes
    }

    pub fn peak_held_bytes(&self) -> u64 {
        self.peak_held_bytes
    }

    /// Bytes of occupied spans.
    pub fn occupied_bytes(&self) -> u64 {
        self.occupied_bytes
    }

    /// Bytes of free (cached) spans.
    pub fn idle_bytes(&self) -> u64 {
        self.idle_bytes
    }

    pub fn occupied_spans(&self) -> usize {
        self.spans.iter().flatten().filter(|s| s.occupied).count()
    }

    pub fn root_count(&self) -> usize {
        self.roots.iter().flatten().count()
    }

    /// Page counts of the non-empty layers, ascending.
    pub fn layer_pages(&self) -> Vec<u64> {
        self.layers.keys().copied().collect()
    }

    fn span(&self, id: SpanId) -> &Span {
        self.spans[id].as_ref().expect("a live span id")
    }

    fn span_mut(&mut self, id: SpanId) -> &mut Span {
        self.spans[id].as_mut().expect("a live span id")
    }

    pub fn span_addr(&self, id: SpanId) -> u64 {
        self.span(id).addr
    }

    pub fn span_bytes(&self, id: SpanId) -> u64 {
        self.span(id).pages * self.config.page_size
    }

    /// Whether `id` is a root's only span (`!HasSplited`).
    pub fn is_whole_root(&self, id: SpanId) -> bool {
        let span = self.span(id);
        span.prev.is_none() && span.next.is_none()
    }

    /// The root a span was carved from.
    pub fn span_root(&self, id: SpanId) -> Root {
        self.roots[self.span(id).root].expect("a live root")
    }

    fn new_span(&mut self, span: Span) -> SpanId {
        match self.free_span_ids.pop() {
            Some(id) => {
                self.spans[id] = Some(span);
                id
            }
            None => {
                self.spans.push(Some(span));
                self.spans.len() - 1
            }
        }
    }

    fn drop_span(&mut self, id: SpanId) {
        self.spans[id] = None;
        self.free_span_ids.push(id);
    }

    fn push_layer(&mut self, id: SpanId) {
        let pages = self.span(id).pages;
        self.idle_bytes += pages * self.config.page_size;
        self.layers.entry(pages).or_default().insert(id);
    }

    fn remove_from_layer(&mut self, id: SpanId) {
        let pages = self.span(id).pages;
        if let Some(layer) = self.layers.get_mut(&pages) {
            if layer.remove(&id) {
                self.idle_bytes -= pages * self.config.page_size;
            }
            if layer.is_empty() {
                self.layers.remove(&pages);
            }
        }
    }

    fn pop_layer(&mut self, pages: u64) -> Option<SpanId> {
        let id = *self.layers.get(&pages)?.iter().next()?;
        self.remove_from_layer(id);
        Some(id)
    }

    fn occupy(&mut self, id: SpanId) {
        let bytes = self.span_bytes(id);
        self.span_mut(id).occupied = true;
        self.occupied_bytes += bytes;
    }

    /// `AllocImp` up to the point where a new root would be needed.
    pub fn fetch(&mut self, size: u64) -> Result<Fetch, MemError> {
        if size > self.config.total_threshold {
            return Err(MemError::TooLarge {
                size,
                cap: self.config.total_threshold,
            });
        }
        let bytes = self.alloc_size(size);
        let pages = bytes / self.config.page_size;
        if let Some(id) = self.pop_layer(pages) {
            self.occupy(id);
            return Ok(Fetch::Span(id));
        }
        let fit = self.layers.range(pages + 1..).next().map(|(&p, _)| p);
        if let Some(fit) = fit {
            let id = self.pop_layer(fit).expect("a non-empty layer");
            if self.span_bytes(id) >= self.config.unsplitable_threshold {
                // Too big to split: back to its layer, a new root instead.
                self.push_layer(id);
            } else {
                return Ok(Fetch::Span(self.split(id, pages)));
            }
        }
        if self.held_bytes + bytes > self.config.total_threshold && self.idle_bytes > 0 {
            return Ok(Fetch::OverCap);
        }
        Ok(Fetch::NeedRoot { bytes })
    }

    /// `SplitSpan`: `id` keeps its front `pages - want` pages (free, back in a layer);
    /// its tail of `want` pages becomes a new buddy, occupied and returned.
    fn split(&mut self, id: SpanId, want: u64) -> SpanId {
        let page = self.config.page_size;
        let span = self.span(id).clone();
        let left = span.pages - want;
        let tail = self.new_span(Span {
            addr: span.addr + left * page,
            pages: want,
            root: span.root,
            prev: Some(id),
            next: span.next,
            occupied: false,
        });
        if let Some(next) = span.next {
            self.span_mut(next).prev = Some(tail);
        }
        let front = self.span_mut(id);
        front.next = Some(tail);
        front.pages = left;
        self.push_layer(id);
        self.occupy(tail);
        tail
    }

    /// Adds `root` (of at least the bytes [`Fetch::NeedRoot`] asked for) and returns the
    /// occupied span covering it.
    pub fn add_root(&mut self, root: Root) -> SpanId {
        let root_id = match self.free_root_ids.pop() {
            Some(id) => {
                self.roots[id] = Some(root);
                id
            }
            None => {
                self.roots.push(Some(root));
                self.roots.len() - 1
            }
        };
        self.held_bytes += root.bytes;
        self.peak_held_bytes = self.peak_held_bytes.max(self.held_bytes);
        let id = self.new_span(Span {
            addr: root.addr,
            pages: root.bytes / self.config.page_size,
            root: root_id,
            prev: None,
            next: None,
            occupied: false,
        });
        self.occupy(id);
        id
    }

    /// `Free`: merges with free buddies and caches the result, or returns its root when
    /// the merged span is a whole root too large to cache.
    pub fn free(&mut self, id: SpanId) -> Result<Option<Root>, MemError> {
        match self.spans.get(id).and_then(Option::as_ref) {
            Some(span) if span.occupied => {}
            _ => return Err(MemError::BadFree { what: "span", id }),
        }
        let bytes = self.span_bytes(id);
        self.occupied_bytes -= bytes;
        self.span_mut(id).occupied = false;
        let mut id = id;
        if let Some(next) = self.span(id).next.filter(|&n| !self.span(n).occupied) {
            self.remove_from_layer(next);
            self.merge(id, next);
        }
        if let Some(prev) = self.span(id).prev.filter(|&p| !self.span(p).occupied) {
            self.remove_from_layer(prev);
            self.merge(prev, id);
            id = prev;
        }
        if self.is_whole_root(id) && self.span_bytes(id) >= self.config.uncacheable_threshold {
            return Ok(Some(self.release_root_of(id)));
        }
        self.push_layer(id);
        Ok(None)
    }

    /// `MergeBuddy`: `front` absorbs its next buddy `back`.
    fn merge(&mut self, front: SpanId, back: SpanId) {
        let back_span = self.span(back).clone();
        debug_assert_eq!(back_span.prev, Some(front));
        if let Some(next) = back_span.next {
            self.span_mut(next).prev = Some(front);
        }
        let span = self.span_mut(front);
        span.next = back_span.next;
        span.pages += back_span.pages;
        self.drop_span(back);
    }

    fn release_root_of(&mut self, id: SpanId) -> Root {
        let root_id = self.span(id).root;
        let root = self.roots[root_id].take().expect("a live root");
        self.free_root_ids.push(root_id);
        self.held_bytes -= root.bytes;
        self.drop_span(id);
        root
    }

    /// `Recycle`: every idle whole root, out of its layer, to be given back below.
    pub fn recycle(&mut self) -> Vec<Root> {
        let whole: Vec<SpanId> = self
            .layers
            .values()
            .flatten()
            .copied()
            .filter(|&id| self.is_whole_root(id))
            .collect();
        whole
            .into_iter()
            .map(|id| {
                self.remove_from_layer(id);
                self.release_root_of(id)
            })
            .collect()
    }

    /// `Finalize`: every root, to be given back below, and the number of spans still
    /// occupied (GE warns of a leak and refuses; here the caller decides).
    pub fn release_all(&mut self) -> (Vec<Root>, usize) {
        let leaked = self.occupied_spans();
        let roots = self.roots.iter_mut().filter_map(Option::take).collect();
        let peak = self.peak_held_bytes;
        *self = ScalableAllocator::new(self.config);
        self.peak_held_bytes = peak;
        (roots, leaked)
    }
}
