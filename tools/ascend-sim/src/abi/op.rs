//! Single-op entry points: tensor descs, data buffers, op attributes, aclopExecuteV2.

use std::ffi::{c_char, c_int, c_void, CStr};

use smallvec::SmallVec;

use ascend_kernels::{AttrValue, DType};

use super::{current, entry, entry_ptr, null, slice, string, with_sim};
use crate::errors::*;

fn h<T>(p: *const T) -> u64 {
    p as u64
}

#[no_mangle]
pub unsafe extern "C" fn aclCreateTensorDesc(
    dtype: c_int,
    num_dims: c_int,
    dims: *const i64,
    format: c_int,
) -> *mut c_void {
    let what = "aclCreateTensorDesc";
    entry_ptr(what, || {
        if num_dims < 0 {
            fail!(
                INVALID_PARAM,
                "{what}: numDims {num_dims} is negative (unknown rank cannot run)"
            );
        }
        let dims = unsafe { slice(dims, num_dims as usize, what, "dims")? };
        let id = with_sim(|s| s.create_desc(dtype, dims, format))?;
        Ok(id as *mut c_void)
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclDestroyTensorDesc(desc: *const c_void) {
    if !desc.is_null() {
        entry("aclDestroyTensorDesc", || {
            with_sim(|s| s.destroy_desc(h(desc)))
        });
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclCreateDataBuffer(data: *mut c_void, size: usize) -> *mut c_void {
    entry_ptr("aclCreateDataBuffer", || {
        with_sim(|s| Ok(s.create_buffer(h(data), size as u64) as *mut c_void))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclDestroyDataBuffer(buffer: *const c_void) -> i32 {
    entry("aclDestroyDataBuffer", || {
        with_sim(|s| s.destroy_buffer(h(buffer)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclopCreateAttr() -> *mut c_void {
    entry_ptr("aclopCreateAttr", || {
        with_sim(|s| Ok(s.create_attr() as *mut c_void))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclopDestroyAttr(attr: *const c_void) {
    if !attr.is_null() {
        entry("aclopDestroyAttr", || with_sim(|s| s.destroy_attr(h(attr))));
    }
}

unsafe fn set_attr(
    attr: *mut c_void,
    name: *const c_char,
    what: &str,
    value: impl FnOnce() -> SimResult<AttrValue>,
) -> i32 {
    entry(what, || {
        if attr.is_null() {
            return Err(null(what, "attr"));
        }
        let name = unsafe { string(name, what, "attrName")? };
        let v = value()?;
        with_sim(|s| s.set_attr(h(attr), &name, v, what))
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclopSetAttrBool(
    attr: *mut c_void,
    name: *const c_char,
    value: u8,
) -> i32 {
    unsafe {
        set_attr(attr, name, "aclopSetAttrBool", || {
            Ok(AttrValue::Bool(value != 0))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclopSetAttrInt(
    attr: *mut c_void,
    name: *const c_char,
    value: i64,
) -> i32 {
    unsafe { set_attr(attr, name, "aclopSetAttrInt", || Ok(AttrValue::Int(value))) }
}

#[no_mangle]
pub unsafe extern "C" fn aclopSetAttrFloat(
    attr: *mut c_void,
    name: *const c_char,
    value: f32,
) -> i32 {
    unsafe {
        set_attr(attr, name, "aclopSetAttrFloat", || {
            Ok(AttrValue::Float(value))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclopSetAttrString(
    attr: *mut c_void,
    name: *const c_char,
    value: *const c_char,
) -> i32 {
    let what = "aclopSetAttrString";
    unsafe {
        set_attr(attr, name, what, || {
            Ok(AttrValue::String(string(value, what, "attrValue")?))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclopSetAttrDataType(
    attr: *mut c_void,
    name: *const c_char,
    value: c_int,
) -> i32 {
    let what = "aclopSetAttrDataType";
    unsafe {
        set_attr(attr, name, what, || match DType::from_acl(value) {
            Some(d) => Ok(AttrValue::DataType(d)),
            None => fail!(
                INVALID_PARAM,
                "{what}: data type {value} is not a supported aclDataType"
            ),
        })
    }
}

fn count(n: c_int, what: &str) -> SimResult<usize> {
    if n < 0 {
        fail!(INVALID_PARAM, "{what}: numValues {n} is negative");
    }
    Ok(n as usize)
}

#[no_mangle]
pub unsafe extern "C" fn aclopSetAttrListBool(
    attr: *mut c_void,
    name: *const c_char,
    n: c_int,
    values: *const u8,
) -> i32 {
    let what = "aclopSetAttrListBool";
    unsafe {
        set_attr(attr, name, what, || {
            let v = slice(values, count(n, what)?, what, "values")?;
            Ok(AttrValue::ListBool(v.iter().map(|&b| b != 0).collect()))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclopSetAttrListInt(
    attr: *mut c_void,
    name: *const c_char,
    n: c_int,
    values: *const i64,
) -> i32 {
    let what = "aclopSetAttrListInt";
    unsafe {
        set_attr(attr, name, what, || {
            Ok(AttrValue::ListInt(
                slice(values, count(n, what)?, what, "values")?.to_vec(),
            ))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclopSetAttrListFloat(
    attr: *mut c_void,
    name: *const c_char,
    n: c_int,
    values: *const f32,
) -> i32 {
    let what = "aclopSetAttrListFloat";
    unsafe {
        set_attr(attr, name, what, || {
            Ok(AttrValue::ListFloat(
                slice(values, count(n, what)?, what, "values")?.to_vec(),
            ))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclopSetAttrListString(
    attr: *mut c_void,
    name: *const c_char,
    n: c_int,
    values: *const *const c_char,
) -> i32 {
    let what = "aclopSetAttrListString";
    unsafe {
        set_attr(attr, name, what, || {
            let ptrs = slice(values, count(n, what)?, what, "values")?;
            let strings = ptrs
                .iter()
                .enumerate()
                .map(|(i, &p)| string(p, what, &format!("values[{i}]")))
                .collect::<SimResult<Vec<_>>>()?;
            Ok(AttrValue::ListString(strings))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclopSetModelDir(dir: *const c_char) -> i32 {
    let what = "aclopSetModelDir";
    entry(what, || {
        let dir = unsafe { string(dir, what, "modelDir")? };
        with_sim(|s| {
            s.require_init(what)?;
            s.model_dir = Some(dir);
            Ok(())
        })
    })
}

/// (desc, buffer) handle pairs of one side of an op, appended to `out` (no formatting
/// or heap allocation: this is the hot path of issuing a kernel).
unsafe fn operands(
    n: c_int,
    descs: *const *mut c_void,
    bufs: *const *mut c_void,
    what: &str,
    side: &str,
    out: &mut SmallVec<[(u64, u64); 4]>,
) -> SimResult<()> {
    if n < 0 {
        fail!(INVALID_PARAM, "{what}: num{side} {n} is negative");
    }
    let d = unsafe { slice(descs, n as usize, what, side)? };
    let b = unsafe { slice(bufs, n as usize, what, side)? };
    out.extend(d.iter().zip(b).map(|(&d, &b)| (h(d), h(b))));
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn aclopExecuteV2(
    op_type: *const c_char,
    num_inputs: c_int,
    input_desc: *const *mut c_void,
    inputs: *const *mut c_void,
    num_outputs: c_int,
    output_desc: *const *mut c_void,
    outputs: *const *mut c_void,
    attr: *mut c_void,
    stream: *mut c_void,
) -> i32 {
    let what = "aclopExecuteV2";
    entry(what, || {
        if op_type.is_null() {
            return Err(null(what, "opType"));
        }
        // SAFETY: non-null and NUL-terminated by the C contract.
        let Ok(op) = unsafe { CStr::from_ptr(op_type) }.to_str() else {
            fail!(INVALID_PARAM, "{what}: opType is not UTF-8");
        };
        let (mut ins, mut outs) = (SmallVec::new(), SmallVec::new());
        unsafe { operands(num_inputs, input_desc, inputs, what, "inputs", &mut ins)? };
        unsafe {
            operands(
                num_outputs,
                output_desc,
                outputs,
                what,
                "outputs",
                &mut outs,
            )?
        };
        with_sim(|s| s.execute_op(current(), op, &ins, &outs, h(attr), h(stream)))
    })
}
