//! Device memory: fake addresses, one byte buffer per allocation, and a bounds check on
//! every access.
//!
//! Addresses are never host pointers: device `d` hands out addresses from
//! `0x1000_0000_0000 + d << 40` upwards and never reuses one, so a stale pointer hits a
//! freed range (reported as such) instead of someone else's buffer. Allocations are
//! 64-byte aligned, their size rounded up to 32 bytes plus 32 more as on a real device,
//! and separated by a 64-byte gap that belongs to nobody, so a small overrun is caught.

use std::collections::BTreeMap;

use crate::errors::{fail, SimResult, INVALID_PARAM, RT_MEMORY_ALLOCATION, RT_MEMORY_FREE};

pub const DEVICE_BASE: u64 = 0x1000_0000_0000;
const DEVICE_SPAN_SHIFT: u32 = 40;
/// Fresh allocations hold this byte, so a kernel reading memory nobody wrote sees garbage.
pub const POISON_MALLOC: u8 = 0xA5;
/// Freed buffers are overwritten with this before they go.
pub const POISON_FREE: u8 = 0xDD;
const ALIGN: u64 = 64;
const GUARD: u64 = 64;

pub fn device_base(dev: u32) -> u64 {
    DEVICE_BASE + ((dev as u64) << DEVICE_SPAN_SHIFT)
}

/// The size a request occupies: rounded up to 32 bytes, plus 32 (ACL's `aclrtMalloc`).
pub fn rounded_size(size: u64) -> u64 {
    size.div_ceil(32) * 32 + 32
}

/// The kind of device memory an allocation is: ACL's malloc policies 0-2 give HBM, the
/// P2P variants 3-5 memory another device can reach (GE's `RT_MEMORY_P2P_DDR`, where
/// `_placement = "p2p"` outputs live).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MemKind {
    #[default]
    Hbm,
    P2p,
}

impl MemKind {
    /// The kind `aclrtMalloc`'s `policy` allocates (`None`: not a policy).
    pub fn of_policy(policy: i32) -> Option<MemKind> {
        match policy {
            0..=2 => Some(MemKind::Hbm),
            3..=5 => Some(MemKind::P2p),
            _ => None,
        }
    }
}

/// What the P2P kind held over the run (every device).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct P2pStats {
    pub mallocs: u64,
    /// Bytes live now and at most (rounded as allocated).
    pub live_bytes: u64,
    pub peak_bytes: u64,
}

#[derive(Debug)]
pub struct Allocation {
    pub dev: u32,
    pub requested: u64,
    pub data: Vec<u8>,
    pub kind: MemKind,
}

#[derive(Debug, Default)]
pub struct Memory {
    live: BTreeMap<u64, Allocation>,
    /// Ranges freed so far (base -> (len, device)), for the message of a use after free.
    freed: BTreeMap<u64, (u64, u32)>,
    next: Vec<u64>,
    used: Vec<u64>,
    pub p2p: P2pStats,
}

impl Memory {
    pub fn new(devices: u32) -> Memory {
        Memory {
            next: (0..devices).map(device_base).collect(),
            used: vec![0; devices as usize],
            ..Memory::default()
        }
    }

    /// The device whose address range holds `addr`, if any (host pointers are outside).
    pub fn device_of(&self, addr: u64) -> Option<u32> {
        if addr < DEVICE_BASE {
            return None;
        }
        let d = (addr - DEVICE_BASE) >> DEVICE_SPAN_SHIFT;
        (d < self.next.len() as u64).then_some(d as u32)
    }

    pub fn used(&self, dev: u32) -> u64 {
        self.used[dev as usize]
    }

    pub fn malloc(&mut self, dev: u32, size: u64, capacity: u64) -> SimResult<u64> {
        self.malloc_kind(dev, size, capacity, MemKind::Hbm)
    }

    /// The kind of the live allocation holding `addr`, if any.
    pub fn kind_of(&self, addr: u64) -> Option<MemKind> {
        self.find(addr, 1).map(|(_, a)| a.kind)
    }

    /// An allocation of `kind` (both kinds share the device's capacity).
    pub fn malloc_kind(
        &mut self,
        dev: u32,
        size: u64,
        capacity: u64,
        kind: MemKind,
    ) -> SimResult<u64> {
        if size == 0 {
            fail!(INVALID_PARAM, "aclrtMalloc: size 0 is not allowed");
        }
        let len = rounded_size(size);
        let used = self.used[dev as usize];
        if used.saturating_add(len) > capacity {
            fail!(
                RT_MEMORY_ALLOCATION,
                "aclrtMalloc: out of device memory on device {dev}: {size} bytes ({len} rounded) \
                 requested, {used} of {capacity} in use"
            );
        }
        let addr = self.next[dev as usize];
        let data = vec![POISON_MALLOC; len as usize];
        self.next[dev as usize] = (addr + len + GUARD).div_ceil(ALIGN) * ALIGN;
        self.used[dev as usize] += len;
        if kind == MemKind::P2p {
            self.p2p.mallocs += 1;
            self.p2p.live_bytes += len;
            self.p2p.peak_bytes = self.p2p.peak_bytes.max(self.p2p.live_bytes);
        }
        self.live.insert(
            addr,
            Allocation {
                dev,
                requested: size,
                data,
                kind,
            },
        );
        Ok(addr)
    }

    /// The requested size of the live allocation starting at `addr`.
    pub fn allocation_len(&self, addr: u64) -> Option<u64> {
        self.live.get(&addr).map(|a| a.requested)
    }

    pub fn free(&mut self, addr: u64) -> SimResult<u32> {
        match self.live.remove(&addr) {
            Some(mut a) => {
                a.data.fill(POISON_FREE);
                let len = a.data.len() as u64;
                self.used[a.dev as usize] -= len;
                if a.kind == MemKind::P2p {
                    self.p2p.live_bytes -= len;
                }
                self.freed.insert(addr, (len, a.dev));
                Ok(a.dev)
            }
            None => {
                let why = self.describe_miss(addr, 1);
                fail!(
                    RT_MEMORY_FREE,
                    "aclrtFree: {addr:#x} is not the start of a live allocation ({why})"
                )
            }
        }
    }

    /// Drops every allocation of `dev` (aclrtResetDevice).
    pub fn release_device(&mut self, dev: u32) {
        let p2p: u64 = self
            .live
            .values()
            .filter(|a| a.dev == dev && a.kind == MemKind::P2p)
            .map(|a| a.data.len() as u64)
            .sum();
        self.p2p.live_bytes -= p2p;
        self.live.retain(|_, a| a.dev != dev);
        self.used[dev as usize] = 0;
    }

    fn find(&self, addr: u64, len: u64) -> Option<(u64, &Allocation)> {
        let (&base, a) = self.live.range(..=addr).next_back()?;
        let end = addr.checked_add(len)?;
        (end <= base + a.data.len() as u64).then_some((base, a))
    }

    /// Why `[addr, addr+len)` is no live allocation's: the allocation or freed range
    /// nearest to it.
    pub fn describe_miss(&self, addr: u64, len: u64) -> String {
        let end = addr.saturating_add(len);
        let before = self.live.range(..=addr).next_back();
        let after = self.live.range(addr.saturating_add(1)..).next();
        if let Some((&b, &(flen, dev))) = self.freed.range(..=addr).next_back() {
            if addr < b + flen {
                return format!(
                    "it lies in freed allocation [{b:#x}, {:#x}) of device {dev}: use after free",
                    b + flen
                );
            }
        }
        let describe = |b: u64, a: &Allocation| {
            format!(
                "allocation [{b:#x}, {:#x}) of {} bytes ({} requested) on device {}",
                b + a.data.len() as u64,
                a.data.len(),
                a.requested,
                a.dev
            )
        };
        let nearest = match (before, after) {
            (Some((&b, a)), Some((&b2, a2))) => {
                let gap_before = addr.saturating_sub(b + a.data.len() as u64);
                let gap_after = b2.saturating_sub(end);
                if gap_before <= gap_after {
                    describe(b, a)
                } else {
                    describe(b2, a2)
                }
            }
            (Some((&b, a)), None) | (None, Some((&b, a))) => describe(b, a),
            (None, None) => return "there is no live allocation".to_owned(),
        };
        match before {
            Some((&b, a)) if addr < b + a.data.len() as u64 => {
                format!("it runs past the end of {nearest}")
            }
            _ => format!("nearest: {nearest}"),
        }
    }

    fn miss(&self, what: &str, addr: u64, len: u64) -> SimError {
        SimError::new(
            INVALID_PARAM,
            format!(
                "{what}: device range [{addr:#x}, {:#x}) ({len} bytes) is not inside one live \
                 allocation; {}",
                addr.saturating_add(len),
                self.describe_miss(addr, len)
            ),
        )
    }

    /// Checks that `[addr, addr+len)` lies in one live allocation. `what` names the access
    /// for the message.
    pub fn check(&self, what: &str, addr: u64, len: u64) -> SimResult<u32> {
        match self.find(addr, len) {
            Some((_, a)) => Ok(a.dev),
            None => Err(self.miss(what, addr, len)),
        }
    }

    pub fn read(&self, what: &str, addr: u64, len: u64) -> SimResult<&[u8]> {
        match self.find(addr, len) {
            Some((base, a)) => {
                let off = (addr - base) as usize;
                Ok(&a.data[off..off + len as usize])
            }
            None => Err(self.miss(what, addr, len)),
        }
    }

    pub fn write(&mut self, what: &str, addr: u64, bytes: &[u8]) -> SimResult<()> {
        let len = bytes.len() as u64;
        if self.find(addr, len).is_none() {
            return Err(self.miss(what, addr, len));
        }
        let (&base, a) = self
            .live
            .range_mut(..=addr)
            .next_back()
            .expect("found above");
        let off = (addr - base) as usize;
        a.data[off..off + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    pub fn fill(&mut self, what: &str, addr: u64, len: u64, value: u8) -> SimResult<()> {
        if self.find(addr, len).is_none() {
            return Err(self.miss(what, addr, len));
        }
        let (&base, a) = self
            .live
            .range_mut(..=addr)
            .next_back()
            .expect("found above");
        let off = (addr - base) as usize;
        a.data[off..off + len as usize].fill(value);
        Ok(())
    }

    /// A 4-byte little-endian integer at `addr` (label indices, switch operands).
    pub fn read_i32(&self, what: &str, addr: u64) -> SimResult<i32> {
        let b = self.read(what, addr, 4)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

use crate::errors::SimError;

#[cfg(test)]
mod tests {
    use super::*;

    /// P2P policies (3-5) give allocations of their own kind, counted apart (peak, live)
    /// and sharing the device's capacity; HBM policies and freed ranges are not P2P.
    #[test]
    fn p2p_allocations_are_a_memory_kind_of_their_own() {
        assert_eq!(MemKind::of_policy(0), Some(MemKind::Hbm));
        assert_eq!(MemKind::of_policy(2), Some(MemKind::Hbm));
        assert_eq!(MemKind::of_policy(3), Some(MemKind::P2p));
        assert_eq!(MemKind::of_policy(5), Some(MemKind::P2p));
        assert_eq!(MemKind::of_policy(6), None);
        let mut m = Memory::new(1);
        let h = m.malloc_kind(0, 100, 1 << 20, MemKind::Hbm).unwrap();
        let p = m.malloc_kind(0, 100, 1 << 20, MemKind::P2p).unwrap();
        let q = m.malloc_kind(0, 30, 1 << 20, MemKind::P2p).unwrap();
        assert_eq!(m.kind_of(h + 99), Some(MemKind::Hbm));
        assert_eq!(m.kind_of(p), Some(MemKind::P2p));
        assert_eq!(m.kind_of(p + 99), Some(MemKind::P2p));
        assert_eq!(
            m.p2p,
            P2pStats {
                mallocs: 2,
                live_bytes: 160 + 64,
                peak_bytes: 160 + 64
            }
        );
        assert_eq!(m.used(0), 160 * 2 + 64);
        m.free(p).unwrap();
        assert_eq!(m.kind_of(p), None);
        assert_eq!((m.p2p.live_bytes, m.p2p.peak_bytes), (64, 224));
        // HBM frees leave the P2P figures alone; both kinds share the capacity.
        m.free(h).unwrap();
        assert_eq!(m.p2p.live_bytes, 64);
        let e = m
            .malloc_kind(0, 1 << 20, 1 << 20, MemKind::P2p)
            .unwrap_err();
        assert_eq!(e.code, RT_MEMORY_ALLOCATION);
        assert_eq!(m.p2p.mallocs, 2);
        m.release_device(0);
        assert_eq!(m.p2p.live_bytes, 0);
        assert_eq!(m.kind_of(q), None);
    }

    #[test]
    fn alignment_rounding_and_bounds() {
        let mut m = Memory::new(2);
        let a = m.malloc(0, 1, 1 << 20).unwrap();
        let b = m.malloc(0, 33, 1 << 20).unwrap();
        assert_eq!(a % 64, 0);
        assert_eq!(b % 64, 0);
        assert_eq!(rounded_size(1), 64);
        assert_eq!(rounded_size(33), 96);
        assert!(m.check("t", a, 64).is_ok());
        let e = m.check("t", a, 65).unwrap_err();
        assert!(e.msg.contains("runs past the end"), "{}", e.msg);
        assert_eq!(m.read("t", b, 2).unwrap(), &[POISON_MALLOC; 2]);
        let c = m.malloc(1, 8, 1 << 20).unwrap();
        assert_eq!(m.device_of(c), Some(1));
        assert_eq!(m.device_of(0x7fff_0000_0000), None);
        m.free(a).unwrap();
        assert!(m
            .read("t", a, 1)
            .unwrap_err()
            .msg
            .contains("use after free"));
        assert_eq!(m.used(0), 96);
        assert_eq!(m.malloc(0, 0, 1).unwrap_err().code, INVALID_PARAM);
        assert_eq!(
            m.malloc(0, 4096, 1000).unwrap_err().code,
            RT_MEMORY_ALLOCATION
        );
    }
}
