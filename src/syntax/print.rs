//! MLIR -> canonical `.ge`.
//!
//! The canonical form: graphs in module order (the root first if it would not otherwise be
//! found as root), two-space indent, one node per line in block order,
//! `name = Type(inputs) {attrs} : types`, attributes in MLIR's dictionary (sorted) order
//! without `name`, segment sizes and the generic op's `type`, values in the shortest form
//! that reads back exactly. `.ge -> MLIR -> .ge` is byte-identical for canonical input.
//!
//! What the format cannot say (a non-`ascend` op in a graph, a function argument used
//! without a Data node, a node name that is not UTF-8 or is used twice, ...) is printed as
//! a `#` comment line and reported, at the op it concerns, by [`try_print_ge`];
//! `ge-opt --emit ge` makes each an error.

use super::{
    floats::FloatKind,
    import::is_data_like,
    types::{self, Element},
};
use crate::dialect::{op_table, OpTable};
use crate::ir::LocatedError;
use melior::ir::{
    attribute::{
        ArrayAttribute, BoolAttribute, DenseElementsAttribute, FlatSymbolRefAttribute,
        FloatAttribute, IntegerAttribute, StringAttribute, TypeAttribute,
    },
    block::{BlockArgument, BlockLike},
    operation::{OperationLike, OperationRef, OperationResult},
    Attribute, AttributeLike, BlockRef, Location, Module, RegionLike, Type, Value, ValueLike,
};
use std::collections::{HashMap, HashSet};

/// Prints a module as canonical `.ge`, using the shipped op table. Constructs the format
/// cannot express become `#` comment lines (see [`try_print_ge`]).
pub fn print_ge(module: &Module) -> String {
    print_ge_with_table(module, op_table())
}

/// [`print_ge`] with an explicit op table.
pub fn print_ge_with_table(module: &Module, table: &OpTable) -> String {
    let mut printer = Printer::new(table);
    printer.module(module);
    printer.out
}

/// Like [`print_ge`], but an error listing what could not be expressed in `.ge`, each at the
/// op (or function) it concerns.
pub fn try_print_ge<'c>(
    module: &Module<'c>,
    table: &OpTable,
) -> Result<String, Vec<LocatedError<'c>>> {
    let mut printer = Printer::new(table);
    printer.module(module);
    if printer.problems.is_empty() {
        Ok(printer.out)
    } else {
        Err(printer.problems)
    }
}

const KEYWORDS: &[&str] = &[
    "graph", "return", "true", "false", "dense", "mlir", "inf", "nan",
];

/// Attributes the printer leaves out: they are implied by the syntax.
const IMPLIED: &[&str] = &["name", "operandSegmentSizes", "resultSegmentSizes"];

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || "_./-".contains(c))
        && !KEYWORDS.contains(&s)
}

/// A string literal with the format's escapes.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A name as written: bare if it lexes as an identifier, else quoted.
pub fn name(s: &str) -> String {
    if is_ident(s) {
        s.to_string()
    } else {
        quote(s)
    }
}

fn raw(a: Attribute<'_>) -> String {
    format!("mlir{}", quote(&a.to_string()))
}

fn op_key(op: &OperationRef<'_, '_>) -> usize {
    op.to_raw().ptr as usize
}

const CTRL: &str = "!ascend.ctrl";

struct Printer<'t, 'c> {
    table: &'t OpTable,
    out: String,
    problems: Vec<LocatedError<'c>>,
    /// MLIR's spelling of each type seen: printing a type through the C API costs far more
    /// than a lookup, and a graph has few distinct types.
    types: HashMap<Type<'c>, String>,
    /// The Data node reading each argument of the function being printed: `.ge` states a
    /// graph input only as one Data node, so an argument no Data reads, or two Data nodes
    /// on one argument, cannot be written.
    data_args: HashMap<usize, String>,
}

impl<'t, 'c> Printer<'t, 'c> {
    fn new(table: &'t OpTable) -> Self {
        Printer {
            table,
            out: String::new(),
            problems: Vec::new(),
            types: HashMap::new(),
            data_args: HashMap::new(),
        }
    }

    fn type_text(&mut self, t: Type<'c>) -> &str {
        self.types.entry(t).or_insert_with(|| t.to_string())
    }

    fn is_ctrl(&mut self, v: &Value<'c, '_>) -> bool {
        self.type_text(v.r#type()) == CTRL
    }

    fn problem(&mut self, location: Location<'c>, indent: &str, what: String) {
        self.out
            .push_str(&format!("{indent}# cannot print: {what}\n"));
        self.problems.push(LocatedError {
            location,
            message: what,
        });
    }

    fn module(&mut self, module: &Module<'c>) {
        let mut functions = Vec::new();
        let mut op = module.body().first_operation();
        while let Some(o) = op {
            if o.name().as_string_ref().as_str() == Ok("func.func") {
                functions.push(o);
            } else {
                let what = format!(
                    "top-level op `{}`",
                    o.name().as_string_ref().as_str().unwrap_or("?")
                );
                self.problem(o.location(), "", what);
            }
            op = o.next_in_block();
        }
        // The importer makes `main`, else the first graph, the root; keep that true.
        let sym = |f: &OperationRef| string_attr(f, "sym_name").unwrap_or_default();
        let public = |f: &OperationRef| string_attr(f, "sym_visibility").is_none();
        if !functions.iter().any(|f| sym(f) == "main") {
            if let Some(root) = functions.iter().position(public) {
                let f = functions.remove(root);
                functions.insert(0, f);
            }
        }
        for (i, f) in functions.iter().enumerate() {
            if i > 0 {
                self.out.push('\n');
            }
            self.function(f);
        }
    }

    fn function(&mut self, f: &OperationRef<'c, '_>) {
        let graph = string_attr(f, "sym_name").unwrap_or_default();
        let mut header = format!("graph {}", name(&graph));
        let mut attrs: Vec<(String, String)> = Vec::new();
        for (key, value) in f.attributes() {
            let key = key.as_string_ref().as_str().unwrap_or("").to_string();
            match key.as_str() {
                "sym_name" | "function_type" | "sym_visibility" => {}
                "arg_attrs" | "res_attrs" => {
                    self.problem(f.location(), "", format!("`{key}` of function `{graph}`"));
                }
                _ => {
                    let text = self.attr(value);
                    attrs.push((key, text));
                }
            }
        }
        if !attrs.is_empty() {
            attrs.sort_by(|a, b| a.0.cmp(&b.0));
            let attrs: Vec<String> = attrs
                .iter()
                .map(|(k, v)| format!("{} = {v}", name(k)))
                .collect();
            header.push_str(&format!(" attributes {{{}}}", attrs.join(", ")));
        }
        self.out.push_str(&format!("{header} {{\n"));
        let Some(block) = f.region(0).ok().and_then(|r| r.first_block()) else {
            self.problem(
                f.location(),
                "  ",
                format!("function `{graph}` has no body"),
            );
            self.out.push_str("}\n");
            return;
        };
        let (names, not_kept) = self.node_names(&block);
        self.data_args.clear();
        let mut op = block.first_operation();
        while let Some(o) = op {
            let op_name = o.name().as_string_ref().as_str().unwrap_or("?").to_string();
            if op_name == "func.return" {
                let keys: Vec<String> = o
                    .attributes()
                    .map(|(k, _)| format!("`{}`", k.as_string_ref().as_str().unwrap_or("?")))
                    .collect();
                if !keys.is_empty() {
                    let what = format!(
                        "the `func.return` of graph `{graph}` has attributes ({}); .ge's \
                         `return` has none",
                        keys.join(", ")
                    );
                    self.problem(o.location(), "  ", what);
                }
                if let Some(k) = o.operands().position(|v| self.is_ctrl(&v)) {
                    let what = format!(
                        "the `func.return` of graph `{graph}` returns a control token (operand \
                         {k}); a .ge graph's outputs are data values"
                    );
                    self.problem(o.location(), "  ", what);
                }
                let refs: Vec<String> = o
                    .operands()
                    .map(|v| self.value_ref(&names, &v, "return", o.location()))
                    .collect();
                if !refs.is_empty() {
                    self.out
                        .push_str(&format!("  return {}\n", refs.join(", ")));
                }
            } else if op_name.starts_with("ascend.") {
                self.node(&names, &not_kept, &o, &op_name);
            } else {
                self.problem(
                    o.location(),
                    "  ",
                    format!("op `{op_name}` is not an `ascend` op"),
                );
            }
            op = o.next_in_block();
        }
        for arg in 0..block.argument_count() {
            if !self.data_args.contains_key(&arg) {
                let what = format!(
                    "argument {arg} of function `{graph}` is read by no Data node; .ge's graph \
                     inputs are its Data nodes, so the argument would vanish"
                );
                self.problem(f.location(), "  ", what);
            }
        }
        self.out.push_str("}\n");
    }

    /// Node names: the `name` attribute, else (or when taken) `<mnemonic>_<n>`; and, for the
    /// nodes whose `name` could not be kept, why (a problem to report at the node).
    fn node_names(&self, block: &BlockRef) -> (HashMap<usize, String>, HashMap<usize, String>) {
        let mut ops = Vec::new();
        let mut op = block.first_operation();
        while let Some(o) = op {
            ops.push(o);
            op = o.next_in_block();
        }
        let mut taken: HashSet<String> =
            ops.iter().filter_map(|o| string_attr(o, "name")).collect();
        let mut used: HashSet<String> = HashSet::new();
        let mut counters: HashMap<String, usize> = HashMap::new();
        let mut names = HashMap::new();
        let mut not_kept = HashMap::new();
        for o in &ops {
            let attr = string_attr(o, "name");
            let given = attr.clone().filter(|n| used.insert(n.clone()));
            let kept = given.is_some();
            let chosen = given.unwrap_or_else(|| {
                let full = o
                    .name()
                    .as_string_ref()
                    .as_str()
                    .unwrap_or("op")
                    .to_string();
                let mnemonic = full.rsplit('.').next().unwrap_or("op").to_string();
                let counter = counters.entry(mnemonic.clone()).or_insert(0);
                loop {
                    let candidate = format!("{mnemonic}_{counter}");
                    *counter += 1;
                    if !taken.contains(&candidate) {
                        taken.insert(candidate.clone());
                        used.insert(candidate.clone());
                        break candidate;
                    }
                }
            });
            if !kept {
                // `.ge` text is UTF-8, and a graph names each node once (the importer rejects
                // a repeat, GE identifies nodes by name): a made-up name would silently be
                // another node.
                let why = match (attr, non_utf8_string_attr(o, "name")) {
                    (Some(repeated), _) => Some(format!(
                        "node name `{repeated}` is taken by an earlier node of the graph \
                         (printed as `{chosen}`)"
                    )),
                    (None, Some(raw)) => Some(format!(
                        "node name {raw} is not UTF-8 (printed as `{chosen}`)"
                    )),
                    (None, None) => None,
                };
                if let Some(why) = why {
                    not_kept.insert(op_key(o), why);
                }
            }
            names.insert(op_key(o), chosen);
        }
        (names, not_kept)
    }

    fn value_ref(
        &mut self,
        names: &HashMap<usize, String>,
        v: &Value<'c, '_>,
        user: &str,
        at: Location<'c>,
    ) -> String {
        let result = v
            .is_operation_result()
            .then(|| OperationResult::try_from(*v).ok())
            .flatten();
        if let Some(result) = result {
            let owner = result.owner();
            let n = names
                .get(&op_key(&owner))
                .cloned()
                .unwrap_or_else(|| "?".into());
            if self.is_ctrl(v) {
                return format!("^{}", name(&n));
            }
            return match result.result_number() {
                0 => name(&n),
                k => format!("{}:{k}", name(&n)),
            };
        }
        let arg = BlockArgument::try_from(*v).map_or(0, |a| a.argument_number());
        // Reported here: not also as an argument no Data reads.
        self.data_args
            .entry(arg)
            .or_insert_with(|| user.to_string());
        self.problem(
            at,
            "  ",
            format!("`{user}` uses function argument {arg} directly; .ge reads graph inputs through Data nodes"),
        );
        format!("\"<arg{arg}>\"")
    }

    fn node(
        &mut self,
        names: &HashMap<usize, String>,
        not_kept: &HashMap<usize, String>,
        o: &OperationRef<'c, '_>,
        op_name: &str,
    ) {
        let node_name = names.get(&op_key(o)).cloned().unwrap_or_default();
        if let Some(why) = not_kept.get(&op_key(o)) {
            self.problem(o.location(), "  ", why.clone());
        }
        let generic = op_name == super::import::GENERIC_OP;
        let def = self.table.by_op_name(op_name);
        let op_type = if generic {
            match string_attr(o, "type") {
                Some(t) => quote(&t),
                None => {
                    let what = format!("generic op `{node_name}` has no `type`");
                    self.problem(o.location(), "  ", what);
                    quote("")
                }
            }
        } else if let Some(def) = def {
            name(&def.ge_type)
        } else {
            self.problem(
                o.location(),
                "  ",
                format!("op `{op_name}` is not in the op table"),
            );
            return;
        };
        let is_data = def.is_some_and(is_data_like);
        let mut inputs = Vec::new();
        let mut arg_number = None;
        for (i, v) in o.operands().enumerate() {
            if is_data && i == 0 && v.is_block_argument() {
                arg_number = BlockArgument::try_from(v).ok().map(|a| a.argument_number());
                continue;
            }
            inputs.push(self.value_ref(names, &v, &node_name, o.location()));
        }
        // Unconnected slots (an optional group left empty before a later operand) read
        // back as `?`, so the importer rebuilds the same segment sizes.
        if let Some(slots) = def.and_then(|def| unconnected_layout(o, def)) {
            let mut by_slot: Vec<String> = vec!["?".into(); slots.last().map_or(0, |&l| l + 1)];
            let ctrl = inputs.split_off(slots.len().min(inputs.len()));
            for (text, &slot) in inputs.into_iter().zip(&slots) {
                by_slot[slot] = text;
            }
            by_slot.extend(ctrl);
            inputs = by_slot;
        }
        let mut attrs: Vec<(String, String)> = Vec::new();
        for (key, value) in o.attributes() {
            let key = key.as_string_ref().as_str().unwrap_or("").to_string();
            if IMPLIED.contains(&key.as_str()) || (generic && key == "type") {
                continue;
            }
            let text = self.attr(value);
            attrs.push((key, text));
        }
        if let Some(arg) = arg_number {
            if let Some(first) = self.data_args.get(&arg) {
                let what = format!(
                    "Data `{node_name}` reads function argument {arg}, which Data `{first}` \
                     reads already; .ge reads each graph input through one Data node"
                );
                self.problem(o.location(), "  ", what);
            } else {
                self.data_args.insert(arg, node_name.clone());
            }
            match attrs.iter().find(|(k, _)| k == "index") {
                None => attrs.push(("index".into(), arg.to_string())),
                Some((_, v)) if *v != arg.to_string() => {
                    let what = format!(
                        "Data `{node_name}` has index {v} but reads function argument {arg}"
                    );
                    self.problem(o.location(), "  ", what);
                }
                Some(_) => {}
            }
        }
        attrs.sort_by(|a, b| a.0.cmp(&b.0));
        let mut results: Vec<String> = Vec::with_capacity(o.result_count());
        let mut last_is_ctrl = false;
        for r in o.results() {
            let text = self.type_text(r.r#type());
            last_is_ctrl = text == CTRL;
            results.push(types::ge_type(text));
        }
        if last_is_ctrl {
            results.pop();
        }
        let mut line = format!("  {} = {op_type}({})", name(&node_name), inputs.join(", "));
        if !attrs.is_empty() {
            let attrs: Vec<String> = attrs
                .iter()
                .map(|(k, v)| format!("{} = {v}", name(k)))
                .collect();
            line.push_str(&format!(" {{{}}}", attrs.join(", ")));
        }
        line.push_str(" : ");
        match results.as_slice() {
            [one] => line.push_str(one),
            _ => line.push_str(&format!("({})", results.join(", "))),
        }
        line.push('\n');
        self.out.push_str(&line);
    }

    fn attr(&mut self, a: Attribute) -> String {
        // Each kind is tested with `is_*` before converting: melior's failing `try_from`
        // prints the attribute into its error, which made printing quadratic-ish in
        // attribute size.
        if let Some(b) = a
            .is_bool()
            .then(|| BoolAttribute::try_from(a).ok())
            .flatten()
        {
            return b.value().to_string();
        }
        if let Some(i) = a
            .is_integer()
            .then(|| IntegerAttribute::try_from(a).ok())
            .flatten()
        {
            return if a.r#type().to_string() == "i64" {
                i.value().to_string()
            } else {
                raw(a)
            };
        }
        if let Some(f) = a
            .is_float()
            .then(|| FloatAttribute::try_from(a).ok())
            .flatten()
        {
            return if a.r#type().to_string() == "f32" {
                FloatKind::F32.format(f.value())
            } else {
                raw(a)
            };
        }
        if let Some(s) = a
            .is_string()
            .then(|| StringAttribute::try_from(a).ok())
            .flatten()
        {
            return match crate::ir::string_value(s) {
                Some(text) if a.r#type().to_string() == "none" => quote(text),
                _ => raw(a),
            };
        }
        if let Some(list) = a
            .is_array()
            .then(|| ArrayAttribute::try_from(a).ok())
            .flatten()
        {
            let items: Vec<String> = (0..list.len())
                .filter_map(|i| list.element(i).ok())
                .map(|e| self.attr(e))
                .collect();
            return format!("[{}]", items.join(", "));
        }
        if let Some(s) = a
            .is_flat_symbol_ref()
            .then(|| FlatSymbolRefAttribute::try_from(a).ok())
            .flatten()
        {
            if let Some(symbol) = crate::ir::symbol_value(s) {
                return format!("@{}", name(symbol));
            }
            return raw(a);
        }
        if let Some(t) = a
            .is_type()
            .then(|| TypeAttribute::try_from(a).ok())
            .flatten()
        {
            return types::ge_tensor(&t.value().to_string()).unwrap_or_else(|| raw(a));
        }
        if a.is_dense_int_elements() || a.is_dense_fp_elements() {
            if let Some(text) = dense(a) {
                return text;
            }
        }
        raw(a)
    }
}

/// MLIR's spelling (`"x\FF"`) of string attribute `key` of `o` when its bytes are not
/// UTF-8.
/// The slot of each data operand of `o` when it leaves a slot unconnected (its
/// `operandSegmentSizes` against the op's groups, see [`crate::dialect::slots`]).
fn unconnected_layout(o: &OperationRef, def: &crate::dialect::OpDef) -> Option<Vec<usize>> {
    use crate::dialect::slots;
    let sizes =
        crate::dialect::op_view::convert_attribute(o.attribute("operandSegmentSizes").ok()?)
            .as_ints()?;
    let (_, data) = sizes.split_last()?;
    let data: Vec<usize> = data.iter().map(|&s| s.max(0) as usize).collect();
    if !slots::may_have_holes(&def.inputs, &data) {
        return None;
    }
    slots::operand_slots(&def.inputs, &data).filter(|s| slots::has_holes(s))
}

fn non_utf8_string_attr(o: &OperationRef, key: &str) -> Option<String> {
    let a = o.attribute(key).ok().filter(|a| a.is_string())?;
    let s = StringAttribute::try_from(a).ok()?;
    crate::ir::string_value(s).is_none().then(|| a.to_string())
}

fn string_attr(o: &OperationRef, key: &str) -> Option<String> {
    let a = o.attribute(key).ok().filter(|a| a.is_string())?;
    StringAttribute::try_from(a)
        .ok()
        .and_then(crate::ir::string_value)
        .map(str::to_string)
}

/// `dense<T>(v)` for splats, `dense<T>[v, ...]` otherwise; `None` when the `.ge` form cannot
/// hold it (dynamic shape, exotic element type).
fn dense(a: Attribute) -> Option<String> {
    let ty = a.r#type().to_string();
    let parts = types::split_tensor(&ty)?;
    if parts.dims.as_ref()?.iter().any(Option::is_none) {
        return None;
    }
    let element = Element::of_mlir(parts.element)?;
    let ge_ty = types::ge_tensor(&ty)?;
    let d = DenseElementsAttribute::try_from(a).ok()?;
    // A splat before the empty case: MLIR keeps the value of a zero-element splat
    // (`dense<1.0> : tensor<0xf32>` is not `dense<>`), and `[]` would read back as `dense<>`.
    if d.is_empty() && !d.is_splat() {
        return Some(format!("dense<{ge_ty}>[]"));
    }
    if d.is_splat() {
        return Some(format!(
            "dense<{ge_ty}>({})",
            scalar(element, d.splat_value())?
        ));
    }
    let values: Vec<String> = match element {
        Element::Float(kind @ (FloatKind::F16 | FloatKind::BF16)) => {
            half_values(kind, &a.to_string(), d.len())?
                .into_iter()
                .map(|v| kind.format(v))
                .collect()
        }
        Element::Float(kind) => (0..d.len())
            .map(|i| match kind {
                FloatKind::F32 => d.f32_element(i).ok().map(|v| kind.format(f64::from(v))),
                _ => d.f64_element(i).ok().map(|v| kind.format(v)),
            })
            .collect::<Option<_>>()?,
        Element::Bool => (0..d.len())
            .map(|i| d.bool_element(i).ok().map(|b| b.to_string()))
            .collect::<Option<_>>()?,
        Element::Int { bits, unsigned } => (0..d.len())
            .map(|i| int_element(&d, i, bits, unsigned))
            .collect::<Option<_>>()?,
    };
    Some(format!("dense<{ge_ty}>[{}]", values.join(", ")))
}

fn int_element(d: &DenseElementsAttribute, i: usize, bits: u32, unsigned: bool) -> Option<String> {
    Some(match (bits, unsigned) {
        (8, false) => d.i8_element(i).ok()?.to_string(),
        (16, false) => d.i16_element(i).ok()?.to_string(),
        (32, false) => d.i32_element(i).ok()?.to_string(),
        (64, false) => d.i64_element(i).ok()?.to_string(),
        (8, true) => d.u8_element(i).ok()?.to_string(),
        (16, true) => d.u16_element(i).ok()?.to_string(),
        (32, true) => d.u32_element(i).ok()?.to_string(),
        (64, true) => d.u64_element(i).ok()?.to_string(),
        _ => return None,
    })
}

fn scalar(element: Element, a: Attribute) -> Option<String> {
    match element {
        Element::Float(kind) => FloatAttribute::try_from(a)
            .ok()
            .map(|f| kind.format(f.value())),
        Element::Bool => BoolAttribute::try_from(a)
            .ok()
            .map(|b| b.value().to_string())
            .or_else(|| {
                IntegerAttribute::try_from(a)
                    .ok()
                    .map(|i| (i.value() != 0).to_string())
            }),
        Element::Int { unsigned: true, .. } => IntegerAttribute::try_from(a)
            .ok()
            .map(|i| i.unsigned_value().to_string()),
        Element::Int { .. } => IntegerAttribute::try_from(a)
            .ok()
            .map(|i| i.value().to_string()),
    }
}

/// Element values of a non-splat `f16`/`bf16` dense attribute, read from MLIR's printed form
/// (`dense<[1.0, ...]>` or the hex blob `dense<"0x...">`): the C API has no accessor for
/// 16-bit floats.
fn half_values(kind: FloatKind, text: &str, count: usize) -> Option<Vec<f64>> {
    let body = text.strip_prefix("dense<")?;
    let body = &body[..body.rfind("> :")?];
    let values: Vec<f64> =
        if let Some(hex) = body.strip_prefix("\"0x").and_then(|b| b.strip_suffix('"')) {
            let bytes: Vec<u8> = (0..hex.len() / 2)
                .map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
                .collect::<Option<_>>()?;
            bytes
                .chunks_exact(2)
                .map(|c| kind.decode(u64::from(u16::from_le_bytes([c[0], c[1]]))))
                .collect()
        } else {
            body.split(['[', ']', ','])
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(
                    |s| match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                        Some(hex) => u64::from_str_radix(hex, 16).ok().map(|b| kind.decode(b)),
                        None => s.parse::<f64>().ok().map(|v| kind.round(v)),
                    },
                )
                .collect::<Option<_>>()?
        };
    (values.len() == count).then_some(values)
}
