//! Test helpers: parse a module, find ops by node name, and print a function as a compact
//! edge list that assertions can compare.

use super::{
    ops::{ctrl_operands, data_operands, node_name, producer, Producer},
    prim,
};
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
