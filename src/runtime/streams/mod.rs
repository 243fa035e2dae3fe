//! Device streams at run time, as GE's runtimes get them: `gert::StreamAllocator` (the
//! dynamic runtime's slots, [`slots`]) and `ge::ReusableStreamAllocator` (runtime v1's pool
//! shared by the models of one process, [`reusable`]), both over a [`StreamFactory`] so their
//! rules are tested without a device and run on ACL ([`AclStreams`]).

pub mod reusable;
pub mod slots;

use crate::runtime::{
    acl::{Acl, Stream},
    error::RuntimeError,
};
use std::sync::Arc;

pub use reusable::{ReusableStreamAllocator, ReusePolicy, StreamId, StreamKey, StreamStats};
pub use slots::{StreamAllocator, StreamSlot, MAX_STREAM_NUM};

/// Creates and destroys device streams: ACL on a device, a counter in tests.
pub trait StreamFactory {
    type Stream;
    /// `rtStreamCreateWithFlags(priority, flags)`.
    fn create(&mut self, priority: u32, flags: u32) -> Result<Self::Stream, RuntimeError>;
    /// `aclrtDestroyStream`, or with `force` GE's `aclrtDestroyStreamForce` (which does not
    /// wait for the stream's own completion first; our ACL subset has no such call, so
    /// [`AclStreams`] synchronises and then destroys).
    fn destroy(&mut self, stream: Self::Stream, force: bool) -> Result<(), RuntimeError>;
}

/// Streams of the current ACL device.
pub struct AclStreams {
    pub acl: Arc<Acl>,
    /// Bound of the synchronisation before a forced destroy.
    pub sync_timeout_ms: i32,
}

impl StreamFactory for AclStreams {
    type Stream = Stream;

    fn create(&mut self, priority: u32, flags: u32) -> Result<Stream, RuntimeError> {
        self.acl.create_stream(priority, flags)
    }

    fn destroy(&mut self, stream: Stream, force: bool) -> Result<(), RuntimeError> {
        if force {
            self.acl.synchronize_stream(&stream, self.sync_timeout_ms)?;
        }
        stream.release()
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! A factory that counts, numbers its streams and fails on demand.
    use super::StreamFactory;
    use crate::runtime::error::RuntimeError;

    /// Stream `n` is the `n`-th created (from 1); creation fails once `limit` are alive.
    #[derive(Debug, Default)]
    pub struct CountingStreams {
        pub created: u32,
        pub alive: Vec<u32>,
        pub destroyed: Vec<(u32, bool)>,
        pub limit: Option<usize>,
    }

    impl StreamFactory for CountingStreams {
        type Stream = u32;

        fn create(&mut self, _priority: u32, _flags: u32) -> Result<u32, RuntimeError> {
            if self.limit.is_some_and(|limit| self.alive.len() >= limit) {
                return Err(RuntimeError::Acl {
                    function: "aclrtCreateStreamWithConfig",
                    code: 207_000,
                    message: "no stream left".to_owned(),
                    location: None,
                });
            }
            self.created += 1;
            self.alive.push(self.created);
            Ok(self.created)
        }

        fn destroy(&mut self, stream: u32, force: bool) -> Result<(), RuntimeError> {
            self.alive.retain(|&s| s != stream);
            self.destroyed.push((stream, force));
            Ok(())
        }
    }
}
