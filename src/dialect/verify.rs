//! Module-level checks of a GE module that neither MLIR's verifier nor IRDL can express:
//! subgraph symbols must name functions of the module, a subgraph's signature must match its
//! parent op, and no graph may (transitively) be its own subgraph.
//!
//! IRDL only checks that `then_branch` is a symbol reference; without these checks a
//! hand-written `.mlir` file with `else_branch = @typo` would reach the passes, which would
//! then silently treat the branch as absent. The `.ge` importer makes the same checks on
//! its AST (with `.ge` locations); `ge-opt` runs this after parsing `.mlir`.

use super::{
    attr_checks, op_table,
    semantics::{self, data_operands, data_results},
    subgraph_rule::{ExpectedResults, SubgraphRule},
    OpView, Trait,
};
use crate::analysis::fast_hash::AddressMap;
use crate::ir::external_pass::emit_error;
use melior::ir::{
    attribute::{StringAttribute, TypeAttribute},
    block::BlockLike,
    operation::OperationLike,
    r#type::FunctionType,
    Module, OperationRef, RegionLike, Type, ValueLike,
};
use std::collections::HashMap;

/// One function of the module.
struct Function<'c, 'a> {
    name: String,
    op: OperationRef<'c, 'a>,
    inputs: Vec<Type<'c>>,
    results: Vec<Type<'c>>,
}

/// Checks every subgraph reference in `module`; each problem is emitted as an error at the
/// referencing op. Returns whether the module is sound.
pub fn verify_subgraphs(module: &Module) -> bool {
    let functions = functions(module);
    let mut by_name: HashMap<&str, &Function> = HashMap::with_capacity(functions.len());
    for function in &functions {
        by_name.insert(&function.name, function);
    }
    let mut ok = true;
    // Subgraph edges between functions, for the recursion check.
    let mut calls: HashMap<&str, Vec<(&str, OperationRef)>> = HashMap::new();
    // In module order: the bodies are read in the order the parser laid them out in
    // memory (a hash map's order jumps around a million-op module).
    for function in &functions {
        if let Some(p) = function
            .op
            .attribute("memory_size")
            .ok()
            .and_then(attr_checks::memory_size_problem)
        {
            emit_error(function.op.location(), &format!("@{}: {p}", function.name));
            ok = false;
        }
        let ops = body_ops(function.op);
        ok &= check_unique_names(&function.name, &ops);
        for op in ops {
            ok &= check_attr_values(op);
            for (attr, symbol) in subgraph_attrs(op) {
                let Some(callee) = by_name.get(symbol.as_str()) else {
                    emit_error(
                        op.location(),
                        &format!(
                            "subgraph symbol @{symbol} (attribute `{attr}`) of {} does not \
                             name a function in this module",
                            describe(op)
                        ),
                    );
                    ok = false;
                    continue;
                };
                ok &= check_signature(op, &attr, &symbol, callee);
                calls
                    .entry(&function.name)
                    .or_default()
                    .push((&callee.name, op));
            }
        }
    }
    ok && check_acyclic(&calls)
}

/// GE identifies a node by its name within its graph (Send/Recv peers, the stream
/// allocation's reports, `.ge` text): a second node of one function with the name of an
/// earlier one is an error at the second, naming where the first is. The `.ge` importer
/// makes the same check on its AST.
fn check_unique_names(function: &str, ops: &[OperationRef]) -> bool {
    // Keyed by the address of the text: MLIR uniques string attributes, so equal names are
    // one object (no hashing of the text on a million-op module).
    let mut first: AddressMap<usize, usize> = AddressMap::default();
    let mut ok = true;
    for (i, op) in ops.iter().enumerate() {
        let Some(name) = op
            .attribute("name")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok())
            .and_then(crate::ir::string_value)
        else {
            continue;
        };
        if let Some(&j) = first.get(&(name.as_ptr() as usize)) {
            emit_error(
                op.location(),
                &format!(
                    "node name `{name}` is used twice in @{function} (first by the op at {}); \
                     GE identifies nodes by name",
                    ops[j].location()
                ),
            );
            ok = false;
        } else {
            first.insert(name.as_ptr() as usize, i);
        }
    }
    ok
}

/// The attribute values [`super::attr_checks`] checks (the types of the attributes passes
/// read, on every op, `func.return` included; subgraph symbols, a Const's value), each
/// problem an error at the op.
fn check_attr_values(op: OperationRef) -> bool {
    let mut problems = Vec::new();
    for (name, value) in op.attributes() {
        if let Some(p) = name
            .as_string_ref()
            .as_str()
            .ok()
            .and_then(|name| attr_checks::typed_attr_problem(name, value))
        {
            problems.push(p);
        }
    }
    if let Some(def) = semantics::semantic_def(&op) {
        def_attr_problems(op, def, &mut problems);
    }
    problems.extend(semantics::unconnected_slot_problem(&op));
    for p in &problems {
        emit_error(op.location(), &format!("{}: {p}", describe(op)));
    }
    problems.is_empty()
}

/// The checks that depend on the op's table row.
fn def_attr_problems(op: OperationRef, def: &super::OpDef, problems: &mut Vec<String>) {
    for name in def.subgraph_attr_names() {
        if let Some(p) = op
            .attribute(name)
            .ok()
            .and_then(|a| attr_checks::subgraph_attr_problem(def, name, a))
        {
            problems.push(p);
        }
    }
    if def.has_trait(Trait::ConstLike) {
        if let Ok(value) = op.attribute("value") {
            let result = data_results(&op).first().map(|v| v.r#type());
            problems.extend(attr_checks::const_value_problem(def, value, result));
        }
    }
}

/// The functions of the module with their signatures, in module order.
fn functions<'c, 'a>(module: &'a Module<'c>) -> Vec<Function<'c, 'a>> {
    let mut out = Vec::new();
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if op.name().as_string_ref().as_str() != Ok("func.func") {
            continue;
        }
        let name = op
            .attribute("sym_name")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok())
            .and_then(crate::ir::string_value)
            .map(str::to_owned);
        let signature = op
            .attribute("function_type")
            .ok()
            .and_then(|a| TypeAttribute::try_from(a).ok())
            .and_then(|t| FunctionType::try_from(t.value()).ok());
        if let (Some(name), Some(signature)) = (name, signature) {
            let inputs = (0..signature.input_count())
                .filter_map(|i| signature.input(i).ok())
                .collect();
            let results = (0..signature.result_count())
                .filter_map(|i| signature.result(i).ok())
                .collect();
            out.push(Function {
                name,
                op,
                inputs,
                results,
            });
        }
    }
    out
}

/// The ops of a function's (single) body block.
fn body_ops<'c, 'a>(function: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut ops = Vec::new();
    let Some(block) = function.region(0).ok().and_then(|r| r.first_block()) else {
        return ops;
    };
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        ops.push(op);
    }
    ops
}

/// `(attribute name, symbol)` for every subgraph the op references, in GE's order.
fn subgraph_attrs(op: OperationRef) -> Vec<(String, String)> {
    let Some(def) = semantics::semantic_def(&op) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for attr in &def.row.subgraph_attrs {
        if let Some(symbol) = op.attr(attr).and_then(|v| v.as_symbol().map(str::to_owned)) {
            out.push((attr.clone(), symbol));
        }
    }
    for attr in &def.row.subgraph_list_attrs {
        if let Some(list) = op.attr(attr).and_then(|v| v.as_symbols()) {
            out.extend(list.into_iter().map(|s| (attr.clone(), s)));
        }
    }
    out
}

fn describe(op: OperationRef) -> String {
    let kind = op.name().as_string_ref().as_str().unwrap_or("?").to_owned();
    match semantics::node_name(&op) {
        Some(name) => format!("'{kind}' \"{name}\""),
        None => format!("'{kind}'"),
    }
}

fn types_text(types: &[Type]) -> String {
    let parts: Vec<String> = types.iter().map(|t| t.to_string()).collect();
    format!("({})", parts.join(", "))
}

/// A subgraph's signature against its parent op, by the rule the `.ge` importer applies too
/// ([`SubgraphRule`]).
fn check_signature(op: OperationRef, attr: &str, symbol: &str, callee: &Function) -> bool {
    let Some(row) = semantics::op_def(&op).or_else(|| op_table().by_op_name("ascend.op")) else {
        return true;
    };
    let rule = SubgraphRule::new(row, semantics::semantic_def(&op).unwrap_or(row));
    let operands: Vec<Type> = data_operands(&op).iter().map(|v| v.r#type()).collect();
    let results: Vec<Type> = data_results(&op).iter().map(|v| v.r#type()).collect();
    let (inputs, expected) = rule.signature(attr, &operands, &results);
    let mut ok = true;
    if callee.inputs != inputs {
        emit_error(
            op.location(),
            &format!(
                "subgraph @{symbol} (attribute `{attr}`) takes {} but {} passes {}",
                types_text(&callee.inputs),
                describe(op),
                types_text(&inputs)
            ),
        );
        ok = false;
    }
    match expected {
        ExpectedResults::OnePredicate if callee.results.len() != 1 => {
            emit_error(
                op.location(),
                &format!(
                    "while condition @{symbol} must return one predicate, it returns {}",
                    types_text(&callee.results)
                ),
            );
            ok = false;
        }
        ExpectedResults::Exactly(outputs) if callee.results != outputs => {
            emit_error(
                op.location(),
                &format!(
                    "subgraph @{symbol} (attribute `{attr}`) returns {} but {} produces {}",
                    types_text(&callee.results),
                    describe(op),
                    types_text(&outputs)
                ),
            );
            ok = false;
        }
        _ => {}
    }
    ok
}

/// Reports a function that is (transitively) its own subgraph, at the op that closes the
/// cycle.
fn check_acyclic(calls: &HashMap<&str, Vec<(&str, OperationRef)>>) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    let mut marks: HashMap<&str, Mark> = HashMap::new();
    let mut names: Vec<&str> = calls.keys().copied().collect();
    names.sort_unstable();
    for start in names {
        if marks.contains_key(start) {
            continue;
        }
        // Iterative DFS: (function, index of the next callee to visit).
        let mut stack: Vec<(&str, usize)> = vec![(start, 0)];
        marks.insert(start, Mark::Open);
        while let Some((function, next)) = stack.pop() {
            let callees = calls.get(function).map(Vec::as_slice).unwrap_or(&[]);
            let Some((callee, op)) = callees.get(next) else {
                marks.insert(function, Mark::Done);
                continue;
            };
            stack.push((function, next + 1));
            match marks.get(callee) {
                Some(Mark::Open) => {
                    let mut cycle: Vec<&str> = stack.iter().map(|(f, _)| *f).collect();
                    let from = cycle.iter().position(|f| *f == *callee).unwrap_or(0);
                    cycle.drain(..from);
                    cycle.push(callee);
                    let path: Vec<String> = cycle.iter().map(|f| format!("@{f}")).collect();
                    emit_error(
                        op.location(),
                        &format!(
                            "subgraph @{callee} is its own subgraph: {}",
                            path.join(" -> ")
                        ),
                    );
                    return false;
                }
                Some(Mark::Done) => {}
                None => {
                    marks.insert(callee, Mark::Open);
                    stack.push((callee, 0));
                }
            }
        }
    }
    true
}
