//! The raw MLIR C API calls melior does not wrap (or wraps only behind `&mut`), each in a
//! small safe function. Everything above this file is safe Rust.
//!
//! The validity argument is the same for every call: melior hands out `OperationRef`,
//! `Value`, `Type` and `Attribute` only for live objects of the borrowed IR / context, and
//! the C functions below neither free nor retain their arguments.

use melior::{
    ir::{
        attribute::{AttributeLike, FlatSymbolRefAttribute, StringAttribute},
        block::BlockLike,
        operation::OperationLike,
        r#type::TypeLike,
        Attribute, BlockRef, Identifier, OperationRef, Type, Value, ValueLike,
    },
    ContextRef, StringRef,
};
use mlir_sys::{
    mlirBoolAttrGet, mlirDenseI32ArrayGet, mlirDialectGetNamespace, mlirFlatSymbolRefAttrGetValue,
    mlirIdentifierGet, mlirIntegerAttrGet, mlirIntegerTypeGet, mlirOpOperandGetNextUse,
    mlirOpOperandGetOperandNumber, mlirOpOperandGetOwner, mlirOpOperandIsNull,
    mlirOperationRemoveAttributeByName, mlirOperationSetAttributeByName, mlirOperationSetOperand,
    mlirOperationSetOperands, mlirStringAttrGet, mlirStringAttrGetValue, mlirTypeGetDialect,
    mlirTypeParseGet, mlirValueGetFirstUse, MlirValue,
};
use std::ffi::c_int;

/// The address of an op: a stable identity while the op is alive.
pub(crate) fn op_address(op: OperationRef) -> usize {
    op.to_raw().ptr as usize
}

/// The address of a (uniqued) attribute: its identity within the context.
pub(crate) fn attribute_address(attr: Attribute) -> usize {
    attr.to_raw().ptr as usize
}

/// The bytes of a string reference, without UTF-8 validation: attribute and op names
/// compared with ASCII constants need none, and validating every name was a visible share
/// of building a model from a large module.
pub(crate) fn string_ref_bytes<'a>(s: StringRef<'a>) -> &'a [u8] {
    let raw = s.to_raw();
    if raw.length == 0 || raw.data.is_null() {
        return &[];
    }
    // SAFETY: a `StringRef<'a>` handed out by melior points at `length` bytes that live for
    // `'a` (the context's identifier or attribute storage); they are only read.
    unsafe { std::slice::from_raw_parts(raw.data as *const u8, raw.length) }
}

/// The bytes of a string attribute (empty for ""). melior's `StringAttribute::value` panics
/// on an empty string (it reads the last byte of an empty slice) and on bytes that are not
/// UTF-8 (MLIR strings may hold any bytes: `"\\FF"`).
pub(crate) fn string_attr_bytes<'c>(attr: StringAttribute<'c>) -> &'c [u8] {
    // SAFETY: `attr` is a live string attribute; its storage lives as long as the context.
    let raw = unsafe { mlirStringAttrGetValue(attr.to_raw()) };
    raw_bytes(raw)
}

/// The bytes of a flat symbol reference's name (same caveats as [`string_attr_bytes`]).
pub(crate) fn symbol_ref_bytes<'c>(attr: FlatSymbolRefAttribute<'c>) -> &'c [u8] {
    // SAFETY: `attr` is a live flat symbol reference owned by the context.
    let raw = unsafe { mlirFlatSymbolRefAttrGetValue(attr.to_raw()) };
    raw_bytes(raw)
}

fn raw_bytes<'a>(raw: mlir_sys::MlirStringRef) -> &'a [u8] {
    if raw.length == 0 || raw.data.is_null() {
        return &[];
    }
    // SAFETY: MLIR hands out `length` bytes of uniqued context storage, never freed while
    // the context lives; they are only read.
    unsafe { std::slice::from_raw_parts(raw.data as *const u8, raw.length) }
}

/// The address of a block, to group ops by block.
pub(crate) fn block_address(block: BlockRef) -> usize {
    block.to_raw().ptr as usize
}

/// Every use of `value` as (owner, operand number), in MLIR's use-list order (most recent
/// first; callers sort).
pub(crate) fn raw_uses<'c, 'a>(value: Value<'c, 'a>) -> Vec<(OperationRef<'c, 'a>, usize)> {
    let mut out = Vec::new();
    // SAFETY: `value` is a live value; the use list is walked without mutating the IR, and
    // every op operand returned by the C API is checked for null before it is read.
    unsafe {
        let mut operand = mlirValueGetFirstUse(value.to_raw());
        while !mlirOpOperandIsNull(operand) {
            let owner = OperationRef::from_raw(mlirOpOperandGetOwner(operand));
            out.push((owner, mlirOpOperandGetOperandNumber(operand) as usize));
            operand = mlirOpOperandGetNextUse(operand);
        }
    }
    out
}

/// Replaces all operands of `op` (the segment-size attribute is the caller's business).
pub(crate) fn set_operands(op: OperationRef, values: &[Value]) {
    let raw: Vec<MlirValue> = values.iter().map(|v| v.to_raw()).collect();
    // SAFETY: `op` and every value are live objects of the same context; the C API copies
    // the operand array before returning.
    unsafe { mlirOperationSetOperands(op.to_raw(), raw.len() as isize, raw.as_ptr()) }
}

/// Replaces operand `index` of `op`; the caller checked `index < operand_count`.
pub(crate) fn set_operand(op: OperationRef, index: usize, value: Value) {
    debug_assert!(index < op.operand_count());
    // SAFETY: `op` and `value` are live; `index` is in range (checked by every caller,
    // asserted above in debug builds).
    unsafe { mlirOperationSetOperand(op.to_raw(), index as isize, value.to_raw()) }
}

/// Sets (or replaces) attribute `name` of `op`.
pub(crate) fn set_attribute<'c>(op: OperationRef<'c, '_>, name: &str, attribute: Attribute<'c>) {
    // SAFETY: `op` and `attribute` are live objects of the same context; the name is
    // copied into the context's identifier table by the call.
    unsafe {
        mlirOperationSetAttributeByName(
            op.to_raw(),
            StringRef::new(name).to_raw(),
            attribute.to_raw(),
        )
    }
}

extern "C" {
    /// `src/ir/capi_ext.cpp`: prefetches an op (stage 0) or its attributes (stage 1).
    fn geOperationPrefetch(op: mlir_sys::MlirOperation, stage: i32);
    /// `src/ir/capi_ext.cpp`: sets (adds or replaces) several attributes at once.
    fn geOperationSetAttributes(
        op: mlir_sys::MlirOperation,
        count: isize,
        attributes: *const mlir_sys::MlirNamedAttribute,
    );
}

/// Sets (or replaces) every attribute of `entries` on `op`, building its attribute
/// dictionary once.
pub(crate) fn set_attributes<'c>(
    op: OperationRef<'c, '_>,
    entries: &[(Identifier<'c>, Attribute<'c>)],
) {
    let raw = |(name, value): &(Identifier<'c>, Attribute<'c>)| mlir_sys::MlirNamedAttribute {
        name: name.to_raw(),
        attribute: value.to_raw(),
    };
    // A pass writes a few attributes per op on every op: the array lives on the stack then.
    const INLINE: usize = 8;
    let unset = mlir_sys::MlirNamedAttribute {
        name: mlir_sys::MlirIdentifier {
            ptr: std::ptr::null(),
        },
        attribute: mlir_sys::MlirAttribute {
            ptr: std::ptr::null(),
        },
    };
    let mut inline = [unset; INLINE];
    let heap: Vec<mlir_sys::MlirNamedAttribute>;
    let array: &[mlir_sys::MlirNamedAttribute] = if entries.len() <= INLINE {
        for (slot, entry) in inline.iter_mut().zip(entries) {
            *slot = raw(entry);
        }
        &inline[..entries.len()]
    } else {
        heap = entries.iter().map(raw).collect();
        &heap
    };
    // SAFETY: `op`, the names and the values are live objects of one context; the function
    // only reads the array during the call (see capi_ext.cpp).
    unsafe { geOperationSetAttributes(op.to_raw(), array.len() as isize, array.as_ptr()) }
}

/// Asks the CPU to load `op` (`attributes` false) or its attribute dictionary (true; `op`
/// should have been prefetched a while before) ahead of a [`set_attributes`] on it.
pub(crate) fn prefetch_op(op: OperationRef, attributes: bool) {
    // SAFETY: `op` is live; the function only reads the op and its dictionary.
    unsafe { geOperationPrefetch(op.to_raw(), i32::from(attributes)) }
}

/// Removes attribute `name` of `op`; returns whether it was there.
pub(crate) fn remove_attribute(op: OperationRef, name: &str) -> bool {
    // SAFETY: `op` is live; the name is only read during the call.
    unsafe { mlirOperationRemoveAttributeByName(op.to_raw(), StringRef::new(name).to_raw()) }
}

/// Whether the dialect that owns `ty` is `namespace` (`builtin`, `ascend`, ...). Compared as
/// bytes: every operand and result of every op asks this (is it a control token?), and
/// checking the name for UTF-8 first was 1-2% of a whole compile.
pub(crate) fn type_in_dialect(ty: Type, namespace: &str) -> bool {
    // SAFETY: `ty` is a live type; its dialect and the dialect's namespace string are owned
    // by the context, which outlives the call.
    let owner =
        unsafe { StringRef::from_raw(mlirDialectGetNamespace(mlirTypeGetDialect(ty.to_raw()))) };
    string_ref_bytes(owner) == namespace.as_bytes()
}

/// Ops of the same block compare by position; `None` when they are in different blocks
/// (MLIR's `isBeforeInBlock` requires one block).
pub(crate) fn is_before_in_block<'c, 'a>(
    a: OperationRef<'c, 'a>,
    b: OperationRef<'c, 'a>,
) -> Option<bool> {
    let (block_a, block_b) = (a.block()?, b.block()?);
    if block_address(block_a) != block_address(block_b) {
        return None;
    }
    Some(a != b && a.is_before_in_block(b))
}

/// The ops of a block in order (melior has no iterator for it).
pub(crate) fn block_ops<'c, 'a>(block: BlockRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut out = Vec::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        out.push(op);
        next = op.next_in_block();
    }
    out
}

/// `array<i32: ...>` (segment sizes) in the context `ctx`.
pub(crate) fn dense_i32_array<'c>(ctx: ContextRef<'c>, values: &[i32]) -> Attribute<'c> {
    // SAFETY: `ctx` is a live context outliving 'c; the values are copied into it.
    unsafe {
        Attribute::from_raw(mlirDenseI32ArrayGet(
            raw_context(ctx),
            values.len() as isize,
            values.as_ptr(),
        ))
    }
}

/// A string attribute in `ctx`.
pub(crate) fn string_attr<'c>(ctx: ContextRef<'c>, value: &str) -> Attribute<'c> {
    // SAFETY: `ctx` is live; the string is copied into the context.
    unsafe {
        Attribute::from_raw(mlirStringAttrGet(
            raw_context(ctx),
            StringRef::new(value).to_raw(),
        ))
    }
}

/// An `i64` integer attribute in `ctx`.
pub(crate) fn i64_attr<'c>(ctx: ContextRef<'c>, value: i64) -> Attribute<'c> {
    // SAFETY: `ctx` is live; the integer type and attribute are uniqued in it.
    unsafe {
        Attribute::from_raw(mlirIntegerAttrGet(
            mlirIntegerTypeGet(raw_context(ctx), 64),
            value,
        ))
    }
}

/// An array attribute `[a, b, ...]` of `elements` in `ctx`.
pub(crate) fn array_attr<'c>(ctx: ContextRef<'c>, elements: &[Attribute<'c>]) -> Attribute<'c> {
    let raw: Vec<mlir_sys::MlirAttribute> = elements.iter().map(|a| a.to_raw()).collect();
    // SAFETY: `ctx` is live; the elements are live attributes of it, only read during the
    // call (the array attribute is uniqued in the context).
    unsafe {
        Attribute::from_raw(mlir_sys::mlirArrayAttrGet(
            raw_context(ctx),
            raw.len() as isize,
            raw.as_ptr(),
        ))
    }
}

/// A dictionary attribute `{name = value, ...}` in `ctx` (MLIR sorts the entries).
pub(crate) fn dictionary_attr<'c>(
    ctx: ContextRef<'c>,
    entries: &[(Identifier<'c>, Attribute<'c>)],
) -> Attribute<'c> {
    let raw: Vec<mlir_sys::MlirNamedAttribute> = entries
        .iter()
        .map(|(name, value)| mlir_sys::MlirNamedAttribute {
            name: name.to_raw(),
            attribute: value.to_raw(),
        })
        .collect();
    // SAFETY: `ctx` is live; the names and values are live objects of it, only read during
    // the call (the dictionary is uniqued in the context).
    unsafe {
        Attribute::from_raw(mlir_sys::mlirDictionaryAttrGet(
            raw_context(ctx),
            raw.len() as isize,
            raw.as_ptr(),
        ))
    }
}

/// A bool attribute in `ctx`.
pub(crate) fn bool_attr<'c>(ctx: ContextRef<'c>, value: bool) -> Attribute<'c> {
    // SAFETY: `ctx` is live; bool attributes are uniqued in it.
    unsafe { Attribute::from_raw(mlirBoolAttrGet(raw_context(ctx), c_int::from(value))) }
}

/// Parses a type in `ctx`; `None` when it does not parse (e.g. the dialect is not loaded;
/// MLIR then also reports a diagnostic).
pub(crate) fn parse_type<'c>(ctx: ContextRef<'c>, source: &str) -> Option<Type<'c>> {
    // SAFETY: `ctx` is live; the source is only read during the call; a null result is
    // checked before it is wrapped.
    unsafe {
        let raw = mlirTypeParseGet(raw_context(ctx), StringRef::new(source).to_raw());
        (!raw.ptr.is_null()).then(|| Type::from_raw(raw))
    }
}

/// An identifier (attribute name) in `ctx`.
pub(crate) fn identifier<'c>(ctx: ContextRef<'c>, name: &str) -> Identifier<'c> {
    // SAFETY: `ctx` is live; the name is copied into the context's identifier table.
    unsafe {
        Identifier::from_raw(mlirIdentifierGet(
            raw_context(ctx),
            StringRef::new(name).to_raw(),
        ))
    }
}

/// The raw handle of a context reference.
fn raw_context(ctx: ContextRef) -> mlir_sys::MlirContext {
    // SAFETY: melior's `to_ref` reinterprets the `ContextRef` (a wrapped raw pointer) as a
    // `Context`; the reference is used only to read that pointer while `ctx` is alive.
    unsafe { ctx.to_ref() }.to_raw()
}
