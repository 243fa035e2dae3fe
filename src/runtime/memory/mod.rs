//! GE's dynamic-shape runtime memory (`runtime/v2/kernel/memory`): allocation per tensor
//! at run time, per stream, safe across streams without a device-wide lock.
//!
//! Three levels:
//! * L1 [`CachingMemAllocator`] ([`caching`]): GE's [`ScalableAllocator`] ([`scalable`])
//!   over device memory ([`DeviceMemory`]: `aclrtMalloc` / `aclrtFree` in the executor,
//!   a fake in tests).
//! * L2, per stream ([`multi_stream`]): an `L2MemPool` (a scalable allocator over L1) and
//!   the `MultiStreamL2Allocator` logic; blocks are [`MultiStreamMemBlock`]s with a use
//!   count per stream, a version and an occupy [`Mif`] ([`mif`]).
//! * L3 [`BorrowAllocator`] ([`borrow`]): blocks born elsewhere, waiting to go home.
//!
//! Recycle state travels with events ([`events`]; `VersionBlocks` in
//! [`version_blocks`]).
//!
//! # Call sequence (what the dynamic executor does; other runtimes do the same)
//! ```text
//! let mut mem = MultiStreamMemory::new(device, stream_num, ScalableConfig::for_device(hbm))?;
//! // first sync stage: main stream -> every sub stream (send_event / record, wait / wait_event)
//! let b = mem.malloc(producer_stream, bytes)?;          // when the tensor is produced
//! mem.wander_from(b, producer_stream, consumer_stream)?; // AccessMemCrossStream, per other stream
//! // ... launch kernels on mem.block(b)?.addr() ...
//! mem.free(stream, b)?;                                  // after the last use on each stream using it
//! events::send_event(&mut mem, &mut ev)?; record(ev);    // each cross-stream event
//! wait(ev); events::wait_event(&mut mem, &mut ev)?;
//! // last sync stage: every sub stream -> main; then last-resource-clean:
//! events::last_wait_events(&mut mem)?;
//! let report = mem.finalize()?;                          // leaks counted, device memory freed
//! ```
//! Every failure is a [`MemError`]; an allocation that cannot be satisfied after GE's
//! recovery order (wait for launches, synchronise, recycle, retry: L1, then every L2
//! pool, then the stream's own pool, then the borrow pool) is
//! [`MemError::OutOfMemory`], and nothing is held for it.

pub mod borrow;
pub mod caching;
pub mod events;
pub mod mif;
pub mod multi_stream;
pub mod scalable;
pub mod version_blocks;

#[cfg(test)]
mod tests;

pub use borrow::BorrowAllocator;
pub use caching::CachingMemAllocator;
pub use events::{EventAllocator, GertEvent};
pub use mif::Mif;
pub use multi_stream::{
    FinalizeReport, MemStats, MultiStreamMemBlock, MultiStreamMemory, SingleStreamL2Allocator,
};
pub use scalable::{ScalableAllocator, ScalableConfig};

/// A block record's number in its [`MultiStreamMemory`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockId(pub u32);

/// Device bytes, as the L1 allocator needs them.
pub trait DeviceMemory {
    /// `aclrtMalloc`: the address, or `Ok(None)` when the device is out of memory.
    fn malloc(&mut self, bytes: u64) -> Result<Option<u64>, MemError>;
    /// `aclrtFree` of an address `malloc` returned.
    fn free(&mut self, addr: u64) -> Result<(), MemError>;
    /// GE's `WaitForLaunchSubmissions`: launches queued by other host threads are
    /// submitted (nothing to do for a single-threaded launcher).
    fn wait_for_launches(&mut self) -> Result<(), MemError> {
        Ok(())
    }
    /// `aclrtSynchronizeStream` of logical stream `stream`.
    fn synchronize(&mut self, stream: usize) -> Result<(), MemError>;
}

/// One step of the recovery from a failed allocation, for traces and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryStep {
    WaitForLaunches { level: u8, stream: usize },
    Synchronize { level: u8, stream: usize },
    Recycle { level: u8, stream: usize },
    Retry { level: u8, stream: usize },
    Borrow { stream: usize },
    OutOfMemory { stream: usize },
}

/// The last [`RetryLog::CAPACITY`] recovery steps and how many there were.
#[derive(Debug, Clone, Default)]
pub struct RetryLog {
    steps: std::collections::VecDeque<RetryStep>,
    total: u64,
}

impl RetryLog {
    pub const CAPACITY: usize = 4096;

    pub fn push(&mut self, step: RetryStep) {
        if self.steps.len() == Self::CAPACITY {
            self.steps.pop_front();
        }
        self.steps.push_back(step);
        self.total += 1;
    }

    pub fn steps(&self) -> Vec<RetryStep> {
        self.steps.iter().copied().collect()
    }

    pub fn total(&self) -> u64 {
        self.total
    }

    pub fn clear(&mut self) {
        self.steps.clear();
    }
}

/// What can go wrong in run-time memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemError {
    /// More streams than a MIF mask has bits (or none).
    TooManyStreams {
        streams: usize,
    },
    /// One request above the total cap.
    TooLarge {
        size: u64,
        cap: u64,
    },
    /// Nothing left after every recovery step.
    OutOfMemory {
        stream: usize,
        size: u64,
        held: u64,
        cap: u64,
    },
    BadStream {
        stream: usize,
        streams: usize,
    },
    /// A block id that is not live (double free, use after recycle).
    BadBlock {
        block: BlockId,
    },
    BadFree {
        what: &'static str,
        id: usize,
    },
    /// `AccessMemCrossStream` within one stream.
    SameStream {
        block: BlockId,
        stream: usize,
    },
    TooManyEvents {
        asked: usize,
        max: usize,
    },
    /// A broken invariant of the recycle state.
    Inconsistent(String),
    /// The device layer failed (an ACL error).
    Device(String),
}

impl std::fmt::Display for MemError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemError::TooManyStreams { streams } => write!(
                f,
                "{streams} streams: run-time memory supports 1 to {} (the width of a MIF mask)",
                mif::MAX_STREAMS
            ),
            MemError::TooLarge { size, cap } => {
                write!(
                    f,
                    "a request of {size} bytes is above the memory pool's cap of {cap} bytes"
                )
            }
            MemError::OutOfMemory {
                stream,
                size,
                held,
                cap,
            } => write!(
                f,
                "out of device memory: {size} bytes on stream {stream} after waiting, \
                 synchronising, recycling and retrying every pool ({held} bytes held, cap {cap})"
            ),
            MemError::BadStream { stream, streams } => {
                write!(f, "stream {stream} out of range ({streams} streams)")
            }
            MemError::BadBlock { block } => write!(f, "block {} is not allocated", block.0),
            MemError::BadFree { what, id } => write!(f, "free of {what} {id}, which is not in use"),
            MemError::SameStream { block, stream } => write!(
                f,
                "AccessMemCrossStream of block {} within stream {stream}",
                block.0
            ),
            MemError::TooManyEvents { asked, max } => {
                write!(
                    f,
                    "{asked} events asked for, the event allocator holds at most {max}"
                )
            }
            MemError::Inconsistent(what) => write!(f, "inconsistent recycle state: {what}"),
            MemError::Device(what) => write!(f, "{what}"),
        }
    }
}

impl std::error::Error for MemError {}
