//! Unit tests against GE's semantics, fault injection and property tests of the whole
//! multi-stream memory.

use super::{
    borrow::BorrowAllocator,
    events::{last_wait_events, send_event, wait_event, EventAllocator, GertEvent, MAX_EVENTS},
    mif::Mif,
    scalable::{Fetch, Root, ScalableAllocator, ScalableConfig, GIB, KIB, PAGE_SIZE},
    version_blocks::{take, FindMode, StreamedVersionBlock, VersionBlock},
    BlockId, DeviceMemory, MemError, MultiStreamMemory, RetryStep, SingleStreamL2Allocator,
};
use std::collections::{BTreeMap, HashMap};

/// A device of `capacity` bytes with fresh addresses, a list of what it did, a
/// happens-before model of the streams (vector clocks; `synchronize(s)` makes everything
/// stream `s` did visible to all), and an optional failing allocation.
#[derive(Debug, Default)]
struct FakeDevice {
    capacity: u64,
    used: u64,
    next_addr: u64,
    live: HashMap<u64, u64>,
    mallocs: u64,
    /// The k-th malloc (1-based) fails.
    fail_at: Option<u64>,
    calls: Vec<String>,
    clocks: Vec<Vec<u64>>,
}

impl FakeDevice {
    fn new(capacity: u64, streams: usize) -> Self {
        Self {
            capacity,
            next_addr: 0x1000_0000,
            clocks: vec![vec![0; streams]; streams],
            ..Self::default()
        }
    }
}

impl DeviceMemory for FakeDevice {
    fn malloc(&mut self, bytes: u64) -> Result<Option<u64>, MemError> {
        self.mallocs += 1;
        if self.fail_at == Some(self.mallocs) || self.used + bytes > self.capacity {
            self.calls.push(format!("malloc {bytes} fails"));
            return Ok(None);
        }
        self.calls.push(format!("malloc {bytes}"));
        let addr = self.next_addr;
        self.next_addr += bytes + PAGE_SIZE;
        self.used += bytes;
        self.live.insert(addr, bytes);
        Ok(Some(addr))
    }

    fn free(&mut self, addr: u64) -> Result<(), MemError> {
        let bytes = self
            .live
            .remove(&addr)
            .ok_or_else(|| MemError::Device(format!("free of {addr:#x}, not allocated")))?;
        self.used -= bytes;
        self.calls.push(format!("free {bytes}"));
        Ok(())
    }

    fn wait_for_launches(&mut self) -> Result<(), MemError> {
        self.calls.push("wait".into());
        Ok(())
    }

    fn synchronize(&mut self, stream: usize) -> Result<(), MemError> {
        self.calls.push(format!("sync {stream}"));
        let done = self.clocks[stream].clone();
        for clock in &mut self.clocks {
            for (mine, theirs) in clock.iter_mut().zip(&done) {
                *mine = (*mine).max(*theirs);
            }
        }
        Ok(())
    }
}

fn small_config() -> ScalableConfig {
    ScalableConfig {
        page_size: PAGE_SIZE,
        total_threshold: 64 * PAGE_SIZE,
        unsplitable_threshold: 32 * PAGE_SIZE,
        uncacheable_threshold: 16 * PAGE_SIZE,
    }
}

// ---- Mif -------------------------------------------------------------------------

#[test]
fn mif_operations_follow_ge() {
    let mut mif = Mif::new(4).unwrap();
    mif.set(1, 2);
    assert!(mif.is_set(1, 2) && !mif.is_set(2, 2) && !mif.is_set(1, 1));
    mif.set_all(3);
    assert!((0..4).all(|m| mif.is_set(m, 3)));
    assert_eq!(mif.mask(1), 0b1100);
    mif.set_maintained_all(0);
    assert_eq!(mif.mask(0), 0b1111);
    mif.clear(0, 3);
    assert_eq!(mif.mask(0), 0b0111);
    // MergeClearedFrom(src, dst): mask[dst] &= mask[src].
    mif.merge_cleared_from(0, 1);
    assert_eq!(mif.mask(1), 0b0100);
    assert!(mif.is_any_set(1));
    mif.clear(1, 2);
    assert!(!mif.is_any_set(1));
    mif.re_init(2).unwrap();
    assert_eq!((mif.stream_num(), mif.mask(0), mif.mask(1)), (2, 0, 0));
}

#[test]
fn mif_holds_64_streams_and_refuses_65() {
    let mut mif = Mif::new(64).unwrap();
    mif.set_maintained_all(63);
    assert_eq!(mif.mask(63), u64::MAX);
    mif.set(0, 63);
    assert!(mif.is_set(0, 63));
    assert_eq!(
        Mif::new(65).unwrap_err(),
        MemError::TooManyStreams { streams: 65 }
    );
    let error = MultiStreamMemory::new(FakeDevice::new(GIB, 65), 65, small_config()).unwrap_err();
    assert!(error.to_string().contains("1 to 64"), "{error}");
}

// ---- VersionBlocks -----------------------------------------------------------------

fn entry(block: u32, version: u64, sent: u64) -> StreamedVersionBlock {
    StreamedVersionBlock {
        version_block: VersionBlock {
            version,
            block: BlockId(block),
        },
        sent_flags: sent,
    }
}

#[test]
fn find_next_drops_stale_and_fully_sent_and_hands_each_entry_once_per_destination() {
    // Stream 0 of 3; block 2 has moved on to version 5.
    let versions = |b: BlockId| if b.0 == 2 { 5 } else { 1 };
    let mut list = vec![
        entry(1, 1, 0),
        entry(2, 1, 0),
        entry(3, 1, 0b110),
        entry(4, 1, 0b010),
    ];
    let to_1 = take(&mut list, 0, 3, FindMode::Next { dst: 1 }, versions);
    assert_eq!(to_1.iter().map(|v| v.block.0).collect::<Vec<_>>(), vec![1]);
    // Stale 2 and fully sent 3 are gone; 4 (already sent to 1) is kept.
    assert_eq!(
        list.iter()
            .map(|e| e.version_block.block.0)
            .collect::<Vec<_>>(),
        vec![1, 4]
    );
    assert!(take(&mut list, 0, 3, FindMode::Next { dst: 1 }, versions).is_empty());
    let to_2 = take(&mut list, 0, 3, FindMode::Next { dst: 2 }, versions);
    assert_eq!(
        to_2.iter().map(|v| v.block.0).collect::<Vec<_>>(),
        vec![1, 4]
    );
    // Now both were sent to every other stream: the next walk drops them.
    assert!(take(&mut list, 0, 3, FindMode::Next { dst: 1 }, versions).is_empty());
    assert!(list.is_empty());
}

#[test]
fn find_next_for_all_marks_every_live_entry() {
    let versions = |b: BlockId| if b.0 == 2 { 9 } else { 0 };
    let mut list = vec![entry(1, 0, 0b010), entry(2, 0, 0), entry(3, 0, 0)];
    let all = take(&mut list, 0, 3, FindMode::ForAll, versions);
    assert_eq!(
        all.iter().map(|v| v.block.0).collect::<Vec<_>>(),
        vec![1, 3]
    );
    assert!(list.iter().all(|e| e.sent_flags == 0b110));
    assert!(take(&mut list, 0, 3, FindMode::ForAll, versions).is_empty());
}

// ---- BorrowAllocator ---------------------------------------------------------------

#[test]
fn borrow_allocator_is_best_fit_and_erases_the_bucket_it_emptied() {
    let mut borrow = BorrowAllocator::default();
    let birth = |b: BlockId| (b.0 % 2) as usize;
    borrow.free(BlockId(10), 4 * PAGE_SIZE, 0);
    borrow.free(BlockId(11), 2 * PAGE_SIZE, 1);
    borrow.free(BlockId(12), 8 * PAGE_SIZE, 0);
    // Best fit for 3 pages is the 4-page block.
    assert_eq!(borrow.alloc(3 * PAGE_SIZE, birth), Some(BlockId(10)));
    // GE would have erased key "3 pages" and left an empty 4-page bucket behind.
    assert!(borrow.buckets_are_non_empty());
    assert_eq!(borrow.alloc(3 * PAGE_SIZE, birth), Some(BlockId(12)));
    assert!(borrow.buckets_are_non_empty());
    assert_eq!(borrow.alloc(3 * PAGE_SIZE, birth), None);
    assert_eq!(borrow.alloc(PAGE_SIZE, birth), Some(BlockId(11)));
    assert!(borrow.is_empty());
}

#[test]
fn borrow_blocks_go_home_by_birth_stream() {
    let mut borrow = BorrowAllocator::default();
    let sizes: HashMap<u32, u64> = [(1, PAGE_SIZE), (2, PAGE_SIZE), (3, 2 * PAGE_SIZE)].into();
    borrow.free(BlockId(1), PAGE_SIZE, 0);
    borrow.free(BlockId(2), PAGE_SIZE, 2);
    borrow.free(BlockId(3), 2 * PAGE_SIZE, 0);
    let home = borrow.take_born_on(0, |b| sizes[&b.0]);
    assert_eq!(home, vec![BlockId(1), BlockId(3)]);
    assert_eq!(borrow.len(), 1);
    assert!(borrow.take_born_on(0, |b| sizes[&b.0]).is_empty());
    assert!(borrow.buckets_are_non_empty());
}

// ---- ScalableAllocator -------------------------------------------------------------

fn root(pool: &mut ScalableAllocator, pages: u64, addr: u64) -> usize {
    pool.add_root(Root {
        handle: addr,
        addr,
        bytes: pages * PAGE_SIZE,
    })
}

#[test]
fn scalable_rounds_to_pages_and_reuses_the_exact_layer() {
    let mut pool = ScalableAllocator::new(small_config());
    assert_eq!(pool.alloc_size(1), PAGE_SIZE);
    assert_eq!(pool.alloc_size(PAGE_SIZE + 1), 2 * PAGE_SIZE);
    assert_eq!(
        pool.fetch(100 * KIB).unwrap(),
        Fetch::NeedRoot {
            bytes: 2 * PAGE_SIZE
        }
    );
    let span = root(&mut pool, 2, 0x10000);
    pool.free(span).unwrap();
    assert_eq!(pool.layer_pages(), vec![2]);
    let Fetch::Span(again) = pool.fetch(2 * PAGE_SIZE).unwrap() else {
        panic!("the cached span")
    };
    assert_eq!(pool.span_addr(again), 0x10000);
    assert_eq!(pool.root_count(), 1);
}

#[test]
fn scalable_splits_a_larger_span_and_merges_buddies_back() {
    let mut pool = ScalableAllocator::new(small_config());
    let whole = root(&mut pool, 8, 0x100000);
    pool.free(whole).unwrap();
    let Fetch::Span(a) = pool.fetch(3 * PAGE_SIZE).unwrap() else {
        panic!("split")
    };
    // The tail is handed out; the front 5 pages stay free in layer 5.
    assert_eq!(pool.span_addr(a), 0x100000 + 5 * PAGE_SIZE);
    assert_eq!(pool.layer_pages(), vec![5]);
    let Fetch::Span(b) = pool.fetch(PAGE_SIZE).unwrap() else {
        panic!("split")
    };
    assert_eq!(pool.span_addr(b), 0x100000 + 4 * PAGE_SIZE);
    assert_eq!(pool.layer_pages(), vec![4]);
    assert!(pool.recycle().is_empty(), "split roots are not recycled");
    pool.free(a).unwrap();
    assert_eq!(pool.layer_pages(), vec![3, 4]);
    pool.free(b).unwrap();
    // b merged with both neighbours: one whole 8-page span again.
    assert_eq!(pool.layer_pages(), vec![8]);
    assert_eq!(pool.occupied_bytes(), 0);
    let roots = pool.recycle();
    assert_eq!(roots.len(), 1);
    assert_eq!((roots[0].addr, roots[0].bytes), (0x100000, 8 * PAGE_SIZE));
    assert_eq!(pool.held_bytes(), 0);
}

#[test]
fn scalable_caps_uncacheable_unsplitable_and_total() {
    let config = small_config();
    let mut pool = ScalableAllocator::new(config);
    // 16 pages and more are not cached: the root goes back at once.
    let big = root(&mut pool, 16, 0x0);
    let back = pool.free(big).unwrap();
    assert_eq!(back.map(|r| r.bytes), Some(16 * PAGE_SIZE));
    assert_eq!(pool.held_bytes(), 0);
    // 32 pages and more are never split: a small request gets a new root.
    let huge = root(&mut pool, 40, 0x1000000);
    pool.free(huge).unwrap_or_else(|e| panic!("{e}"));
    // (40 pages is uncacheable too under this config: it went back.)
    let mut config2 = config;
    config2.uncacheable_threshold = u64::MAX;
    config2.total_threshold = 128 * PAGE_SIZE;
    let mut pool = ScalableAllocator::new(config2);
    let huge = root(&mut pool, 40, 0x1000000);
    pool.free(huge).unwrap();
    assert_eq!(
        pool.fetch(PAGE_SIZE).unwrap(),
        Fetch::NeedRoot { bytes: PAGE_SIZE }
    );
    // Total cap: a new root that would cross it while idle memory is cached: recycle first.
    let mut pool = ScalableAllocator::new(config);
    let a = root(&mut pool, 10, 0x0);
    let _b = root(&mut pool, 50, 0x10000000);
    pool.free(a).unwrap();
    assert_eq!(pool.fetch(12 * PAGE_SIZE).unwrap(), Fetch::OverCap);
    assert!(matches!(
        pool.fetch(65 * PAGE_SIZE),
        Err(MemError::TooLarge { .. })
    ));
}

#[test]
fn device_caps_follow_ge_defaults() {
    let unknown = ScalableConfig::for_device(None);
    assert_eq!(
        (unknown.total_threshold, unknown.uncacheable_threshold),
        (30 * GIB, 16 * GIB)
    );
    let small = ScalableConfig::for_device(Some(32 * GIB));
    assert_eq!(small.total_threshold, (32.0 * 0.95 * GIB as f64) as u64);
    assert_eq!(small.uncacheable_threshold, 16 * GIB);
    let large = ScalableConfig::for_device(Some(64 * GIB));
    assert_eq!(large.uncacheable_threshold, 32 * GIB);
    assert_eq!(large.unsplitable_threshold, 16 * GIB);
    assert_eq!(large.page_size, 64 * KIB);
}

// ---- L1, L2, recycle modes -----------------------------------------------------------

fn memory(streams: usize, capacity: u64) -> MultiStreamMemory<FakeDevice> {
    MultiStreamMemory::new(FakeDevice::new(capacity, streams), streams, small_config()).unwrap()
}

#[test]
fn birth_recycle_on_one_stream_reuses_the_address() {
    let mut mem = memory(1, GIB);
    let a = mem.malloc(0, 100 * KIB).unwrap();
    let addr = mem.block(a).unwrap().addr();
    let version = mem.block(a).unwrap().version();
    mem.free(0, a).unwrap();
    assert!(!mem.block(a).unwrap().is_live());
    assert_eq!(mem.block(a).unwrap().version(), version + 1);
    let b = mem.malloc(0, 100 * KIB).unwrap();
    assert_eq!(mem.block(b).unwrap().addr(), addr);
    assert_eq!(mem.device().mallocs, 1);
    mem.free(0, b).unwrap();
    assert_eq!(mem.stats().birth_recycles, 2);
    let report = mem.finalize().unwrap();
    assert_eq!(report.leaked_blocks, 0);
    assert!(mem.device().live.is_empty());
}

#[test]
fn single_stream_allocator_is_birth_recycle_only() {
    let mut single = SingleStreamL2Allocator::new(FakeDevice::new(GIB, 1), small_config()).unwrap();
    let a = single.malloc(10).unwrap();
    let addr = single.addr(a).unwrap();
    single.free(a).unwrap();
    let b = single.malloc(10).unwrap();
    assert_eq!(single.addr(b).unwrap(), addr);
    single.free(b).unwrap();
    assert_eq!(single.inner().stats().local_recycles, 0);
    assert_eq!(single.finalize().unwrap().leaked_blocks, 0);
}

fn event(src: usize, dst: usize) -> GertEvent {
    GertEvent {
        logic_id: 0,
        src_stream: src,
        dst_stream: dst,
        ..GertEvent::default()
    }
}

#[test]
fn a_block_used_on_two_streams_waits_for_an_event_then_birth_recycles() {
    let mut mem = memory(2, GIB);
    let a = mem.malloc(0, PAGE_SIZE).unwrap();
    mem.wander_from(a, 0, 1).unwrap();
    assert_eq!(
        (
            mem.block(a).unwrap().count(0),
            mem.block(a).unwrap().count(1)
        ),
        (1, 1)
    );
    assert_eq!(mem.block(a).unwrap().occupy().mask(0), 0b11);
    mem.free(0, a).unwrap();
    // Stream 0 still sees stream 1 in it: local recycle, memory held.
    assert_eq!(mem.local_recycle_len(0), 1);
    assert!(mem.block(a).unwrap().is_live());
    mem.free(1, a).unwrap();
    assert_eq!(mem.local_recycle_len(1), 1);
    let mut ev = event(1, 0);
    send_event(&mut mem, &mut ev).unwrap();
    assert_eq!(ev.space.block_free_by_src_stream.len(), 1);
    wait_event(&mut mem, &mut ev).unwrap();
    assert!(
        !mem.block(a).unwrap().is_live(),
        "birth recycle on stream 0"
    );
    assert_eq!(mem.stats().birth_recycles, 1);
    // Stream 1's own entry is stale now and is dropped when it next sends.
    let mut ev = event(1, 0);
    send_event(&mut mem, &mut ev).unwrap();
    assert!(ev.space.block_free_by_src_stream.is_empty());
    assert_eq!(mem.local_recycle_len(1), 0);
}

#[test]
fn a_block_freed_last_off_its_birth_stream_is_borrowed_then_goes_home() {
    let mut mem = memory(2, GIB);
    let a = mem.malloc(0, PAGE_SIZE).unwrap();
    mem.wander_from(a, 0, 1).unwrap();
    mem.free(0, a).unwrap();
    mem.free(1, a).unwrap();
    let v = mem.block(a).unwrap().version();
    let mut ev = event(0, 1);
    send_event(&mut mem, &mut ev).unwrap();
    wait_event(&mut mem, &mut ev).unwrap();
    // Stream 1 learnt that 0 is done: nobody occupies it, born elsewhere: borrow recycle.
    assert_eq!(mem.borrowed_len(1), 1);
    assert_eq!(mem.block(a).unwrap().version(), v + 1);
    assert_eq!(mem.block(a).unwrap().occupy().mask(0), 0);
    // Stream 1 may use it while its own pool is empty (its own pool has no memory yet,
    // so force that with a device that is full).
    mem.device_mut().capacity = 0;
    let b = mem.malloc(1, PAGE_SIZE).unwrap();
    assert_eq!(b, a);
    assert_eq!(mem.stats().borrowed_allocs, 1);
    mem.free(1, b).unwrap();
    assert_eq!(mem.borrowed_len(1), 1);
    let mut home = event(1, 0);
    send_event(&mut mem, &mut home).unwrap();
    assert_eq!(home.space.block_need_return_birth, vec![a]);
    wait_event(&mut mem, &mut home).unwrap();
    assert!(!mem.block(a).unwrap().is_live());
    assert_eq!(mem.borrowed_len(1), 0);
}

#[test]
fn stale_messages_of_a_fan_out_are_ignored() {
    // event.cc's comment: s0 sends to s1, s2, s3; the first wait recycles the block, the
    // other two carry an old version.
    let mut mem = memory(4, GIB);
    let a = mem.malloc(0, PAGE_SIZE).unwrap();
    for s in 1..4 {
        mem.wander_from(a, 0, s).unwrap();
    }
    for s in 1..4 {
        mem.free(s, a).unwrap();
        let mut ev = event(s, 0);
        send_event(&mut mem, &mut ev).unwrap();
        wait_event(&mut mem, &mut ev).unwrap();
    }
    mem.free(0, a).unwrap();
    assert!(!mem.block(a).unwrap().is_live());
    // A block re-used under the same record, then old news arriving:
    let b = mem.malloc(0, PAGE_SIZE).unwrap();
    assert_eq!(b, a, "the record is re-used");
    mem.wander_from(b, 0, 1).unwrap();
    mem.free(0, b).unwrap();
    let mut e1 = event(0, 1);
    let mut e2 = event(0, 2);
    send_event(&mut mem, &mut e1).unwrap();
    send_event(&mut mem, &mut e2).unwrap();
    mem.free(1, b).unwrap();
    let mut back = event(1, 0);
    send_event(&mut mem, &mut back).unwrap();
    wait_event(&mut mem, &mut back).unwrap();
    assert!(!mem.block(b).unwrap().is_live());
    assert_eq!(wait_event(&mut mem, &mut e1).unwrap(), 1);
    assert_eq!(wait_event(&mut mem, &mut e2).unwrap(), 1);
    assert_eq!(mem.stats().stale_messages, 2);
}

#[test]
fn last_wait_events_recycles_everything() {
    let mut mem = memory(3, GIB);
    let blocks: Vec<BlockId> = (0..6)
        .map(|k| mem.malloc(k % 3, (k as u64 + 1) * 50 * KIB).unwrap())
        .collect();
    for (k, &b) in blocks.iter().enumerate() {
        let other = (k + 1) % 3;
        mem.wander_from(b, k % 3, other).unwrap();
        mem.free(other, b).unwrap();
        mem.free(k % 3, b).unwrap();
    }
    assert!(mem.stats().live_bytes > 0);
    last_wait_events(&mut mem).unwrap();
    assert_eq!(mem.stats().live_bytes, 0);
    for s in 0..3 {
        assert_eq!(
            mem.pool(s).held_bytes(),
            0,
            "pool {s} gave everything to L1"
        );
    }
    assert_eq!(mem.finalize().unwrap().leaked_blocks, 0);
    assert!(mem.device().live.is_empty());
}

#[test]
fn wander_within_one_stream_and_bad_ids_are_errors() {
    let mut mem = memory(2, GIB);
    let a = mem.malloc(0, 1).unwrap();
    assert!(matches!(
        mem.wander_from(a, 1, 1),
        Err(MemError::SameStream { .. })
    ));
    assert!(matches!(
        mem.malloc(2, 1),
        Err(MemError::BadStream {
            stream: 2,
            streams: 2
        })
    ));
    mem.free(0, a).unwrap();
    assert!(matches!(mem.free(0, a), Err(MemError::BadBlock { .. })));
}

#[test]
fn event_allocator_grows_to_4096_and_never_shrinks() {
    let mut created = 0;
    let mut events = EventAllocator::default();
    let mut make = || {
        created += 1;
        Ok(created)
    };
    assert_eq!(events.acquire_events(3, &mut make).unwrap(), &[1, 2, 3]);
    assert_eq!(events.acquire_events(2, &mut make).unwrap(), &[1, 2]);
    assert_eq!(events.len(), 3);
    assert_eq!(
        events.acquire_events(MAX_EVENTS, &mut make).unwrap().len(),
        MAX_EVENTS
    );
    assert!(matches!(
        events.acquire_events(MAX_EVENTS + 1, &mut make),
        Err(MemError::TooManyEvents {
            asked: 4097,
            max: 4096
        })
    ));
}

// ---- fault injection -------------------------------------------------------------------

#[test]
fn a_failing_device_allocation_is_retried_after_wait_sync_recycle() {
    let mut mem = memory(2, GIB);
    // Cache a free root in L1 (via stream 1's pool and its recycle).
    let a = mem.malloc(1, 4 * PAGE_SIZE).unwrap();
    mem.free(1, a).unwrap();
    mem.recycle_free_mem(1).unwrap();
    mem.device_mut().calls.clear();
    let k = mem.device().mallocs + 1;
    mem.device_mut().fail_at = Some(k);
    let b = mem.malloc(0, 8 * PAGE_SIZE).unwrap();
    assert!(mem.block(b).unwrap().is_live());
    // L1: the malloc fails; wait, synchronise, recycle (the idle 4-page root goes back to
    // the device), retry.
    assert_eq!(
        mem.device().calls,
        vec![
            "malloc 524288 fails",
            "wait",
            "sync 0",
            "free 262144",
            "malloc 524288"
        ]
    );
    let steps = mem.retry_log().steps();
    assert_eq!(
        steps[steps.len() - 4..].to_vec(),
        vec![
            RetryStep::WaitForLaunches {
                level: 1,
                stream: 0
            },
            RetryStep::Synchronize {
                level: 1,
                stream: 0
            },
            RetryStep::Recycle {
                level: 1,
                stream: 0
            },
            RetryStep::Retry {
                level: 1,
                stream: 0
            },
        ]
    );
    mem.free(0, b).unwrap();
    mem.finalize().unwrap();
    assert!(mem.device().live.is_empty());
}

#[test]
fn exhausted_memory_walks_every_recovery_step_then_fails_cleanly() {
    let mut mem = memory(2, 6 * PAGE_SIZE);
    let held = mem.malloc(1, 4 * PAGE_SIZE).unwrap();
    let idle = mem.malloc(1, PAGE_SIZE).unwrap();
    mem.free(1, idle).unwrap();
    mem.device_mut().calls.clear();
    let error = mem.malloc(0, 3 * PAGE_SIZE).unwrap_err();
    assert!(
        matches!(error, MemError::OutOfMemory { stream: 0, .. }),
        "{error}"
    );
    assert!(
        error.to_string().contains("out of device memory"),
        "{error}"
    );
    use RetryStep::*;
    let steps = mem.retry_log().steps();
    // First L1 fails and retries; then each pool is synchronised and recycled with an L1
    // retry after it; then the stream's own pool; then the borrow pool; then the error.
    let expect_prefix = [
        WaitForLaunches {
            level: 1,
            stream: 0,
        },
        Synchronize {
            level: 1,
            stream: 0,
        },
        Recycle {
            level: 1,
            stream: 0,
        },
        Retry {
            level: 1,
            stream: 0,
        },
        WaitForLaunches {
            level: 2,
            stream: 0,
        },
        Synchronize {
            level: 2,
            stream: 0,
        },
        Recycle {
            level: 2,
            stream: 0,
        },
        Retry {
            level: 1,
            stream: 0,
        },
    ];
    assert_eq!(&steps[..expect_prefix.len()], &expect_prefix[..]);
    assert!(steps.contains(&Synchronize {
        level: 2,
        stream: 1
    }));
    assert!(steps.contains(&Recycle {
        level: 2,
        stream: 1
    }));
    assert_eq!(
        &steps[steps.len() - 2..],
        &[Borrow { stream: 0 }, OutOfMemory { stream: 0 }]
    );
    // The stream's own pool: wait, synchronise, recycle, then its retry, after every
    // pool had its turn.
    let own_retry = steps
        .iter()
        .position(|s| {
            *s == Retry {
                level: 2,
                stream: 0,
            }
        })
        .unwrap();
    assert_eq!(
        &steps[own_retry - 3..own_retry],
        &[
            WaitForLaunches {
                level: 2,
                stream: 0
            },
            Synchronize {
                level: 2,
                stream: 0
            },
            Recycle {
                level: 2,
                stream: 0
            },
        ]
    );
    let pool_1 = steps
        .iter()
        .position(|s| {
            *s == Recycle {
                level: 2,
                stream: 1,
            }
        })
        .unwrap();
    assert!(pool_1 < own_retry);
    // Stream 1's idle page went back to the device during the recovery; nothing is held
    // for the failed request.
    assert_eq!(mem.pool(0).held_bytes(), 0);
    assert_eq!(mem.device().used, 4 * PAGE_SIZE);
    mem.free(1, held).unwrap();
    let report = mem.finalize().unwrap();
    assert_eq!(report.leaked_blocks, 0);
    assert!(mem.device().live.is_empty(), "nothing leaked");
}

// ---- property tests --------------------------------------------------------------------

mod properties {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Alloc { stream: usize, pages_x16: u64 },
        Access { tensor: usize, stream: usize },
        Free { tensor: usize, pick: usize },
        Record { src: usize, dst: usize },
        Wait { pick: usize },
    }

    fn op(streams: usize) -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (0..streams, 1u64..100).prop_map(|(stream, pages_x16)| Op::Alloc { stream, pages_x16 }),
            2 => (0..64usize, 0..streams).prop_map(|(tensor, stream)| Op::Access { tensor, stream }),
            3 => (0..64usize, 0..8usize).prop_map(|(tensor, pick)| Op::Free { tensor, pick }),
            2 => (0..streams, 0..streams).prop_map(|(src, dst)| Op::Record { src, dst }),
            2 => (0..8usize).prop_map(|pick| Op::Wait { pick }),
        ]
    }

    /// A tensor of the harness: its block, bytes, the streams holding a use, and every
    /// use as (stream, that stream's clock).
    struct Tensor {
        block: BlockId,
        addr: u64,
        bytes: u64,
        holders: BTreeMap<usize, u32>,
        uses: Vec<(usize, u64)>,
    }

    fn touch(mem: &mut MultiStreamMemory<FakeDevice>, stream: usize) -> u64 {
        let clock = &mut mem.device_mut().clocks[stream][stream];
        *clock += 1;
        *clock
    }

    fn run(streams: usize, capacity_pages: u64, ops: Vec<Op>) -> Result<(), TestCaseError> {
        let mut mem = memory(streams, capacity_pages * PAGE_SIZE);
        let mut tensors: Vec<Tensor> = Vec::new();
        let mut pending: Vec<(GertEvent, Vec<u64>)> = Vec::new();
        let mut versions: HashMap<BlockId, u64> = HashMap::new();
        for op in ops {
            match op {
                Op::Alloc { stream, pages_x16 } => {
                    let bytes = pages_x16 * PAGE_SIZE / 16;
                    let block = match mem.malloc(stream, bytes) {
                        Ok(block) => block,
                        Err(MemError::OutOfMemory { .. }) => continue,
                        Err(e) => return Err(TestCaseError::fail(e.to_string())),
                    };
                    let record = mem.block(block).unwrap();
                    let (addr, size) = (record.addr(), record.size());
                    prop_assert!(size >= bytes);
                    // No overlap with a tensor still held, and every use of an earlier
                    // tensor of these bytes happens before this stream's next work.
                    let clocks = mem.device().clocks[stream].clone();
                    for old in &tensors {
                        if old.addr < addr + size && addr < old.addr + old.bytes {
                            prop_assert!(
                                old.holders.is_empty(),
                                "bytes {addr:#x}+{size} handed out while block {:?} holds them",
                                old.block
                            );
                            for &(s, t) in &old.uses {
                                prop_assert!(
                                    clocks[s] >= t,
                                    "stream {stream} re-uses {addr:#x} before stream {s}'s use at {t} is known done"
                                );
                            }
                        }
                    }
                    tensors.retain(|old| !(old.addr < addr + size && addr < old.addr + old.bytes));
                    let t = touch(&mut mem, stream);
                    tensors.push(Tensor {
                        block,
                        addr,
                        bytes: size,
                        holders: [(stream, 1)].into(),
                        uses: vec![(stream, t)],
                    });
                }
                Op::Access { tensor, stream } => {
                    let Some(x) = tensors.get(tensor % tensors.len().max(1)) else {
                        continue;
                    };
                    let Some((&from, _)) = x.holders.iter().next() else {
                        continue;
                    };
                    if from == stream {
                        continue;
                    }
                    let block = x.block;
                    mem.wander_from(block, from, stream).unwrap();
                    let t = touch(&mut mem, stream);
                    let index = tensor % tensors.len();
                    *tensors[index].holders.entry(stream).or_default() += 1;
                    tensors[index].uses.push((stream, t));
                }
                Op::Free { tensor, pick } => {
                    let index = tensor % tensors.len().max(1);
                    let Some(x) = tensors.get_mut(index) else {
                        continue;
                    };
                    if x.holders.is_empty() {
                        continue;
                    }
                    let stream = *x.holders.keys().nth(pick % x.holders.len()).unwrap();
                    let count = x.holders.get_mut(&stream).unwrap();
                    *count -= 1;
                    if *count == 0 {
                        x.holders.remove(&stream);
                    }
                    let block = x.block;
                    mem.free(stream, block).unwrap();
                }
                Op::Record { src, dst } => {
                    if src == dst {
                        continue;
                    }
                    let mut ev = event(src, dst);
                    send_event(&mut mem, &mut ev).unwrap();
                    let snapshot = mem.device().clocks[src].clone();
                    touch(&mut mem, src);
                    pending.push((ev, snapshot));
                }
                Op::Wait { pick } => {
                    if pending.is_empty() {
                        continue;
                    }
                    let (mut ev, snapshot) = pending.remove(pick % pending.len());
                    let clocks = &mut mem.device_mut().clocks[ev.dst_stream];
                    for (mine, theirs) in clocks.iter_mut().zip(&snapshot) {
                        *mine = (*mine).max(*theirs);
                    }
                    wait_event(&mut mem, &mut ev).unwrap();
                }
            }
            for b in (0..mem.stats().mallocs as u32).map(BlockId) {
                if let Ok(record) = mem.block(b) {
                    let before = versions.insert(b, record.version()).unwrap_or(0);
                    prop_assert!(
                        record.version() >= before,
                        "block {b:?}'s version went down"
                    );
                }
            }
        }
        // The end of a run: every use freed, pending events waited, the last stage
        // (every stream to the main stream), then last-resource-clean.
        for x in &mut tensors {
            for (&stream, &count) in &x.holders {
                for _ in 0..count {
                    mem.free(stream, x.block).unwrap();
                }
            }
            x.holders.clear();
        }
        for (mut ev, _) in pending.drain(..) {
            wait_event(&mut mem, &mut ev).unwrap();
        }
        for s in 1..streams {
            let mut ev = event(s, 0);
            send_event(&mut mem, &mut ev).unwrap();
            wait_event(&mut mem, &mut ev).unwrap();
        }
        last_wait_events(&mut mem).unwrap();
        prop_assert_eq!(mem.stats().live_bytes, 0, "every block recycled");
        for s in 0..streams {
            prop_assert_eq!(mem.pool(s).occupied_bytes(), 0);
            prop_assert_eq!(mem.borrowed_len(s), 0);
        }
        let report = mem.finalize().unwrap();
        prop_assert_eq!(report.leaked_blocks, 0);
        prop_assert!(mem.device().live.is_empty(), "device memory all freed");
        Ok(())
    }

    /// The shrunk case a random-seed run of the property below found (2026-12-02): a page
    /// born on stream 1 and used on streams 0, 1 and 2; events 2 -> 0 and 0 -> 1 are
    /// recorded (in that order, so 0 -> 1 is recorded before stream 0 waits for 2's), then
    /// waited. Stream 0's mask learned stream 2's clear at its wait, after it recorded
    /// 0 -> 1; GE's wait-time merge handed that on to stream 1, which then re-used the
    /// page while nothing ordered stream 2's use before it. The mask an event carries is
    /// now the sender's at the record ([`super::events`]), so stream 1 still sees stream
    /// 2 in the page and allocates elsewhere; the page is recycled at the end.
    #[test]
    fn an_event_recorded_before_its_source_synced_does_not_hand_on_its_pages() {
        use Op::*;
        let ops = vec![
            Alloc {
                stream: 1,
                pages_x16: 17,
            },
            Alloc {
                stream: 0,
                pages_x16: 1,
            },
            Access {
                tensor: 2,
                stream: 0,
            },
            Alloc {
                stream: 0,
                pages_x16: 1,
            },
            Access {
                tensor: 3,
                stream: 2,
            },
            Alloc {
                stream: 0,
                pages_x16: 1,
            },
            Free { tensor: 4, pick: 0 },
            Free {
                tensor: 32,
                pick: 0,
            },
            Free {
                tensor: 12,
                pick: 0,
            },
            Record { src: 2, dst: 0 },
            Record { src: 0, dst: 1 },
            Wait { pick: 2 },
            Wait { pick: 0 },
            Alloc {
                stream: 1,
                pages_x16: 1,
            },
        ];
        run(3, 1 << 20, ops).unwrap();
    }

    /// A fixed seed (and 160 cases): the suite must give the same answer on every run.
    /// `PROPTEST_RNG_SEED` and `PROPTEST_CASES` override them, to search further:
    /// `PROPTEST_RNG_SEED=7 PROPTEST_CASES=2000 cargo test --lib memory::tests::properties`.
    fn config() -> ProptestConfig {
        let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
        ProptestConfig {
            cases: env("PROPTEST_CASES").map_or(160, |c| c as u32),
            rng_seed: proptest::test_runner::RngSeed::Fixed(
                env("PROPTEST_RNG_SEED").unwrap_or(20261202),
            ),
            ..ProptestConfig::default()
        }
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn random_cross_stream_sequences_are_safe_and_leak_free(
            streams in 2usize..5,
            ops in proptest::collection::vec(op(4), 1..160),
        ) {
            let ops = ops.into_iter().map(|op| match op {
                Op::Alloc { stream, pages_x16 } => Op::Alloc { stream: stream % streams, pages_x16 },
                Op::Access { tensor, stream } => Op::Access { tensor, stream: stream % streams },
                Op::Record { src, dst } => Op::Record { src: src % streams, dst: dst % streams },
                other => other,
            }).collect();
            run(streams, 1 << 20, ops)?;
        }

        #[test]
        fn under_memory_pressure_too(
            ops in proptest::collection::vec(op(3), 1..160),
        ) {
            run(3, 24, ops)?;
        }
    }
}
