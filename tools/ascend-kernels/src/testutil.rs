//! Test helpers: owned tensors built from literal values, and a runner that calls
//! [`crate::execute`] with output buffers of the given dtypes and dims.

use half::{bf16, f16};

use crate::types::{AttrValue, Attrs, DType, TensorMut, TensorRef};
use crate::values::{decode, Values};
use crate::KernelError;

#[derive(Debug, Clone, PartialEq)]
pub struct Owned {
    pub dtype: DType,
    pub dims: Vec<i64>,
    pub data: Vec<u8>,
}

impl Owned {
    pub fn r(&self) -> TensorRef<'_> {
        TensorRef {
            dtype: self.dtype,
            dims: &self.dims,
            data: &self.data,
        }
    }

    /// The values as f32 (for f32, f16, bf16 and f64 tensors).
    pub fn f32(&self) -> Vec<f32> {
        match decode(self.dtype, &self.data) {
            Values::F32(v) => v,
            Values::F64(v) => v.into_iter().map(|x| x as f32).collect(),
            other => panic!("not a float tensor: {other:?}"),
        }
    }

    pub fn f16(&self) -> Vec<f32> {
        assert_eq!(self.dtype, DType::F16);
        self.f32()
    }

    pub fn f64(&self) -> Vec<f64> {
        match decode(self.dtype, &self.data) {
            Values::F64(v) => v,
            other => panic!("not an f64 tensor: {other:?}"),
        }
    }

    pub fn i64(&self) -> Vec<i64> {
        match decode(self.dtype, &self.data) {
            Values::Int(v) => v.into_iter().map(|x| x as i64).collect(),
            other => panic!("not an integer tensor: {other:?}"),
        }
    }

    pub fn bools(&self) -> Vec<bool> {
        match decode(self.dtype, &self.data) {
            Values::Bool(v) => v,
            other => panic!("not a bool tensor: {other:?}"),
        }
    }
}

fn owned(dtype: DType, dims: &[i64], data: Vec<u8>) -> Owned {
    Owned {
        dtype,
        dims: dims.to_vec(),
        data,
    }
}

pub fn f32s(dims: &[i64], v: &[f32]) -> Owned {
    owned(
        DType::F32,
        dims,
        v.iter().flat_map(|x| x.to_le_bytes()).collect(),
    )
}

pub fn f64s(dims: &[i64], v: &[f64]) -> Owned {
    owned(
        DType::F64,
        dims,
        v.iter().flat_map(|x| x.to_le_bytes()).collect(),
    )
}

pub fn f16s(dims: &[i64], v: &[f32]) -> Owned {
    let data = v
        .iter()
        .flat_map(|&x| f16::from_f32(x).to_le_bytes())
        .collect();
    owned(DType::F16, dims, data)
}

pub fn bf16s(dims: &[i64], v: &[f32]) -> Owned {
    let data = v
        .iter()
        .flat_map(|&x| bf16::from_f32(x).to_le_bytes())
        .collect();
    owned(DType::BF16, dims, data)
}

pub fn i32s(dims: &[i64], v: &[i32]) -> Owned {
    owned(
        DType::I32,
        dims,
        v.iter().flat_map(|x| x.to_le_bytes()).collect(),
    )
}

pub fn i64s(dims: &[i64], v: &[i64]) -> Owned {
    owned(
        DType::I64,
        dims,
        v.iter().flat_map(|x| x.to_le_bytes()).collect(),
    )
}

pub fn u8s(dims: &[i64], v: &[u8]) -> Owned {
    owned(DType::U8, dims, v.to_vec())
}

pub fn bools(dims: &[i64], v: &[bool]) -> Owned {
    owned(DType::Bool, dims, v.iter().map(|&b| b as u8).collect())
}

pub fn float(x: f32) -> AttrValue {
    AttrValue::Float(x)
}

pub fn int(x: i64) -> AttrValue {
    AttrValue::Int(x)
}

pub fn ints(x: &[i64]) -> AttrValue {
    AttrValue::ListInt(x.to_vec())
}

pub fn string(x: &str) -> AttrValue {
    AttrValue::String(x.to_owned())
}

pub fn boolean(x: bool) -> AttrValue {
    AttrValue::Bool(x)
}

fn attrs_of(attrs: &[(&str, AttrValue)]) -> Attrs {
    let mut a = Attrs::default();
    for (n, v) in attrs {
        a.set(n, v.clone());
    }
    a
}

/// Runs `op` with zeroed output buffers of exactly the given dtypes and dims.
pub fn run(
    op: &str,
    attrs: &[(&str, AttrValue)],
    inputs: &[Owned],
    outs: &[(DType, Vec<i64>)],
) -> Result<Vec<Owned>, KernelError> {
    let lens: Vec<usize> = outs
        .iter()
        .map(|(d, dims)| crate::types::element_count(dims) * d.size())
        .collect();
    run_lens(op, attrs, inputs, outs, &lens)
}

fn run_lens(
    op: &str,
    attrs: &[(&str, AttrValue)],
    inputs: &[Owned],
    outs: &[(DType, Vec<i64>)],
    lens: &[usize],
) -> Result<Vec<Owned>, KernelError> {
    let attrs = attrs_of(attrs);
    let ins: Vec<TensorRef<'_>> = inputs.iter().map(Owned::r).collect();
    let mut bufs: Vec<Vec<u8>> = lens.iter().map(|&n| vec![0u8; n]).collect();
    {
        let mut views: Vec<TensorMut<'_>> = outs
            .iter()
            .zip(bufs.iter_mut())
            .map(|((d, dims), b)| TensorMut {
                dtype: *d,
                dims,
                data: b,
            })
            .collect();
        crate::execute(op, &attrs, &ins, &mut views)?;
    }
    Ok(outs
        .iter()
        .zip(bufs)
        .map(|((d, dims), data)| owned(*d, dims, data))
        .collect())
}

/// [`run`] with one output buffer of `len` bytes.
pub fn run_with_len(
    op: &str,
    attrs: &[(&str, AttrValue)],
    inputs: &[Owned],
    dtype: DType,
    dims: &[i64],
    len: usize,
) -> Result<Vec<Owned>, KernelError> {
    run_lens(op, attrs, inputs, &[(dtype, dims.to_vec())], &[len])
}

/// Runs a one-output op that must succeed.
pub fn run1(
    op: &str,
    attrs: &[(&str, AttrValue)],
    inputs: &[Owned],
    dtype: DType,
    dims: &[i64],
) -> Owned {
    match run(op, attrs, inputs, &[(dtype, dims.to_vec())]) {
        Ok(mut v) => v.remove(0),
        Err(e) => panic!("{op} failed: {e}"),
    }
}

/// The error message of a run that must fail.
pub fn fails(
    op: &str,
    attrs: &[(&str, AttrValue)],
    inputs: &[Owned],
    outs: &[(DType, Vec<i64>)],
) -> String {
    match run(op, attrs, inputs, outs) {
        Ok(_) => panic!("{op} unexpectedly succeeded"),
        Err(KernelError::Invalid(m)) => m,
        Err(e) => panic!("{op}: not Invalid: {e:?}"),
    }
}
