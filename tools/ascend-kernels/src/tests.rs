//! Cross-kernel tests: dispatch, determinism at ge-gen's shapes, a conv against the
//! textbook loop, and hostile shapes.

use super::*;
use crate::testutil::*;

#[test]
fn unknown_ops_are_not_found() {
    let x = f32s(&[1], &[1.0]);
    let e = run("HcomAllReduce", &[], &[x], &[(DType::F32, vec![1])]).unwrap_err();
    assert_eq!(e, KernelError::NotFound("HcomAllReduce".into()));
    assert!(!has_kernel("HcomAllReduce"));
    assert!(!has_kernel("NoSuchOp"));
}

#[test]
fn every_op_ge_gen_emits_has_a_kernel() {
    for op in [
        "Add",
        "Sub",
        "Mul",
        "RealDiv",
        "Relu",
        "Gelu",
        "Cast",
        "MatMul",
        "BatchMatMul",
        "LayerNorm",
        "Softmax",
        "Reshape",
        "Transpose",
        "ReduceSum",
        "Conv2D",
        "Assign",
        "ApplyMomentum",
        "Identity",
        "Memcpy",
        "MemcpyAsync",
        "ReadVariableOp",
    ] {
        assert!(has_kernel(op), "{op}");
        assert!(kernel_types().contains(&op), "{op}");
    }
}

fn seeded(name: &str, dims: &[i64]) -> Owned {
    Owned {
        dtype: DType::F32,
        dims: dims.to_vec(),
        data: seeded_fill(1, name, DType::F32, dims),
    }
}

#[test]
fn kernels_are_deterministic_on_ge_gen_shapes() {
    // The transformer family's attention shapes and the resnet stem, twice each.
    let (q, k) = (seeded("q", &[4, 16, 64]), seeded("k", &[4, 64, 16]));
    let a = run1(
        "BatchMatMul",
        &[],
        &[q.clone(), k.clone()],
        DType::F32,
        &[4, 16, 16],
    );
    let b = run1("BatchMatMul", &[], &[q, k], DType::F32, &[4, 16, 16]);
    assert_eq!(a.data, b.data);
    let (x, w) = (seeded("x", &[64, 64]), seeded("w", &[64, 256]));
    let attrs = [("transpose_x1", boolean(true))];
    let a = run1(
        "MatMul",
        &attrs,
        &[x.clone(), w.clone()],
        DType::F32,
        &[64, 256],
    );
    assert_eq!(a, run1("MatMul", &attrs, &[x, w], DType::F32, &[64, 256]));
    let img = seeded("img", &[1, 3, 32, 32]);
    let f = seeded("f", &[8, 3, 7, 7]);
    let attrs = [
        ("data_format", string("NCHW")),
        ("strides", ints(&[1, 1, 4, 4])),
        ("pads", ints(&[3, 3, 3, 3])),
    ];
    let a = run1(
        "Conv2D",
        &attrs,
        &[img.clone(), f.clone()],
        DType::F32,
        &[1, 8, 8, 8],
    );
    assert_eq!(
        a,
        run1("Conv2D", &attrs, &[img, f], DType::F32, &[1, 8, 8, 8])
    );
}

#[test]
fn conv_equals_a_direct_sum() {
    // A strided, padded, grouped conv against the textbook loop.
    let (n, c, h, w, oc, kh, kw, groups) = (2, 4, 5, 6, 6, 3, 2, 2);
    let x = seeded("cx", &[n, c, h, w]);
    let f = seeded("cf", &[oc, c / groups, kh, kw]);
    let (sh, sw, pt, pb, pl, pr) = (2, 1, 1, 0, 0, 1);
    let oh = (h + pt + pb - kh) / sh + 1;
    let ow = (w + pl + pr - kw) / sw + 1;
    let attrs = [
        ("data_format", string("NCHW")),
        ("strides", ints(&[1, 1, sh, sw])),
        ("pads", ints(&[pt, pb, pl, pr])),
        ("groups", int(groups)),
    ];
    let y = run1(
        "Conv2D",
        &attrs,
        &[x.clone(), f.clone()],
        DType::F32,
        &[n, oc, oh, ow],
    )
    .f32();
    let (xv, fv) = (x.f32(), f.f32());
    let icg = c / groups;
    let ocg = oc / groups;
    let mut max_err = 0f32;
    for ni in 0..n {
        for o in 0..oc {
            let g = o / ocg;
            for oy in 0..oh {
                for ox in 0..ow {
                    let mut acc = 0f64;
                    for ci in 0..icg {
                        for ky in 0..kh {
                            for kx in 0..kw {
                                let iy = oy * sh + ky - pt;
                                let ix = ox * sw + kx - pl;
                                if iy < 0 || iy >= h || ix < 0 || ix >= w {
                                    continue;
                                }
                                let xi = ((ni * c + g * icg + ci) * h + iy) * w + ix;
                                let fi = ((o * icg + ci) * kh + ky) * kw + kx;
                                acc += f64::from(xv[xi as usize]) * f64::from(fv[fi as usize]);
                            }
                        }
                    }
                    let yi = ((ni * oc + o) * oh + oy) * ow + ox;
                    max_err = max_err.max((y[yi as usize] - acc as f32).abs());
                }
            }
        }
    }
    assert!(max_err < 1e-5, "{max_err}");
}

#[test]
fn hostile_shapes_are_errors_not_panics_or_giant_allocations() {
    let col = f32s(&[100_000, 1], &vec![0.0; 100_000]);
    let row = f32s(&[1, 100_000], &vec![0.0; 100_000]);
    // A 10^10-element broadcast or product with a one-element output buffer.
    for op in ["Add", "Less", "MatMul"] {
        let dt = if op == "Less" {
            DType::Bool
        } else {
            DType::F32
        };
        let e = fails(op, &[], &[col.clone(), row.clone()], &[(dt, vec![1])]);
        assert!(
            e.contains("output 0: dims [1], expected [100000, 100000]"),
            "{op}: {e}"
        );
    }
    let x = f32s(&[2, 2], &[0.0; 4]);
    let big = i64::MAX;
    let e = fails(
        "Slice",
        &[],
        &[x.clone(), i64s(&[2], &[big, 0]), i64s(&[2], &[big, 1])],
        &[(DType::F32, vec![1, 1])],
    );
    assert!(e.contains("out of range"), "{e}");
    let ss = [
        x.clone(),
        i64s(&[1], &[i64::MIN]),
        i64s(&[1], &[big]),
        i64s(&[1], &[i64::MIN]),
    ];
    assert!(run("StridedSlice", &[], &ss, &[(DType::F32, vec![0, 2])]).is_ok());
    let ss = [
        x.clone(),
        i64s(&[1], &[big]),
        i64s(&[1], &[i64::MIN]),
        i64s(&[1], &[big]),
    ];
    assert!(run("StridedSlice", &[], &ss, &[(DType::F32, vec![0, 2])]).is_ok());
    let e = fails(
        "Pad",
        &[],
        &[x.clone(), i64s(&[2, 2], &[big, big, 0, 0])],
        &[(DType::F32, vec![2, 2])],
    );
    assert!(e.contains("output too large"), "{e}");
    let attrs = [
        ("data_format", string("NCHW")),
        ("strides", ints(&[1, 1, 1, 1])),
        ("pads", ints(&[1 << 40, 1 << 40, 0, 0])),
    ];
    let img = f32s(&[1, 1, 2, 2], &[0.0; 4]);
    let e = fails(
        "Conv2D",
        &attrs,
        &[img, f32s(&[1, 1, 1, 1], &[1.0])],
        &[(DType::F32, vec![1, 1, 2, 2])],
    );
    assert!(e.contains("output 0: dims [1, 1, 2, 2], expected"), "{e}");
    let e = fails(
        "Tile",
        &[],
        &[x.clone(), i64s(&[2], &[big, big])],
        &[(DType::F32, vec![2, 2])],
    );
    assert!(e.contains("too large") || e.contains("expected"), "{e}");
    let neg = Owned {
        dtype: DType::F32,
        dims: vec![-1],
        data: vec![],
    };
    let e = fails("Relu", &[], &[neg], &[(DType::F32, vec![1])]);
    assert!(e.contains("input 0 (x): negative dim in [-1]"), "{e}");
    let huge = Owned {
        dtype: DType::F32,
        dims: vec![1 << 40, 1 << 40],
        data: vec![],
    };
    let e = fails("Relu", &[], &[huge], &[(DType::F32, vec![1])]);
    assert!(e.contains("overflows"), "{e}");
}

#[test]
fn a_failed_call_leaves_every_output_untouched() {
    let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let g = f32s(&[3], &[1.0; 3]);
    let mut attrs = Attrs::default();
    attrs.set("begin_norm_axis", AttrValue::Int(1));
    attrs.set("begin_params_axis", AttrValue::Int(1));
    let ins = [x.r(), g.r(), g.r()];
    let (mut y, mut mean, mut var) = (vec![0xAB; 24], vec![0xAB; 8], vec![0xAB; 8]);
    let mut outs = [
        TensorMut {
            dtype: DType::F32,
            dims: &[2, 3],
            data: &mut y,
        },
        TensorMut {
            dtype: DType::F32,
            dims: &[2, 1],
            data: &mut mean,
        },
        TensorMut {
            dtype: DType::F32,
            dims: &[2],
            data: &mut var,
        },
    ];
    let e = execute("LayerNorm", &attrs, &ins, &mut outs).unwrap_err();
    assert!(
        e.to_string()
            .contains("output 2: dims [2], expected [2, 1]"),
        "{e}"
    );
    assert!(y.iter().chain(&mean).chain(&var).all(|&b| b == 0xAB));
}

#[test]
fn slack_past_an_output_is_left_alone() {
    let x = f32s(&[2], &[-1.0, 1.0]);
    let mut buf = vec![0xCD; 12];
    let mut outs = [TensorMut {
        dtype: DType::F32,
        dims: &[2],
        data: &mut buf,
    }];
    execute("Relu", &Attrs::default(), &[x.r()], &mut outs).unwrap();
    assert_eq!(&buf[8..], &[0xCD; 4]);
    assert_eq!(&buf[..8], &[0, 0, 0, 0, 0, 0, 128, 63]);
}

#[test]
fn bf16_products_and_norms_round_once() {
    // 256 + 1 is not a bf16 (8 significant bits): the f32 sum 257 rounds to 256.
    let a = bf16s(&[1, 2], &[1.0, 1.0]);
    let b = bf16s(&[2, 1], &[256.0, 1.0]);
    assert_eq!(
        run1("MatMul", &[], &[a, b], DType::BF16, &[1, 1]).f32(),
        [256.0]
    );
    let x = f16s(&[2], &[1.0, 3.0]);
    let one = f16s(&[2], &[1.0, 1.0]);
    let zero = f16s(&[2], &[0.0, 0.0]);
    let outs = run(
        "LayerNorm",
        &[("epsilon", float(0.0))],
        &[x, one, zero],
        &[
            (DType::F16, vec![2]),
            (DType::F16, vec![1]),
            (DType::F16, vec![1]),
        ],
    )
    .unwrap();
    assert_eq!(outs[0].f16(), [-1.0, 1.0]);
    assert_eq!(outs[1].f16(), [2.0]);
    assert_eq!(outs[2].f16(), [1.0]);
}
