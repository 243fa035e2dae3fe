//! Shape inference for the ops the importer maps: what each output's dims are, from the
//! input types (and constant inputs). An unknown dimension stays unknown (`None`): the
//! graph becomes dynamic-shape, never a guess.

pub type Dims = Vec<Option<i64>>;

/// Numpy broadcasting of two shapes; `Err` when known dims conflict.
pub fn broadcast(a: &Option<Dims>, b: &Option<Dims>) -> Result<Option<Dims>, String> {
    let (Some(a), Some(b)) = (a, b) else {
        return Ok(None);
    };
    let rank = a.len().max(b.len());
    let mut out = Vec::with_capacity(rank);
    for i in 0..rank {
        let da = if i + a.len() >= rank {
            a[i + a.len() - rank]
        } else {
            Some(1)
        };
        let db = if i + b.len() >= rank {
            b[i + b.len() - rank]
        } else {
            Some(1)
        };
        out.push(match (da, db) {
            (Some(1), d) | (d, Some(1)) => d,
            (Some(x), Some(y)) if x == y => Some(x),
            (Some(_), Some(_)) => {
                return Err(format!("cannot broadcast {} with {}", show(a), show(b)));
            }
            (Some(x), None) | (None, Some(x)) => Some(x),
            (None, None) => None,
        });
    }
    Ok(Some(out))
}

pub fn show(d: &[Option<i64>]) -> String {
    let parts: Vec<String> = d
        .iter()
        .map(|x| x.map_or("?".into(), |v| v.to_string()))
        .collect();
    format!("[{}]", parts.join(", "))
}

/// An axis in `[-rank, rank)` made non-negative.
pub fn axis(a: i64, rank: usize) -> Result<usize, String> {
    let r = rank as i64;
    if a < -r || a >= r {
        return Err(format!("axis {a} is out of range for rank {rank}"));
    }
    Ok(if a < 0 { (a + r) as usize } else { a as usize })
}

/// The product of known dims (`None` if any is unknown).
pub fn product(d: &[Option<i64>]) -> Option<i64> {
    d.iter().try_fold(1i64, |acc, &x| x.map(|x| acc * x))
}

/// Output size of a convolution or pooling window along one axis.
pub fn window_out(
    input: Option<i64>,
    kernel: i64,
    stride: i64,
    (pad_begin, pad_end): (i64, i64),
    dilation: i64,
    ceil: bool,
) -> Option<i64> {
    let input = input?;
    let pad = pad_begin + pad_end;
    let span = dilation * (kernel - 1) + 1;
    let num = input + pad - span;
    if num < 0 {
        return Some(0);
    }
    let mut out = if ceil {
        (num + stride - 1) / stride + 1
    } else {
        num / stride + 1
    };
    // ONNX: with ceil_mode the last window must start inside the (left-padded) input.
    if ceil && (out - 1) * stride >= input + pad_begin {
        out -= 1;
    }
    Some(out)
}

/// Reshape's output dims from a constant shape (`0` copies the input dim unless
/// `allowzero`, one `-1` is inferred when the rest is known).
pub fn reshape(input: &Option<Dims>, shape: &[i64], allowzero: bool) -> Result<Dims, String> {
    let mut out: Dims = Vec::with_capacity(shape.len());
    let mut infer = None;
    for (i, &s) in shape.iter().enumerate() {
        match s {
            -1 if infer.is_some() => return Err(format!("shape {shape:?} has more than one -1")),
            -1 => {
                infer = Some(i);
                out.push(None);
            }
            0 if !allowzero => out.push(match input {
                Some(d) if i < d.len() => d[i],
                Some(_) => {
                    return Err(format!(
                        "shape {shape:?}: 0 at {i} copies a dim the input lacks"
                    ))
                }
                None => None,
            }),
            s if s < 0 => return Err(format!("shape {shape:?} has a negative dim {s}")),
            s => out.push(Some(s)),
        }
    }
    if let Some(i) = infer {
        let total = input.as_ref().and_then(|d| product(d));
        let known: Option<i64> = out
            .iter()
            .enumerate()
            .filter(|&(k, _)| k != i)
            .try_fold(1i64, |acc, (_, &d)| d.map(|d| acc * d));
        if let (Some(total), Some(known)) = (total, known) {
            if known == 0 || total % known != 0 {
                return Err(format!("cannot reshape {} elements into {shape:?}", total));
            }
            out[i] = Some(total / known);
        }
    } else if let (Some(total), Some(n)) = (input.as_ref().and_then(|d| product(d)), product(&out))
    {
        if total != n {
            return Err(format!("cannot reshape {} elements into {shape:?}", total));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy_and_keeps_unknowns() {
        let a = Some(vec![Some(2), Some(1), Some(4)]);
        let b = Some(vec![Some(3), Some(1)]);
        assert_eq!(
            broadcast(&a, &b).unwrap(),
            Some(vec![Some(2), Some(3), Some(4)])
        );
        let c = Some(vec![None, Some(4)]);
        assert_eq!(
            broadcast(&a, &c).unwrap(),
            Some(vec![Some(2), None, Some(4)])
        );
        assert!(broadcast(&Some(vec![Some(2)]), &Some(vec![Some(3)])).is_err());
        assert_eq!(broadcast(&None, &b).unwrap(), None);
    }

    #[test]
    fn reshape_copies_zeros_and_infers_minus_one() {
        let x = Some(vec![Some(2), Some(3), Some(4)]);
        assert_eq!(
            reshape(&x, &[0, -1], false).unwrap(),
            vec![Some(2), Some(12)]
        );
        assert_eq!(reshape(&x, &[-1], false).unwrap(), vec![Some(24)]);
        assert!(reshape(&x, &[5, -1], false).is_err());
        assert!(reshape(&x, &[-1, -1], false).is_err());
        let dynamic = Some(vec![None, Some(3)]);
        assert_eq!(
            reshape(&dynamic, &[-1, 3], false).unwrap(),
            vec![None, Some(3)]
        );
    }

    #[test]
    fn windows_floor_and_ceil() {
        assert_eq!(window_out(Some(5), 3, 1, (1, 1), 1, false), Some(5));
        assert_eq!(window_out(Some(5), 2, 2, (0, 0), 1, false), Some(2));
        assert_eq!(window_out(Some(5), 2, 2, (0, 0), 1, true), Some(3));
        assert_eq!(window_out(None, 2, 2, (0, 0), 1, true), None);
    }
}
