//! [`DeviceMemory`] over ACL: `aclrtMalloc` / `aclrtFree`, and stream synchronisation for
//! the allocators' recovery. It owns the run's streams, since the allocators synchronise
//! them by logical number.

use crate::runtime::{
    acl::{Acl, DeviceBuffer, Stream},
    error::RuntimeError,
    memory::{DeviceMemory, MemError},
};
use std::{collections::HashMap, sync::Arc};

/// `ACL_ERROR_RT_MEMORY_ALLOCATION`: the device is full (a recoverable failure).
const OUT_OF_MEMORY: i32 = 207001;

pub struct AclDeviceMemory {
    acl: Arc<Acl>,
    pub streams: Vec<Stream>,
    buffers: HashMap<u64, DeviceBuffer>,
    timeout_ms: i32,
    /// `aclrtMalloc` calls that succeeded.
    pub mallocs: u64,
}

impl std::fmt::Debug for AclDeviceMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AclDeviceMemory({} buffers)", self.buffers.len())
    }
}

impl AclDeviceMemory {
    pub fn new(acl: &Arc<Acl>, streams: Vec<Stream>, timeout_ms: i32) -> Self {
        Self {
            acl: Arc::clone(acl),
            streams,
            buffers: HashMap::new(),
            timeout_ms,
            mallocs: 0,
        }
    }

    pub fn outstanding(&self) -> usize {
        self.buffers.len()
    }

    /// Frees whatever is still allocated and destroys the streams; the first error wins.
    pub fn release(&mut self) -> Result<(), RuntimeError> {
        let mut result = Ok(());
        for (_, buffer) in self.buffers.drain() {
            let outcome = buffer.release();
            if result.is_ok() {
                result = outcome;
            }
        }
        for stream in self.streams.drain(..) {
            let outcome = stream.release();
            if result.is_ok() {
                result = outcome;
            }
        }
        result
    }
}

impl DeviceMemory for AclDeviceMemory {
    fn malloc(&mut self, bytes: u64) -> Result<Option<u64>, MemError> {
        match self.acl.malloc(bytes) {
            Ok(buffer) => {
                let addr = buffer.ptr().0 as u64;
                self.buffers.insert(addr, buffer);
                self.mallocs += 1;
                Ok(Some(addr))
            }
            Err(RuntimeError::Acl { code, .. }) if code == OUT_OF_MEMORY => Ok(None),
            Err(error) => Err(MemError::Device(error.to_string())),
        }
    }

    fn free(&mut self, addr: u64) -> Result<(), MemError> {
        let buffer = self.buffers.remove(&addr).ok_or_else(|| {
            MemError::Device(format!("aclrtFree of {addr:#x}, which is not allocated"))
        })?;
        buffer
            .release()
            .map_err(|error| MemError::Device(error.to_string()))
    }

    fn synchronize(&mut self, stream: usize) -> Result<(), MemError> {
        let handle = self
            .streams
            .get(stream)
            .ok_or_else(|| MemError::Device(format!("stream {stream} does not exist")))?;
        self.acl
            .synchronize_stream(handle, self.timeout_ms)
            .map_err(|error| MemError::Device(error.to_string()))
    }
}
