//! ONNX test data: one serialized `TensorProto` per `.pb` file (the backend tests'
//! `test_data_set_N/input_J.pb`), read into and written from the runtime's [`HostTensor`].

use super::{dtype, proto::TensorProto, tensor};
use crate::{lowering::model::TensorDesc, runtime::tensor::HostTensor};
use prost::Message;
use std::path::Path;

/// `aclFormat` ND.
const FORMAT_ND: i32 = 2;

/// Reads a `.pb` TensorProto file. External data is looked up beside the file. Errors
/// name the file: malformed protobuf, unsupported element type, wrong byte count.
pub fn read_tensor_proto(path: impl AsRef<Path>) -> Result<HostTensor, String> {
    let path = path.as_ref();
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    let proto = TensorProto::decode(bytes.as_slice())
        .map_err(|e| format!("{}: not a TensorProto: {e}", path.display()))?;
    let t = tensor::decode(&proto, path.parent())
        .map_err(|e| format!("{}: tensor '{}': {e}", path.display(), proto.name))?;
    Ok(HostTensor {
        desc: TensorDesc {
            dtype: t.dtype,
            dims: t.dims,
            format: FORMAT_ND,
        },
        bytes: t.bytes,
    })
}

/// Writes `tensor` as a TensorProto (`raw_data`, named `name`) to `path`.
pub fn write_tensor_proto(
    path: impl AsRef<Path>,
    name: &str,
    tensor: &HostTensor,
) -> Result<(), String> {
    let path = path.as_ref();
    if tensor.bytes.len() as u64 != tensor.desc.bytes() {
        return Err(format!(
            "tensor '{name}' holds {} bytes, dims {:?} need {}",
            tensor.bytes.len(),
            tensor.desc.dims,
            tensor.desc.bytes()
        ));
    }
    let proto = TensorProto {
        dims: tensor.desc.dims.clone(),
        data_type: dtype::to_onnx(tensor.desc.dtype),
        name: name.to_owned(),
        raw_data: tensor.bytes.clone(),
        ..Default::default()
    };
    std::fs::write(path, proto.encode_to_vec())
        .map_err(|e| format!("cannot write '{}': {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ascend_kernels::DType;

    #[test]
    fn write_then_read_round_trips_and_typed_fields_read_too() {
        let dir = std::env::temp_dir().join(format!("ge-onnx-tio-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let t = HostTensor {
            desc: TensorDesc {
                dtype: DType::F32,
                dims: vec![2, 2],
                format: FORMAT_ND,
            },
            bytes: [1.0f32, -2.0, 3.5, 0.0]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
        };
        let path = dir.join("t.pb");
        write_tensor_proto(&path, "x", &t).unwrap();
        assert_eq!(read_tensor_proto(&path).unwrap(), t);

        let typed = TensorProto {
            dims: vec![3],
            data_type: 7,
            int64_data: vec![5, -1, 7],
            ..Default::default()
        };
        std::fs::write(dir.join("i.pb"), typed.encode_to_vec()).unwrap();
        let got = read_tensor_proto(dir.join("i.pb")).unwrap();
        assert_eq!(got.desc.dtype, DType::I64);
        assert_eq!(
            tensor::Tensor {
                dtype: DType::I64,
                dims: vec![3],
                bytes: got.bytes
            }
            .to_i64s(),
            Some(vec![5, -1, 7])
        );

        std::fs::write(dir.join("bad.pb"), [0xff, 0xff, 0xff]).unwrap();
        let err = read_tensor_proto(dir.join("bad.pb")).unwrap_err();
        assert!(err.contains("not a TensorProto"), "{err}");
        let short = TensorProto {
            dims: vec![4],
            data_type: 1,
            float_data: vec![1.0],
            ..Default::default()
        };
        std::fs::write(dir.join("short.pb"), short.encode_to_vec()).unwrap();
        let err = read_tensor_proto(dir.join("short.pb")).unwrap_err();
        assert!(err.contains("float_data` holds 1 values"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
