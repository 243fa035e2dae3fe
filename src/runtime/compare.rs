//! Bit-for-bit comparison of a run's tensors with the reference's.
//!
//! Both sides run the same kernels on the same inputs, so any difference, one ulp or the
//! sign of a zero or the payload of a NaN, means the schedule, the memory plan or the task
//! lists changed what a kernel read: values are compared as bits, never with a tolerance.

use crate::runtime::executor::RunResult;
use crate::runtime::reference::ReferenceResult;
use crate::runtime::tensor::HostTensor;
use ascend_kernels::DType;

/// How a tensor differs from the expected one.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// What was compared: `output 0 (act:0)`, `variable w`, ...
    pub what: String,
    pub kind: MismatchKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum MismatchKind {
    /// Different dtype or shape: the elements are not compared.
    Desc { expected: String, actual: String },
    /// The byte counts differ though the descriptions agree.
    Length { expected: usize, actual: usize },
    /// Elements differ: the first one (flat and per dimension), both values, and how many.
    Values {
        first: usize,
        index: Vec<i64>,
        expected: String,
        actual: String,
        differing: usize,
        total: usize,
    },
    /// Something to compare is missing on one side (an output, a variable).
    Missing { detail: String },
    /// The run itself failed.
    RunFailed { detail: String },
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            MismatchKind::Desc { expected, actual } => {
                write!(f, "{}: expected {expected}, got {actual}", self.what)
            }
            MismatchKind::Length { expected, actual } => {
                write!(f, "{}: expected {expected} bytes, got {actual}", self.what)
            }
            MismatchKind::Values {
                first,
                index,
                expected,
                actual,
                differing,
                total,
            } => write!(
                f,
                "{}: element {first} {index:?} is {actual}, expected {expected} \
                 ({differing} of {total} elements differ)",
                self.what
            ),
            MismatchKind::Missing { detail } | MismatchKind::RunFailed { detail } => {
                write!(f, "{}: {detail}", self.what)
            }
        }
    }
}

impl std::error::Error for Mismatch {}

/// Whether `actual` holds exactly `expected`'s bits (same dtype, shape and bytes).
pub fn compare_bitwise(
    what: &str,
    expected: &HostTensor,
    actual: &HostTensor,
) -> Result<(), Mismatch> {
    let mismatch = |kind| Mismatch {
        what: what.to_owned(),
        kind,
    };
    if expected.desc.dtype != actual.desc.dtype || expected.desc.dims != actual.desc.dims {
        return Err(mismatch(MismatchKind::Desc {
            expected: describe(expected),
            actual: describe(actual),
        }));
    }
    if expected.bytes.len() != actual.bytes.len() {
        return Err(mismatch(MismatchKind::Length {
            expected: expected.bytes.len(),
            actual: actual.bytes.len(),
        }));
    }
    if expected.bytes == actual.bytes {
        return Ok(());
    }
    let size = expected.desc.dtype.size();
    let mut first = None;
    let mut differing = 0usize;
    for (i, (a, b)) in expected
        .bytes
        .chunks_exact(size)
        .zip(actual.bytes.chunks_exact(size))
        .enumerate()
    {
        if a != b {
            differing += 1;
            first.get_or_insert(i);
        }
    }
    let first = first.unwrap_or(0);
    let at = first * size;
    Err(mismatch(MismatchKind::Values {
        first,
        index: unravel(first, &expected.desc.dims),
        expected: format_element(expected.desc.dtype, &expected.bytes[at..at + size]),
        actual: format_element(actual.desc.dtype, &actual.bytes[at..at + size]),
        differing,
        total: expected.bytes.len() / size,
    }))
}

fn describe(t: &HostTensor) -> String {
    format!("{} {:?}", t.desc.dtype.mlir(), t.desc.dims)
}

/// The multi-dimensional index of flat element `flat` of a row-major tensor.
pub fn unravel(mut flat: usize, dims: &[i64]) -> Vec<i64> {
    let mut index = vec![0i64; dims.len()];
    for (slot, &d) in index.iter_mut().zip(dims).rev() {
        let d = d.max(1) as usize;
        *slot = (flat % d) as i64;
        flat /= d;
    }
    index
}

/// One element as its value and, for floats, its bits (so `-0` against `0` and NaN
/// payloads are visible).
pub fn format_element(dtype: DType, b: &[u8]) -> String {
    macro_rules! le {
        ($t:ty) => {
            <$t>::from_le_bytes(b.try_into().expect("element size"))
        };
    }
    match dtype {
        DType::F32 => {
            let v = le!(f32);
            format!("{v:?} (0x{:08x})", v.to_bits())
        }
        DType::F64 => {
            let v = le!(f64);
            format!("{v:?} (0x{:016x})", v.to_bits())
        }
        DType::F16 => {
            let v = half::f16::from_le_bytes([b[0], b[1]]);
            format!("{:?} (0x{:04x})", v.to_f32(), v.to_bits())
        }
        DType::BF16 => {
            let v = half::bf16::from_le_bytes([b[0], b[1]]);
            format!("{:?} (0x{:04x})", v.to_f32(), v.to_bits())
        }
        DType::I8 => le!(i8).to_string(),
        DType::U8 => le!(u8).to_string(),
        DType::I16 => le!(i16).to_string(),
        DType::U16 => le!(u16).to_string(),
        DType::I32 => le!(i32).to_string(),
        DType::U32 => le!(u32).to_string(),
        DType::I64 => le!(i64).to_string(),
        DType::U64 => le!(u64).to_string(),
        DType::Bool => (b[0] != 0).to_string(),
    }
}

/// Every difference between the reference's results and a run's, rank by rank: the
/// outputs by position, the variables by name (one missing on either side is a mismatch
/// too). Empty when the run is bit-identical to the reference.
pub fn check_run(reference: &[ReferenceResult], actual: &RunResult) -> Vec<Mismatch> {
    let mut found = Vec::new();
    let multi = reference.len() > 1 || actual.ranks.len() > 1;
    let label = |rank: usize, what: String| {
        if multi {
            format!("rank {rank} {what}")
        } else {
            what
        }
    };
    if reference.len() != actual.ranks.len() {
        found.push(Mismatch {
            what: "ranks".into(),
            kind: MismatchKind::Missing {
                detail: format!(
                    "the reference has {} ranks, the run {}",
                    reference.len(),
                    actual.ranks.len()
                ),
            },
        });
    }
    for (rank, (want, got)) in reference.iter().zip(&actual.ranks).enumerate() {
        if want.outputs.len() != got.outputs.len() {
            found.push(Mismatch {
                what: label(rank, "outputs".into()),
                kind: MismatchKind::Missing {
                    detail: format!(
                        "the reference has {} outputs, the run {}",
                        want.outputs.len(),
                        got.outputs.len()
                    ),
                },
            });
        }
        for (k, (e, a)) in want.outputs.iter().zip(&got.outputs).enumerate() {
            if let Err(m) = compare_bitwise(&label(rank, format!("output {k}")), e, a) {
                found.push(m);
            }
        }
        for (name, e) in &want.variables {
            let what = label(rank, format!("variable {name}"));
            match got.variables.iter().find(|(n, _)| n == name) {
                Some((_, a)) => {
                    if let Err(m) = compare_bitwise(&what, e, a) {
                        found.push(m);
                    }
                }
                None => found.push(Mismatch {
                    what,
                    kind: MismatchKind::Missing {
                        detail: "not in the run's variables".into(),
                    },
                }),
            }
        }
        for (name, _) in &got.variables {
            if !want.variables.iter().any(|(n, _)| n == name) {
                found.push(Mismatch {
                    what: label(rank, format!("variable {name}")),
                    kind: MismatchKind::Missing {
                        detail: "not in the reference's variables".into(),
                    },
                });
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lowering::model::TensorDesc;

    fn f32s(dims: &[i64], values: &[f32]) -> HostTensor {
        HostTensor {
            desc: TensorDesc {
                dtype: DType::F32,
                dims: dims.to_vec(),
                format: 2,
            },
            bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        }
    }

    #[test]
    fn equal_tensors_match() {
        let t = f32s(&[2, 2], &[1.0, 2.0, 3.0, f32::NAN]);
        assert_eq!(compare_bitwise("output 0", &t, &t.clone()), Ok(()));
    }

    #[test]
    fn one_differing_element_is_located_in_every_dimension() {
        let a = f32s(&[2, 3], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        let b = f32s(&[2, 3], &[0.0, 1.0, 2.0, 3.0, 4.5, 5.0]);
        let m = compare_bitwise("output 1 (act:0)", &a, &b).unwrap_err();
        let MismatchKind::Values {
            first,
            ref index,
            differing,
            total,
            ..
        } = m.kind
        else {
            panic!("{m:?}")
        };
        assert_eq!(
            (first, index.clone(), differing, total),
            (4, vec![1, 1], 1, 6)
        );
        let text = m.to_string();
        assert!(text.contains("output 1 (act:0)"), "{text}");
        assert!(text.contains("element 4 [1, 1] is 4.5"), "{text}");
        assert!(text.contains("expected 4.0"), "{text}");
        assert!(text.contains("1 of 6 elements differ"), "{text}");
    }

    #[test]
    fn nan_payloads_and_signed_zeros_differ_bitwise() {
        let quiet = f32::from_bits(0x7fc0_0000);
        let other = f32::from_bits(0x7fc0_0001);
        let m = compare_bitwise("v", &f32s(&[1], &[quiet]), &f32s(&[1], &[other])).unwrap_err();
        assert!(m.to_string().contains("0x7fc00001"), "{m}");
        let same_nan = f32s(&[1], &[quiet]);
        assert!(compare_bitwise("v", &same_nan, &same_nan.clone()).is_ok());
        let m = compare_bitwise("v", &f32s(&[], &[0.0]), &f32s(&[], &[-0.0])).unwrap_err();
        let text = m.to_string();
        assert!(text.contains("-0.0 (0x80000000)"), "{text}");
        assert!(text.contains("[]"), "{text}");
    }

    #[test]
    fn shapes_and_types_are_compared_before_bytes() {
        let a = f32s(&[4], &[1.0; 4]);
        let b = f32s(&[2, 2], &[1.0; 4]);
        let m = compare_bitwise("w", &a, &b).unwrap_err();
        assert_eq!(m.to_string(), "w: expected f32 [4], got f32 [2, 2]");
        let mut c = a.clone();
        c.desc.dtype = DType::I32;
        assert!(matches!(
            compare_bitwise("w", &a, &c).unwrap_err().kind,
            MismatchKind::Desc { .. }
        ));
    }

    #[test]
    fn check_run_names_rank_output_and_variable() {
        use crate::runtime::executor::RankResult;
        let w = f32s(&[2], &[1.0, 2.0]);
        let reference = vec![
            ReferenceResult {
                outputs: vec![f32s(&[1], &[3.0])],
                variables: vec![("w".into(), w.clone())],
            };
            2
        ];
        let mut run = RunResult {
            ranks: reference
                .iter()
                .map(|r| RankResult {
                    outputs: r.outputs.clone(),
                    variables: r.variables.clone(),
                })
                .collect(),
            report: None,
            memory: Vec::new(),
        };
        assert!(check_run(&reference, &run).is_empty());
        run.ranks[1].variables[0].1 = f32s(&[2], &[1.0, 2.5]);
        run.ranks[0].variables.push(("extra".into(), w));
        let found = check_run(&reference, &run);
        let text: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert_eq!(found.len(), 2, "{text:?}");
        assert!(text[0].starts_with("rank 0 variable extra"), "{text:?}");
        assert!(
            text[1].starts_with("rank 1 variable w: element 1 [1]"),
            "{text:?}"
        );
    }

    #[test]
    fn integers_and_halves_format_by_dtype() {
        assert_eq!(format_element(DType::I32, &(-7i32).to_le_bytes()), "-7");
        assert_eq!(format_element(DType::Bool, &[1]), "true");
        assert_eq!(
            format_element(DType::F16, &half::f16::from_f32(1.5).to_le_bytes()),
            "1.5 (0x3e00)"
        );
        assert_eq!(unravel(7, &[2, 2, 2]), vec![1, 1, 1]);
        assert_eq!(unravel(0, &[]), Vec::<i64>::new());
    }
}
