//! The two kernel-free value sources: [`opaque`] (the `--opaque-kernels` stand-in) and
//! [`seeded_fill`] (values nobody supplied).
//!
//! `opaque` hashes with xxh3 (`xxhash-rust`): one 64-bit digest of the op type and every
//! input (dtype, dims and bytes, length-prefixed so no two input lists collide by
//! concatenation) seeds a stream of per-block hashes of (output index, block index). Every
//! output byte therefore depends on the op type, its output index and every input byte.
//!
//! `seeded_fill` draws from PCG-64 (`rand_pcg::Pcg64`, seeded from `seed` and the xxh3 of
//! `name`) through `rand`'s uniform integer sampling. The sequence is stable for a given
//! `rand` / `rand_pcg` / `xxhash-rust` version (Cargo.lock pins them): updating one of these
//! may change every seeded value. Floats are multiples of 2^-(p-1) for the type's precision
//! p (24 for f32, 11 for f16, 8 for bf16, 53 for f64) in [-1, 1), so every drawn value is
//! exact in its type and never rounds up to 1; integers are in [0, 8), bools 0 or 1.

use half::{bf16, f16};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed, Xxh3};

use crate::layout::checked_dims;
use crate::types::{DType, TensorMut, TensorRef};

pub(crate) fn opaque(op_type: &str, inputs: &[TensorRef<'_>], outputs: &mut [TensorMut<'_>]) {
    let mut h = Xxh3::new();
    let len = |n: usize| (n as u64).to_le_bytes();
    h.update(&len(op_type.len()));
    h.update(op_type.as_bytes());
    h.update(&len(inputs.len()));
    for t in inputs {
        h.update(&t.dtype.acl().to_le_bytes());
        h.update(&len(t.dims.len()));
        for d in t.dims {
            h.update(&d.to_le_bytes());
        }
        h.update(&len(t.data.len()));
        h.update(t.data);
    }
    let seed = h.digest();
    for (k, out) in outputs.iter_mut().enumerate() {
        let n = checked_dims(out.dims, out.dtype.size())
            .map(|(_, c)| c * out.dtype.size())
            .unwrap_or(out.data.len())
            .min(out.data.len());
        for (block, chunk) in out.data[..n].chunks_mut(8).enumerate() {
            let mut key = [0u8; 16];
            key[..8].copy_from_slice(&(k as u64).to_le_bytes());
            key[8..].copy_from_slice(&(block as u64).to_le_bytes());
            let word = xxh3_64_with_seed(&key, seed).to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
    }
}

pub(crate) fn seeded_fill(seed: u64, name: &str, dtype: DType, dims: &[i64]) -> Vec<u8> {
    let Ok((_, count)) = checked_dims(dims, dtype.size()) else {
        return Vec::new();
    };
    let mut rng = Pcg64::seed_from_u64(seed ^ xxh3_64(name.as_bytes()));
    let mut out = Vec::with_capacity(count * dtype.size());
    // A float of precision p: k * 2^-(p-1) - 1 for k in [0, 2^p), exact in the type.
    fn unit(rng: &mut Pcg64, p: i32) -> f64 {
        rng.random_range(0u64..(1u64 << p)) as f64 * 2f64.powi(1 - p) - 1.0
    }
    for _ in 0..count {
        match dtype {
            DType::F32 => out.extend_from_slice(&(unit(&mut rng, 24) as f32).to_le_bytes()),
            DType::F64 => out.extend_from_slice(&unit(&mut rng, 53).to_le_bytes()),
            DType::F16 => out.extend_from_slice(&f16::from_f64(unit(&mut rng, 11)).to_le_bytes()),
            DType::BF16 => out.extend_from_slice(&bf16::from_f64(unit(&mut rng, 8)).to_le_bytes()),
            DType::Bool => out.push(u8::from(rng.random_range(0u8..2) == 1)),
            _ => {
                let v: u64 = rng.random_range(0..8);
                out.extend_from_slice(&v.to_le_bytes()[..dtype.size()]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::{decode, Values};

    fn opaque_bytes(op: &str, ins: &[(&[i64], &[u8])], out_len: usize) -> Vec<Vec<u8>> {
        let refs: Vec<TensorRef<'_>> = ins
            .iter()
            .map(|(d, b)| TensorRef {
                dtype: DType::U8,
                dims: d,
                data: b,
            })
            .collect();
        let dims = [out_len as i64];
        let mut bufs = vec![vec![0u8; out_len]; 2];
        {
            let mut outs: Vec<TensorMut<'_>> = bufs
                .iter_mut()
                .map(|b| TensorMut {
                    dtype: DType::U8,
                    dims: &dims,
                    data: b,
                })
                .collect();
            opaque(op, &refs, &mut outs);
        }
        bufs
    }

    #[test]
    fn opaque_is_deterministic_and_depends_on_everything() {
        let base = opaque_bytes("MatMul", &[(&[3], &[1, 2, 3])], 21);
        assert_eq!(base, opaque_bytes("MatMul", &[(&[3], &[1, 2, 3])], 21));
        assert_ne!(base[0], base[1], "output index changes the bytes");
        for i in 0..3 {
            let mut b = [1u8, 2, 3];
            b[i] ^= 1;
            let other = opaque_bytes("MatMul", &[(&[3], &b)], 21);
            assert_ne!(base[0], other[0], "byte {i}");
        }
        assert_ne!(base, opaque_bytes("Add", &[(&[3], &[1, 2, 3])], 21));
        // Splitting the same bytes differently over two inputs is a different input list.
        let split = opaque_bytes("MatMul", &[(&[1], &[1]), (&[2], &[2, 3])], 21);
        assert_ne!(base, split);
        assert!(base[0].iter().any(|&b| b != 0));
    }

    #[test]
    fn seeded_fill_is_stable_and_in_range() {
        let a = seeded_fill(7, "var:w", DType::F32, &[64]);
        assert_eq!(a, seeded_fill(7, "var:w", DType::F32, &[64]));
        assert_ne!(a, seeded_fill(8, "var:w", DType::F32, &[64]));
        assert_ne!(a, seeded_fill(7, "var:v", DType::F32, &[64]));
        for dtype in [DType::F32, DType::F16, DType::BF16, DType::F64] {
            let b = seeded_fill(1, "x", dtype, &[4, 256]);
            assert_eq!(b.len(), 1024 * dtype.size());
            let v: Vec<f64> = match decode(dtype, &b) {
                Values::F32(v) => v.into_iter().map(f64::from).collect(),
                Values::F64(v) => v,
                _ => unreachable!(),
            };
            assert!(v.iter().all(|&x| (-1.0..1.0).contains(&x)), "{dtype:?}");
            assert!(
                v.iter().any(|&x| x < -0.5) && v.iter().any(|&x| x > 0.5),
                "{dtype:?}"
            );
        }
        for dtype in [DType::I8, DType::I32, DType::I64, DType::U8, DType::U64] {
            let Values::Int(v) = decode(dtype, &seeded_fill(3, "i", dtype, &[500])) else {
                unreachable!()
            };
            assert!(v.iter().all(|&x| (0..8).contains(&x)), "{dtype:?}");
            assert!((0..8).all(|k| v.contains(&k)), "{dtype:?}");
        }
        let Values::Bool(v) = decode(DType::Bool, &seeded_fill(3, "b", DType::Bool, &[100])) else {
            unreachable!()
        };
        assert!(v.contains(&true) && v.contains(&false));
        let raw = seeded_fill(3, "b", DType::Bool, &[100]);
        assert!(raw.iter().all(|&b| b <= 1));
        assert!(seeded_fill(1, "x", DType::F32, &[]).len() == 4);
        assert!(seeded_fill(1, "x", DType::F32, &[-1]).is_empty());
        assert!(seeded_fill(1, "x", DType::F32, &[0, 5]).is_empty());
    }

    #[test]
    fn seeded_fill_golden_values() {
        // Pins the sequence for the locked crate versions: a change here means every
        // seeded input and Variable of every run changes too.
        let v = seeded_fill(0, "input:x", DType::I32, &[8]);
        let Values::Int(v) = decode(DType::I32, &v) else {
            unreachable!()
        };
        assert_eq!(v, GOLDEN);
    }

    const GOLDEN: [i128; 8] = [5, 3, 4, 1, 6, 4, 7, 6];
}
