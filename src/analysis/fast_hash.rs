//! A fast hasher for maps keyed by small integers (node ids, graph ids, op addresses).
//!
//! The keys of the passes' maps are ids the program made itself, never attacker-chosen
//! text, so SipHash's protection (std's default) buys nothing, while maps over a million
//! ops are built on every pass run. Each word is folded in with one multiply (Fibonacci
//! hashing); the rotation brings the well-mixed high bits down to the bucket bits hashbrown
//! reads.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The hasher; see the module docs.
#[derive(Clone, Copy, Default)]
pub struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for_each_word(bytes, |word| self.write_u64(word));
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(26);
    }

    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

/// A hasher for keys that are heap addresses (MLIR ops): the bucket bits hashbrown reads
/// (the low ones) are the address in 64-byte units, so ops allocated next to each other
/// land in neighbouring buckets. MLIR's parser allocates a block's ops in order and a
/// node's producers are mostly recent ops, so building a model in block order touches a
/// few hot cache lines of the map instead of one random line per op and operand (at a
/// million ops, a cache miss each). The top 7 bits, hashbrown's tag, are mixed by a
/// multiply as in [`FastHasher`]. Any key still works; only the speed depends on
/// addresses being near.
#[derive(Clone, Copy, Default)]
pub struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only addresses are meant to be hashed here; other keys still hash deterministically.
        for_each_word(bytes, |word| self.write_u64(word));
    }

    fn write_u64(&mut self, x: u64) {
        const TAG: u64 = 0xFE00_0000_0000_0000;
        let mixed = (self.0 ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = ((self.0 ^ (x >> 6)) & !TAG) | (mixed & TAG);
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

/// Bytes as little-endian 64-bit words, the last one zero-padded.
fn for_each_word(bytes: &[u8], mut f: impl FnMut(u64)) {
    for chunk in bytes.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        f(u64::from_le_bytes(word));
    }
}

/// A `HashMap` keyed by addresses, with [`AddressHasher`].
pub type AddressMap<K, V> = HashMap<K, V, BuildHasherDefault<AddressHasher>>;

/// A `HashSet` of addresses, with [`AddressHasher`].
pub type AddressSet = HashSet<usize, BuildHasherDefault<AddressHasher>>;

/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// A `HashSet` with [`FastHasher`].
pub type FastSet<K> = HashSet<K, BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_small_keys_spread_over_buckets() {
        // Consecutive ids and pairs must not collide in the low bits hashbrown uses.
        let mut low = FastSet::default();
        for i in 0..4096u32 {
            let mut h = FastHasher::default();
            h.write_u32(i);
            h.write_u32(7);
            low.insert(h.finish() & 0xFFFF);
        }
        assert!(low.len() > 3900, "{} distinct low words", low.len());
        let mut map: FastMap<(u32, u32), u32> = FastMap::default();
        for i in 0..1000 {
            map.insert((i, i + 1), i);
        }
        assert_eq!(map.get(&(5, 6)), Some(&5));
        assert_eq!(map.len(), 1000);
    }

    #[test]
    fn near_addresses_share_buckets_and_tags_still_vary() {
        let hash = |x: usize| {
            let mut h = AddressHasher::default();
            h.write_usize(x);
            h.finish()
        };
        let base = 0x7f12_3456_0000usize;
        // Ops 150 bytes apart: bucket bits a few apart, in address order.
        let low: Vec<u64> = (0..64).map(|i| hash(base + 150 * i) & 0xFFFF).collect();
        assert!(
            low.windows(2).all(|w| w[1] > w[0] && w[1] - w[0] <= 3),
            "{low:?}"
        );
        // hashbrown's 7-bit tags are not all one value.
        let tags: FastSet<u64> = (0..64).map(|i| hash(base + 150 * i) >> 57).collect();
        assert!(tags.len() > 16, "{} distinct tags", tags.len());
        let mut map: AddressMap<usize, usize> = AddressMap::default();
        for i in 0..10_000 {
            map.insert(base + 96 * i, i);
        }
        assert!((0..10_000).all(|i| map.get(&(base + 96 * i)) == Some(&i)));
        assert_eq!(map.get(&(base + 1)), None);
    }
}
