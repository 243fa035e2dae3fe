//! The execute graph's tensor memory as gert manages it: a buffer per kernel output, a
//! reference count that `IdentityAddr` raises and each `FreeMemory` guarder lowers, and
//! the release when it reaches zero. User inputs and weights are memory nobody frees; a
//! view (a `Reshape` or `Phony*` output) lives in the memory of the buffers it views.
//!
//! Every read checks that the memory is still held, so a guarder that frees a tensor too
//! early (a branch's guarder on a tensor the parent still reads) is an error at the reader
//! naming the guarder, not a silently wrong value; a released buffer is also overwritten
//! with a poison pattern, as a reused block would be. After the run every buffer must be
//! released: one left is a leak (a plus-ref nobody releases).

use crate::rtgraph::model::Placement;
use crate::runtime::tensor::HostTensor;

/// Index of a buffer in the [`Buffers`] table.
pub type BufId = usize;

/// Who holds a buffer's memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// A kernel output: counted, released by guarders.
    Counted,
    /// A model input or a weight: nobody frees it (a guarder or plus-ref on it does nothing,
    /// as gert's `FreeMemory` on a tensor without an allocator block).
    Model,
    /// A view of other buffers' memory (Reshape, PhonyConcat, PhonySplit).
    View(Vec<BufId>),
}

/// One buffer.
#[derive(Debug, Clone)]
pub struct Buffer {
    pub tensor: HostTensor,
    pub placement: Placement,
    pub owner: Owner,
    /// The node that made it (`@graph` `node`), for messages.
    pub made_by: String,
    /// References held (counted buffers).
    pub refs: u32,
    /// The guarder that released it, once released.
    pub released_by: Option<String>,
    /// The device finished writing it (a `SyncStream` on its producer), so the host may
    /// copy it out.
    pub synced: bool,
}

/// The byte that overwrites released memory.
pub const POISON: u8 = 0xA5;

/// Why a buffer cannot be used or released.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LifetimeFault {
    /// Read after its memory was released (by the named guarder).
    UseAfterRelease {
        made_by: String,
        released_by: String,
    },
    /// Released once more after its count reached zero.
    DoubleRelease {
        made_by: String,
        released_by: String,
    },
    /// A guarder releases a view, whose memory belongs to other buffers.
    ReleasesView { made_by: String },
}

impl std::fmt::Display for LifetimeFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LifetimeFault::UseAfterRelease {
                made_by,
                released_by,
            } => write!(
                f,
                "reads the output of {made_by} after {released_by} released its memory"
            ),
            LifetimeFault::DoubleRelease {
                made_by,
                released_by,
            } => write!(
                f,
                "releases the output of {made_by} again: {released_by} already released it"
            ),
            LifetimeFault::ReleasesView { made_by } => write!(
                f,
                "releases the output of {made_by}, a view of other tensors' memory"
            ),
        }
    }
}

/// All buffers of a run, and the bytes they hold.
#[derive(Debug, Default)]
pub struct Buffers {
    table: Vec<Buffer>,
    live_bytes: u64,
    /// The most counted bytes held at once.
    pub peak_bytes: u64,
    pub allocations: u64,
    pub releases: u64,
    pub plus_refs: u64,
}

impl Buffers {
    /// Overwrites a model buffer's bytes (a Variable written through a ref output).
    pub fn write_model(&mut self, id: BufId, bytes: Vec<u8>) {
        debug_assert_eq!(self.table[id].owner, Owner::Model);
        self.table[id].tensor.bytes = bytes;
    }

    pub fn get(&self, id: BufId) -> &Buffer {
        &self.table[id]
    }

    /// A new buffer holding `tensor`; a counted one starts with one reference (its
    /// guarder's).
    pub fn add(
        &mut self,
        tensor: HostTensor,
        placement: Placement,
        owner: Owner,
        made_by: String,
    ) -> BufId {
        if owner == Owner::Counted {
            self.allocations += 1;
            self.live_bytes += tensor.bytes.len() as u64;
            self.peak_bytes = self.peak_bytes.max(self.live_bytes);
        }
        self.table.push(Buffer {
            tensor,
            placement,
            owner,
            made_by,
            refs: 1,
            released_by: None,
            synced: false,
        });
        self.table.len() - 1
    }

    /// Checks that `id`'s memory (a view's: every viewed buffer's) is still held.
    pub fn check_live(&self, id: BufId) -> Result<(), LifetimeFault> {
        let b = &self.table[id];
        if let Some(by) = &b.released_by {
            return Err(LifetimeFault::UseAfterRelease {
                made_by: b.made_by.clone(),
                released_by: by.clone(),
            });
        }
        if let Owner::View(of) = &b.owner {
            for &v in of {
                self.check_live(v)?;
            }
        }
        Ok(())
    }

    /// `IdentityAddr`: one more reference to a counted buffer.
    pub fn add_ref(&mut self, id: BufId) {
        if self.table[id].owner == Owner::Counted {
            self.table[id].refs += 1;
            self.plus_refs += 1;
        }
    }

    /// A guarder (`by`) gives back one reference; at zero the memory is released and
    /// poisoned.
    pub fn release(&mut self, id: BufId, by: &str) -> Result<(), LifetimeFault> {
        let b = &mut self.table[id];
        match &b.owner {
            Owner::Model => return Ok(()),
            Owner::View(_) => {
                return Err(LifetimeFault::ReleasesView {
                    made_by: b.made_by.clone(),
                })
            }
            Owner::Counted => {}
        }
        if let Some(earlier) = &b.released_by {
            return Err(LifetimeFault::DoubleRelease {
                made_by: b.made_by.clone(),
                released_by: earlier.clone(),
            });
        }
        b.refs -= 1;
        if b.refs == 0 {
            b.released_by = Some(by.to_owned());
            b.tensor.bytes.fill(POISON);
            self.live_bytes -= b.tensor.bytes.len() as u64;
            self.releases += 1;
        }
        Ok(())
    }

    /// Marks `id` as written back to the host's view (a `SyncStream` ran after it).
    pub fn mark_synced(&mut self, id: BufId) {
        self.table[id].synced = true;
        if let Owner::View(of) = self.table[id].owner.clone() {
            for v in of {
                self.mark_synced(v);
            }
        }
    }

    /// Counted buffers still held: (made by, references left).
    pub fn leaks(&self) -> Vec<(String, u32)> {
        self.table
            .iter()
            .filter(|b| b.owner == Owner::Counted && b.released_by.is_none())
            .map(|b| (b.made_by.clone(), b.refs))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lowering::model::TensorDesc;
    use ascend_kernels::DType;

    fn t(n: usize) -> HostTensor {
        HostTensor {
            desc: TensorDesc {
                dtype: DType::U8,
                dims: vec![n as i64],
                format: 2,
            },
            bytes: vec![1; n],
        }
    }

    #[test]
    fn a_counted_buffer_lives_until_its_last_reference_is_released() {
        let mut b = Buffers::default();
        let x = b.add(t(4), Placement::Hbm, Owner::Counted, "`x`".into());
        b.add_ref(x);
        b.release(x, "`g1`").unwrap();
        assert_eq!(b.check_live(x), Ok(()));
        b.release(x, "`g2`").unwrap();
        assert_eq!(
            b.check_live(x),
            Err(LifetimeFault::UseAfterRelease {
                made_by: "`x`".into(),
                released_by: "`g2`".into()
            })
        );
        assert!(b.get(x).tensor.bytes.iter().all(|&v| v == POISON));
        assert_eq!(
            b.release(x, "`g3`"),
            Err(LifetimeFault::DoubleRelease {
                made_by: "`x`".into(),
                released_by: "`g2`".into()
            })
        );
        assert_eq!((b.allocations, b.releases, b.plus_refs), (1, 1, 1));
        assert!(b.leaks().is_empty());
    }

    #[test]
    fn views_die_with_their_memory_and_cannot_be_released() {
        let mut b = Buffers::default();
        let x = b.add(t(4), Placement::Hbm, Owner::Counted, "`x`".into());
        let v = b.add(t(4), Placement::Hbm, Owner::View(vec![x]), "`r`".into());
        assert!(matches!(
            b.release(v, "`g`"),
            Err(LifetimeFault::ReleasesView { .. })
        ));
        b.release(x, "`gx`").unwrap();
        assert!(matches!(
            b.check_live(v),
            Err(LifetimeFault::UseAfterRelease { .. })
        ));
    }

    #[test]
    fn model_memory_is_never_freed_and_unreleased_counted_memory_leaks() {
        let mut b = Buffers::default();
        let w = b.add(t(8), Placement::Hbm, Owner::Model, "`w`".into());
        b.add_ref(w);
        b.release(w, "`g`").unwrap();
        b.release(w, "`g`").unwrap();
        assert_eq!(b.check_live(w), Ok(()));
        let x = b.add(t(8), Placement::Hbm, Owner::Counted, "`x`".into());
        let y = b.add(t(16), Placement::Hbm, Owner::Counted, "`y`".into());
        assert_eq!(b.peak_bytes, 24);
        b.release(x, "`gx`").unwrap();
        assert_eq!(b.leaks(), vec![("`y`".to_string(), 1)]);
        let _ = y;
    }
}
