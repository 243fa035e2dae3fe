//! L2 and L3: `MultiStreamMemBlock`, the per-stream `L2MemPool`s and
//! `MultiStreamL2Allocator`s, and their recycle modes (GE's `kernel/memory/
//! multi_stream_mem_block.cc`, `multi_stream_l2_allocator.cc`, `l2_mem_pool.cc`).
//!
//! GE's objects point at each other (a block at its birth allocator, an allocator at
//! every other stream's allocator); here one [`MultiStreamMemory`] owns the L1, every
//! stream's allocator state and every block record, and each GE method is a method taking
//! the stream it runs on.
//!
//! A block's life: `malloc(s)` on stream `s` (its birth stream): occupied by `s` in every
//! stream's view. `new_access_stream(src, dst)` (an `AccessMemCrossStream`): `dst` occupies
//! it too, in every view. `free(s)`: `s` drops one use; at zero it clears its own bit in
//! its own view. Then:
//! * nobody occupies it in `s`'s view: **birth recycle** when `s` is the birth stream
//!   (the memory goes back to the pool), else **borrow recycle** (into `s`'s
//!   [`BorrowAllocator`], version + 1, views reset; it goes home with the next event to
//!   the birth stream);
//! * otherwise **local recycle**: queued on `s` until events tell the other streams
//!   (`send_event` / `wait_event` in [`super::events`]).

use super::{
    borrow::BorrowAllocator,
    caching::{CachingMemAllocator, L1Block},
    mif::{Mif, DEFAULT_INLINE_STREAMS, MAX_STREAMS},
    scalable::{Fetch, Root, ScalableAllocator, ScalableConfig, SpanId},
    version_blocks::{self, FindMode, StreamedVersionBlock, VersionBlock},
    BlockId, DeviceMemory, MemError, RetryLog, RetryStep,
};
use smallvec::SmallVec;

/// A block record (GE's `MultiStreamMemBlock`). Records are re-used (GE's
/// `MultiStreamMemBlockPool`), so a [`BlockId`] outlives one allocation; the version
/// tells them apart.
#[derive(Debug, Clone)]
pub struct MultiStreamMemBlock {
    /// The span in the birth stream's L2 pool; `None` once birth-recycled.
    mem: Option<SpanId>,
    addr: u64,
    size: u64,
    version: u64,
    birth: usize,
    occupy: Mif,
    counts: SmallVec<[u32; DEFAULT_INLINE_STREAMS]>,
    /// `NewAccessStream`s of this block so far, and per stream the number of its last
    /// one: an [`OccupyView`] taken before a stream's access must not clear its bit.
    accesses: u64,
    last_access: SmallVec<[u64; DEFAULT_INLINE_STREAMS]>,
}

/// One stream's occupy mask of a block as it was at an event's record (what the event
/// carries, see [`MultiStreamMemory::sync_local_recycle_status`]), with the block's
/// access number then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OccupyView {
    pub mask: u64,
    pub accesses: u64,
}

impl MultiStreamMemBlock {
    pub fn addr(&self) -> u64 {
        self.addr
    }
    /// The span's bytes (whole pages), at least what was asked for.
    pub fn size(&self) -> u64 {
        self.size
    }
    pub fn version(&self) -> u64 {
        self.version
    }
    pub fn birth_stream(&self) -> usize {
        self.birth
    }
    pub fn occupy(&self) -> &Mif {
        &self.occupy
    }
    /// `GetCount(s)`: uses of the block on stream `s`.
    pub fn count(&self, stream: usize) -> u32 {
        self.counts.get(stream).copied().unwrap_or(0)
    }
    /// Whether it holds memory (not birth-recycled).
    pub fn is_live(&self) -> bool {
        self.mem.is_some()
    }
}

/// One stream's `MultiStreamL2Allocator` state: its `L2MemPool`, its local-recycle list
/// and its borrow allocator.
#[derive(Debug)]
struct StreamState {
    pool: ScalableAllocator,
    local_recycle: Vec<StreamedVersionBlock>,
    borrow: BorrowAllocator,
}

/// Counters for reports and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemStats {
    pub mallocs: u64,
    pub birth_recycles: u64,
    pub borrow_recycles: u64,
    pub local_recycles: u64,
    pub borrowed_allocs: u64,
    pub stale_messages: u64,
    /// Bytes of blocks handed out and not yet recycled, now and at most.
    pub live_bytes: u64,
    pub peak_live_bytes: u64,
}

/// What [`MultiStreamMemory::finalize`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FinalizeReport {
    /// Blocks still held (GE force-recycles them with a warning).
    pub leaked_blocks: usize,
    /// The most device memory held at once.
    pub peak_device_bytes: u64,
}

/// See the module documentation.
#[derive(Debug)]
pub struct MultiStreamMemory<D: DeviceMemory> {
    device: D,
    l1: CachingMemAllocator,
    streams: Vec<StreamState>,
    blocks: Vec<MultiStreamMemBlock>,
    free_records: Vec<BlockId>,
    log: RetryLog,
    stats: MemStats,
}

impl<D: DeviceMemory> MultiStreamMemory<D> {
    /// One L2 allocator per stream over one L1; at most [`MAX_STREAMS`] streams (the MIF
    /// width).
    pub fn new(device: D, stream_num: usize, config: ScalableConfig) -> Result<Self, MemError> {
        if stream_num == 0 || stream_num > MAX_STREAMS {
            return Err(MemError::TooManyStreams {
                streams: stream_num,
            });
        }
        Ok(Self {
            device,
            l1: CachingMemAllocator::new(config, 0),
            streams: (0..stream_num)
                .map(|_| StreamState {
                    pool: ScalableAllocator::new(config),
                    local_recycle: Vec::new(),
                    borrow: BorrowAllocator::default(),
                })
                .collect(),
            blocks: Vec::new(),
            free_records: Vec::new(),
            log: RetryLog::default(),
            stats: MemStats::default(),
        })
    }

    pub fn stream_num(&self) -> usize {
        self.streams.len()
    }
    pub fn device(&self) -> &D {
        &self.device
    }
    pub fn device_mut(&mut self) -> &mut D {
        &mut self.device
    }
    pub fn l1(&self) -> &CachingMemAllocator {
        &self.l1
    }
    pub fn stats(&self) -> MemStats {
        self.stats
    }
    /// The recovery steps taken on allocation failures, in order.
    pub fn retry_log(&self) -> &RetryLog {
        &self.log
    }
    /// Stream `s`'s L2 pool.
    pub fn pool(&self, stream: usize) -> &ScalableAllocator {
        &self.streams[stream].pool
    }
    /// Entries of stream `s`'s local-recycle list.
    pub fn local_recycle_len(&self, stream: usize) -> usize {
        self.streams[stream].local_recycle.len()
    }
    /// Blocks in stream `s`'s borrow allocator.
    pub fn borrowed_len(&self, stream: usize) -> usize {
        self.streams[stream].borrow.len()
    }

    /// Counts stale event entries the caller ignored.
    pub fn note_stale(&mut self, n: u64) {
        self.stats.stale_messages += n;
    }

    fn check_stream(&self, stream: usize) -> Result<(), MemError> {
        if stream < self.streams.len() {
            Ok(())
        } else {
            Err(MemError::BadStream {
                stream,
                streams: self.streams.len(),
            })
        }
    }

    /// The record of `block`.
    pub fn block(&self, block: BlockId) -> Result<&MultiStreamMemBlock, MemError> {
        self.blocks
            .get(block.0 as usize)
            .ok_or(MemError::BadBlock { block })
    }

    fn live(&self, block: BlockId) -> Result<&MultiStreamMemBlock, MemError> {
        let record = self.block(block)?;
        if record.is_live() {
            Ok(record)
        } else {
            Err(MemError::BadBlock { block })
        }
    }

    fn rec(&mut self, block: BlockId) -> &mut MultiStreamMemBlock {
        &mut self.blocks[block.0 as usize]
    }

    /// `MultiStreamL2Allocator::Malloc` on `stream`: its L2 pool (with GE's recovery:
    /// L1 retry, every pool synchronised and recycled, this pool synchronised, recycled
    /// and retried), then its borrow allocator; else [`MemError::OutOfMemory`], with
    /// nothing held for the request.
    pub fn malloc(&mut self, stream: usize, size: u64) -> Result<BlockId, MemError> {
        self.check_stream(stream)?;
        if let Some(span) = self.l2_malloc(stream, size)? {
            return self.acquire(stream, span);
        }
        self.log.push(RetryStep::Borrow { stream });
        let blocks = &self.blocks;
        if let Some(block) = self.streams[stream]
            .borrow
            .alloc(size, |b| blocks[b.0 as usize].birth)
        {
            self.stats.borrowed_allocs += 1;
            self.re_init_mifs(block);
            self.new_access_stream(block, stream, stream)?;
            return Ok(block);
        }
        self.log.push(RetryStep::OutOfMemory { stream });
        Err(MemError::OutOfMemory {
            stream,
            size,
            held: self.l1.pool().held_bytes(),
            cap: self.l1.pool().config().total_threshold,
        })
    }

    /// `L2MemPool::Malloc`: the pool, else synchronise this stream, recycle, retry.
    fn l2_malloc(&mut self, stream: usize, size: u64) -> Result<Option<SpanId>, MemError> {
        if let Some(span) = self.l2_try(stream, size)? {
            return Ok(Some(span));
        }
        self.synchronize(2, stream)?;
        self.log.push(RetryStep::Recycle { level: 2, stream });
        self.recycle_free_mem(stream)?;
        self.log.push(RetryStep::Retry { level: 2, stream });
        self.l2_try(stream, size)
    }

    fn synchronize(&mut self, level: u8, stream: usize) -> Result<(), MemError> {
        self.log.push(RetryStep::WaitForLaunches { level, stream });
        self.device.wait_for_launches()?;
        self.log.push(RetryStep::Synchronize { level, stream });
        self.device.synchronize(stream)
    }

    fn l2_try(&mut self, stream: usize, size: u64) -> Result<Option<SpanId>, MemError> {
        match self.streams[stream].pool.fetch(size)? {
            Fetch::Span(span) => Ok(Some(span)),
            Fetch::OverCap => Ok(None),
            Fetch::NeedRoot { bytes } => Ok(self.l1_for_pool(bytes)?.map(|block| {
                self.streams[stream].pool.add_root(Root {
                    handle: block.span as u64,
                    addr: block.addr,
                    bytes: block.bytes,
                })
            })),
        }
    }

    /// `MultiStreamL1Allocator::Alloc`: L1, else synchronise and recycle each stream's
    /// pool in turn, retrying L1 after each.
    fn l1_for_pool(&mut self, bytes: u64) -> Result<Option<L1Block>, MemError> {
        if let Some(block) = self.l1.malloc(&mut self.device, bytes, &mut self.log)? {
            return Ok(Some(block));
        }
        for other in 0..self.streams.len() {
            self.synchronize(2, other)?;
            self.log.push(RetryStep::Recycle {
                level: 2,
                stream: other,
            });
            self.recycle_free_mem(other)?;
            self.log.push(RetryStep::Retry {
                level: 1,
                stream: other,
            });
            if let Some(block) = self.l1.malloc(&mut self.device, bytes, &mut self.log)? {
                return Ok(Some(block));
            }
        }
        Ok(None)
    }

    /// `ms_block_pool_.Acquire` + `ReInit`: a record for `span`, born on `stream`,
    /// occupied by it.
    fn acquire(&mut self, stream: usize, span: SpanId) -> Result<BlockId, MemError> {
        let pool = &self.streams[stream].pool;
        let (addr, size) = (pool.span_addr(span), pool.span_bytes(span));
        let block = match self.free_records.pop() {
            Some(block) => block,
            None => {
                self.blocks.push(MultiStreamMemBlock {
                    mem: None,
                    addr: 0,
                    size: 0,
                    version: 0,
                    birth: stream,
                    occupy: Mif::default(),
                    counts: SmallVec::new(),
                    accesses: 0,
                    last_access: SmallVec::new(),
                });
                BlockId(self.blocks.len() as u32 - 1)
            }
        };
        let record = self.rec(block);
        record.mem = Some(span);
        record.addr = addr;
        record.size = size;
        record.birth = stream;
        self.re_init_mifs(block);
        self.stats.mallocs += 1;
        self.stats.live_bytes += size;
        self.stats.peak_live_bytes = self.stats.peak_live_bytes.max(self.stats.live_bytes);
        self.new_access_stream(block, stream, stream)?;
        Ok(block)
    }

    fn re_init_mifs(&mut self, block: BlockId) {
        let n = self.streams.len();
        let record = self.rec(block);
        record
            .occupy
            .re_init(n)
            .expect("the stream count was checked at construction");
        record.counts.clear();
        record.counts.resize(n, 0);
        record.last_access.clear();
        record.last_access.resize(n, 0);
    }

    /// `NewAccessStream(src, dst)`: `dst` uses the block once more, and every stream's
    /// view learns that `dst` occupies it.
    pub fn new_access_stream(
        &mut self,
        block: BlockId,
        src: usize,
        dst: usize,
    ) -> Result<(), MemError> {
        self.check_stream(src)?;
        self.check_stream(dst)?;
        self.live(block)?;
        let record = self.rec(block);
        record.counts[dst] += 1;
        record.occupy.set_all(dst);
        record.accesses += 1;
        record.last_access[dst] = record.accesses;
        Ok(())
    }

    /// The `WanderFrom` of an `AccessMemCrossStream` kernel: the tensor moves from `src`
    /// to `dst`; within one stream it is an error.
    pub fn wander_from(&mut self, block: BlockId, src: usize, dst: usize) -> Result<(), MemError> {
        if src == dst {
            return Err(MemError::SameStream { block, stream: src });
        }
        self.new_access_stream(block, src, dst)
    }

    /// `MultiStreamL2Allocator::Free` on `stream` (GE's `FreeAt(stream, block)`).
    pub fn free(&mut self, stream: usize, block: BlockId) -> Result<(), MemError> {
        self.check_stream(stream)?;
        self.live(block)?;
        let record = self.rec(block);
        let mut need_recycle = false;
        if record.counts[stream] > 0 {
            record.counts[stream] -= 1;
            if record.counts[stream] == 0 {
                need_recycle = true;
                record.occupy.clear(stream, stream);
            }
        }
        if !record.occupy.is_any_set(stream) {
            if record.birth == stream {
                self.birth_recycle(stream, block)
            } else {
                self.borrow_recycle(stream, block);
                Ok(())
            }
        } else {
            if need_recycle {
                self.local_recycle(stream, block);
            }
            Ok(())
        }
    }

    /// `BirthRecycle` on `stream` (the birth stream): the span back to its pool, the
    /// version up, the record free for re-use.
    pub fn birth_recycle(&mut self, stream: usize, block: BlockId) -> Result<(), MemError> {
        let record = self.live(block)?;
        if record.birth != stream {
            return Err(MemError::Inconsistent(format!(
                "birth recycle of block {} on stream {stream}, but it was born on stream {}",
                block.0, record.birth
            )));
        }
        let (span, size) = (record.mem.expect("live"), record.size);
        if let Some(root) = self.streams[stream].pool.free(span)? {
            self.l1.free(&mut self.device, l1_block(root))?;
        }
        let record = self.rec(block);
        record.mem = None;
        record.version += 1;
        self.free_records.push(block);
        self.stats.birth_recycles += 1;
        self.stats.live_bytes -= size;
        Ok(())
    }

    fn borrow_recycle(&mut self, stream: usize, block: BlockId) {
        let record = self.rec(block);
        let (size, birth) = (record.size, record.birth);
        record.version += 1;
        self.streams[stream].borrow.free(block, size, birth);
        self.re_init_mifs(block);
        self.stats.borrow_recycles += 1;
    }

    fn local_recycle(&mut self, stream: usize, block: BlockId) {
        let version = self.blocks[block.0 as usize].version;
        self.streams[stream]
            .local_recycle
            .push(StreamedVersionBlock {
                version_block: VersionBlock { version, block },
                sent_flags: 0,
            });
        self.stats.local_recycles += 1;
    }

    /// Stream `stream`'s occupy mask of `block` now, for an event to carry.
    pub fn occupy_view(&self, block: BlockId, stream: usize) -> Result<OccupyView, MemError> {
        self.check_stream(stream)?;
        let record = self.live(block)?;
        Ok(OccupyView {
            mask: record.occupy.mask(stream),
            accesses: record.accesses,
        })
    }

    /// `SyncLocalRecycleStatus(src, dst)`: `dst` learns what `src` had cleared when it
    /// recorded the event that reached `dst` (`src_view`: `src`'s mask of the block
    /// snapshotted by [`super::events::send_event`]); recycles on `dst` when `dst` then
    /// sees no occupant. A stream that accessed the block again after the snapshot
    /// (`NewAccessStream`, which tells every view at once) stays set: the snapshot's
    /// clear of it is about its earlier uses.
    ///
    /// GE merges `src`'s mask as it is when the wait runs on the host
    /// (`MergeClearedFrom(src, dst)`). When `src` waited for some other stream's event
    /// after recording this one, that mask already holds clears that only `src`'s later
    /// work is ordered after, not `dst`'s; `dst` could re-use memory another stream is
    /// still using (the property test's shrunk case, issue 20). What an event can vouch
    /// for is what its sender knew at the record, as GE's design packs the recycle
    /// state into the event there; this merges that snapshot.
    pub fn sync_local_recycle_status(
        &mut self,
        block: BlockId,
        src: usize,
        dst: usize,
        src_view: OccupyView,
    ) -> Result<(), MemError> {
        self.check_stream(src)?;
        self.check_stream(dst)?;
        let record = self.live(block)?;
        let bit = |s: usize| 1u64 << s;
        let view = record
            .last_access
            .iter()
            .enumerate()
            .filter(|&(_, &at)| at > src_view.accesses)
            .fold(src_view.mask, |mask, (s, _)| mask | bit(s));
        let mif = &record.occupy;
        // Each stream's own clear is always the newest news about itself.
        if (view & bit(dst) == 0 && mif.is_set(dst, dst))
            || (!mif.is_set(src, dst) && mif.is_set(dst, dst))
            || (!mif.is_set(dst, src) && mif.is_set(src, src))
        {
            return Err(MemError::Inconsistent(format!(
                "block {}: stream {src} saw stream {dst}'s clear before {dst} did (views {:#x} \
                 (at the record {view:#x}), {:#x})",
                block.0,
                mif.mask(src),
                mif.mask(dst)
            )));
        }
        let record = self.rec(block);
        record.occupy.merge_cleared_view(dst, view);
        if !record.occupy.is_any_set(dst) {
            self.free(dst, block)?;
        }
        Ok(())
    }

    /// `SyncAllLocalRecycleStatus(dst)`: `dst` learns every other stream's clears, and
    /// recycles the block as soon as it sees no occupant.
    pub fn sync_all_local_recycle_status(
        &mut self,
        block: BlockId,
        dst: usize,
    ) -> Result<(), MemError> {
        self.check_stream(dst)?;
        self.live(block)?;
        for src in (0..self.streams.len()).filter(|&s| s != dst) {
            let record = self.rec(block);
            record.occupy.merge_cleared_from(src, dst);
            if !record.occupy.is_any_set(dst) {
                return self.free(dst, block);
            }
        }
        Ok(())
    }

    /// `GetClearLocalRecycleBlocks(dst)` of `stream` (`FindNext`): each live entry once
    /// per destination.
    pub fn local_recycle_blocks_for(
        &mut self,
        stream: usize,
        dst: usize,
    ) -> Result<Vec<VersionBlock>, MemError> {
        self.check_stream(stream)?;
        self.check_stream(dst)?;
        let n = self.streams.len();
        let blocks = &self.blocks;
        Ok(version_blocks::take(
            &mut self.streams[stream].local_recycle,
            stream,
            n,
            FindMode::Next { dst },
            |b| blocks[b.0 as usize].version,
        ))
    }

    /// `GetClearLocalRecycleBlocks()` of `stream` (`FindNextForAll`).
    pub fn local_recycle_blocks_for_all(
        &mut self,
        stream: usize,
    ) -> Result<Vec<VersionBlock>, MemError> {
        self.check_stream(stream)?;
        let n = self.streams.len();
        let blocks = &self.blocks;
        Ok(version_blocks::take(
            &mut self.streams[stream].local_recycle,
            stream,
            n,
            FindMode::ForAll,
            |b| blocks[b.0 as usize].version,
        ))
    }

    /// `GetAndClearBorrowBlocks(dst)` of `stream`: the borrowed blocks born on `dst`.
    pub fn take_borrow_blocks(
        &mut self,
        stream: usize,
        dst: usize,
    ) -> Result<Vec<BlockId>, MemError> {
        self.check_stream(stream)?;
        let blocks = &self.blocks;
        Ok(self.streams[stream]
            .borrow
            .take_born_on(dst, |b| blocks[b.0 as usize].size))
    }

    /// `RecycleFreeMem` / `L2MemPool::Recycle` of `stream`: its idle whole roots back to L1.
    pub fn recycle_free_mem(&mut self, stream: usize) -> Result<(), MemError> {
        self.check_stream(stream)?;
        for root in self.streams[stream].pool.recycle() {
            self.l1.free(&mut self.device, l1_block(root))?;
        }
        Ok(())
    }

    /// Every block still held birth-recycled (as GE's allocator destructor does, with a
    /// warning: they are counted as leaks), every pool and L1 emptied, every device
    /// allocation freed.
    pub fn finalize(&mut self) -> Result<FinalizeReport, MemError> {
        let held: Vec<BlockId> = (0..self.blocks.len() as u32)
            .map(BlockId)
            .filter(|&b| self.blocks[b.0 as usize].is_live())
            .collect();
        for &block in &held {
            let birth = self.blocks[block.0 as usize].birth;
            self.birth_recycle(birth, block)?;
        }
        for stream in 0..self.streams.len() {
            self.streams[stream].local_recycle.clear();
            let (roots, _) = self.streams[stream].pool.release_all();
            for root in roots {
                self.l1.free(&mut self.device, l1_block(root))?;
            }
            self.streams[stream].borrow = BorrowAllocator::default();
        }
        let peak_device_bytes = self.l1.pool().peak_held_bytes();
        self.l1.finalize(&mut self.device)?;
        Ok(FinalizeReport {
            leaked_blocks: held.len(),
            peak_device_bytes,
        })
    }
}

fn l1_block(root: Root) -> L1Block {
    L1Block {
        span: root.handle as SpanId,
        addr: root.addr,
        bytes: root.bytes,
    }
}

/// GE's `SingleStreamL2Allocator`: one stream, so every free is a birth recycle and no
/// MIF state is needed beyond the use count. Here: the multi-stream machinery with one
/// stream (which reduces to exactly that), under its own name for callers that have one
/// stream.
#[derive(Debug)]
pub struct SingleStreamL2Allocator<D: DeviceMemory>(MultiStreamMemory<D>);

impl<D: DeviceMemory> SingleStreamL2Allocator<D> {
    pub fn new(device: D, config: ScalableConfig) -> Result<Self, MemError> {
        MultiStreamMemory::new(device, 1, config).map(Self)
    }
    pub fn malloc(&mut self, size: u64) -> Result<BlockId, MemError> {
        self.0.malloc(0, size)
    }
    pub fn free(&mut self, block: BlockId) -> Result<(), MemError> {
        self.0.free(0, block)
    }
    pub fn addr(&self, block: BlockId) -> Result<u64, MemError> {
        Ok(self.0.block(block)?.addr())
    }
    pub fn inner(&self) -> &MultiStreamMemory<D> {
        &self.0
    }
    pub fn finalize(&mut self) -> Result<FinalizeReport, MemError> {
        self.0.finalize()
    }
}
