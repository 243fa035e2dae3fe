//! Unit tests of the semantics queries: table defaults, GE attribute overrides, the generic
//! op, and the melior-specific value splits.

use super::*;
use crate::dialect::{
    new_context,
    op_view::{AttrValue, OpDesc},
};
use melior::{
    ir::{operation::OperationLike, BlockLike, Module, OperationRef, RegionLike},
    Context,
};

fn desc(op: &str, ins: usize, outs: usize) -> OpDesc {
    OpDesc::new(op, ins, outs)
}

fn s(v: &str) -> AttrValue {
    AttrValue::Str(v.into())
}

fn strs(v: &[&str]) -> AttrValue {
    AttrValue::List(v.iter().map(|x| s(x)).collect())
}

fn ints(v: &[i64]) -> AttrValue {
    AttrValue::List(v.iter().map(|&x| AttrValue::Int(x)).collect())
}

fn sym(v: &str) -> AttrValue {
    AttrValue::Symbol(v.into())
}

/// `array<i32: head..., 0..., last>` with `total` entries: segment sizes for slot ops.
fn segs(head: &[i32], total: usize, last: i32) -> String {
    let mut sizes = head.to_vec();
    sizes.resize(total - 1, 0);
    sizes.push(last);
    let list: Vec<String> = sizes.iter().map(i32::to_string).collect();
    format!("array<i32: {}>", list.join(", "))
}

/// Parses `body` as the body of `@main` and returns its ops (the terminator included).
fn with_ops(body: &str, check: impl FnOnce(&[OperationRef])) {
    let context: Context = new_context();
    let text = format!("func.func @main(%a: tensor<2xf32>, %b: tensor<i1>) {{\n{body}\n}}");
    let module = Module::parse(&context, &text).expect("test IR parses");
    assert!(module.as_operation().verify(), "test IR verifies");
    let func = module.body().first_operation().unwrap();
    let block = func.region(0).unwrap().first_block().unwrap();
    let mut ops = Vec::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        ops.push(op);
    }
    check(&ops);
}

#[test]
fn op_def_and_ge_type_for_table_and_generic_ops() {
    let add = desc("ascend.add", 2, 1);
    assert_eq!(op_def(&add).unwrap().ge_type, "Add");
    assert_eq!(ge_type(&add).as_deref(), Some("Add"));
    let generic = desc("ascend.op", 1, 1).with("type", s("MyCustomOp"));
    assert!(op_def(&generic).unwrap().is_generic());
    assert_eq!(ge_type(&generic).as_deref(), Some("MyCustomOp"));
    assert!(op_def(&desc("func.return", 1, 0)).is_none());
    assert!(ge_type(&desc("func.return", 1, 0)).is_none());
    assert!(is_net_output(&desc("func.return", 1, 0)));
    assert!(!is_net_output(&add));
}

#[test]
fn engine_comes_from_table_alias_row_or_override() {
    assert_eq!(
        engine(&desc("ascend.hcom_all_reduce", 1, 1)).as_deref(),
        Some("DNN_HCCL")
    );
    assert_eq!(
        engine(&desc("ascend.send", 0, 0)).as_deref(),
        Some("DNN_VM_RTS")
    );
    let relu_vec = desc("ascend.relu", 1, 1).with("engine", s("VectorEngine"));
    assert_eq!(engine(&relu_vec).as_deref(), Some("VectorEngine"));
    // A generic op of an aliased type takes the aliased row's engine.
    let var2 = desc("ascend.op", 0, 1).with("type", s("VariableV2"));
    assert_eq!(engine(&var2).as_deref(), Some("DNN_VM_GE_LOCAL"));
    let unknown = desc("ascend.op", 0, 1).with("type", s("Foo"));
    assert_eq!(engine(&unknown).as_deref(), Some("AIcoreEngine"));
    assert_eq!(engine(&desc("func.return", 0, 0)), None);
}

#[test]
fn traits_answer_ge_name_lists() {
    assert!(has_trait(&desc("ascend.while", 1, 1), Trait::WhileFamily));
    let stateless = desc("ascend.op", 1, 1).with("type", s("StatelessWhile"));
    assert!(has_trait(&stateless, Trait::WhileFamily));
    assert!(has_trait(&desc("ascend.ref_data", 1, 1), Trait::VarLike));
    assert!(has_trait(&desc("ascend.ref_data", 1, 1), Trait::DataLike));
    assert!(has_trait(&desc("ascend.const", 0, 1), Trait::ConstLike));
    assert!(has_trait(
        &desc("ascend.read_variable_op", 1, 1),
        Trait::IdentityLike
    ));
    assert!(has_trait(
        &desc("ascend.assign_sub", 2, 1),
        Trait::AssignLike
    ));
    let assign_var = desc("ascend.op", 2, 0).with("type", s("AssignVariableOp"));
    assert!(has_trait(&assign_var, Trait::AssignLike));
    assert!(has_trait(&desc("ascend.shape", 1, 1), Trait::ShapeOnly));
    assert!(has_trait(
        &desc("ascend.label_goto_ex", 0, 0),
        Trait::RtsLabel
    ));
    assert!(has_trait(&desc("ascend.phony_concat", 2, 1), Trait::Phony));
    assert!(!has_trait(&desc("ascend.add", 2, 1), Trait::Source));
    assert!(!has_trait(&desc("func.return", 1, 0), Trait::Source));
}

#[test]
fn ref_relations_follow_ge_names() {
    // Assign: inputs (ref, value) -> output ref.
    let assign = desc("ascend.assign", 2, 1);
    assert_eq!(ref_input_of_output(&assign, 0), Some(0));
    assert_eq!(ref_output_of_input(&assign, 0), Some(0));
    assert_eq!(ref_output_of_input(&assign, 1), None);
    assert!(is_reference(&assign));
    // ApplyMomentum: var, accum, lr, grad, momentum -> var.
    let momentum = desc("ascend.apply_momentum", 5, 1);
    assert_eq!(ref_input_of_output(&momentum, 0), Some(0));
    // ScatterAdd: var, indices, updates -> var.
    assert_eq!(
        ref_input_of_output(&desc("ascend.scatter_add", 3, 1), 0),
        Some(0)
    );
    // Plain compute and data have no refs; out-of-range indices are None.
    assert_eq!(ref_input_of_output(&desc("ascend.add", 2, 1), 0), None);
    assert_eq!(ref_input_of_output(&desc("ascend.assign", 2, 1), 7), None);
    assert!(!is_reference(&desc("ascend.identity", 1, 1)));
    // `reference = false` turns the rule off.
    let off = desc("ascend.assign", 2, 1).with("reference", AttrValue::Bool(false));
    assert_eq!(ref_input_of_output(&off, 0), None);
    assert!(!is_reference(&off));
}

#[test]
fn ref_relations_for_generic_ops_use_given_names() {
    let op = desc("ascend.op", 3, 2)
        .with("type", s("MyScatter"))
        .with("input_names", strs(&["var", "indices", "updates"]))
        .with("output_names", strs(&["y", "var"]));
    assert_eq!(ref_input_of_output(&op, 0), None);
    assert_eq!(ref_input_of_output(&op, 1), Some(0));
    // Without names the generic op's values are x0.., y0.., never equal.
    let plain = desc("ascend.op", 2, 2).with("type", s("Foo"));
    assert_eq!(input_names(&plain), vec!["x0", "x1"]);
    assert_eq!(output_names(&plain), vec!["y0", "y1"]);
    assert_eq!(ref_input_of_output(&plain, 0), None);
}

#[test]
fn ge_names_of_dynamic_groups_use_segment_sizes() {
    // If: cond + input[32] -> output[32]; with segments 1 cond, 2 inputs.
    let mut sizes = vec![1, 1, 1];
    sizes.extend(std::iter::repeat_n(0, 31));
    sizes.push(0);
    let op = desc("ascend.if", 3, 1).with("operandSegmentSizes", ints(&sizes));
    assert_eq!(input_names(&op), vec!["cond", "input0", "input1"]);
    // Without segments, the single non-single group takes the rest.
    assert_eq!(
        input_names(&desc("ascend.add_n", 3, 1)),
        vec!["x0", "x1", "x2"]
    );
    assert_eq!(output_names(&desc("ascend.split", 2, 2)), vec!["y0", "y1"]);
    assert_eq!(
        input_names(&desc("ascend.variable", 0, 1)),
        Vec::<String>::new()
    );
    assert_eq!(input_names(&desc("ascend.mat_mul", 2, 1)), vec!["x1", "x2"]);
    assert_eq!(
        input_names(&desc("ascend.mat_mul", 3, 1)),
        vec!["x1", "x2", "bias"]
    );
}

#[test]
fn input_mutable_defaults_and_overrides() {
    assert!(is_input_mutable(&desc("ascend.hcom_all_reduce", 1, 1)));
    assert!(is_input_mutable(&desc("ascend.hcom_reduce_scatter", 1, 1)));
    assert!(!is_input_mutable(&desc("ascend.hcom_all_gather", 1, 1)));
    let custom = desc("ascend.op", 1, 1)
        .with("type", s("MyHccl"))
        .with("_input_mutable", AttrValue::Bool(true));
    assert!(is_input_mutable(&custom));
    let off = desc("ascend.hcom_all_reduce", 1, 1).with("_input_mutable", AttrValue::Bool(false));
    assert!(!is_input_mutable(&off));
}

#[test]
fn atomic_outputs_defaults_and_overrides() {
    assert_eq!(atomic_outputs(&desc("ascend.scatter_add", 3, 1)), vec![0]);
    assert!(atomic_outputs(&desc("ascend.add", 2, 1)).is_empty());
    let custom = desc("ascend.layer_norm", 3, 3).with("atomic_output_index", ints(&[1, 2]));
    assert_eq!(atomic_outputs(&custom), vec![1, 2]);
    let off = desc("ascend.scatter_add", 3, 1).with("is_atomic_node", AttrValue::Bool(false));
    assert!(atomic_outputs(&off).is_empty());
}

/// `_kernel_atomic` is its own question: neither implied by nor implying atomic outputs.
#[test]
fn kernel_atomic_is_separate_from_atomic_outputs() {
    let hccl = desc("ascend.hcom_all_reduce", 1, 1);
    assert!(!is_kernel_atomic(&hccl));
    let on = desc("ascend.hcom_all_reduce", 1, 1).with("_kernel_atomic", AttrValue::Bool(true));
    assert!(is_kernel_atomic(&on));
    assert!(atomic_outputs(&on).is_empty());
    // An op with atomic outputs is not kernel-atomic unless it says so.
    assert!(!is_kernel_atomic(&desc("ascend.scatter_add", 3, 1)));
}

#[test]
fn continuous_flags_defaults_and_overrides() {
    let ar = desc("ascend.hcom_all_reduce", 1, 1);
    assert!(is_continuous_input(&ar) && is_continuous_output(&ar));
    assert!(!is_nopadding_continuous_input(&ar));
    assert!(is_nopadding_continuous_input(&desc(
        "ascend.phony_concat",
        2,
        1
    )));
    assert!(is_nopadding_continuous_output(&desc(
        "ascend.phony_split",
        1,
        2
    )));
    let add = desc("ascend.add", 2, 1)
        .with("continuous_input", AttrValue::Bool(true))
        .with("continuous_output", AttrValue::Int(1))
        .with("_no_padding_continuous_input", AttrValue::Bool(true))
        .with("_no_padding_continuous_output", AttrValue::Bool(true));
    assert!(is_continuous_input(&add) && is_continuous_output(&add));
    assert!(is_nopadding_continuous_input(&add) && is_nopadding_continuous_output(&add));
    let off = desc("ascend.hcom_all_reduce", 1, 1).with("continuous_input", AttrValue::Bool(false));
    assert!(!is_continuous_input(&off));
}

#[test]
fn plain_attribute_queries() {
    let op = desc("ascend.relu", 1, 1)
        .with("name", s("relu1"))
        .with("_skip_rw_conflict", AttrValue::Bool(true))
        .with("_cannot_be_deleted", AttrValue::Bool(true))
        .with("_stream_label", s("s0"))
        .with("_parallel_group", s("g1"))
        .with("_special_input_size", ints(&[0, 64]))
        .with("ref_var_src_var_name", strs(&["", "var1"]));
    assert_eq!(node_name(&op).as_deref(), Some("relu1"));
    assert!(skip_rw_conflict(&op) && cannot_be_deleted(&op));
    assert_eq!(stream_label(&op).as_deref(), Some("s0"));
    assert_eq!(parallel_group(&op).as_deref(), Some("g1"));
    assert_eq!(special_input_size(&op, 1), 64);
    assert_eq!(special_input_size(&op, 0), 0);
    assert_eq!(special_input_size(&op, 5), 0);
    assert_eq!(ref_var_src_var_name(&op, 0), None);
    assert_eq!(ref_var_src_var_name(&op, 1).as_deref(), Some("var1"));
    let bare = desc("ascend.relu", 1, 1).with("_stream_label", s(""));
    assert!(!skip_rw_conflict(&bare) && !cannot_be_deleted(&bare));
    assert_eq!(stream_label(&bare), None);
    assert_eq!(node_name(&bare), None);
    let one = desc("ascend.assign", 2, 1)
        .with("ref_var_src_var_name", s("w"))
        .with("_special_input_size", AttrValue::Int(32));
    assert_eq!(ref_var_src_var_name(&one, 0).as_deref(), Some("w"));
    assert_eq!(special_input_size(&one, 1), 32);
}

#[test]
fn task_numbers() {
    assert_eq!(task_num(&desc("ascend.add", 2, 1)), 1);
    assert_eq!(task_num(&desc("ascend.data", 1, 1)), 0);
    let hccl = desc("ascend.hcom_all_reduce", 1, 1).with("_hccl_task_num", AttrValue::Int(5));
    assert_eq!(task_num(&hccl), 5);
    // `_hccl_task_num` only counts for HCCL ops; `_node_sqe_num` wins everywhere.
    let add = desc("ascend.add", 2, 1).with("_hccl_task_num", AttrValue::Int(5));
    assert_eq!(task_num(&add), 1);
    let sqe = hccl.with("_node_sqe_num", AttrValue::Int(3));
    assert_eq!(task_num(&sqe), 3);
}

#[test]
fn subgraph_symbols_in_ge_order() {
    let if_op = desc("ascend.if", 2, 1)
        .with("else_branch", sym("else_fn"))
        .with("then_branch", sym("then_fn"));
    assert_eq!(subgraph_symbols(&if_op), vec!["then_fn", "else_fn"]);
    let while_op = desc("ascend.while", 1, 1)
        .with("body", sym("body_fn"))
        .with("cond", sym("cond_fn"));
    assert_eq!(subgraph_symbols(&while_op), vec!["cond_fn", "body_fn"]);
    let case = desc("ascend.case", 2, 1).with(
        "branches",
        AttrValue::List(vec![sym("b0"), sym("b1"), sym("b2")]),
    );
    assert_eq!(subgraph_symbols(&case), vec!["b0", "b1", "b2"]);
    let call = desc("ascend.partitioned_call", 1, 1).with("f", sym("callee"));
    assert_eq!(subgraph_symbols(&call), vec!["callee"]);
    assert!(has_subgraphs(&call));
    assert!(!has_subgraphs(&desc("ascend.add", 2, 1)));
    // A generic op of an aliased control type reads that row's attributes.
    let stateless_if = desc("ascend.op", 2, 1)
        .with("type", s("StatelessIf"))
        .with("then_branch", sym("t"))
        .with("else_branch", sym("e"));
    assert_eq!(subgraph_symbols(&stateless_if), vec!["t", "e"]);
}

#[test]
fn melior_ops_answer_the_same_questions() {
    let body = format!(
        r#"
  %d:2 = "ascend.data"(%a) {{name = "d", index = 0 : i64}} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  %v:2 = "ascend.variable"() {{name = "v"}} : () -> (tensor<2xf32>, !ascend.ctrl)
  %s:2 = "ascend.assign"(%v#0, %d#0, %d#1) {{name = "assign", _stream_label = "s1"}} : (tensor<2xf32>, tensor<2xf32>, !ascend.ctrl) -> (tensor<2xf32>, !ascend.ctrl)
  %i:2 = "ascend.if"(%b, %d#0, %s#0, %v#1, %s#1) {{name = "if", then_branch = @t, else_branch = @e, operandSegmentSizes = {if_in}, resultSegmentSizes = {if_out}}} : (tensor<i1>, tensor<2xf32>, tensor<2xf32>, !ascend.ctrl, !ascend.ctrl) -> (tensor<2xf32>, !ascend.ctrl)
  %g:3 = "ascend.op"(%d#0) {{name = "g", type = "MyOp", input_names = ["x"], output_names = ["x", "aux"], _input_mutable, operandSegmentSizes = {g_in}, resultSegmentSizes = {g_out}}} : (tensor<2xf32>) -> (tensor<2xf32>, tensor<4xf32>, !ascend.ctrl)
  return"#,
        if_in = segs(&[1, 1, 1], 35, 2),
        if_out = segs(&[1], 34, 1),
        g_in = segs(&[1], 34, 0),
        g_out = segs(&[1, 1], 34, 1),
    );
    with_ops(&body, |ops| {
        let (data, var, assign, if_op, generic, ret) =
            (&ops[0], &ops[1], &ops[2], &ops[3], &ops[4], &ops[5]);
        assert_eq!(ge_type(data).as_deref(), Some("Data"));
        assert!(has_trait(data, Trait::DataLike));
        assert!(has_trait(var, Trait::VarLike));
        assert_eq!(node_name(assign).as_deref(), Some("assign"));
        assert_eq!(engine(assign).as_deref(), Some("AIcoreEngine"));
        assert_eq!(ref_input_of_output(assign, 0), Some(0));
        assert_eq!(stream_label(assign).as_deref(), Some("s1"));
        assert_eq!(data_operands(assign).len(), 2);
        assert_eq!(ctrl_operands(assign).len(), 1);
        assert_eq!(data_results(assign).len(), 1);
        let ctrl = ctrl_result(assign).unwrap();
        assert_eq!(ctrl.result_number(), 1);
        // The If: 3 data operands, 2 control operands, GE names from segments.
        assert_eq!(data_operands(if_op).len(), 3);
        assert_eq!(ctrl_operands(if_op).len(), 2);
        assert_eq!(input_names(if_op), vec!["cond", "input0", "input1"]);
        assert_eq!(output_names(if_op), vec!["output0"]);
        assert_eq!(subgraph_symbols(if_op), vec!["t", "e"]);
        // The generic op: type, names, unit-attribute override.
        assert_eq!(ge_type(generic).as_deref(), Some("MyOp"));
        assert_eq!(ref_input_of_output(generic, 0), Some(0));
        assert_eq!(ref_input_of_output(generic, 1), None);
        assert!(is_input_mutable(generic));
        assert_eq!(data_results(generic).len(), 2);
        // func.return is NetOutput and has no control result.
        assert!(is_net_output(ret));
        assert!(ctrl_result(ret).is_none());
        assert_eq!(ge_type(ret), None);
    });
}

#[test]
fn framework_ref_switch_is_recognised_by_original_type() {
    let fw = desc("ascend.op", 2, 2)
        .with("type", s("FrameworkOp"))
        .with("original_type", s("RefSwitch"));
    assert!(is_framework_ref_switch(&fw));
    let other = desc("ascend.op", 2, 2)
        .with("type", s("FrameworkOp"))
        .with("original_type", s("Switch"));
    assert!(!is_framework_ref_switch(&other));
    assert!(!is_framework_ref_switch(&desc("ascend.identity", 1, 1)));
}

/// `operandSegmentSizes` of the generic op (32 slots, the overflow, ctrl) with `filled`
/// slots holding one value.
fn generic_segments(filled: &[usize]) -> AttrValue {
    AttrValue::List(
        (0..34)
            .map(|i| AttrValue::Int(i64::from(filled.contains(&i))))
            .collect(),
    )
}

#[test]
fn unconnected_slots_number_inputs_by_slot_and_keep_ref_relations() {
    let op = OpDesc::new("ascend.op", 1, 1)
        .with(attr::TYPE, AttrValue::Str("MyAssign".into()))
        .with(attr::OPERAND_SEGMENT_SIZES, generic_segments(&[1]))
        .with(
            attr::INPUT_NAMES,
            AttrValue::List(vec![
                AttrValue::Str("ref".into()),
                AttrValue::Str("value".into()),
            ]),
        )
        .with(
            attr::OUTPUT_NAMES,
            AttrValue::List(vec![AttrValue::Str("ref".into())]),
        );
    // The one operand is slot 1; slot 0, the ref input, is unconnected but still the
    // input output 0 references (GE names anchors whether or not they have a peer).
    assert_eq!(input_slots(&op), Some(vec![1]));
    assert_eq!(ref_input_of_output(&op, 0), Some(0));
    assert_eq!(ref_output_of_input(&op, 1), None);
    assert_eq!(unconnected_slot_problem(&op), None);
    // Without `input_names` the generic op's slots are named by slot, not by operand.
    let plain = OpDesc::new("ascend.op", 2, 1)
        .with(attr::TYPE, AttrValue::Str("Foo".into()))
        .with(attr::OPERAND_SEGMENT_SIZES, generic_segments(&[1, 3]));
    assert_eq!(input_names(&plain), ["x0", "x1", "x2", "x3"]);
    assert_eq!(input_slots(&plain), Some(vec![1, 3]));
    // Filled in order: no slot layout, one name per operand.
    let filled = OpDesc::new("ascend.op", 2, 1)
        .with(attr::TYPE, AttrValue::Str("Foo".into()))
        .with(attr::OPERAND_SEGMENT_SIZES, generic_segments(&[0, 1]));
    assert_eq!(input_slots(&filled), None);
    assert_eq!(input_names(&filled), ["x0", "x1"]);
}
