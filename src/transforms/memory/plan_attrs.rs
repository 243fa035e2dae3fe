//! The memory plan's attributes on the IR, and the stream facts the plan reads back.
//!
//! Written by `--mem-assign`, read by `--verify-mem-plan` and `--set-io-offset`:
//! * `output_offset` / `input_offset` (GE's OpDesc offset lists): one workspace offset per
//!   data output / data input of an op, `-1` for memory outside the workspace. NetOutput is
//!   `func.return`, which carries its `input_offset` like any op;
//! * `ascend.output_memory` (ours): per output, where its memory lives (`workspace`,
//!   `user-input`, `constant`, `variable`, `dynamic`, `unused`), only on ops with some output
//!   outside the workspace;
//! * on the root function: `memory_size` (GE's model attribute: the workspace bytes) and
//!   `output_reuse_input_mem_indexes` (`"in,out|in,out"`, GE's option format) when model
//!   outputs are user inputs.
//!
//! Read from `--stream-alloc`'s output: `stream_id` per op (none where `_logic_stream_id` is
//! -1: a source that runs no task, see `StreamInfo::task_stream`), Send/Recv pairs by `event_id`
//! (SendNotify/RecvNotify by `notify_id`).

use super::model_from_ir::IrModel;
use crate::{
    analysis::memory::{mem_plan::StreamInfo, model::NodeId},
    dialect::OpView,
    ir::ops,
};
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef, RegionLike};
use std::collections::HashMap;

pub const OUTPUT_OFFSET: &str = "output_offset";
pub const INPUT_OFFSET: &str = "input_offset";
pub const OUTPUT_MEMORY: &str = "ascend.output_memory";
pub const MEMORY_SIZE: &str = "memory_size";
pub const OUTPUT_REUSE_INPUT_MEM_INDEXES: &str = "output_reuse_input_mem_indexes";
pub const STREAM_ID: &str = "stream_id";
pub const LOGIC_STREAM_ID: &str = "_logic_stream_id";
pub const EVENT_ID: &str = "event_id";
pub const NOTIFY_ID: &str = "notify_id";

/// Whether some op of the function `root` of `module` (of any function with `root = None`)
/// carries one of `names`: a cheap scan that lets a pass concerned with a few marked ops
/// skip building the model. `true` when `root` cannot be found (the model build reports
/// that).
pub fn has_marked_op(module: OperationRef, root: Option<&str>, names: &[&str]) -> bool {
    let Some(body) = module.region(0).ok().and_then(|r| r.first_block()) else {
        return true;
    };
    let mut found_root = false;
    let mut next = body.first_operation();
    while let Some(func) = next {
        next = func.next_in_block();
        if root.is_some_and(|r| ops::str_attr(func, "sym_name") != Some(r)) {
            continue;
        }
        found_root = true;
        let Some(block) = func.region(0).ok().and_then(|r| r.first_block()) else {
            return true;
        };
        let mut cur = block.first_operation();
        while let Some(op) = cur {
            cur = op.next_in_block();
            if names.iter().any(|n| op.has_attribute(n)) {
                return true;
            }
        }
    }
    root.is_some() && !found_root
}

/// The function op of graph block `block`.
pub fn func_of<'c, 'a>(m: &IrModel<'c, 'a>, graph: usize) -> Option<OperationRef<'c, 'a>> {
    m.blocks.get(graph).and_then(|b| b.parent_operation())
}

/// Streams and events of the model's ops (empty when no op has a `stream_id`), read from
/// the IR; [`IrModel::stream_info`] keeps the answer for the model.
pub fn read_stream_info(m: &IrModel) -> StreamInfo {
    let g = &m.graph;
    let mut info = StreamInfo {
        stream: vec![None; g.nodes.len()],
        events: Vec::new(),
    };
    let mut any = false;
    // id -> (sends, recvs), separately for events and notifies.
    let mut links: HashMap<(bool, i64), (Vec<NodeId>, Vec<NodeId>)> = HashMap::new();
    for (i, node) in g.nodes.iter().enumerate() {
        if node.removed {
            continue;
        }
        let Some(op) = m.op(NodeId(i as u32)) else {
            continue;
        };
        if let Some(s) = ops::int_attr(op, STREAM_ID) {
            info.stream[i] = StreamInfo::task_stream(Some(s), ops::int_attr(op, LOGIC_STREAM_ID));
            any = true;
        }
        let (notify, send) = match node.ty.as_str() {
            "Send" => (false, true),
            "Recv" => (false, false),
            "SendNotify" => (true, true),
            "RecvNotify" => (true, false),
            _ => continue,
        };
        let id = ops::int_attr(op, if notify { NOTIFY_ID } else { EVENT_ID });
        if let Some(id) = id {
            let entry = links.entry((notify, id)).or_default();
            let side = if send { &mut entry.0 } else { &mut entry.1 };
            side.push(NodeId(i as u32));
        }
    }
    if !any {
        return StreamInfo::none();
    }
    // A reused id (several Sends or Recvs) pairs nothing: claiming an order the runtime
    // may not give would let memory be reused too early.
    let mut pairs: Vec<(NodeId, NodeId)> = links
        .into_values()
        .filter(|(s, r)| s.len() == 1 && r.len() == 1)
        .map(|(s, r)| (s[0], r[0]))
        .collect();
    pairs.sort_unstable();
    info.events = pairs;
    info
}

/// `output_offset` / `input_offset` of every node as read from the IR (empty lists where
/// the attribute is missing).
pub struct IrOffsets {
    pub outputs: Vec<Vec<i64>>,
    pub inputs: Vec<Vec<i64>>,
}

impl IrOffsets {
    pub fn read(m: &IrModel) -> IrOffsets {
        let n = m.graph.nodes.len();
        let mut out = IrOffsets {
            outputs: vec![Vec::new(); n],
            inputs: vec![Vec::new(); n],
        };
        for i in 0..n {
            let Some(op) = m.op(NodeId(i as u32)) else {
                continue;
            };
            if let Some(v) = op.attr(OUTPUT_OFFSET).and_then(|a| a.as_ints()) {
                out.outputs[i] = v;
            }
            if let Some(v) = op.attr(INPUT_OFFSET).and_then(|a| a.as_ints()) {
                out.inputs[i] = v;
            }
        }
        out
    }
}
