//! Small task models for the dynamic executor's unit tests (plan, forward, p2p), built
//! in one place so the three analyses are tested on the same shapes.

use crate::lowering::model::{
    Addr, Attrs, DType, Operand, Placement, Region, StreamTasks, Task, TaskModel, TensorDesc,
};

/// `bytes` of f32 workspace at `offset`.
pub fn ws(offset: u64, bytes: u64) -> Operand {
    Operand {
        addr: Addr {
            region: Region::Workspace,
            offset,
        },
        size: bytes,
        desc: TensorDesc {
            dtype: DType::F32,
            dims: vec![bytes as i64 / 4],
            format: 2,
        },
    }
}

/// A Relu kernel task named `node`, placed at `placement`.
pub fn relu(node: &str, placement: Placement, inputs: Vec<Operand>, outputs: Vec<Operand>) -> Task {
    Task::Kernel {
        op_type: "Relu".into(),
        node: node.into(),
        attrs: Attrs::default(),
        inputs,
        outputs,
        placement,
    }
}

/// A model of these streams (stream `i` has id `i`, none activated), `event_num` events
/// and 1 KiB of workspace.
pub fn model(streams: Vec<Vec<Task>>, event_num: u32) -> TaskModel {
    TaskModel {
        name: "m".into(),
        stream_num: streams.len() as u32,
        event_num,
        notify_num: 0,
        label_num: 0,
        memory_size: 1024,
        weight_size: 0,
        var_size: 0,
        weights: vec![],
        variables: vec![],
        inputs: vec![],
        outputs: vec![],
        streams: streams
            .into_iter()
            .enumerate()
            .map(|(id, tasks)| StreamTasks {
                id: id as u32,
                activated: false,
                tasks,
            })
            .collect(),
    }
}
