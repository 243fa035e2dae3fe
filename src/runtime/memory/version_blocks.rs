//! `VersionBlocks` (GE's `kernel/memory/version_blocks.h`): a stream's list of
//! local-recycle entries (version, block, sent bitmask) walked when events are sent.
//! An entry is dropped when its block has moved on (the version no longer matches: the
//! block was recycled and maybe re-used since) or when it has been sent to every other
//! stream; [`FindMode::Next`] hands each entry once to each destination.

use super::BlockId;

/// A block as it was when it was queued: the version tells later readers whether the
/// message is stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionBlock {
    pub version: u64,
    pub block: BlockId,
}

/// A local-recycle entry and the streams it has been sent to (bit per stream).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamedVersionBlock {
    pub version_block: VersionBlock,
    pub sent_flags: u64,
}

/// GE's two `FindNextPolicy`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindMode {
    /// `FindNext(dst)`: skip entries already sent to `dst`, mark the others sent to it.
    Next { dst: usize },
    /// `FindNextForAll` (LastWaitEvents' final clean-up): every live entry, marked sent
    /// to every other stream.
    ForAll,
}

fn bit(stream: usize) -> u64 {
    1u64 << stream
}

/// `ToAllBit(n, own)`: every stream's bit but `own`'s.
pub fn all_other_bits(stream_num: usize, own: usize) -> u64 {
    let all = if stream_num >= 64 {
        u64::MAX
    } else {
        (1u64 << stream_num) - 1
    };
    all & !bit(own)
}

/// Walks `entries` (the list of stream `own`, in a model of `stream_num` streams) as
/// `VersionBlocks<mode>` does from `Begin()` to `End()`: drops stale and fully sent
/// entries, marks and returns the rest. `version_of` reads a block's current version.
pub fn take(
    entries: &mut Vec<StreamedVersionBlock>,
    own: usize,
    stream_num: usize,
    mode: FindMode,
    version_of: impl Fn(BlockId) -> u64,
) -> Vec<VersionBlock> {
    let all_sent = all_other_bits(stream_num, own);
    let mut found = Vec::new();
    entries.retain_mut(|entry| {
        if entry.version_block.version != version_of(entry.version_block.block) {
            return false;
        }
        if entry.sent_flags == all_sent {
            return false;
        }
        match mode {
            FindMode::Next { dst } => {
                if entry.sent_flags & bit(dst) == 0 {
                    entry.sent_flags |= bit(dst);
                    found.push(entry.version_block);
                }
            }
            FindMode::ForAll => {
                entry.sent_flags |= all_sent;
                found.push(entry.version_block);
            }
        }
        true
    });
    found
}
