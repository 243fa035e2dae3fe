//! Test helpers: parse a module, find ops by node name, and print a function as a compact
//! edge list that assertions can compare.

use super::{
    ops::{ctrl_operands, data_operands, node_name, producer, Producer},
    prim,
};
use crate::dialect::op_table;
use melior::{
    ir::{operation::OperationLike, Module, OperationRef, RegionLike},
    Context,
};

pub fn parse<'c>(context: &'c Context, source: &str) -> Module<'c> {
    let module = Module::parse(context, source).expect("test module parses");
    assert!(module.as_operation().verify(), "test module verifies");
    module
}

pub fn func<'c, 'a>(module: &'a Module<'c>, name: &str) -> OperationRef<'c, 'a> {
    prim::block_ops(module.body())
        .into_iter()
        .find(|op| super::ops::str_attr(*op, "sym_name") == Some(name))
        .expect("function exists")
}

pub fn body<'c, 'a>(func: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let block = func.region(0).unwrap().first_block().unwrap();
    prim::block_ops(block)
}

/// `array<i32: a, b, ...>`, the textual form of a segment-size attribute.
pub fn i32_array(sizes: &[i32]) -> String {
    let list: Vec<String> = sizes.iter().map(i32::to_string).collect();
    format!("array<i32: {}>", list.join(", "))
}

/// The segment-size attributes `op_name` needs for data operands of types `operands`, `ctrl`
/// control operands and data results of types `results`, computed from the op table so test
/// IR does not hard-code slot counts: `, operandSegmentSizes = ...` and/or
/// `, resultSegmentSizes = ...` (each with a leading comma, to append to an attribute
/// dictionary), empty when the op needs neither. Panics when the values do not fit the op.
pub fn segment_attrs(op_name: &str, operands: &[&str], ctrl: usize, results: &[&str]) -> String {
    let def = op_table()
        .by_op_name(op_name)
        .unwrap_or_else(|| panic!("no op {op_name} in the table"));
    let operand = def
        .operand_segments(operands, ctrl)
        .unwrap_or_else(|e| panic!("{op_name} operands: {e}"));
    let result = def
        .result_segments(results)
        .unwrap_or_else(|e| panic!("{op_name} results: {e}"));
    [
        ("operandSegmentSizes", operand),
        ("resultSegmentSizes", result),
    ]
    .into_iter()
    .filter_map(|(attr, sizes)| sizes.map(|s| format!(", {attr} = {}", i32_array(&s))))
    .collect()
}

/// The op named `name` (node name) in `@main`.
pub fn op<'c, 'a>(module: &'a Module<'c>, name: &str) -> OperationRef<'c, 'a> {
    body(func(module, "main"))
        .into_iter()
        .find(|op| node_name(*op) == Some(name))
        .unwrap_or_else(|| panic!("no op named {name}"))
}

fn source(value: melior::ir::Value) -> String {
    match producer(value) {
        Producer::Arg { index } => format!("%arg{index}"),
        Producer::Op { op, result } => {
            let name = node_name(op).unwrap_or("?");
            if result == 0 {
                name.to_string()
            } else {
                format!("{name}#{result}")
            }
        }
    }
}

/// One line per op: `name = mnemonic(data sources) ^ctrl sources`, in program order.
pub fn summary(func: OperationRef) -> String {
    body(func)
        .into_iter()
        .map(|op| {
            let full = op.name().as_string_ref().as_str().unwrap().to_string();
            let mnemonic = full.rsplit('.').next().unwrap_or(&full);
            let data: Vec<String> = data_operands(op).into_iter().map(source).collect();
            let ctrl: Vec<String> = ctrl_operands(op)
                .into_iter()
                .map(|v| {
                    let from = producer(v).op().and_then(node_name).unwrap_or("?");
                    format!(" ^{from}")
                })
                .collect();
            let lhs = node_name(op).map(|n| format!("{n} = ")).unwrap_or_default();
            format!("{lhs}{mnemonic}({}){}", data.join(", "), ctrl.concat())
        })
        .collect::<Vec<_>>()
        .join("\n")
}
