//! Unit tests of the IR side of stream allocation: what the view reads from a module and
//! what the write-back leaves in it. The rules themselves are tested in
//! `analysis::stream::tests`; the lit tests in test/Transforms/Stream run the pass end to
//! end.

use super::{apply::apply, model_from_ir::build};
use crate::{
    analysis::stream::{allocate, EngineTable, StreamOptions},
    dialect::new_context,
    ir::ops::{ctrl_operands, ctrl_predecessors, node_name, str_attr},
    pipeline::{PassStatistics, Pipeline},
    syntax::import_ge,
};
use melior::ir::{
    block::BlockLike, operation::OperationLike, BlockRef, Location, Module, OperationRef,
    RegionLike,
};

const GRAPH: &str = r#"
graph main {
  x = Data() {index = 0} : f32[4]
  s = Split(x, x) {num_split = 2} : (f32[2], f32[2])
  a = Add(s:1, s:0) {_stream_label = "L", _event_multiplexing = ["SendTo;b;0"]} : f32[2]
  b = Relu(s:0, ^a, ^a) : f32[2]
  p = PartitionedCall(b) {f = @sub} : f32[2]
  q = PartitionedCall(a) {f = @sub2} : f32[2]
  return p, q
}

graph sub {
  d = Data() {index = 0} : f32[2]
  c = If(d, d) {else_branch = @e, then_branch = @t} : f32[2]
  return c
}

graph sub2 {
  d = Data() {index = 0} : f32[2]
  return d
}

graph t {
  d = Data() {index = 0} : f32[2]
  return d
}

graph e {
  d = Data() {index = 0} : f32[2]
  h = HcomAllReduce(d) {_attached_stream_info_list = mlir"[{_attached_resource_name = \"n\", _attached_resource_force_reuse = true}]", group = "g", reduction = "sum"} : f32[2]
  return h
}
"#;

fn body<'c, 'a>(module: &'a Module<'c>) -> BlockRef<'c, 'a> {
    module.body()
}

fn op_named<'c, 'a>(module: &'a Module<'c>, name: &str) -> OperationRef<'c, 'a> {
    let mut found = None;
    let mut f = module.body().first_operation();
    while let Some(func) = f {
        let mut o = func
            .region(0)
            .ok()
            .and_then(|r| r.first_block())
            .and_then(|b| b.first_operation());
        while let Some(op) = o {
            if node_name(op) == Some(name) && found.is_none() {
                found = Some(op);
            }
            o = op.next_in_block();
        }
        f = func.next_in_block();
    }
    found.unwrap_or_else(|| panic!("no op named {name}"))
}

#[test]
fn the_view_follows_ge_order_and_reads_ge_attributes() {
    let context = new_context();
    let module = import_ge(&context, GRAPH, "t.ge").expect("imports");
    let loc = Location::unknown(&context);
    let model = build(body(&module), loc, "main").unwrap_or_else(|e| panic!("{}", e.message));
    let sg = &model.graph;
    // Graphs: root, then pre-order: sub, its If's then/else branches, then sub2.
    let graphs: Vec<&str> = sg.graphs().iter().map(|g| g.name.as_str()).collect();
    assert_eq!(graphs, ["main", "sub", "t", "e", "sub2"]);
    // Nodes in block order plus NetOutput, with GE types and engines from the table.
    let root: Vec<(&str, &str, &str)> = sg
        .graph(0)
        .nodes
        .iter()
        .map(|&n| {
            let node = sg.node(n);
            (&*node.name, &*node.ty, &*node.engine)
        })
        .collect();
    assert_eq!(
        root,
        [
            ("x", "Data", "DNN_VM_GE_LOCAL"),
            ("s", "Split", "AIcoreEngine"),
            ("a", "Add", "AIcoreEngine"),
            ("b", "Relu", "AIcoreEngine"),
            ("p", "PartitionedCall", "DNN_VM_GE_LOCAL"),
            ("q", "PartitionedCall", "DNN_VM_GE_LOCAL"),
            ("Node_Output", "NetOutput", "DNN_VM_GE_LOCAL"),
        ]
    );
    let id = |name: &str| sg.find(name).unwrap();
    let (x, s, a, b) = (id("x"), id("s"), id("a"), id("b"));
    // data_in in input order; s's consumers by output index first (a uses s:1 then s:0,
    // b uses s:0): GE lists output 0's consumers (a, b) before output 1's (a).
    assert_eq!(sg.node(s).data_in(), [x, x]);
    assert_eq!(sg.node(a).data_in(), [s, s]);
    assert_eq!(sg.node(s).data_out(), [a, b, a]);
    // Two control operands from the same node are one control edge.
    assert_eq!(sg.node(b).ctrl_in(), [a]);
    let attrs = &sg.node(a).attrs();
    assert_eq!(attrs.stream_label.as_deref(), Some("L"));
    assert_eq!(attrs.event_multiplexing, ["SendTo;b;0"]);
    assert_eq!(sg.node(x).attrs().data_like, Some(true));
    let h = sg.node(id("h")).attrs();
    assert!(h.hccl_kernel_lib);
    assert_eq!(h.attached.len(), 1);
    assert_eq!(h.attached[0].key, "n");
    assert!(!h.attached[0].per_main_stream && h.attached[0].required);
    // Subgraph Data nodes have no edges from the parent; the If hangs under `sub`.
    assert!(sg.node(sg.graph(1).nodes[0]).data_in().is_empty());
    assert_eq!(sg.graph(2).parent, Some(id("c")));
    assert!(!model.dynamic_shape);
    assert!(model.allocated.is_none());
    assert_eq!(model.ops.len(), sg.nodes().len());
    assert_eq!(model.net_output.iter().filter(|&&n| n).count(), 5);
}

#[test]
fn the_write_back_keeps_ssa_and_links_recvs_before_and_sends_after() {
    let context = new_context();
    let text = r#"
graph main {
  x = Data() {index = 0} : f32[4]
  a = Relu(x) {_stream_label = "A"} : f32[4]
  b = Relu(a) {_stream_label = "B"} : f32[4]
  c = Add(a, b) {_stream_label = "C"} : f32[4]
}
"#;
    let module = import_ge(&context, text, "t.ge").expect("imports");
    let loc = Location::unknown(&context);
    let model = build(body(&module), loc, "main").unwrap_or_else(|e| panic!("{}", e.message));
    let opts = StreamOptions {
        minimize_events: false,
        ..Default::default()
    };
    let alloc = allocate(&model.graph, &EngineTable::ge_default(), &opts).unwrap();
    let applied = apply(&model, &alloc, true).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(applied.sync_ops, 2 * alloc.event_num as usize);
    assert!(module.as_operation().verify(), "{}", module.as_operation());
    let c = op_named(&module, "c");
    // c waits for its two Recvs (control operands after its data operands, in plan order).
    let recvs: Vec<String> = ctrl_predecessors(c)
        .into_iter()
        .filter_map(|r| node_name(r).map(str::to_string))
        .collect();
    assert_eq!(recvs.len(), 2, "{recvs:?}");
    assert!(recvs.iter().all(|r| r.starts_with("main_Recv_")));
    assert_eq!(ctrl_operands(c).len(), 2);
    // Every Send follows its node and consumes its control token.
    let a = op_named(&module, "a");
    let next = a.next_in_block().unwrap();
    assert!(str_attr(next, "name").unwrap().starts_with("main_Send_"));
    assert_eq!(ctrl_predecessors(next), [a]);
    assert!(str_attr(a, "ascend.stream_reason")
        .unwrap()
        .starts_with("stream-label: "));
    // A sync's reason names its rule and how to find its peer, not its nodes: `a`'s two
    // Sends (to b and to c) share one string, and each Recv names the Send side.
    let second = next.next_in_block().unwrap();
    assert!(str_attr(second, "name").unwrap().starts_with("main_Send_"));
    let reason = |op| str_attr(op, "ascend.stream_reason").unwrap();
    assert_eq!(
        reason(next),
        "data-edge: event; the Recv with this event_id is its peer"
    );
    assert_eq!(reason(second), reason(next));
    let recv = ctrl_predecessors(c)[0];
    assert!(str_attr(recv, "name").unwrap().starts_with("main_Recv_"));
    assert_eq!(
        reason(recv),
        "data-edge: event; the Send with this event_id is its peer"
    );
}

#[test]
fn an_allocated_module_is_recognised() {
    let context = new_context();
    let text = r#"
graph main {
  x = Data() {index = 0} : f32[?]
  a = Relu(x) {_logic_stream_id = 0, stream_id = 0} : f32[?]
}
"#;
    let module = import_ge(&context, text, "t.ge").expect("imports");
    let model = build(body(&module), Location::unknown(&context), "main")
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(model.allocated.and_then(node_name), Some("a"));
    assert!(model.dynamic_shape, "f32[?] makes an unknown-shape graph");
}

#[test]
fn option_flags_attach_to_every_stream_alloc_instance() {
    let pipeline = Pipeline::from_flags(&[
        "stream-alloc-summary=s.json",
        "stream-alloc",
        "stream-alloc",
    ])
    .unwrap();
    assert_eq!(pipeline.steps().len(), 2);
    let context = new_context();
    let manager = crate::ir::pass_manager::module_pass_manager(&context);
    pipeline
        .add_to(&manager, &PassStatistics::default())
        .expect("both instances build");
    assert!(Pipeline::from_flags(&["stream-alloc-dot"]).is_err());
    assert!(Pipeline::from_flags(&["stream-alloc-dot=g.dot"]).is_err());
    assert!(crate::pipeline::is_pass_flag("--stream-alloc-dot=g.dot"));
}
