//! `gert::StreamAllocator` (GE `base/common/allocator/stream_allocator.cc`): the dynamic
//! runtime's streams as one continuous vector of at most [`MAX_STREAM_NUM`] slots. Slot 0
//! is the caller's stream (GE stores nullptr there: "run on the stream the user passed").
//! `AcquireStreams(n)` creates the missing slots `len..n` and never shrinks; `n` must be
//! below the capacity; a failed creation is reported and the streams created before it stay
//! (GE sets the size after each success). Dropping the allocator destroys slots 1.. .

use super::StreamFactory;
use crate::runtime::error::RuntimeError;

/// GE's `kMaxStreamNum`.
pub const MAX_STREAM_NUM: usize = 2024;

/// One slot of the vector.
#[derive(Debug, PartialEq, Eq)]
pub enum StreamSlot<S> {
    /// Slot 0: whatever stream the caller executes on.
    Caller,
    Created(S),
}

pub struct StreamAllocator<F: StreamFactory> {
    factory: F,
    priority: u32,
    flags: u32,
    slots: Vec<StreamSlot<F::Stream>>,
}

impl<F: StreamFactory> StreamAllocator<F> {
    /// GE's constructor: the default priority and flags of every stream it creates, and a
    /// size of 1 (the caller's slot).
    pub fn new(factory: F, priority: u32, flags: u32) -> Self {
        Self {
            factory,
            priority,
            flags,
            slots: vec![StreamSlot::Caller],
        }
    }

    /// GE's `AcquireStreams(stream_num)`: at least `stream_num` slots (slot 0 included),
    /// creating the missing ones. Returns every slot held, which may be more than asked.
    pub fn acquire_streams(
        &mut self,
        stream_num: usize,
    ) -> Result<&[StreamSlot<F::Stream>], RuntimeError> {
        if stream_num >= MAX_STREAM_NUM {
            return Err(RuntimeError::Input(format!(
                "AcquireStreams({stream_num}): at most {} streams (kMaxStreamNum {MAX_STREAM_NUM}, \
                 the caller's stream in slot 0 included)",
                MAX_STREAM_NUM - 1
            )));
        }
        for slot in self.slots.len()..stream_num {
            let stream = self
                .factory
                .create(self.priority, self.flags)
                .map_err(|e| {
                    e.at(|| format!("AcquireStreams({stream_num}): creating slot {slot}"))
                })?;
            self.slots.push(StreamSlot::Created(stream));
        }
        Ok(&self.slots)
    }

    /// The slots held (GE's `Streams()`).
    pub fn streams(&self) -> &[StreamSlot<F::Stream>] {
        &self.slots
    }

    pub fn factory(&self) -> &F {
        &self.factory
    }

    /// Destroys slots 1.. now, reporting the first failure (the drop ignores errors).
    pub fn release(mut self) -> Result<(), RuntimeError> {
        self.destroy_all()
    }

    fn destroy_all(&mut self) -> Result<(), RuntimeError> {
        let mut first = Ok(());
        for slot in self.slots.drain(1..) {
            if let StreamSlot::Created(stream) = slot {
                let outcome = self.factory.destroy(stream, false);
                if first.is_ok() {
                    first = outcome;
                }
            }
        }
        first
    }
}

impl<F: StreamFactory> Drop for StreamAllocator<F> {
    fn drop(&mut self) {
        let _ = self.destroy_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::streams::testing::CountingStreams;

    fn created(slots: &[StreamSlot<u32>]) -> Vec<u32> {
        slots
            .iter()
            .filter_map(|s| match s {
                StreamSlot::Created(n) => Some(*n),
                StreamSlot::Caller => None,
            })
            .collect()
    }

    #[test]
    fn slot_zero_is_the_callers_stream_and_nothing_is_created_up_front() {
        let allocator = StreamAllocator::new(CountingStreams::default(), 0, 0);
        assert_eq!(allocator.streams(), &[StreamSlot::Caller]);
        assert_eq!(allocator.factory().created, 0);
    }

    #[test]
    fn acquire_creates_the_missing_slots_and_never_shrinks() {
        let mut allocator = StreamAllocator::new(CountingStreams::default(), 0, 0);
        assert_eq!(allocator.acquire_streams(0).unwrap().len(), 1);
        assert_eq!(allocator.acquire_streams(1).unwrap().len(), 1);
        assert_eq!(created(allocator.acquire_streams(4).unwrap()), [1, 2, 3]);
        // fewer than held: the same slots, nothing destroyed
        assert_eq!(created(allocator.acquire_streams(2).unwrap()), [1, 2, 3]);
        assert_eq!(created(allocator.acquire_streams(5).unwrap()), [1, 2, 3, 4]);
        assert_eq!(allocator.factory().created, 4);
        assert!(allocator.factory().destroyed.is_empty());
    }

    #[test]
    fn the_capacity_bound_is_rejected_before_anything_is_created() {
        let mut allocator = StreamAllocator::new(CountingStreams::default(), 0, 0);
        let error = allocator.acquire_streams(MAX_STREAM_NUM).unwrap_err();
        assert!(error.to_string().contains("kMaxStreamNum 2024"), "{error}");
        assert_eq!(allocator.factory().created, 0);
        assert_eq!(
            allocator.acquire_streams(MAX_STREAM_NUM - 1).unwrap().len(),
            MAX_STREAM_NUM - 1
        );
    }

    #[test]
    fn a_failed_creation_is_reported_and_earlier_slots_stay() {
        let factory = CountingStreams {
            limit: Some(2),
            ..Default::default()
        };
        let mut allocator = StreamAllocator::new(factory, 0, 0);
        let error = allocator.acquire_streams(5).unwrap_err();
        assert!(error.to_string().contains("creating slot 3"), "{error}");
        assert_eq!(created(allocator.streams()), [1, 2]);
    }

    #[test]
    fn release_destroys_every_created_slot() {
        let mut allocator = StreamAllocator::new(CountingStreams::default(), 0, 0);
        allocator.acquire_streams(3).unwrap();
        let mut factory_view = Vec::new();
        allocator.destroy_all().unwrap();
        factory_view.extend(allocator.factory().destroyed.iter().copied());
        assert_eq!(factory_view, [(1, false), (2, false)]);
        assert_eq!(allocator.streams(), &[StreamSlot::Caller]);
    }
}
