//! `Mif` (multi-stream independently maintained flags, GE's `kernel/memory/mif.h`): one
//! 64-bit mask per *maintained* (observing) stream; bit `s` of mask `m` says "stream `m`
//! believes stream `s` still occupies the block". Each stream only ever clears its own
//! bit in its own mask; other masks learn of it through events
//! ([`Mif::merge_cleared_from`]), which is what makes a recycle safe without a global lock
//! on the device side.

use super::MemError;
use smallvec::SmallVec;

/// GE's inline capacity (`kDefaultMaxStreamNum`): masks of up to 8 streams need no heap.
pub const DEFAULT_INLINE_STREAMS: usize = 8;
/// The bit width of a mask bounds the stream count.
pub const MAX_STREAMS: usize = 64;

/// See the module documentation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mif {
    masks: SmallVec<[u64; DEFAULT_INLINE_STREAMS]>,
}

impl Mif {
    /// `stream_num` cleared masks. More than [`MAX_STREAMS`] streams is an error (GE
    /// shifts past the bit width, which is undefined).
    pub fn new(stream_num: usize) -> Result<Self, MemError> {
        let mut mif = Mif::default();
        mif.re_init(stream_num)?;
        Ok(mif)
    }

    /// `ReInit`: every mask cleared, `stream_num` of them.
    pub fn re_init(&mut self, stream_num: usize) -> Result<(), MemError> {
        if stream_num > MAX_STREAMS {
            return Err(MemError::TooManyStreams {
                streams: stream_num,
            });
        }
        self.masks.clear();
        self.masks.resize(stream_num, 0);
        Ok(())
    }

    pub fn stream_num(&self) -> usize {
        self.masks.len()
    }

    fn bit(stream: usize) -> u64 {
        debug_assert!(stream < MAX_STREAMS);
        1u64 << stream
    }

    /// `Set(m, s)`: on maintained stream `m`, stream `s` occupies the block.
    pub fn set(&mut self, maintained: usize, stream: usize) {
        self.masks[maintained] |= Self::bit(stream);
    }

    /// `SetAll(s)`: every maintained stream learns that `s` occupies the block.
    pub fn set_all(&mut self, stream: usize) {
        let bit = Self::bit(stream);
        self.masks.iter_mut().for_each(|mask| *mask |= bit);
    }

    /// `SetMaintainedAll(m)`: on `m`, every stream (up to the stream count) occupies it.
    pub fn set_maintained_all(&mut self, maintained: usize) {
        let n = self.masks.len();
        self.masks[maintained] = if n == MAX_STREAMS {
            u64::MAX
        } else {
            (1u64 << n) - 1
        };
    }

    /// `Clear(m, s)`: on `m`, stream `s` no longer occupies the block.
    pub fn clear(&mut self, maintained: usize, stream: usize) {
        self.masks[maintained] &= !Self::bit(stream);
    }

    /// `MergeClearedFrom(src, dst)`: `mask[dst] &= mask[src]`: what `src` has seen
    /// cleared, `dst` now knows (an event from `src` to `dst` carried it).
    pub fn merge_cleared_from(&mut self, src: usize, dst: usize) {
        self.merge_cleared_view(dst, self.masks[src]);
    }

    /// `mask[dst] &= view`: what another stream's mask said when it was snapshotted
    /// (at an event's record, see [`super::events`]), `dst` now knows. The same
    /// operation as [`Mif::merge_cleared_from`], with the source mask taken earlier.
    pub fn merge_cleared_view(&mut self, dst: usize, view: u64) {
        self.masks[dst] &= view;
    }

    /// `IsSet(m, s)`.
    pub fn is_set(&self, maintained: usize, stream: usize) -> bool {
        self.masks[maintained] & Self::bit(stream) != 0
    }

    /// `IsAnySet(m)`: does `m` believe anyone still occupies the block?
    pub fn is_any_set(&self, maintained: usize) -> bool {
        self.masks[maintained] != 0
    }

    /// Mask `m`, for tests and traces.
    pub fn mask(&self, maintained: usize) -> u64 {
        self.masks[maintained]
    }
}
