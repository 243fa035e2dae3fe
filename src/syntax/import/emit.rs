//! Building the MLIR module from a checked file: one `func.func` per graph, one generic-form
//! op per node in topological order, locations pointing into the `.ge` source.

use super::check::{CheckedFile, CheckedGraph};
use crate::syntax::{
    ast::{self, Span},
    diagnostics::{Diagnostic, LineIndex},
};
use melior::{
    dialect::func,
    ir::{
        attribute::{DenseI32ArrayAttribute, StringAttribute, TypeAttribute},
        block::BlockLike,
        operation::{OperationBuilder, OperationRef},
        r#type::FunctionType,
        Attribute, Block, Identifier, Location, Module, Operation, Region, RegionLike, Type, Value,
    },
    Context,
};

struct Locator<'c, 's> {
    context: &'c Context,
    lines: LineIndex,
    file_name: &'s str,
}

impl<'c> Locator<'c, '_> {
    /// A `FileLineColLoc` for a span, so MLIR diagnostics on the op point into the `.ge` file.
    fn at(&self, span: Span) -> Location<'c> {
        let (line, col) = self.lines.line_col(span.start);
        Location::new(self.context, self.file_name, line, col)
    }
}

pub fn emit_module<'c>(
    context: &'c Context,
    file: &ast::File,
    checked: &CheckedFile<'c>,
    source: &str,
    file_name: &str,
) -> Result<Module<'c>, Diagnostic> {
    let loc = Locator {
        context,
        lines: LineIndex::new(source),
        file_name,
    };
    let module = Module::new(loc.at(Span::new(0, 0)));
    let ctrl = Type::parse(context, "!ascend.ctrl").ok_or_else(|| {
        Diagnostic::new(
            "the `ascend` dialect is not loaded",
            Span::new(0, 0),
            "here",
        )
    })?;
    for (i, (g, cg)) in file.graphs.iter().zip(&checked.graphs).enumerate() {
        let function = emit_graph(&loc, g, cg, ctrl, i == checked.root)?;
        module.body().append_operation(function);
    }
    Ok(module)
}

fn emit_graph<'c>(
    loc: &Locator<'c, '_>,
    g: &ast::Graph,
    cg: &CheckedGraph<'c>,
    ctrl: Type<'c>,
    is_root: bool,
) -> Result<Operation<'c>, Diagnostic> {
    let context = loc.context;
    let region = Region::new();
    // An argument is located at the Data node that reads it.
    let arg_locs: Vec<(Type<'c>, Location<'c>)> = cg
        .arg_types
        .iter()
        .zip(&cg.arg_nodes)
        .map(|(&t, &n)| (t, loc.at(g.nodes[n].span)))
        .collect();
    let block = region.append_block(Block::new(&arg_locs));
    let mut built: Vec<Option<OperationRef<'c, '_>>> = vec![None; cg.nodes.len()];
    for &i in &cg.order {
        let node = &cg.nodes[i];
        let ast_node = &g.nodes[i];
        let result = |p: usize, k: usize| -> Result<Value<'c, '_>, Diagnostic> {
            built[p]
                .and_then(|op| op.result(k).ok())
                .map(Value::from)
                .ok_or_else(|| internal(ast_node.span, "an input was not built before its use"))
        };
        let mut operands: Vec<Value> =
            Vec::with_capacity(node.data_in.len() + node.ctrl_in.len() + 1);
        if let Some(index) = node.arg_index {
            let arg = block
                .argument(index)
                .map_err(|_| internal(ast_node.span, "missing function argument"))?;
            operands.push(arg.into());
        }
        for &(p, k) in &node.data_in {
            operands.push(result(p, k)?);
        }
        for &p in &node.ctrl_in {
            let last = cg.nodes[p].results.len();
            operands.push(result(p, last)?);
        }
        let mut results = node.results.clone();
        results.push(ctrl);
        let mut attrs: Vec<(Identifier<'c>, Attribute<'c>)> =
            Vec::with_capacity(node.attrs.len() + 3);
        attrs.push((
            Identifier::new(context, "name"),
            StringAttribute::new(context, &ast_node.name.text).into(),
        ));
        for (key, value) in &node.attrs {
            attrs.push((Identifier::new(context, key), *value));
        }
        if let Some(sizes) = &node.operand_segments {
            attrs.push((
                Identifier::new(context, "operandSegmentSizes"),
                DenseI32ArrayAttribute::new(context, sizes).into(),
            ));
        }
        if let Some(sizes) = &node.result_segments {
            attrs.push((
                Identifier::new(context, "resultSegmentSizes"),
                DenseI32ArrayAttribute::new(context, sizes).into(),
            ));
        }
        let op = OperationBuilder::new(&node.op_name, loc.at(ast_node.span))
            .add_operands(&operands)
            .add_results(&results)
            .add_attributes(&attrs)
            .build()
            .map_err(|e| {
                internal(
                    ast_node.span,
                    &format!("building `{}` failed: {e}", node.op_name),
                )
            })?;
        built[i] = Some(block.append_operation(op));
    }
    let mut returned: Vec<Value> = Vec::with_capacity(cg.results.len());
    for &(p, k) in &cg.results {
        let value = built[p]
            .and_then(|op| op.result(k).ok())
            .map(Value::from)
            .ok_or_else(|| internal(g.name.span, "a returned value was not built"))?;
        returned.push(value);
    }
    let ret_span = g.ret.as_ref().map_or(g.close, |r| r.span);
    block.append_operation(func::r#return(&returned, loc.at(ret_span)));
    drop(built);
    let function_type = FunctionType::new(context, &cg.arg_types, &cg.result_types);
    let mut fattrs: Vec<(Identifier<'c>, Attribute<'c>)> = cg
        .attrs
        .iter()
        .map(|(key, value)| (Identifier::new(context, key), *value))
        .collect();
    if !is_root {
        fattrs.push((
            Identifier::new(context, "sym_visibility"),
            StringAttribute::new(context, "private").into(),
        ));
    }
    Ok(func::func(
        context,
        StringAttribute::new(context, &g.name.text),
        TypeAttribute::new(function_type.into()),
        region,
        &fattrs,
        loc.at(g.keyword),
    ))
}

fn internal(span: Span, what: &str) -> Diagnostic {
    Diagnostic::new(
        format!("internal importer error: {what}"),
        span,
        "while importing this",
    )
    .with_note("please report this with the input file")
}
