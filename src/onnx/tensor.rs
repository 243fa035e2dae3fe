//! Tensor values of a model: `TensorProto` (initializers, `Constant` values, `.pb` test
//! data) decoded into dtype, dims and little-endian bytes.

use super::{dtype, proto::TensorProto};
use ascend_kernels::DType;
use std::path::{Component, Path};

/// A dense tensor value: exactly `elements * dtype.size()` little-endian bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub dtype: DType,
    pub dims: Vec<i64>,
    pub bytes: Vec<u8>,
}

/// `TensorProto.DataLocation.EXTERNAL`.
const EXTERNAL: i32 = 1;

impl Tensor {
    pub fn elements(&self) -> usize {
        self.dims.iter().map(|&d| d.max(0) as usize).product()
    }

    /// A 1-D i64 tensor.
    pub fn from_i64s(values: &[i64]) -> Self {
        Self::from_i64s_dims(values, vec![values.len() as i64])
    }

    pub fn from_i64s_dims(values: &[i64], dims: Vec<i64>) -> Self {
        Tensor {
            dtype: DType::I64,
            dims,
            bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        }
    }

    /// A 1-D or scalar i32 tensor.
    pub fn from_i32s_dims(values: &[i32], dims: Vec<i64>) -> Self {
        Tensor {
            dtype: DType::I32,
            dims,
            bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        }
    }

    /// A scalar of a float dtype holding `value` (rounded once to the dtype).
    pub fn float_scalar(dtype: DType, value: f64) -> Result<Self, String> {
        let bytes = match dtype {
            DType::F32 => (value as f32).to_le_bytes().to_vec(),
            DType::F64 => value.to_le_bytes().to_vec(),
            DType::F16 => half::f16::from_f64(value).to_le_bytes().to_vec(),
            DType::BF16 => half::bf16::from_f64(value).to_le_bytes().to_vec(),
            other => return Err(format!("a {other:?} scalar cannot hold {value}")),
        };
        Ok(Tensor {
            dtype,
            dims: vec![],
            bytes,
        })
    }

    /// A scalar of any numeric dtype holding `value` (ints truncate, bool is `value != 0`).
    pub fn scalar(dtype: DType, value: f64) -> Result<Self, String> {
        if dtype::is_float(dtype) {
            return Self::float_scalar(dtype, value);
        }
        let v = value as i128;
        let bytes = match dtype {
            DType::Bool => vec![(value != 0.0) as u8],
            DType::I8 | DType::U8 => vec![v as u8],
            DType::I16 | DType::U16 => (v as u16).to_le_bytes().to_vec(),
            DType::I32 | DType::U32 => (v as u32).to_le_bytes().to_vec(),
            _ => (v as u64).to_le_bytes().to_vec(),
        };
        Ok(Tensor {
            dtype,
            dims: vec![],
            bytes,
        })
    }

    /// The values of an integer tensor as i64 (shape, axes, index inputs).
    pub fn to_i64s(&self) -> Option<Vec<i64>> {
        let size = self.dtype.size();
        let chunks = self.bytes.chunks_exact(size);
        Some(match self.dtype {
            DType::I64 | DType::U64 => chunks
                .map(|c| i64::from_le_bytes(c.try_into().unwrap_or_default()))
                .collect(),
            DType::I32 => chunks
                .map(|c| i32::from_le_bytes(c.try_into().unwrap_or_default()) as i64)
                .collect(),
            DType::U32 => chunks
                .map(|c| u32::from_le_bytes(c.try_into().unwrap_or_default()) as i64)
                .collect(),
            DType::I16 => chunks
                .map(|c| i16::from_le_bytes(c.try_into().unwrap_or_default()) as i64)
                .collect(),
            DType::U16 => chunks
                .map(|c| u16::from_le_bytes(c.try_into().unwrap_or_default()) as i64)
                .collect(),
            DType::I8 => chunks.map(|c| c[0] as i8 as i64).collect(),
            DType::U8 | DType::Bool => chunks.map(|c| c[0] as i64).collect(),
            _ => return None,
        })
    }

    /// The values of a float tensor as f64 (`Constant` scalars, Clip bounds).
    pub fn to_f64s(&self) -> Option<Vec<f64>> {
        let chunks = self.bytes.chunks_exact(self.dtype.size());
        Some(match self.dtype {
            DType::F32 => chunks
                .map(|c| f32::from_le_bytes(c.try_into().unwrap_or_default()) as f64)
                .collect(),
            DType::F64 => chunks
                .map(|c| f64::from_le_bytes(c.try_into().unwrap_or_default()))
                .collect(),
            DType::F16 => chunks
                .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f64())
                .collect(),
            DType::BF16 => chunks
                .map(|c| half::bf16::from_le_bytes([c[0], c[1]]).to_f64())
                .collect(),
            _ => {
                return self
                    .to_i64s()
                    .map(|v| v.iter().map(|&x| x as f64).collect())
            }
        })
    }
}

/// Decodes a `TensorProto`. `model_dir` is where external data files are looked up
/// (`None`: external data is an error, e.g. for a `.pb` with no model beside it).
pub fn decode(t: &TensorProto, model_dir: Option<&Path>) -> Result<Tensor, String> {
    let dtype = dtype::from_onnx(t.data_type)?;
    if let Some(d) = t.dims.iter().find(|&&d| d < 0) {
        return Err(format!("negative dimension {d} in {:?}", t.dims));
    }
    let elements = t
        .dims
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d as usize))
        .ok_or_else(|| format!("dims {:?} overflow", t.dims))?;
    let size = dtype.size();
    let expected = elements
        .checked_mul(size)
        .ok_or_else(|| format!("dims {:?} overflow", t.dims))?;
    let bytes = if t.data_location == EXTERNAL {
        read_external(t, model_dir, expected)?
    } else if !t.raw_data.is_empty() || elements == 0 {
        t.raw_data.clone()
    } else {
        typed_fields(t, dtype, elements)?
    };
    if bytes.len() != expected {
        return Err(format!(
            "holds {} bytes, but {:?} elements of {} need {expected}",
            bytes.len(),
            t.dims,
            dtype::onnx_name(t.data_type)
        ));
    }
    Ok(Tensor {
        dtype,
        dims: t.dims.clone(),
        bytes,
    })
}

/// The typed repeated fields (`float_data`, `int32_data`, ...), as ONNX stores each type.
fn typed_fields(t: &TensorProto, dtype: DType, elements: usize) -> Result<Vec<u8>, String> {
    let count_ok = |n: usize, field: &str| {
        if n == elements {
            Ok(())
        } else {
            Err(format!("`{field}` holds {n} values, dims need {elements}"))
        }
    };
    Ok(match dtype {
        DType::F32 => {
            count_ok(t.float_data.len(), "float_data")?;
            t.float_data.iter().flat_map(|v| v.to_le_bytes()).collect()
        }
        DType::F64 => {
            count_ok(t.double_data.len(), "double_data")?;
            t.double_data.iter().flat_map(|v| v.to_le_bytes()).collect()
        }
        DType::I64 => {
            count_ok(t.int64_data.len(), "int64_data")?;
            t.int64_data.iter().flat_map(|v| v.to_le_bytes()).collect()
        }
        DType::U32 | DType::U64 => {
            count_ok(t.uint64_data.len(), "uint64_data")?;
            let size = dtype.size();
            t.uint64_data
                .iter()
                .flat_map(|v| v.to_le_bytes()[..size].to_vec())
                .collect()
        }
        // 8- and 16-bit types (f16/bf16 as their bit patterns) and int32 live in int32_data.
        _ => {
            count_ok(t.int32_data.len(), "int32_data")?;
            let size = dtype.size();
            t.int32_data
                .iter()
                .flat_map(|v| v.to_le_bytes()[..size].to_vec())
                .collect()
        }
    })
}

/// External data (`location`, `offset`, `length` keys), relative to the model's directory.
fn read_external(
    t: &TensorProto,
    model_dir: Option<&Path>,
    expected: usize,
) -> Result<Vec<u8>, String> {
    let key = |k: &str| {
        t.external_data
            .iter()
            .find(|e| e.key == k)
            .map(|e| e.value.as_str())
    };
    let location = key("location").ok_or("external data without a `location` key")?;
    let parse = |k: &str| -> Result<Option<u64>, String> {
        key(k)
            .map(|v| {
                v.parse::<u64>()
                    .map_err(|_| format!("external data `{k}` is not a number: {v:?}"))
            })
            .transpose()
    };
    let offset = parse("offset")?.unwrap_or(0);
    let length = parse("length")?;
    let relative = Path::new(location);
    if relative.is_absolute()
        || relative
            .components()
            .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
    {
        return Err(format!(
            "external data location {location:?} must be a path inside the model's directory"
        ));
    }
    let dir = model_dir.ok_or_else(|| {
        format!("external data {location:?} but no model directory to find it in")
    })?;
    let path = dir.join(relative);
    let data = std::fs::read(&path)
        .map_err(|e| format!("cannot read external data file '{}': {e}", path.display()))?;
    let start = offset as usize;
    let len = length.map_or(expected, |l| l as usize);
    let end = start
        .checked_add(len)
        .filter(|&e| e <= data.len())
        .ok_or_else(|| {
            format!(
            "external data file '{}' has {} bytes; offset {start} + length {len} runs past its end",
            path.display(),
            data.len()
        )
        })?;
    Ok(data[start..end].to_vec())
}
