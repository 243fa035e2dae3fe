//! `.npy` files for `--input` and `--output-dir`, through `npyz`: the header is npyz's,
//! the data moves as raw little-endian bytes (a big-endian file is byte-swapped).

use ge_mlir::{
    lowering::model::{DType, TensorDesc},
    runtime::tensor::HostTensor,
};
use npyz::{
    DType as NpyDType, Endianness, NpyFile, NpyHeader, Order, TypeChar, TypeStr, WriterBuilder,
};
use std::io::Read;

/// The element type of a numpy type string (`<f4`, `|b1`, ...).
fn dtype_of(type_str: &TypeStr) -> Option<DType> {
    let size = type_str.num_bytes()?;
    Some(match (type_str.type_char(), size) {
        (TypeChar::Float, 2) => DType::F16,
        (TypeChar::Float, 4) => DType::F32,
        (TypeChar::Float, 8) => DType::F64,
        (TypeChar::Int, 1) => DType::I8,
        (TypeChar::Int, 2) => DType::I16,
        (TypeChar::Int, 4) => DType::I32,
        (TypeChar::Int, 8) => DType::I64,
        (TypeChar::Uint, 1) => DType::U8,
        (TypeChar::Uint, 2) => DType::U16,
        (TypeChar::Uint, 4) => DType::U32,
        (TypeChar::Uint, 8) => DType::U64,
        (TypeChar::Bool, 1) => DType::Bool,
        _ => return None,
    })
}

/// Reads a C-order `.npy` file as a tensor (format ND).
pub fn read(path: &str) -> Result<HostTensor, String> {
    let fail = |why: String| format!("`{path}`: {why}");
    let mut file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
    let header =
        NpyHeader::from_reader(&mut file).map_err(|e| fail(format!("not a .npy file ({e})")))?;
    let mut data = Vec::new();
    file.read_to_end(&mut data)
        .map_err(|e| fail(e.to_string()))?;
    let npy = NpyFile::with_header(header, &data[..]);
    let NpyDType::Plain(type_str) = npy.dtype() else {
        return Err(fail(
            "a structured array (only plain element types are tensors)".to_owned(),
        ));
    };
    let dtype = dtype_of(&type_str)
        .ok_or_else(|| fail(format!("element type `{type_str}` has no ACL type")))?;
    if npy.order() == Order::Fortran && npy.shape().len() > 1 {
        return Err(fail("Fortran order (save it C-contiguous)".to_owned()));
    }
    let dims: Vec<i64> = npy.shape().iter().map(|&d| d as i64).collect();
    let desc = TensorDesc {
        dtype,
        dims,
        format: 2,
    };
    let expected = desc.bytes() as usize;
    if data.len() < expected {
        return Err(fail(format!(
            "{} data bytes for {} {:?} ({expected} bytes)",
            data.len(),
            dtype.mlir(),
            desc.dims
        )));
    }
    data.truncate(expected);
    if type_str.endianness() == Endianness::Big && dtype.size() > 1 {
        for element in data.chunks_mut(dtype.size()) {
            element.reverse();
        }
    }
    Ok(HostTensor { desc, bytes: data })
}

/// Writes a tensor as a `.npy` file. f16 and bf16 are written as their raw 16-bit
/// patterns (`<u2`: npyz writes halves only with a feature the crate leaves off, and
/// numpy has no bf16); reading them back gives the same bytes.
pub fn write(path: &std::path::Path, tensor: &HostTensor) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write `{}`: {e}", path.display());
    let shape: Vec<u64> = tensor.desc.dims.iter().map(|&d| d.max(0) as u64).collect();
    let file = std::io::BufWriter::new(std::fs::File::create(path).map_err(fail)?);
    macro_rules! typed {
        ($t:ty) => {{
            let mut writer = npyz::WriteOptions::<$t>::new()
                .default_dtype()
                .shape(&shape)
                .writer(file)
                .begin_nd()
                .map_err(fail)?;
            let size = std::mem::size_of::<$t>();
            for element in tensor.bytes.chunks_exact(size) {
                let value = <$t>::from_le_bytes(element.try_into().expect("element size"));
                writer.push(&value).map_err(fail)?;
            }
            writer.finish().map_err(fail)
        }};
    }
    match tensor.desc.dtype {
        DType::F32 => typed!(f32),
        DType::F64 => typed!(f64),
        DType::I8 => typed!(i8),
        DType::I16 => typed!(i16),
        DType::I32 => typed!(i32),
        DType::I64 => typed!(i64),
        DType::U8 => typed!(u8),
        DType::U16 | DType::F16 | DType::BF16 => typed!(u16),
        DType::U32 => typed!(u32),
        DType::U64 => typed!(u64),
        DType::Bool => {
            let mut writer = npyz::WriteOptions::<bool>::new()
                .default_dtype()
                .shape(&shape)
                .writer(file)
                .begin_nd()
                .map_err(fail)?;
            for &byte in &tensor.bytes {
                writer.push(&(byte != 0)).map_err(fail)?;
            }
            writer.finish().map_err(fail)
        }
    }
}
