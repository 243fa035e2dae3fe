//! The stream allocators and zero-copy IO on the bundled simulator (`cargo build -p
//! ascend-sim` first): several models loaded in one process with and without the pool's
//! reuse, the outputs right every time; the creation-failure paths under the simulator's
//! stream limit (`geSimConfigure("max_streams=N")`, the default stream counted); user IO
//! buffers bound to a model and GE's CheckIoReuseAddrs on them.

use ge_mlir::{
    lowering::model::{
        Addr, DType, Input, Operand, Output, Region, StreamTasks, Task, TaskModel, TensorDesc,
    },
    runtime::{
        device::{self, Device},
        executor::{run_model_zero_copy, run_models, IoBufferPlan, RunOptions},
        streams::{AclStreams, StreamAllocator, StreamSlot},
        tensor::HostTensor,
    },
};

fn desc(n: i64) -> TensorDesc {
    TensorDesc {
        dtype: DType::F32,
        dims: vec![n],
        format: 2,
    }
}

fn operand(region: Region, offset: u64) -> Operand {
    Operand {
        addr: Addr { region, offset },
        size: 16,
        desc: desc(4),
    }
}

fn copy(from: Operand, to: Operand) -> Task {
    Task::MemcpyAsync {
        node: "copy".into(),
        src: from,
        dst: to,
    }
}

/// Input 0 copied to output 0 through the workspace, over `streams` streams ordered by
/// events (stream k copies ws[k] to ws[k+1] after stream k-1's record).
fn chain(name: &str, streams: u32) -> TaskModel {
    let mut lists = Vec::new();
    for k in 0..streams {
        let mut tasks = Vec::new();
        if k > 0 {
            tasks.push(Task::EventWait {
                node: "wait".into(),
                event: k - 1,
            });
        }
        let from = if k == 0 {
            operand(Region::Input(0), 0)
        } else {
            operand(Region::Workspace, u64::from(k) * 16)
        };
        let to = if k + 1 == streams {
            operand(Region::Output(0), 0)
        } else {
            operand(Region::Workspace, u64::from(k + 1) * 16)
        };
        tasks.push(copy(from, to));
        if k + 1 < streams {
            tasks.push(Task::EventRecord {
                node: "record".into(),
                event: k,
            });
        }
        if k > 0 {
            tasks.push(Task::EventReset {
                node: "reset".into(),
                event: k - 1,
            });
        }
        if k + 1 == streams {
            tasks.push(Task::ModelEndGraph);
        }
        lists.push(StreamTasks {
            id: k,
            activated: false,
            tasks,
        });
    }
    TaskModel {
        name: name.into(),
        stream_num: streams,
        event_num: streams - 1,
        notify_num: 0,
        label_num: 0,
        memory_size: 16 * u64::from(streams + 1),
        weight_size: 0,
        var_size: 0,
        weights: vec![],
        variables: vec![],
        inputs: vec![Input {
            index: 0,
            node: "x".into(),
            desc: desc(4),
        }],
        outputs: vec![Output {
            index: 0,
            source: "y:0".into(),
            operand: operand(Region::Output(0), 0),
        }],
        streams: lists,
    }
}

#[test]
fn reuse_serves_later_loads_from_the_streams_of_earlier_ones() {
    let models = [chain("one", 1), chain("three", 3), chain("two", 2)];
    let options = RunOptions::default();
    let reused = run_models(&models, &options, 4, true).unwrap();
    let fresh = run_models(&models, &options, 4, false).unwrap();
    // 4 rounds of 1 + 3 + 2 streams
    assert_eq!(reused.streams.requests, 24);
    assert_eq!(fresh.streams.requests, 24);
    assert_eq!(fresh.streams.created, 24);
    assert_eq!(fresh.streams.reused, 0);
    // the largest model's three streams serve every later load
    assert_eq!(reused.streams.created, 3, "{:?}", reused.streams);
    assert_eq!(reused.streams.reused, 21);
    assert_eq!(reused.streams.destroyed, 3);
    // the same outputs either way: each load copies its seeded input
    assert_eq!(reused.loads, fresh.loads);
    assert_eq!(reused.loads.len(), 12);
    for (position, outputs) in &reused.loads {
        let input = ge_mlir::runtime::executor::seeded_input(&models[*position].inputs, 0, 0, 0);
        assert_eq!(outputs[0].bytes, input.bytes);
    }
}

#[test]
fn a_stream_the_device_cannot_create_is_reported_for_its_model_and_stream() {
    // the default stream and two model streams: the third model stream fails
    let options = RunOptions {
        sim_config: vec!["max_streams=3".to_owned()],
        ..RunOptions::default()
    };
    let error = run_models(&[chain("three", 3)], &options, 1, true).unwrap_err();
    let text = error.to_string();
    assert!(text.contains("ACL_ERROR_RT_NO_STREAM_RESOURCE"), "{text}");
    assert!(text.contains("for model 1"), "{text}");
    assert!(text.contains("GetOrCreateRtStream"), "{text}");
    // and nothing leaked: the limit that failed three streams runs two, twice
    let options = RunOptions {
        sim_config: vec!["max_streams=4".to_owned()],
        ..RunOptions::default()
    };
    let ok = run_models(&[chain("two", 2), chain("two-again", 2)], &options, 2, true).unwrap();
    assert_eq!(ok.streams.created, 2);
}

#[test]
fn gert_stream_allocator_on_the_simulator() {
    let runtime = device::open(Device::Sim, None).unwrap();
    let _session = runtime.session();
    let acl = &runtime.acl;
    acl.sim_configure("reset=1;max_streams=4").unwrap();
    acl.set_device(0).unwrap();
    let mut allocator = StreamAllocator::new(
        AclStreams {
            acl: acl.clone(),
            sync_timeout_ms: 1000,
        },
        0,
        0,
    );
    assert_eq!(allocator.acquire_streams(3).unwrap().len(), 3);
    assert!(matches!(allocator.streams()[0], StreamSlot::Caller));
    // the default stream and three created ones fill max_streams=4; the fifth slot fails
    assert_eq!(allocator.acquire_streams(4).unwrap().len(), 4);
    let error = allocator.acquire_streams(6).unwrap_err().to_string();
    assert!(error.contains("creating slot 4"), "{error}");
    assert!(error.contains("ACL_ERROR_RT_NO_STREAM_RESOURCE"), "{error}");
    assert_eq!(
        allocator.streams().len(),
        4,
        "the slots created before the failure stay"
    );
    allocator.release().unwrap();
    acl.reset_device(0).unwrap();
}

/// Output 0 = input 0 through the workspace; output 1 is input 0's own buffer (an output
/// that reuses an input: `output_reuse_input_mem_indexes = "0,1"`).
fn reusing_model() -> TaskModel {
    let mut model = chain("reuse", 1);
    model.outputs.push(Output {
        index: 1,
        source: "x:0".into(),
        operand: operand(Region::Input(0), 0),
    });
    model
}

fn floats(values: &[f32]) -> HostTensor {
    HostTensor {
        desc: desc(values.len() as i64),
        bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    }
}

#[test]
fn bound_buffers_carry_the_run_and_are_checked_before_it() {
    let options = RunOptions {
        inputs: vec![vec![floats(&[1.0, 2.0, 3.0, 4.0])]],
        iterations: 2,
        ..RunOptions::default()
    };
    let result = run_model_zero_copy(&reusing_model(), &options, IoBufferPlan::Shared).unwrap();
    assert_eq!(result.pairs, "0,1");
    // output 0 was written by the rebuilt tasks into the caller's buffer (read from there)
    assert_eq!(result.outputs[0], floats(&[1.0, 2.0, 3.0, 4.0]));
    assert_eq!(result.outputs[1], floats(&[1.0, 2.0, 3.0, 4.0]));
    // a model without pairs binds separate buffers fine
    let plain = run_model_zero_copy(&chain("plain", 2), &options, IoBufferPlan::Separate).unwrap();
    assert_eq!(plain.pairs, "");
    assert_eq!(plain.outputs[0], floats(&[1.0, 2.0, 3.0, 4.0]));
}

#[test]
fn buffers_that_break_a_reuse_pair_are_param_invalid_naming_the_pair() {
    let error = run_model_zero_copy(
        &reusing_model(),
        &RunOptions::default(),
        IoBufferPlan::Separate,
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("PARAM_INVALID"), "{error}");
    assert!(error.contains("output[1] address"), "{error}");
    assert!(
        error.contains("must be same as input[0] address"),
        "{error}"
    );
    assert!(error.contains("`0,1`"), "{error}");
}
