//! The memory side of GE's event kernels (`kernel/common_kernel_impl/event.cc`) and its
//! `EventAllocator` (`inc/framework/runtime/event_allocator.h`).
//!
//! An event from stream `src` to stream `dst` carries recycle state: [`send_event`]
//! (before `aclrtRecordEvent` on `src`) packs `src`'s local-recycle entries not yet sent
//! to `dst`, each with `src`'s occupy mask of it as it is at the record, and the borrowed
//! blocks born on `dst`; [`wait_event`] (after `aclrtStreamWaitEvent` on `dst`) merges
//! those masks into `dst`'s view of each block whose version still matches (stale ones
//! are skipped: the block moved on) and birth-recycles the blocks that came home.
//! Because `dst`'s later work is ordered after the record, whatever `dst` recycles then
//! is no longer used by any work `src` knew done at the record.
//!
//! **Where this deviates from GE.** GE's `WaitEvent` merges the sender's mask as it is
//! when the wait runs on the host, which can be after the sender waited for a third
//! stream's event recorded later than this one: the receiver then learns a clear its
//! own work is not ordered after, and re-uses memory the third stream may still be
//! using. Reading the mask at the record (what GE's design means: the recycle state is
//! packed into the event at `SendEvents`) closes that; a clear the sender learns later
//! reaches the receiver by another event of its own stream or at last-resource-clean.
//! [`last_wait_events`] is the last-resource-clean stage.

use super::{
    multi_stream::{MultiStreamMemory, OccupyView},
    version_blocks::VersionBlock,
    BlockId, DeviceMemory, MemError,
};

/// A local-recycle entry as an event carries it: the block and version, and the
/// sender's occupy mask of it at the record (`src_view`).
///
/// GE's event carries the `VersionBlock` alone and its wait reads the sender's mask
/// as it is then; see [`MultiStreamMemory::sync_local_recycle_status`] for why the
/// mask is read at the record here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SentBlock {
    pub version_block: VersionBlock,
    pub src_view: OccupyView,
}

/// GE's `GertEvent::space`: what an event carries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventSpace {
    pub block_free_by_src_stream: Vec<SentBlock>,
    pub block_need_return_birth: Vec<BlockId>,
}

/// A logical event from `src_stream` to `dst_stream` (GE's `GertEvent`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GertEvent {
    pub logic_id: usize,
    pub src_stream: usize,
    pub dst_stream: usize,
    pub space: EventSpace,
}

/// `SendEvent`'s memory part; the caller then records the event on `src_stream`.
pub fn send_event<D: DeviceMemory>(
    memory: &mut MultiStreamMemory<D>,
    event: &mut GertEvent,
) -> Result<(), MemError> {
    for version_block in memory.local_recycle_blocks_for(event.src_stream, event.dst_stream)? {
        // The sender's view now, which is its view at the record: only the sender's own
        // frees and waits change it, and the host runs those in the sender's order.
        let src_view = memory.occupy_view(version_block.block, event.src_stream)?;
        event.space.block_free_by_src_stream.push(SentBlock {
            version_block,
            src_view,
        });
    }
    let home = memory.take_borrow_blocks(event.src_stream, event.dst_stream)?;
    event.space.block_need_return_birth.extend(home);
    Ok(())
}

/// `WaitEvent`'s memory part; the caller has made `dst_stream` wait for the event.
/// Returns how many stale entries it ignored.
pub fn wait_event<D: DeviceMemory>(
    memory: &mut MultiStreamMemory<D>,
    event: &mut GertEvent,
) -> Result<usize, MemError> {
    let mut stale = 0;
    for sent in std::mem::take(&mut event.space.block_free_by_src_stream) {
        let entry = sent.version_block;
        if memory.block(entry.block)?.version() != entry.version {
            // Another stream already recycled it after this was sent: old news.
            stale += 1;
            continue;
        }
        memory.sync_local_recycle_status(
            entry.block,
            event.src_stream,
            event.dst_stream,
            sent.src_view,
        )?;
    }
    for block in std::mem::take(&mut event.space.block_need_return_birth) {
        memory.birth_recycle(event.dst_stream, block)?;
    }
    memory.note_stale(stale as u64);
    Ok(stale)
}

/// `LastWaitEvents`' memory part (after the main stream waited for every other stream):
/// every local-recycle entry synchronised with all streams on its birth stream, every
/// borrowed block birth-recycled, every pool's idle memory back to L1.
pub fn last_wait_events<D: DeviceMemory>(
    memory: &mut MultiStreamMemory<D>,
) -> Result<(), MemError> {
    let n = memory.stream_num();
    for src in 0..n {
        for entry in memory.local_recycle_blocks_for_all(src)? {
            if memory.block(entry.block)?.version() != entry.version {
                continue;
            }
            let birth = memory.block(entry.block)?.birth_stream();
            memory.sync_all_local_recycle_status(entry.block, birth)?;
        }
        for dst in 0..n {
            for block in memory.take_borrow_blocks(src, dst)? {
                let birth = memory.block(block)?.birth_stream();
                memory.birth_recycle(birth, block)?;
            }
        }
    }
    for stream in 0..n {
        memory.recycle_free_mem(stream)?;
    }
    Ok(())
}

/// GE's `EventAllocator::kMaxEventNum`.
pub const MAX_EVENTS: usize = 4096;

/// `EventAllocator`: events created on demand with the SYNC flag, never reset (a record
/// replaces the last one), never destroyed before the allocator, so the set only grows.
#[derive(Debug)]
pub struct EventAllocator<E> {
    events: Vec<E>,
}

impl<E> Default for EventAllocator<E> {
    fn default() -> Self {
        Self { events: Vec::new() }
    }
}

impl<E> EventAllocator<E> {
    /// `AcquireEvents(n)`: the first `n` events, creating the missing ones with `create`;
    /// more than [`MAX_EVENTS`] is an error.
    pub fn acquire_events(
        &mut self,
        n: usize,
        mut create: impl FnMut() -> Result<E, MemError>,
    ) -> Result<&[E], MemError> {
        if n > MAX_EVENTS {
            return Err(MemError::TooManyEvents {
                asked: n,
                max: MAX_EVENTS,
            });
        }
        while self.events.len() < n {
            self.events.push(create()?);
        }
        Ok(&self.events[..n])
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Every event created so far.
    pub fn events(&self) -> &[E] {
        &self.events
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The events, for their release.
    pub fn into_events(self) -> Vec<E> {
        self.events
    }
}
