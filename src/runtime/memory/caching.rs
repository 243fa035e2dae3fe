//! L1 `CachingMemAllocator` (GE's `kernel/memory/caching_mem_allocator.cc`): a
//! [`ScalableAllocator`] over device memory (`aclrtMalloc` / `aclrtFree` behind
//! [`DeviceMemory`]), shared by every stream's L2 pool.

use super::{
    scalable::{Fetch, Root, ScalableAllocator, ScalableConfig, SpanId},
    DeviceMemory, MemError, RetryLog, RetryStep,
};

/// A block of L1: a span of its scalable allocator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct L1Block {
    pub span: SpanId,
    pub addr: u64,
    pub bytes: u64,
}

/// See the module documentation.
#[derive(Debug)]
pub struct CachingMemAllocator {
    pool: ScalableAllocator,
    /// The stream GE's L1 synchronises before it recycles (its `stream_`).
    stream: usize,
    device_mallocs: u64,
}

impl CachingMemAllocator {
    pub fn new(config: ScalableConfig, stream: usize) -> Self {
        Self {
            pool: ScalableAllocator::new(config),
            stream,
            device_mallocs: 0,
        }
    }

    pub fn pool(&self) -> &ScalableAllocator {
        &self.pool
    }

    /// `aclrtMalloc` calls made so far.
    pub fn device_mallocs(&self) -> u64 {
        self.device_mallocs
    }

    fn try_alloc(
        &mut self,
        device: &mut dyn DeviceMemory,
        size: u64,
    ) -> Result<Option<L1Block>, MemError> {
        let span = match self.pool.fetch(size)? {
            Fetch::Span(span) => span,
            Fetch::OverCap => return Ok(None),
            Fetch::NeedRoot { bytes } => {
                self.device_mallocs += 1;
                match device.malloc(bytes)? {
                    Some(addr) => self.pool.add_root(Root {
                        handle: addr,
                        addr,
                        bytes,
                    }),
                    None => return Ok(None),
                }
            }
        };
        Ok(Some(L1Block {
            span,
            addr: self.pool.span_addr(span),
            bytes: self.pool.span_bytes(span),
        }))
    }

    /// `Malloc` (`AllocateWithTryRecycle`): the pool; on failure wait for launches,
    /// synchronise the stream, give idle roots back to the device and retry once. GE then
    /// tries the other L1 allocators of the thread; there is one L1 per device here, so
    /// the caller (the L2 layer) goes on to recycle its pools. `Ok(None)`: out of memory.
    pub fn malloc(
        &mut self,
        device: &mut dyn DeviceMemory,
        size: u64,
        log: &mut RetryLog,
    ) -> Result<Option<L1Block>, MemError> {
        if let Some(block) = self.try_alloc(device, size)? {
            return Ok(Some(block));
        }
        log.push(RetryStep::WaitForLaunches {
            level: 1,
            stream: self.stream,
        });
        device.wait_for_launches()?;
        log.push(RetryStep::Synchronize {
            level: 1,
            stream: self.stream,
        });
        device.synchronize(self.stream)?;
        self.recycle(device, log)?;
        log.push(RetryStep::Retry {
            level: 1,
            stream: self.stream,
        });
        self.try_alloc(device, size)
    }

    /// `Free`: back to the cache (or to the device when too large to cache).
    pub fn free(&mut self, device: &mut dyn DeviceMemory, block: L1Block) -> Result<(), MemError> {
        if let Some(root) = self.pool.free(block.span)? {
            device.free(root.handle)?;
        }
        Ok(())
    }

    /// `Recycle`: idle whole roots back to the device.
    pub fn recycle(
        &mut self,
        device: &mut dyn DeviceMemory,
        log: &mut RetryLog,
    ) -> Result<(), MemError> {
        log.push(RetryStep::Recycle {
            level: 1,
            stream: self.stream,
        });
        for root in self.pool.recycle() {
            device.free(root.handle)?;
        }
        Ok(())
    }

    /// `Finalize`: every root back to the device; the number of blocks still occupied.
    pub fn finalize(&mut self, device: &mut dyn DeviceMemory) -> Result<usize, MemError> {
        let (roots, leaked) = self.pool.release_all();
        for root in roots {
            device.free(root.handle)?;
        }
        Ok(leaked)
    }
}
