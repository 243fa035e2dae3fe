//! Importer and printer tests against a small local op table and its IRDL, so they do not
//! depend on the shipped table's contents.

use super::*;
use crate::syntax::print::{print_ge_with_table, try_print_ge};
use melior::{
    dialect::DialectRegistry,
    ir::{block::BlockLike, operation::OperationLike, Module, RegionLike},
    utility::{load_irdl_dialects, register_all_dialects},
    Context,
};

pub(crate) const TABLE: &str = r#"
[[op]]
mnemonic = "data"
ge_type = "Data"
engine = "GE"
inputs = ["x"]
outputs = ["y"]
traits = ["data_like"]
same_type = [["x", "y"]]

[[op]]
mnemonic = "add"
ge_type = "Add"
engine = "AIcoreEngine"
inputs = ["x1", "x2"]
outputs = ["y"]

[[op]]
mnemonic = "relu"
ge_type = "Relu"
engine = "AIcoreEngine"
inputs = ["x"]
outputs = ["y"]
same_type = [["x", "y"]]

[[op]]
mnemonic = "const"
ge_type = "Const"
engine = "GE"
outputs = ["y"]
required_attrs = { value = "any" }

[[op]]
mnemonic = "split"
ge_type = "Split"
engine = "AIcoreEngine"
inputs = ["x"]
outputs = ["y*"]

[[op]]
mnemonic = "add_n"
ge_type = "AddN"
engine = "AIcoreEngine"
inputs = ["x*"]
outputs = ["y"]

[[op]]
mnemonic = "if"
ge_type = "If"
engine = "GE"
inputs = ["cond", "input[2]"]
outputs = ["output[2]"]
aliases = ["StatelessIf"]
subgraph_attrs = ["then_branch", "else_branch"]

[[op]]
mnemonic = "while"
ge_type = "While"
engine = "GE"
inputs = ["input[2]"]
outputs = ["output[2]"]
traits = ["while_family"]
subgraph_attrs = ["cond", "body"]

[[op]]
mnemonic = "op"
ge_type = "*"
engine = "GE"
inputs = ["x[2]"]
outputs = ["y[2]"]
required_attrs = { type = "string" }
"#;

/// IRDL for `TABLE`, written the way the generator lays slots out. Every symbol attribute
/// needs its own constraint variable: IRDL binds a variable to the first value it sees, so a
/// shared `%s` would force `then_branch == else_branch`.
pub(crate) const IRDL: &str = r##"
irdl.dialect @ascend {
  irdl.type @ctrl
  irdl.operation @data {
    %t = irdl.any
    %c = irdl.base @ascend::@ctrl
    irdl.operands(x: %t, ctrl_in: variadic %c)
    irdl.results(y: %t, ctrl: %c)
  }
  irdl.operation @add {
    %t = irdl.any
    %c = irdl.base @ascend::@ctrl
    irdl.operands(x1: %t, x2: %t, ctrl_in: variadic %c)
    irdl.results(y: %t, ctrl: %c)
  }
  irdl.operation @relu {
    %t = irdl.any
    %c = irdl.base @ascend::@ctrl
    irdl.operands(x: %t, ctrl_in: variadic %c)
    irdl.results(y: %t, ctrl: %c)
  }
  irdl.operation @const {
    %t = irdl.any
    %c = irdl.base @ascend::@ctrl
    irdl.operands(ctrl_in: variadic %c)
    irdl.results(y: %t, ctrl: %c)
  }
  irdl.operation @split {
    %t = irdl.any
    %u = irdl.any
    %c = irdl.base @ascend::@ctrl
    irdl.operands(x: %t, ctrl_in: variadic %c)
    irdl.results(y: variadic %u, ctrl: %c)
  }
  irdl.operation @add_n {
    %t = irdl.any
    %u = irdl.any
    %c = irdl.base @ascend::@ctrl
    irdl.operands(x: variadic %t, ctrl_in: variadic %c)
    irdl.results(y: %u, ctrl: %c)
  }
  irdl.operation @if {
    %a = irdl.any
    %b = irdl.any
    %d = irdl.any
    %e = irdl.any
    %f = irdl.any
    %g = irdl.any
    %h = irdl.any
    %c = irdl.base @ascend::@ctrl
    %s = irdl.base "#builtin.symbol_ref"
    %s2 = irdl.base "#builtin.symbol_ref"
    irdl.operands(cond: %a, input0: optional %b, input1: optional %d, input_rest: variadic %e, ctrl_in: variadic %c)
    irdl.results(output0: optional %f, output1: optional %g, output_rest: variadic %h, ctrl: %c)
    irdl.attributes { "then_branch" = %s, "else_branch" = %s2 }
  }
  irdl.operation @while {
    %b = irdl.any
    %d = irdl.any
    %e = irdl.any
    %f = irdl.any
    %g = irdl.any
    %h = irdl.any
    %c = irdl.base @ascend::@ctrl
    %s = irdl.base "#builtin.symbol_ref"
    %s2 = irdl.base "#builtin.symbol_ref"
    irdl.operands(input0: optional %b, input1: optional %d, input_rest: variadic %e, ctrl_in: variadic %c)
    irdl.results(output0: optional %f, output1: optional %g, output_rest: variadic %h, ctrl: %c)
    irdl.attributes { "cond" = %s, "body" = %s2 }
  }
  irdl.operation @op {
    %b = irdl.any
    %d = irdl.any
    %e = irdl.any
    %f = irdl.any
    %g = irdl.any
    %h = irdl.any
    %c = irdl.base @ascend::@ctrl
    irdl.operands(x0: optional %b, x1: optional %d, x_rest: variadic %e, ctrl_in: variadic %c)
    irdl.results(y0: optional %f, y1: optional %g, y_rest: variadic %h, ctrl: %c)
  }
}
"##;

pub(crate) fn table() -> OpTable {
    OpTable::parse(TABLE).expect("test table parses")
}

pub(crate) fn context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    let irdl = Module::parse(&context, IRDL).expect("test IRDL parses");
    assert!(load_irdl_dialects(&irdl));
    context
}

fn import<'c>(context: &'c Context, source: &str) -> Result<Module<'c>, GeDiagnostics> {
    import_ge_with_table(context, source, "t.ge", &table())
}

/// Imports, expecting failure; returns the rendered diagnostics.
fn errors(source: &str) -> String {
    let context = context();
    let result = import(&context, source);
    match result {
        Ok(m) => panic!("expected an error, got\n{}", m.as_operation()),
        Err(e) => e.render(),
    }
}

/// Imports `source`, expecting an error whose rendering contains `needle`; returns the
/// rendering for further checks.
fn expect_error(source: &str, needle: &str) -> String {
    let e = errors(source);
    assert!(e.contains(needle), "expected `{needle}` in:\n{e}");
    e
}

fn round_trip(source: &str) -> String {
    let context = context();
    let module = import(&context, source).unwrap_or_else(|e| panic!("{e}"));
    print_ge_with_table(&module, &table())
}

fn assert_round_trip(source: &str) {
    assert_eq!(round_trip(source), source);
}

#[test]
fn imports_ops_in_generic_form() {
    let context = context();
    let module = import(
        &context,
        "graph main {\n  x = Data() {index = 0} : f32[4, 8]\n  a = Add(x, x) : f32[4, 8]\n  r = Relu(a, ^x) : f32[4, 8]\n  return r\n}\n",
    )
    .unwrap();
    let text = module.as_operation().to_string();
    assert!(
        text.contains("func.func @main(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32>"),
        "{text}"
    );
    assert!(
        text.contains("\"ascend.data\"(%arg0) <{index = 0 : i64, name = \"x\"}>")
            || text.contains("\"ascend.data\"(%arg0) {index = 0 : i64, name = \"x\"}"),
        "{text}"
    );
    assert!(text.contains("\"ascend.relu\"(%1#0, %0#1) {name = \"r\"} : (tensor<4x8xf32>, !ascend.ctrl) -> (tensor<4x8xf32>, !ascend.ctrl)"), "{text}");
    assert!(text.contains("return %2#0 : tensor<4x8xf32>"), "{text}");
}

#[test]
fn op_locations_point_into_the_ge_file() {
    let context = context();
    let module = import(
        &context,
        "graph main {\n  x = Data() {index = 0} : f32[]\n}\n",
    )
    .unwrap();
    let func = module.body().first_operation().unwrap();
    let data = func
        .region(0)
        .unwrap()
        .first_block()
        .unwrap()
        .first_operation()
        .unwrap();
    let loc = data.location();
    assert_eq!(
        loc.file_line_col_range_filename()
            .as_string_ref()
            .as_str()
            .unwrap(),
        "t.ge"
    );
    assert_eq!(
        (
            loc.file_line_col_range_start_line(),
            loc.file_line_col_range_start_column()
        ),
        (2, 3)
    );
}

#[test]
fn subgraphs_are_private_and_root_is_main() {
    let context = context();
    let module = import(&context, "graph sub {\n}\n\ngraph main {\n}\n").unwrap();
    let text = module.as_operation().to_string();
    assert!(text.contains("func.func private @sub()"), "{text}");
    assert!(text.contains("func.func @main()"), "{text}");
    let module = import(&context, "graph first {\n}\n\ngraph second {\n}\n").unwrap();
    let text = module.as_operation().to_string();
    assert!(
        text.contains("func.func @first()") && text.contains("func.func private @second()"),
        "{text}"
    );
}

#[test]
fn segment_sizes_follow_the_table() {
    let context = context();
    let module = import(
        &context,
        "graph main {\n  c = Data() {index = 0} : bool[]\n  x = Data() {index = 1} : f32[2]\n  n = AddN(x, x, x, ^c) : f32[2]\n  i = If(c, x, n) {else_branch = @b, then_branch = @b} : (f32[2], f32[2])\n  return i, i:1\n}\n\ngraph b {\n  p = Data() {index = 0} : f32[2]\n  q = Data() {index = 1} : f32[2]\n  return p, q\n}\n",
    )
    .unwrap();
    let text = module.as_operation().to_string();
    assert!(
        text.contains("operandSegmentSizes = array<i32: 3, 1>"),
        "{text}"
    );
    assert!(
        text.contains("operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>"),
        "{text}"
    );
    assert!(
        text.contains("resultSegmentSizes = array<i32: 1, 1, 0, 1>"),
        "{text}"
    );
}

#[test]
fn nodes_are_sorted_topologically_stable_by_source_order() {
    let printed = round_trip(
        "graph main {\n  r = Relu(a) : f32[2]\n  x = Data() {index = 0} : f32[2]\n  a = Add(x, x) : f32[2]\n  z = Const() {value = dense<f32[2]>(0.0)} : f32[2]\n  return r\n}\n",
    );
    assert_eq!(
        printed,
        "graph main {\n  x = Data() {index = 0} : f32[2]\n  a = Add(x, x) : f32[2]\n  r = Relu(a) : f32[2]\n  z = Const() {value = dense<f32[2]>(0.0)} : f32[2]\n  return r\n}\n"
    );
}

#[test]
fn round_trip_refs_control_and_generic_ops() {
    assert_round_trip(
        "graph main {\n  x = Data() {index = 0} : f32[4, 8]\n  s = Split(x) {num_split = 2, split_dim = 0} : (f32[2, 8], f32[2, 8])\n  g = \"MyCustomOp\"(s:1, ^x) {alpha = 0.5} : f32[2, 8]\n  h = \"Sink\"(^g, ^s) : ()\n  m = \"Two\"(s, g) : (f32[2, 8], i32[])\n  return g, m:1\n}\n",
    );
}

#[test]
fn round_trip_subgraphs() {
    assert_round_trip(
        "graph main {\n  c = Data() {index = 0} : bool[]\n  x = Data() {index = 1} : f32[2, 8]\n  i = If(c, x) {else_branch = @else_b, then_branch = @then_b} : f32[2, 8]\n  w = While(x, i) {body = @body, cond = @cond} : (f32[2, 8], f32[2, 8])\n  return i, w:1\n}\n\ngraph then_b {\n  a = Data() {index = 0} : f32[2, 8]\n  return a\n}\n\ngraph else_b {\n  a = Data() {index = 0} : f32[2, 8]\n  r = Relu(a) : f32[2, 8]\n  return r\n}\n\ngraph cond {\n  a = Data() {index = 0} : f32[2, 8]\n  b = Data() {index = 1} : f32[2, 8]\n  p = \"Less\"(a, b) : bool[]\n  return p\n}\n\ngraph body {\n  a = Data() {index = 0} : f32[2, 8]\n  b = Data() {index = 1} : f32[2, 8]\n  return b, a\n}\n",
    );
}

#[test]
fn round_trip_attribute_kinds() {
    assert_round_trip(concat!(
        "graph main {\n",
        "  k = \"Holder\"() {a = 3, b = -1, c = 1.5, d = true, e = \"s \\\"q\\\" \\\\ \\n\\t\", f = [1, 2], g = [\"a\", \"b\"], h = [], ",
        "i = [[1], [2.5, false]], j = @main, k = f32[2, 3], l = f16[?, 8], m = bool[], n = u8[*], ",
        "o = dense<f32[2, 2]>[1.0, 2.0, 3.0, 4.0], p = dense<f32[4, 8]>(1.0), q = dense<f16[3]>[0.1, -inf, 65500.0], ",
        "r = dense<bf16[2]>[1.234, nan], s = dense<i8[3]>[-128, 0, 127], t = dense<u8[2]>[0, 255], u = dense<bool[3]>[true, false, true], ",
        "v = dense<i64[]>(-7), w = dense<u64[2]>[18446744073709551615, 1], x = dense<f64[2]>[0.1, 1.0e300], y = dense<f32[0]>[], ",
        "z = dense<f16[2]>(1.5), z1 = dense<bool[2]>(true), z2 = dense<i32[2, 1]>[5, 6], z3 = 1.0e-7, z4 = inf, z5 = -inf, ",
        "z6 = mlir\"unit\", z7 = mlir\"2 : i32\", z8 = mlir\"1.500000e+00 : f64\", z9 = mlir\"{x = 1 : i64}\"} : f32[2]\n",
        "}\n",
    ));
}

#[test]
fn round_trip_types_and_names() {
    assert_round_trip(concat!(
        "graph \"my graph\" {\n",
        "  \"a b\" = Data() {index = 0} : f32[?, 8]\n",
        "  \"graph\" = Relu(\"a b\") : f32[?, 8]\n",
        "  u = \"Any\"(\"graph\") : (f32[*], i64[])\n",
        "  v = \"Any\"(u:1) : (u16[1, 2, 3], bf16[0])\n",
        "  w = \"Any\"(v, v:1) : (mlir\"tensor<4xindex>\", mlir\"memref<2xf32>\")\n",
        "  grad/add_1.x = Relu(u) : f32[*]\n",
        "  return grad/add_1.x, w:1\n",
        "}\n",
    ));
}

#[test]
fn non_canonical_input_prints_canonically() {
    let printed = round_trip(
        "# comment\ngraph main { // another\n  x = Data() {index = 0} : f32[2]\n  c = Const() {z = 1, value = dense<f32[2]>[2, 2]} : f32[2]\n  r = Relu(x:0,) : f32[2]\n  return\n}\n",
    );
    assert_eq!(printed, "graph main {\n  x = Data() {index = 0} : f32[2]\n  c = Const() {value = dense<f32[2]>(2.0), z = 1} : f32[2]\n  r = Relu(x) : f32[2]\n}\n");
}

#[test]
fn printer_names_unnamed_ops_and_reports_what_it_cannot_print() {
    let context = context();
    let module = Module::parse(
        &context,
        r#"func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %x:2 = "ascend.data"(%a) : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  %r:2 = "ascend.relu"(%x#0) : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  %q:2 = "ascend.relu"(%r#0, %x#1) {name = "relu_0"} : (tensor<2xf32>, !ascend.ctrl) -> (tensor<2xf32>, !ascend.ctrl)
  %s:2 = "ascend.relu"(%a) : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  return %q#0 : tensor<2xf32>
}"#,
    )
    .unwrap();
    let text = print_ge_with_table(&module, &table());
    assert_eq!(
        text,
        "graph main {\n  data_0 = Data() {index = 0} : f32[2]\n  relu_1 = Relu(data_0) : f32[2]\n  relu_0 = Relu(relu_1, ^data_0) : f32[2]\n  # cannot print: `relu_2` uses function argument 0 directly; .ge reads graph inputs through Data nodes\n  relu_2 = Relu(\"<arg0>\") : f32[2]\n  return relu_0\n}\n"
    );
    // Reported at the op that uses the argument (line 5 of the text above).
    only_problem_at_line(&module, 5);
}

/// The one thing `try_print_ge` reports for `module`, after checking it is located on `line`.
fn only_problem_at_line(module: &Module, line: usize) -> String {
    let problems = try_print_ge(module, &table()).unwrap_err();
    assert_eq!(problems.len(), 1, "{problems:?}");
    let at = format!(":{line}:");
    assert!(
        problems[0].location.to_string().contains(&at),
        "{:?}",
        problems[0]
    );
    problems[0].message.clone()
}

#[test]
fn printer_reports_a_node_name_that_is_not_utf8_at_its_op() {
    let context = context();
    let module = Module::parse(
        &context,
        r#"func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %x:2 = "ascend.data"(%a) {index = 0 : i64, name = "x\FF"} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  return %x#0 : tensor<2xf32>
}"#,
    )
    .unwrap();
    assert_eq!(
        only_problem_at_line(&module, 2),
        "node name \"x\\FF\" is not UTF-8 (printed as `data_0`)"
    );
}

// ---- diagnostics -------------------------------------------------------------------------

#[test]
fn unknown_op_type_suggests_and_mentions_generic() {
    let e = errors("graph main {\n  a = Relo() : f32[]\n}\n");
    assert!(
        e.starts_with("t.ge:2:7: error: unknown op type `Relo`\n"),
        "{e}"
    );
    assert!(e.contains("did you mean `Relu`?"), "{e}");
    assert!(e.contains("quote its type: `\"Relo\"(...)`"), "{e}");
    expect_error(
        "graph main {\n  a = StatelessIf() : f32[]\n}\n",
        "GE treats `StatelessIf` like `If`: write `If(...)`",
    );
    expect_error(
        "graph main {\n  a = op() : f32[]\n}\n",
        "unknown op type `op`",
    );
}

#[test]
fn wrong_operand_and_result_counts() {
    let e = expect_error(
        "graph main {\n  x = Data() {index = 0} : f32[]\n  a = Add(x) : f32[]\n}\n",
        "t.ge:3:7: error: wrong number of inputs for `a`: Add takes 2 data inputs, got 1",
    );
    assert!(e.contains("x1, x2"), "{e}");
    expect_error(
        "graph main {\n  x = Data() {index = 0} : f32[]\n  a = Relu(x) : (f32[], f32[])\n}\n",
        "t.ge:3:17: error: wrong number of outputs for `a`: Relu takes 1 data outputs, got 2",
    );
    let e = errors("graph main {\n  x = Data() {index = 0} : f32[]\n  a = If(x, x, x, x, x) {else_branch = @main, then_branch = @main} : ()\n}\n");
    assert!(
        !e.contains("wrong number"),
        "slots overflow into the rest group: {e}"
    );
}

#[test]
fn undefined_values() {
    let e = expect_error(
        "graph main {\n  x = Data() {index = 0} : f32[]\n  a = Relu(y) : f32[]\n}\n",
        "t.ge:3:12: error: undefined value `y`",
    );
    // One-letter names are not "corrected" to another one-letter name.
    assert!(!e.contains("did you mean"), "{e}");
    expect_error(
        "graph main {\n  input = Data() {index = 0} : f32[]\n  a = Relu(inptu) : f32[]\n}\n",
        "did you mean `input`?",
    );
    let e = expect_error(
        "graph main {\n  x = Data() {index = 0} : f32[]\n  a = Relu(x:3) : f32[]\n}\n",
        "t.ge:3:12: error: undefined value `x:3`",
    );
    assert!(e.contains("`x` has 1 output"), "{e}");
    expect_error(
        "graph main {\n  x = Data() {index = 0} : f32[]\n  a = Relu(^q) : f32[]\n}\n",
        "t.ge:3:12: error: undefined value `q`",
    );
    expect_error(
        "graph main {\n  return nope\n}\n",
        "t.ge:2:10: error: undefined value `nope`",
    );
}

#[test]
fn duplicate_names() {
    let e = expect_error(
        "graph main {\n  x = Data() {index = 0} : f32[]\n  x = Relu(x) : f32[]\n}\n",
        "t.ge:3:3: error: duplicate node name `x`",
    );
    assert!(e.contains("first defined here"), "{e}");
    expect_error(
        "graph g {\n}\ngraph g {\n}\n",
        "t.ge:3:7: error: duplicate graph name `g`",
    );
}

#[test]
fn subgraph_signature_mismatches() {
    let sub = "graph then_b {\n  a = Data() {index = 0} : f32[4]\n  return a\n}\n";
    expect_error(&format!(
        "graph main {{\n  c = Data() {{index = 0}} : bool[]\n  x = Data() {{index = 1}} : f32[2]\n  i = If(c, x) {{else_branch = @then_b, then_branch = @then_b}} : f32[4]\n  return i\n}}\n{sub}"
    ), "t.ge:4:13: error: type mismatch: input 1 of `i` is f32[2] but graph `then_b` takes f32[4] as input 0");
    expect_error(&format!(
        "graph main {{\n  c = Data() {{index = 0}} : bool[]\n  x = Data() {{index = 1}} : f32[4]\n  i = If(c, x) {{else_branch = @then_b, then_branch = @then_b}} : f32[2]\n  return i\n}}\n{sub}"
    ), "error: type mismatch: `i` (If) has results f32[2] but graph `then_b` returns f32[4]");
    expect_error(&format!(
        "graph main {{\n  c = Data() {{index = 0}} : bool[]\n  x = Data() {{index = 1}} : f32[4]\n  i = If(c, x, x) {{else_branch = @then_b, then_branch = @then_b}} : f32[4]\n  return i\n}}\n{sub}"
    ), "error: `i` (If) passes 2 inputs to graph `then_b`, which takes 1");
}

#[test]
fn variadic_group_types_must_agree() {
    expect_error("graph main {\n  x = Data() {index = 0} : f32[]\n  y = Data() {index = 1} : i32[]\n  n = AddN(x, y) : f32[]\n}\n", "t.ge:4:15: error: type mismatch: inputs of `n` in variadic group `x` differ");
}

#[test]
fn cycles_are_reported_with_their_nodes() {
    expect_error("graph main {\n  a = Relu(c) : f32[]\n  b = Relu(a) : f32[]\n  c = Relu(b, ^a) : f32[]\n}\n", "error: cycle in graph `main`: a -> b -> c -> a");
    expect_error(
        "graph main {\n  a = Relu(^a) : ()\n}\n"
            .replace("Relu", "\"X\"")
            .as_str(),
        "t.ge:2:3: error: cycle in graph `main`: a -> a",
    );
}

#[test]
fn dangling_symbol_and_control_on_return() {
    expect_error(
        "graph main {\n  c = \"X\"() {f = @nowhere} : ()\n}\n",
        "t.ge:2:18: error: dangling subgraph symbol `@nowhere`",
    );
    expect_error(
        "graph main {\n  c = \"X\"() : ()\n  return ^c\n}\n",
        "t.ge:3:10: error: control input on `return`",
    );
}

#[test]
fn data_index_rules() {
    expect_error(
        "graph main {\n  a = Data() {index = 0} : f32[]\n  b = Data() {index = 2} : f32[]\n}\n",
        "t.ge:1:7: error: Data indices of graph `main` have a gap: no Data node has index 1",
    );
    expect_error(
        "graph main {\n  a = Data() {index = 0} : f32[]\n  b = Data() {index = 0} : f32[]\n}\n",
        "t.ge:3:23: error: duplicate Data index 0 in graph `main`",
    );
    expect_error(
        "graph main {\n  a = Data() : f32[]\n}\n",
        "t.ge:2:3: error: Data node without `index`",
    );
    expect_error(
        "graph main {\n  a = Data() {index = 0} : f32[]\n  b = Data(a) {index = 1} : f32[]\n}\n",
        "t.ge:3:12: error: a Data node takes no data inputs",
    );
}

#[test]
fn empty_input_and_bad_utf8() {
    let e = errors("  # only a comment\n");
    assert!(e.starts_with("t.ge:1:1: error: no graph in file"), "{e}");
    let context = context();
    let e = import_ge_bytes_with_table(&context, b"graph main {\n  \xff\n}\n", "t.ge", &table())
        .unwrap_err();
    assert!(
        e.render()
            .starts_with("t.ge:2:3: error: input is not valid UTF-8 (first bad byte at offset 15)"),
        "{e}"
    );
}

#[test]
fn input_order_reserved_and_duplicate_attrs() {
    expect_error(
        "graph main {\n  x = Data() {index = 0} : f32[]\n  a = Add(^x, x, x) : f32[]\n}\n",
        "t.ge:3:15: error: data input after a control input",
    );
    expect_error(
        "graph main {\n  a = \"X\"() {name = \"b\"} : ()\n}\n",
        "t.ge:2:14: error: attribute `name` is set by the importer",
    );
    expect_error(
        "graph main {\n  a = \"X\"() {type = \"b\"} : ()\n}\n",
        "attribute `type` is set by the importer",
    );
    expect_error(
        "graph main {\n  a = \"X\"() {k = 1, k = 2} : ()\n}\n",
        "t.ge:2:21: error: duplicate attribute `k`",
    );
}

#[test]
fn literal_errors() {
    expect_error(
        "graph main {\n  a = \"X\"() {v = dense<f32[3]>[1.0, 2.0]} : ()\n}\n",
        "error: dense value has 2 elements but `tensor<3xf32>` holds 3",
    );
    expect_error(
        "graph main {\n  a = \"X\"() {v = dense<u8[1]>[256]} : ()\n}\n",
        "t.ge:2:31: error: value out of range for `u8`",
    );
    expect_error(
        "graph main {\n  a = \"X\"() {v = dense<f16[1]>[70000.0]} : ()\n}\n",
        "error: float literal out of range for f16",
    );
    expect_error(
        "graph main {\n  a = \"X\"() {v = dense<f32[?]>(1.0)} : ()\n}\n",
        "error: a dense value needs a static shape",
    );
    expect_error(
        "graph main {\n  a = \"X\"() : q32[2]\n}\n",
        "t.ge:2:15: error: unknown dtype `q32`",
    );
    expect_error(
        "graph main {\n  a = \"X\"() {v = mlir\"oops<\"} : ()\n}\n",
        "t.ge:2:18: error: invalid MLIR attribute",
    );
    expect_error(
        "graph main {\n  a = \"X\"() {v = 99999999999999999999} : ()\n}\n",
        "error: integer attribute out of range",
    );
}

#[test]
fn syntax_errors_are_rendered() {
    let e = errors("graph main {\n  a = Relu(x y) : f32[]\n}\n");
    assert!(
        e.starts_with("t.ge:2:14: error: unexpected identifier `y`"),
        "{e}"
    );
    assert!(
        e.contains("expected `)`") || e.contains("`,` or `)`") || e.contains("`)`"),
        "{e}"
    );
}

#[test]
fn verifier_failures_map_back_to_the_node() {
    // The test table has no same-type groups, but the IRDL binds Add's operands to one type.
    expect_error("graph main {\n  x = Data() {index = 0} : f32[]\n  y = Data() {index = 1} : i32[]\n  a = Add(x, y) : f32[]\n}\n", "t.ge:4:3: error: MLIR verifier:");
}

#[test]
fn same_type_sets_and_required_attributes() {
    let e = expect_error(
        "graph main {\n  x = Data() {index = 0} : f32[2]\n  r = Relu(x) : f16[2]\n}\n",
        "t.ge:3:17: error: type mismatch: output 0 of `r` is f16[2] but input 0 is f32[2]",
    );
    assert!(e.contains("Relu requires one type for x, y"), "{e}");
    expect_error(
        "graph main {\n  c = Const() : f32[2]\n}\n",
        "t.ge:2:3: error: `c` needs attribute `value`",
    );
    expect_error("graph main {\n  c = Data() {index = 0} : bool[]\n  i = If(c) {then_branch = @main} : ()\n}\n", "t.ge:3:3: error: `i` needs attribute `else_branch`");
}

#[test]
fn several_errors_are_reported_together() {
    let e = expect_error(
        "graph main {\n  a = Relo() : f32[]\n  b = Relu(zz) : f32[]\n}\n",
        "unknown op type `Relo`",
    );
    assert!(e.contains("undefined value `zz`"), "{e}");
}
