//! Shapes as the kernels see them: checked element counts, row-major strides, numpy
//! broadcasting, axis normalisation and [`walk`], the one strided loop every data-movement
//! kernel (broadcast, transpose, reduce, slice, tile, pad) is written with.

/// Validated `usize` dims of a GE shape and their element count. Negative dims and counts or
/// byte sizes that overflow `usize` are errors, so later index arithmetic cannot overflow.
pub(crate) fn checked_dims(dims: &[i64], elem_size: usize) -> Result<(Vec<usize>, usize), String> {
    let mut out = Vec::with_capacity(dims.len());
    let mut count: usize = 1;
    for &d in dims {
        let d = usize::try_from(d).map_err(|_| format!("negative dim in {dims:?}"))?;
        count = count
            .checked_mul(d)
            .ok_or_else(|| format!("element count of {dims:?} overflows"))?;
        out.push(d);
    }
    count
        .checked_mul(elem_size.max(1))
        .ok_or_else(|| format!("byte size of {dims:?} overflows"))?;
    Ok((out, count))
}

/// Product of dims (callers pass dims already validated by [`checked_dims`], or sub-slices
/// of them, whose products cannot overflow).
pub(crate) fn product(dims: &[usize]) -> usize {
    dims.iter().product()
}

/// Row-major strides, in elements.
pub(crate) fn strides(dims: &[usize]) -> Vec<usize> {
    let mut s = vec![1; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1];
    }
    s
}

/// The numpy broadcast of two shapes (right-aligned; equal dims or one of them 1).
pub(crate) fn broadcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let rank = a.len().max(b.len());
    let mut out = vec![0; rank];
    for (i, o) in out.iter_mut().enumerate() {
        let da = dim_from_right(a, rank - 1 - i);
        let db = dim_from_right(b, rank - 1 - i);
        *o = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

fn dim_from_right(dims: &[usize], k: usize) -> usize {
    if k < dims.len() {
        dims[dims.len() - 1 - k]
    } else {
        1
    }
}

/// Strides that read a tensor of `dims` while walking the broadcast shape `out` (0 on every
/// broadcast dim). `dims` must broadcast to `out` (checked by [`broadcast_shape`]).
pub(crate) fn broadcast_strides(dims: &[usize], out: &[usize]) -> Vec<usize> {
    let own = strides(dims);
    let lead = out.len().saturating_sub(dims.len());
    (0..out.len())
        .map(|i| {
            if i < lead || dims[i - lead] == 1 {
                0
            } else {
                own[i - lead]
            }
        })
        .collect()
}

/// A GE axis (negative counts from the end) as an index below `rank`.
pub(crate) fn norm_axis(axis: i64, rank: usize) -> Option<usize> {
    let r = i64::try_from(rank).ok()?;
    let a = if axis < 0 { axis + r } else { axis };
    (0..r).contains(&a).then_some(a as usize)
}

/// Calls `f` with one flat offset per stride vector for every index of `shape`, in
/// row-major order of `shape`. Every stride vector has `shape.len()` entries.
pub(crate) fn walk<const N: usize>(
    shape: &[usize],
    strides: [&[usize]; N],
    mut f: impl FnMut([usize; N]),
) {
    debug_assert!(strides.iter().all(|s| s.len() == shape.len()));
    if shape.contains(&0) {
        return;
    }
    let Some(last) = shape.len().checked_sub(1) else {
        f([0; N]);
        return;
    };
    let inner = shape[last];
    let step: [usize; N] = std::array::from_fn(|k| strides[k][last]);
    let mut idx = vec![0usize; last];
    let mut base = [0usize; N];
    loop {
        let mut off = base;
        for _ in 0..inner {
            f(off);
            for k in 0..N {
                off[k] += step[k];
            }
        }
        let mut d = last;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < shape[d] {
                for k in 0..N {
                    base[k] += strides[k][d];
                }
                break;
            }
            for k in 0..N {
                base[k] -= strides[k][d] * (shape[d] - 1);
            }
            idx[d] = 0;
        }
    }
}

/// `v` (dims `dims`) with its axes reordered: result dim `i` is input dim `perm[i]`.
/// `perm` must be a permutation of `0..dims.len()`.
pub(crate) fn permute<T: Copy>(v: &[T], dims: &[usize], perm: &[usize]) -> (Vec<T>, Vec<usize>) {
    let s = strides(dims);
    let out_dims: Vec<usize> = perm.iter().map(|&p| dims[p]).collect();
    let read: Vec<usize> = perm.iter().map(|&p| s[p]).collect();
    let mut out = Vec::with_capacity(v.len());
    walk(&out_dims, [&read], |[i]| out.push(v[i]));
    (out, out_dims)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(broadcast_shape(&[2, 1, 3], &[4, 1]), Some(vec![2, 4, 3]));
        assert_eq!(broadcast_shape(&[], &[5]), Some(vec![5]));
        assert_eq!(broadcast_shape(&[2, 3], &[3, 2]), None);
        assert_eq!(broadcast_strides(&[4, 1], &[2, 4, 3]), vec![0, 1, 0]);
    }

    #[test]
    fn walk_visits_row_major() {
        let mut seen = Vec::new();
        // Transposed read of a 2x3 tensor: walk the 3x2 output with strides [1, 3].
        walk(&[3, 2], [&[1, 3]], |[o]| seen.push(o));
        assert_eq!(seen, vec![0, 3, 1, 4, 2, 5]);
        let mut n = 0;
        walk(&[], [&[]], |_| n += 1);
        assert_eq!(n, 1);
        walk(&[2, 0], [&[0, 0]], |_| n += 1);
        assert_eq!(n, 1);
    }

    #[test]
    fn permute_reorders_axes() {
        let (v, d) = permute(&[0, 1, 2, 3, 4, 5], &[2, 3], &[1, 0]);
        assert_eq!((v, d), (vec![0, 3, 1, 4, 2, 5], vec![3, 2]));
    }

    #[test]
    fn dims_are_checked() {
        assert_eq!(checked_dims(&[2, 3], 4).unwrap(), (vec![2, 3], 6));
        assert!(checked_dims(&[2, -1], 4).is_err());
        assert!(checked_dims(&[i64::MAX, 4], 1).is_err());
        assert!(checked_dims(&[1 << 62], 8).is_err());
        assert_eq!(norm_axis(-1, 3), Some(2));
        assert_eq!(norm_axis(3, 3), None);
        assert_eq!(norm_axis(-4, 3), None);
    }
}
