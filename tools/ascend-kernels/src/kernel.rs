//! What every kernel shares: the op being run (type name and attributes), validated views of
//! its inputs, checked access to its outputs, typed attribute reads with GE defaults, and
//! error messages that name the op, the operand and what was expected.

use std::fmt::Display;

use crate::layout::{self, checked_dims};
use crate::types::{AttrValue, Attrs, DType, TensorMut, TensorRef};
use crate::values::{self, decode, encode, Values};
use crate::KernelError;

pub(crate) type Result<T> = std::result::Result<T, KernelError>;

/// A kernel: GE semantics of one op type (or a family sharing one function).
pub(crate) type KernelFn = fn(&Op<'_>, &[TensorRef<'_>], &mut [TensorMut<'_>]) -> Result<()>;

/// The op being run.
pub(crate) struct Op<'a> {
    pub name: &'a str,
    pub attrs: &'a Attrs,
}

/// An input whose shape and byte length were checked: `bytes` is exactly
/// `count * dtype.size()` long.
#[derive(Debug, Clone)]
pub(crate) struct Input<'a> {
    pub index: usize,
    pub name: &'static str,
    pub dtype: DType,
    pub dims: Vec<usize>,
    pub count: usize,
    pub bytes: &'a [u8],
}

impl Input<'_> {
    pub fn label(&self) -> String {
        format!("input {} ({})", self.index, self.name)
    }

    pub fn values(&self) -> Values {
        decode(self.dtype, self.bytes)
    }

    pub fn rank(&self) -> usize {
        self.dims.len()
    }
}

impl<'a> Op<'a> {
    /// `Invalid("`{op}`: {msg}")`.
    pub fn invalid(&self, msg: impl Display) -> KernelError {
        KernelError::Invalid(format!("`{}`: {msg}", self.name))
    }

    /// Validates `t` as input `index`, called `name` in messages.
    pub fn input<'t>(
        &self,
        t: &TensorRef<'t>,
        index: usize,
        name: &'static str,
    ) -> Result<Input<'t>> {
        let label = || format!("input {index} ({name})");
        let (dims, count) = checked_dims(t.dims, t.dtype.size())
            .map_err(|e| self.invalid(format!("{}: {e}", label())))?;
        let len = count * t.dtype.size();
        let bytes = t.data.get(..len).ok_or_else(|| {
            self.invalid(format!(
                "{}: {:?}{:?} needs {len} bytes, got {}",
                label(),
                t.dtype,
                dims,
                t.data.len()
            ))
        })?;
        Ok(Input {
            index,
            name,
            dtype: t.dtype,
            dims,
            count,
            bytes,
        })
    }

    /// Exactly `names.len()` inputs, validated.
    pub fn inputs<'t>(
        &self,
        inputs: &[TensorRef<'t>],
        names: &[&'static str],
    ) -> Result<Vec<Input<'t>>> {
        self.inputs_optional(inputs, names, names.len())
    }

    /// Exactly `N` inputs, as an array to destructure.
    pub fn inputs_n<'t, const N: usize>(
        &self,
        inputs: &[TensorRef<'t>],
        names: [&'static str; N],
    ) -> Result<[Input<'t>; N]> {
        let v = self.inputs(inputs, &names)?;
        v.try_into()
            .map_err(|_| self.invalid("internal error: input count"))
    }

    /// `required..=names.len()` inputs (trailing ones optional, as GE's `OPTIONAL_INPUT`).
    pub fn inputs_optional<'t>(
        &self,
        inputs: &[TensorRef<'t>],
        names: &[&'static str],
        required: usize,
    ) -> Result<Vec<Input<'t>>> {
        if inputs.len() < required || inputs.len() > names.len() {
            let want = if required == names.len() {
                format!("{required}")
            } else {
                format!("{required} to {}", names.len())
            };
            return Err(self.invalid(format!(
                "expects {want} inputs ({}), got {}",
                names.join(", "),
                inputs.len()
            )));
        }
        inputs
            .iter()
            .zip(names)
            .enumerate()
            .map(|(i, (t, n))| self.input(t, i, n))
            .collect()
    }

    /// A dynamic input group: every input is called `name`, at least `min` of them.
    pub fn inputs_variadic<'t>(
        &self,
        inputs: &[TensorRef<'t>],
        name: &'static str,
        min: usize,
    ) -> Result<Vec<Input<'t>>> {
        if inputs.len() < min {
            return Err(self.invalid(format!(
                "expects at least {min} inputs ({name}...), got {}",
                inputs.len()
            )));
        }
        inputs
            .iter()
            .enumerate()
            .map(|(i, t)| self.input(t, i, name))
            .collect()
    }

    /// `min..=max` outputs.
    pub fn output_count(&self, outputs: &[TensorMut<'_>], min: usize, max: usize) -> Result<usize> {
        let n = outputs.len();
        if n < min || n > max {
            let want = if min == max {
                format!("{min}")
            } else {
                format!("{min} to {max}")
            };
            return Err(self.invalid(format!("expects {want} outputs, got {n}")));
        }
        Ok(n)
    }

    /// The exact byte range of output `index`, after checking it has `dtype` and `dims`.
    pub fn output<'o>(
        &self,
        outputs: &'o mut [TensorMut<'_>],
        index: usize,
        dtype: DType,
        dims: &[usize],
    ) -> Result<&'o mut [u8]> {
        let n = outputs.len();
        let out = outputs
            .get_mut(index)
            .ok_or_else(|| self.invalid(format!("output {index} missing ({n} outputs given)")))?;
        if out.dtype != dtype {
            return Err(self.invalid(format!(
                "output {index}: dtype {:?}, expected {dtype:?}",
                out.dtype
            )));
        }
        let (have, count) = checked_dims(out.dims, dtype.size())
            .map_err(|e| self.invalid(format!("output {index}: {e}")))?;
        if have != dims {
            return Err(self.invalid(format!("output {index}: dims {have:?}, expected {dims:?}")));
        }
        let len = count * dtype.size();
        let have_len = out.data.len();
        out.data.get_mut(..len).ok_or_else(|| {
            self.invalid(format!(
                "output {index}: {dtype:?}{dims:?} needs {len} bytes, buffer has {have_len}"
            ))
        })
    }

    /// Output `index`'s dtype and validated dims (for ops whose result shape comes from the
    /// graph: Reshape, Fill).
    pub fn output_desc(
        &self,
        outputs: &[TensorMut<'_>],
        index: usize,
    ) -> Result<(DType, Vec<usize>)> {
        let out = outputs
            .get(index)
            .ok_or_else(|| self.invalid(format!("output {index} missing")))?;
        let (dims, _) = checked_dims(out.dims, out.dtype.size())
            .map_err(|e| self.invalid(format!("output {index}: {e}")))?;
        Ok((out.dtype, dims))
    }

    /// Stores `values` into output `index` (of `dtype` and `dims`).
    pub fn write(
        &self,
        outputs: &mut [TensorMut<'_>],
        index: usize,
        dtype: DType,
        dims: &[usize],
        values: &Values,
    ) -> Result<()> {
        let out = self.output(outputs, index, dtype, dims)?;
        encode(values, dtype, out).map_err(|e| self.invalid(format!("output {index}: {e}")))
    }

    /// Copies raw element bytes into output `index`.
    pub fn write_bytes(
        &self,
        outputs: &mut [TensorMut<'_>],
        index: usize,
        dtype: DType,
        dims: &[usize],
        bytes: &[u8],
    ) -> Result<()> {
        let out = self.output(outputs, index, dtype, dims)?;
        if out.len() != bytes.len() {
            return Err(self.invalid(format!(
                "output {index}: {} bytes computed for {} ({dtype:?}{dims:?})",
                bytes.len(),
                out.len()
            )));
        }
        out.copy_from_slice(bytes);
        Ok(())
    }

    /// Fails unless every input has the same dtype as the first.
    pub fn same_dtype(&self, ins: &[&Input<'_>]) -> Result<DType> {
        let first = ins.first().map(|i| i.dtype).unwrap_or(DType::F32);
        for i in ins {
            if i.dtype != first {
                return Err(self.invalid(format!(
                    "{} has dtype {:?}, expected {first:?} like {}",
                    i.label(),
                    i.dtype,
                    ins[0].label()
                )));
            }
        }
        Ok(first)
    }

    /// The integer values of an index input (axes, perm, shape, indices).
    pub fn int_values(&self, input: &Input<'_>) -> Result<Vec<i64>> {
        let v = values::ints(input.dtype, input.bytes).ok_or_else(|| {
            self.invalid(format!(
                "{} must be an integer tensor, got {:?}",
                input.label(),
                input.dtype
            ))
        })?;
        v.into_iter()
            .map(|x| {
                i64::try_from(x)
                    .map_err(|_| self.invalid(format!("{}: value {x} out of range", input.label())))
            })
            .collect()
    }

    /// The single integer of a scalar (or one-element) index input (concat_dim, axis).
    pub fn int_scalar(&self, input: &Input<'_>) -> Result<i64> {
        match self.int_values(input)?.as_slice() {
            [x] => Ok(*x),
            v => Err(self.invalid(format!(
                "{} must hold one integer, got {} values",
                input.label(),
                v.len()
            ))),
        }
    }

    /// `axis` normalised for a tensor of `rank` (negative counts from the end).
    pub fn axis(&self, axis: i64, rank: usize, what: &str) -> Result<usize> {
        layout::norm_axis(axis, rank)
            .ok_or_else(|| self.invalid(format!("{what} {axis} out of range for rank {rank}")))
    }

    fn wrong_attr(&self, name: &str, want: &str, got: &AttrValue) -> KernelError {
        self.invalid(format!("attribute `{name}` must be {want}, got {got:?}"))
    }

    pub fn attr_bool(&self, name: &str, default: bool) -> Result<bool> {
        match self.attrs.get(name) {
            None => Ok(default),
            Some(AttrValue::Bool(b)) => Ok(*b),
            Some(AttrValue::Int(i)) => Ok(*i != 0),
            Some(v) => Err(self.wrong_attr(name, "a bool", v)),
        }
    }

    pub fn attr_int(&self, name: &str, default: i64) -> Result<i64> {
        match self.attrs.get(name) {
            None => Ok(default),
            Some(AttrValue::Int(i)) => Ok(*i),
            Some(AttrValue::Bool(b)) => Ok(*b as i64),
            Some(AttrValue::DataType(d)) => Ok(d.acl() as i64),
            Some(v) => Err(self.wrong_attr(name, "an int", v)),
        }
    }

    pub fn attr_float(&self, name: &str, default: f32) -> Result<f32> {
        match self.attrs.get(name) {
            None => Ok(default),
            Some(AttrValue::Float(f)) => Ok(*f),
            Some(AttrValue::Int(i)) => Ok(*i as f32),
            Some(v) => Err(self.wrong_attr(name, "a float", v)),
        }
    }

    pub fn attr_str(&self, name: &str, default: &'a str) -> Result<&'a str> {
        match self.attrs.get(name) {
            None => Ok(default),
            Some(AttrValue::String(s)) => Ok(s),
            Some(v) => Err(self.wrong_attr(name, "a string", v)),
        }
    }

    /// A list-of-ints attribute (a single int is read as a one-element list).
    pub fn attr_ints(&self, name: &str) -> Result<Option<Vec<i64>>> {
        match self.attrs.get(name) {
            None => Ok(None),
            Some(AttrValue::ListInt(v)) => Ok(Some(v.clone())),
            Some(AttrValue::Int(i)) => Ok(Some(vec![*i])),
            Some(v) => Err(self.wrong_attr(name, "a list of ints", v)),
        }
    }

    /// A required list-of-ints attribute.
    pub fn attr_ints_required(&self, name: &str) -> Result<Vec<i64>> {
        self.attr_ints(name)?
            .ok_or_else(|| self.invalid(format!("required attribute `{name}` missing")))
    }
}
