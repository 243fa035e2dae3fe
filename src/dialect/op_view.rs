//! A read-only view of one op as the semantics layer needs it: its name, its attributes
//! as plain Rust values, and how many data operands and results it has.
//!
//! Two kinds of op implement it: melior operations (what every pass holds) and
//! [`OpDesc`], a plain description used before an MLIR op exists (the `.ge` importer, unit
//! tests). Queries in `semantics` are written once against this trait.

use melior::ir::{
    attribute::{
        ArrayAttribute, AttributeLike, BoolAttribute, DenseI32ArrayAttribute,
        DenseI64ArrayAttribute, FlatSymbolRefAttribute, IntegerAttribute, StringAttribute,
    },
    operation::OperationLike,
    operation::OperationRefMut,
    Attribute, Operation, OperationRef, Type, ValueLike,
};
use std::collections::BTreeMap;

/// An attribute value, converted from MLIR or written by hand.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// `true` / `false`; a unit attribute (`{_input_mutable}`) reads as `true`.
    Bool(bool),
    Int(i64),
    Str(String),
    /// A symbol reference, without the `@`.
    Symbol(String),
    /// An array attribute or a dense i32/i64 array.
    List(Vec<AttrValue>),
    /// Anything else (dense elements, types, dictionaries, ...).
    Other,
}

impl AttrValue {
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            AttrValue::Bool(b) => Some(*b),
            // GE stores some flags as ints; 0 is false.
            AttrValue::Int(i) => Some(*i != 0),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            AttrValue::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            AttrValue::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_symbol(&self) -> Option<&str> {
        match self {
            AttrValue::Symbol(s) => Some(s),
            _ => None,
        }
    }

    /// The elements of a list; `None` for a non-list.
    pub fn as_list(&self) -> Option<&[AttrValue]> {
        match self {
            AttrValue::List(items) => Some(items),
            _ => None,
        }
    }

    /// A list of ints (an empty list included); `None` if any element is not an int.
    pub fn as_ints(&self) -> Option<Vec<i64>> {
        self.as_list()?.iter().map(AttrValue::as_int).collect()
    }

    /// A list of strings; `None` if any element is not a string.
    pub fn as_strs(&self) -> Option<Vec<String>> {
        self.as_list()?
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect()
    }

    /// A list of symbols; `None` if any element is not a symbol reference.
    pub fn as_symbols(&self) -> Option<Vec<String>> {
        self.as_list()?
            .iter()
            .map(|v| v.as_symbol().map(str::to_string))
            .collect()
    }
}

/// What the semantics layer reads from an op.
pub trait OpView {
    /// The full op name (`ascend.add`, `func.return`, ...).
    fn op_name(&self) -> String;
    /// An attribute by name, converted; `None` when absent.
    fn attr(&self, name: &str) -> Option<AttrValue>;
    /// The number of data (non-control) operands.
    fn data_operand_count(&self) -> usize;
    /// The number of data (non-control) results.
    fn data_result_count(&self) -> usize;
    /// The op table's row for this op's name, if it has one. Views of MLIR ops look their
    /// name up in place: a model read from a large module asks this several times per op,
    /// and a `String` per question was a visible share of reading it.
    fn table_def(&self) -> Option<&'static crate::dialect::table::OpDef> {
        crate::dialect::table::op_table().by_op_name(&self.op_name())
    }
    /// Whether the op's full name is `name` (in place for MLIR ops, as [`Self::table_def`]).
    fn is_named(&self, name: &str) -> bool {
        self.op_name() == name
    }
}

/// A plain op description: everything `OpView` asks, with no MLIR behind it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpDesc {
    pub op_name: String,
    pub attrs: BTreeMap<String, AttrValue>,
    pub data_operands: usize,
    pub data_results: usize,
}

impl OpDesc {
    pub fn new(op_name: &str, data_operands: usize, data_results: usize) -> Self {
        OpDesc {
            op_name: op_name.to_string(),
            attrs: BTreeMap::new(),
            data_operands,
            data_results,
        }
    }

    /// Builder-style attribute setter.
    pub fn with(mut self, name: &str, value: AttrValue) -> Self {
        self.attrs.insert(name.to_string(), value);
        self
    }
}

impl OpView for OpDesc {
    fn op_name(&self) -> String {
        self.op_name.clone()
    }
    fn attr(&self, name: &str) -> Option<AttrValue> {
        self.attrs.get(name).cloned()
    }
    fn data_operand_count(&self) -> usize {
        self.data_operands
    }
    fn data_result_count(&self) -> usize {
        self.data_results
    }
}

/// Whether a type is the control token `!ascend.ctrl`. Data values are builtin tensors, so
/// any type of the `ascend` dialect is the control token.
pub fn is_ctrl_type(ty: Type<'_>) -> bool {
    crate::ir::ops::is_ctrl_type(ty)
}

/// Converts an MLIR attribute to an [`AttrValue`].
///
/// Each kind is tested with `is_*` before converting: melior's failing `try_from` prints
/// the attribute into its error message, which made every lookup of a non-bool attribute
/// print it several times.
pub fn convert_attribute(attr: Attribute<'_>) -> AttrValue {
    if attr.is_bool() {
        if let Ok(b) = BoolAttribute::try_from(attr) {
            return AttrValue::Bool(b.value());
        }
    }
    if attr.is_unit() {
        return AttrValue::Bool(true);
    }
    if attr.is_integer() {
        if let Ok(i) = IntegerAttribute::try_from(attr) {
            return AttrValue::Int(i.value());
        }
    }
    if attr.is_string() {
        if let Ok(s) = StringAttribute::try_from(attr) {
            if let Some(text) = crate::ir::string_value(s) {
                return AttrValue::Str(text.to_string());
            }
        }
    }
    if attr.is_flat_symbol_ref() {
        if let Ok(s) = FlatSymbolRefAttribute::try_from(attr) {
            if let Some(text) = crate::ir::symbol_value(s) {
                return AttrValue::Symbol(text.to_string());
            }
        }
    }
    if attr.is_symbol_ref() {
        // A nested reference `@a::@b`: keep its printed form without the leading `@`.
        return AttrValue::Symbol(attr.to_string().trim_start_matches('@').to_string());
    }
    if attr.is_array() {
        if let Ok(a) = ArrayAttribute::try_from(attr) {
            let items = (0..a.len())
                .filter_map(|i| a.element(i).ok())
                .map(convert_attribute)
                .collect();
            return AttrValue::List(items);
        }
    }
    if attr.is_dense_i32_array() {
        if let Ok(a) = DenseI32ArrayAttribute::try_from(attr) {
            let items = (0..a.len())
                .filter_map(|i| a.element(i).ok())
                .map(|v| AttrValue::Int(i64::from(v)))
                .collect();
            return AttrValue::List(items);
        }
    }
    if attr.is_dense_i64_array() {
        if let Ok(a) = DenseI64ArrayAttribute::try_from(attr) {
            let items = (0..a.len())
                .filter_map(|i| a.element(i).ok())
                .map(AttrValue::Int)
                .collect();
            return AttrValue::List(items);
        }
    }
    AttrValue::Other
}

fn melior_op_name<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> String {
    op.name()
        .as_string_ref()
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn melior_attr<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, name: &str) -> Option<AttrValue> {
    op.attribute(name).ok().map(convert_attribute)
}

fn melior_data_operands<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> usize {
    op.operands().filter(|v| !is_ctrl_type(v.r#type())).count()
}

fn melior_data_results<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> usize {
    op.results().filter(|v| !is_ctrl_type(v.r#type())).count()
}

macro_rules! impl_op_view_for_melior {
    ($($ty:ty),*) => {$(
        impl OpView for $ty {
            fn op_name(&self) -> String {
                melior_op_name(self)
            }
            fn attr(&self, name: &str) -> Option<AttrValue> {
                melior_attr(self, name)
            }
            fn data_operand_count(&self) -> usize {
                melior_data_operands(self)
            }
            fn data_result_count(&self) -> usize {
                melior_data_results(self)
            }
            fn table_def(&self) -> Option<&'static crate::dialect::table::OpDef> {
                let name = self.name();
                let name = name.as_string_ref().as_str().ok()?;
                crate::dialect::table::op_table().by_op_name(name)
            }
            fn is_named(&self, name: &str) -> bool {
                crate::ir::ops::is_op_named(self, name)
            }
        }
    )*};
}

impl_op_view_for_melior!(Operation<'_>, OperationRef<'_, '_>, OperationRefMut<'_, '_>);

#[cfg(test)]
mod tests {
    use super::*;
    use melior::ir::{BlockLike, Module, RegionLike};

    #[test]
    fn attribute_conversion_covers_ge_attribute_shapes() {
        let context = crate::dialect::new_context();
        let parse = |s: &str| convert_attribute(Attribute::parse(&context, s).unwrap());
        assert_eq!(parse("true"), AttrValue::Bool(true));
        assert_eq!(parse("unit"), AttrValue::Bool(true));
        assert_eq!(parse("3 : i64"), AttrValue::Int(3));
        assert_eq!(parse("\"s0\""), AttrValue::Str("s0".into()));
        assert_eq!(parse("@then"), AttrValue::Symbol("then".into()));
        assert_eq!(parse("@a::@b"), AttrValue::Symbol("a::@b".into()));
        assert_eq!(parse("[@a, @b]").as_symbols().unwrap(), vec!["a", "b"]);
        assert_eq!(parse("[0, 2]").as_ints().unwrap(), vec![0, 2]);
        assert_eq!(parse("array<i32: 1, 0>").as_ints().unwrap(), vec![1, 0]);
        assert_eq!(parse("array<i64: 4>").as_ints().unwrap(), vec![4]);
        assert_eq!(parse("[\"x\", \"y\"]").as_strs().unwrap(), vec!["x", "y"]);
        assert_eq!(parse("dense<1.0> : tensor<2xf32>"), AttrValue::Other);
        assert!(parse("[]").as_ints().unwrap().is_empty());
    }

    #[test]
    fn melior_ops_count_data_values_without_ctrl() {
        let context = crate::dialect::new_context();
        let module = Module::parse(
            &context,
            r#"
            func.func @main(%a: tensor<2xf32>) {
              %d:2 = "ascend.data"(%a) {name = "d"} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
              %r:2 = "ascend.relu"(%d#0, %d#1) {name = "r"} : (tensor<2xf32>, !ascend.ctrl) -> (tensor<2xf32>, !ascend.ctrl)
              return
            }"#,
        )
        .unwrap();
        let func = module.body().first_operation().unwrap();
        let block = func.region(0).unwrap().first_block().unwrap();
        let relu = block.first_operation().unwrap().next_in_block().unwrap();
        assert_eq!(relu.op_name(), "ascend.relu");
        assert_eq!(relu.data_operand_count(), 1);
        assert_eq!(relu.data_result_count(), 1);
        assert_eq!(relu.attr("name"), Some(AttrValue::Str("r".into())));
        assert_eq!(relu.attr("missing"), None);
        assert!(is_ctrl_type(relu.result(1).unwrap().r#type()));
        assert!(!is_ctrl_type(relu.result(0).unwrap().r#type()));
        // The in-place lookups agree with the ones through `op_name` (the trait defaults).
        let ret = relu.next_in_block().unwrap();
        for op in [block.first_operation().unwrap(), relu, ret] {
            let desc = OpDesc {
                op_name: op.op_name(),
                ..OpDesc::default()
            };
            assert_eq!(
                op.table_def().map(|d| d.op_name()),
                desc.table_def().map(|d| d.op_name())
            );
            assert!(op.is_named(&op.op_name()) && desc.is_named(&op.op_name()));
            assert!(!op.is_named("ascend.rel") && !op.is_named(""));
        }
        assert_eq!(relu.table_def().unwrap().op_name(), "ascend.relu");
        assert!(ret.is_named("func.return") && ret.table_def().is_none());
    }
}
