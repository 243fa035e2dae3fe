//! Rough timings of the heaviest kernels at ge-gen's shapes (resnet stage conv, transformer
//! matmuls): `cargo run -p ascend-kernels --release --example kernel_timing`.

use std::time::Instant;

use ascend_kernels::{execute, seeded_fill, AttrValue, Attrs, DType, TensorMut, TensorRef};

fn time(name: &str, op: &str, attrs: &Attrs, ins: &[(Vec<i64>, Vec<u8>)], out: &[i64]) {
    let refs: Vec<TensorRef<'_>> = ins
        .iter()
        .map(|(d, b)| TensorRef {
            dtype: DType::F32,
            dims: d,
            data: b,
        })
        .collect();
    let mut buf = vec![0u8; out.iter().product::<i64>() as usize * 4];
    let start = Instant::now();
    let mut outs = [TensorMut {
        dtype: DType::F32,
        dims: out,
        data: &mut buf,
    }];
    match execute(op, attrs, &refs, &mut outs) {
        Ok(()) => println!("{name}: {:.3} s", start.elapsed().as_secs_f64()),
        Err(e) => println!("{name}: error {e}"),
    }
}

fn input(name: &str, dims: &[i64]) -> (Vec<i64>, Vec<u8>) {
    (dims.to_vec(), seeded_fill(0, name, DType::F32, dims))
}

fn main() {
    let mut conv = Attrs::default();
    conv.set("data_format", AttrValue::String("NCHW".into()));
    conv.set("pads", AttrValue::ListInt(vec![1, 1, 1, 1]));
    conv.set("strides", AttrValue::ListInt(vec![1, 1, 1, 1]));
    let ins = [input("x", &[8, 64, 56, 56]), input("w", &[64, 64, 3, 3])];
    time(
        "resnet stage-0 3x3 conv",
        "Conv2D",
        &conv,
        &ins,
        &[8, 64, 56, 56],
    );
    conv.set("pads", AttrValue::ListInt(vec![3, 3, 3, 3]));
    conv.set("strides", AttrValue::ListInt(vec![1, 1, 4, 4]));
    let ins = [input("img", &[8, 3, 224, 224]), input("w7", &[64, 3, 7, 7])];
    time(
        "resnet stem 7x7/4 conv",
        "Conv2D",
        &conv,
        &ins,
        &[8, 64, 56, 56],
    );
    let ins = [input("a", &[64, 64]), input("b", &[64, 256])];
    time(
        "transformer ffn matmul",
        "MatMul",
        &Attrs::default(),
        &ins,
        &[64, 256],
    );
}
