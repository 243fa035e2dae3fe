//! Ops that update a variable (ref inputs). The kernels are pure: they compute the new
//! value into the output buffer, which the lowering binds to the variable's memory (so an
//! in-place update is an output aliasing an input; inputs are read before anything is
//! written, and the kernels read inputs into fresh buffers first).
//!
//! * Assign(ref, value): y = value (same dtype and dims as ref).
//! * AssignAdd / AssignSub(ref, value): y = ref +/- value (same dims).
//! * ApplyMomentum(var, accum, lr, grad, momentum), attr `use_nesterov` = false (TF/GE):
//!   `accum' = accum * momentum + grad`; `var' = var - lr * accum'`, or with Nesterov
//!   `var' = var - (grad * lr + accum' * momentum * lr)`. Outputs `[var', accum']` (the
//!   lowering appends the written accum as a second output) or `[var']` alone.

use crate::binary::{compute, Binary};
use crate::kernel::{Input, Op, Result};
use crate::types::{TensorMut, TensorRef};
use crate::values::{domain, Domain, Real, Values};

fn same_dims(op: &Op<'_>, a: &Input<'_>, b: &Input<'_>) -> Result<()> {
    if a.dims != b.dims {
        return Err(op.invalid(format!(
            "{} dims {:?}, expected {:?} like {}",
            b.label(),
            b.dims,
            a.dims,
            a.label()
        )));
    }
    Ok(())
}

pub(crate) fn assign(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [r, value] = op.inputs_n(inputs, ["ref", "value"])?;
    op.output_count(outputs, 1, 1)?;
    op.same_dtype(&[&r, &value])?;
    same_dims(op, &r, &value)?;
    op.write_bytes(outputs, 0, r.dtype, &r.dims, value.bytes)
}

pub(crate) fn assign_op(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
    f: Binary,
) -> Result<()> {
    let [r, value] = op.inputs_n(inputs, ["ref", "value"])?;
    op.output_count(outputs, 1, 1)?;
    op.same_dtype(&[&r, &value])?;
    same_dims(op, &r, &value)?;
    let y = compute(op, &r, &value, &r.dims, f)?;
    op.write(outputs, 0, r.dtype, &r.dims, &y)
}

fn scalar<T: Real>(op: &Op<'_>, t: &Input<'_>) -> Result<T> {
    match T::from_any_float(t.values()).as_deref() {
        Some([x]) => Ok(*x),
        Some(v) => Err(op.invalid(format!(
            "{} must hold one value, got {}",
            t.label(),
            v.len()
        ))),
        None => Err(op.invalid(format!(
            "{} must be a float tensor, got {:?}",
            t.label(),
            t.dtype
        ))),
    }
}

fn momentum_values<T: Real>(
    op: &Op<'_>,
    [var, accum, lr, grad, momentum]: &[Input<'_>; 5],
    nesterov: bool,
) -> Result<(Values, Values)> {
    let (lr, mom) = (scalar::<T>(op, lr)?, scalar::<T>(op, momentum)?);
    let conv = |t: &Input<'_>| {
        T::from_values(t.values()).ok_or_else(|| op.invalid("internal error: domain"))
    };
    let (mut v, mut a, g) = (conv(var)?, conv(accum)?, conv(grad)?);
    for ((v, a), &g) in v.iter_mut().zip(a.iter_mut()).zip(&g) {
        *a = *a * mom + g;
        *v = if nesterov {
            *v - (g * lr + *a * mom * lr)
        } else {
            *v - lr * *a
        };
    }
    Ok((T::into_values(v), T::into_values(a)))
}

pub(crate) fn apply_momentum(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let ins = op.inputs_n(inputs, ["var", "accum", "lr", "grad", "momentum"])?;
    let n_out = op.output_count(outputs, 1, 2)?;
    let [var, accum, _, grad, _] = &ins;
    op.same_dtype(&[var, accum, grad])?;
    same_dims(op, var, accum)?;
    same_dims(op, var, grad)?;
    let nesterov = op.attr_bool("use_nesterov", false)?;
    let (v, a) = match domain(var.dtype) {
        Domain::F32 => momentum_values::<f32>(op, &ins, nesterov)?,
        Domain::F64 => momentum_values::<f64>(op, &ins, nesterov)?,
        _ => {
            return Err(op.invalid(format!(
                "input 0 (var): dtype {:?} is not supported (float only)",
                var.dtype
            )))
        }
    };
    op.write(outputs, 0, var.dtype, &var.dims, &v)?;
    if n_out == 2 {
        op.write(outputs, 1, accum.dtype, &accum.dims, &a)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::types::DType;

    #[test]
    fn assign_family() {
        let r = f32s(&[2], &[1.0, 2.0]);
        let v = f32s(&[2], &[10.0, 20.0]);
        assert_eq!(
            run1("Assign", &[], &[r.clone(), v.clone()], DType::F32, &[2]).f32(),
            [10.0, 20.0]
        );
        assert_eq!(
            run1("AssignAdd", &[], &[r.clone(), v.clone()], DType::F32, &[2]).f32(),
            [11.0, 22.0]
        );
        assert_eq!(
            run1("AssignSub", &[], &[r.clone(), v], DType::F32, &[2]).f32(),
            [-9.0, -18.0]
        );
        let step = i64s(&[], &[i64::MAX]);
        assert_eq!(
            run1(
                "AssignAdd",
                &[],
                &[step.clone(), i64s(&[], &[1])],
                DType::I64,
                &[]
            )
            .i64(),
            [i64::MIN]
        );
        let e = fails(
            "Assign",
            &[],
            &[r.clone(), f32s(&[3], &[0.0; 3])],
            &[(DType::F32, vec![2])],
        );
        assert!(
            e.contains("`Assign`: input 1 (value) dims [3], expected [2] like input 0 (ref)"),
            "{e}"
        );
        let e = fails(
            "Assign",
            &[],
            &[r, i32s(&[2], &[0; 2])],
            &[(DType::F32, vec![2])],
        );
        assert!(e.contains("input 1 (value) has dtype I32"), "{e}");
    }

    fn momentum_inputs() -> Vec<Owned> {
        vec![
            f32s(&[2], &[1.0, 2.0]),  // var
            f32s(&[2], &[0.5, -1.0]), // accum
            f32s(&[], &[0.5]),        // lr
            f32s(&[2], &[2.0, 4.0]),  // grad
            f32s(&[], &[0.5]),        // momentum
        ]
    }

    #[test]
    fn apply_momentum_plain_and_nesterov() {
        // accum' = accum * 0.5 + grad = [2.25, 3.5]; var' = var - 0.5 * accum' = [-0.125, 0.25]
        let two = [(DType::F32, vec![2]), (DType::F32, vec![2])];
        let outs = run("ApplyMomentum", &[], &momentum_inputs(), &two).unwrap();
        assert_eq!(outs[0].f32(), [-0.125, 0.25]);
        assert_eq!(outs[1].f32(), [2.25, 3.5]);
        // Single output: only var.
        let y = run1("ApplyMomentum", &[], &momentum_inputs(), DType::F32, &[2]);
        assert_eq!(y.f32(), [-0.125, 0.25]);
        // Nesterov: var' = var - (grad * lr + accum' * momentum * lr) = [1 - 1.5625, 2 - 2.875]
        let nest = [("use_nesterov", boolean(true))];
        let outs = run("ApplyMomentum", &nest, &momentum_inputs(), &two).unwrap();
        assert_eq!(outs[0].f32(), [-0.5625, -0.875]);
    }

    #[test]
    fn apply_momentum_errors() {
        let mut ins = momentum_inputs();
        ins[2] = f32s(&[2], &[0.1, 0.1]);
        let e = fails("ApplyMomentum", &[], &ins, &[(DType::F32, vec![2])]);
        assert!(e.contains("input 2 (lr) must hold one value, got 2"), "{e}");
        let mut ins = momentum_inputs();
        ins[3] = f32s(&[1], &[0.0]);
        let e = fails("ApplyMomentum", &[], &ins, &[(DType::F32, vec![2])]);
        assert!(
            e.contains("input 3 (grad) dims [1], expected [2] like input 0 (var)"),
            "{e}"
        );
        let e = fails(
            "ApplyMomentum",
            &[],
            &momentum_inputs()[..4],
            &[(DType::F32, vec![2])],
        );
        assert!(
            e.contains("expects 5 inputs (var, accum, lr, grad, momentum), got 4"),
            "{e}"
        );
        let three = [
            (DType::F32, vec![2]),
            (DType::F32, vec![2]),
            (DType::F32, vec![2]),
        ];
        let e = fails("ApplyMomentum", &[], &momentum_inputs(), &three);
        assert!(e.contains("expects 1 to 2 outputs, got 3"), "{e}");
    }
}
