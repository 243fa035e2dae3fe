//! L3 `BorrowAllocator` (GE's `kernel/memory/borrow_allocator.cc`): blocks born on other
//! streams that this stream freed last. They wait here until an event to their birth
//! stream takes them home ([`BorrowAllocator::take_born_on`]), and meanwhile this stream
//! may re-use them when its own pool is exhausted ([`BorrowAllocator::alloc`]).

use super::BlockId;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Indexed twice, as GE does: by block size (best fit) and by birth stream.
#[derive(Debug, Default)]
pub struct BorrowAllocator {
    by_size: BTreeMap<u64, BTreeSet<BlockId>>,
    by_birth_stream: HashMap<usize, BTreeSet<BlockId>>,
}

impl BorrowAllocator {
    /// Best fit: a block of the smallest size `>= size` (`lower_bound`).
    ///
    /// GE's `Alloc`, after taking the last block of the bucket it found, erases the key
    /// `size` (the *requested* size) instead of the bucket's own key, so an empty bucket
    /// stays in the map and a later `lower_bound` landing on it dereferences
    /// `begin()` of an empty set. What GE means is to erase the emptied bucket; this
    /// does that.
    pub fn alloc(
        &mut self,
        size: u64,
        birth_stream_of: impl Fn(BlockId) -> usize,
    ) -> Option<BlockId> {
        let (&key, blocks) = self.by_size.range_mut(size..).next()?;
        let block = *blocks.iter().next()?;
        blocks.remove(&block);
        if blocks.is_empty() {
            self.by_size.remove(&key);
        }
        let birth = birth_stream_of(block);
        if let Some(set) = self.by_birth_stream.get_mut(&birth) {
            set.remove(&block);
            if set.is_empty() {
                self.by_birth_stream.remove(&birth);
            }
        }
        Some(block)
    }

    /// Files `block` (of `size` bytes, born on `birth_stream`) under both indexes.
    pub fn free(&mut self, block: BlockId, size: u64, birth_stream: usize) {
        self.by_size.entry(size).or_default().insert(block);
        self.by_birth_stream
            .entry(birth_stream)
            .or_default()
            .insert(block);
    }

    /// `GetAndClearBorrowBlocks(stream)`: every block born on `stream`, out of both
    /// indexes (they travel with an event to their birth stream).
    pub fn take_born_on(
        &mut self,
        stream: usize,
        size_of: impl Fn(BlockId) -> u64,
    ) -> Vec<BlockId> {
        let Some(blocks) = self.by_birth_stream.remove(&stream) else {
            return Vec::new();
        };
        for &block in &blocks {
            let size = size_of(block);
            if let Some(bucket) = self.by_size.get_mut(&size) {
                bucket.remove(&block);
                if bucket.is_empty() {
                    self.by_size.remove(&size);
                }
            }
        }
        blocks.into_iter().collect()
    }

    pub fn len(&self) -> usize {
        self.by_size.values().map(BTreeSet::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.by_size.is_empty()
    }

    /// Whether no size bucket is empty (the invariant GE's bug breaks).
    pub fn buckets_are_non_empty(&self) -> bool {
        self.by_size.values().all(|set| !set.is_empty())
    }
}
