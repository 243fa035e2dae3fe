//! The runtime against the bundled simulator (`target/debug/libascendcl.so`, built by
//! `cargo build -p ascend-sim`), loaded through the same loader as CANN's library:
//! hand-built task models run end to end, and every error path of the loader and the
//! executor (missing library, missing symbol, a compile-stub library, device limits, a
//! deadlock) gives an error that names what failed.

use ge_mlir::{
    lowering::model::{
        Addr, Collective, DType, Input, Operand, Output, Reduction, Region, StreamTasks, Task,
        TaskModel, TensorDesc, Variable, Weight,
    },
    runtime::{
        acl::ACL_SYMBOLS,
        device::Device,
        executor::{run_model, run_schedules, seeded_input, RunOptions},
        hccl::HCCL_SYMBOLS,
        tensor::HostTensor,
        RuntimeError,
    },
};
use std::path::{Path, PathBuf};

fn f32_desc(n: i64) -> TensorDesc {
    TensorDesc {
        dtype: DType::F32,
        dims: vec![n],
        format: 2,
    }
}

fn operand(region: Region, offset: u64, n: i64) -> Operand {
    Operand {
        addr: Addr { region, offset },
        size: n as u64 * 4,
        desc: f32_desc(n),
    }
}

fn floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn tensor(values: &[f32]) -> HostTensor {
    HostTensor {
        desc: f32_desc(values.len() as i64),
        bytes: floats(values),
    }
}

fn copy(src: Operand, dst: Operand) -> Task {
    Task::MemcpyAsync {
        node: "copy".into(),
        src,
        dst,
    }
}

/// A model of `n`-float input 0 and output 0 over a workspace of 256 bytes.
fn model(n: i64, streams: Vec<StreamTasks>) -> TaskModel {
    TaskModel {
        name: "test".into(),
        stream_num: streams.len() as u32,
        event_num: 0,
        notify_num: 0,
        label_num: 0,
        memory_size: 256,
        weight_size: 0,
        var_size: 0,
        weights: vec![],
        variables: vec![],
        inputs: vec![Input {
            index: 0,
            node: "x".into(),
            desc: f32_desc(n),
        }],
        outputs: vec![Output {
            index: 0,
            source: "y:0".into(),
            operand: operand(Region::Output(0), 0, n),
        }],
        streams,
    }
}

/// One stream with one AllReduce of input 0 into output 0 (4 floats).
fn all_reduce_model() -> TaskModel {
    model(
        4,
        vec![stream(
            0,
            vec![Task::Hccl {
                node: "allreduce".into(),
                collective: Collective::AllReduce,
                group: "hccl_world_group".into(),
                reduction: Reduction::Sum,
                root_rank: 0,
                inputs: vec![operand(Region::Input(0), 0, 4)],
                outputs: vec![operand(Region::Output(0), 0, 4)],
            }],
        )],
    )
}

fn stream(id: u32, tasks: Vec<Task>) -> StreamTasks {
    StreamTasks {
        id,
        activated: false,
        tasks,
    }
}

fn with_input(values: &[f32]) -> RunOptions {
    RunOptions {
        inputs: vec![vec![tensor(values)]],
        ..RunOptions::default()
    }
}

/// in -> ws[0] -> ws[64] -> out on one stream.
fn memcpy_chain() -> TaskModel {
    model(
        4,
        vec![stream(
            0,
            vec![
                copy(
                    operand(Region::Input(0), 0, 4),
                    operand(Region::Workspace, 0, 4),
                ),
                copy(
                    operand(Region::Workspace, 0, 4),
                    operand(Region::Workspace, 64, 4),
                ),
                copy(
                    operand(Region::Workspace, 64, 4),
                    operand(Region::Output(0), 0, 4),
                ),
                Task::ModelEndGraph,
            ],
        )],
    )
}

#[test]
fn a_memcpy_chain_copies_its_input_to_its_output() {
    let result = run_model(&memcpy_chain(), &with_input(&[1.0, 2.0, 3.0, 4.0])).unwrap();
    assert_eq!(result.ranks.len(), 1);
    assert_eq!(result.ranks[0].outputs, vec![tensor(&[1.0, 2.0, 3.0, 4.0])]);
    let report = result.report.expect("the simulator reports");
    assert_eq!(report.tasks_by_kind.get("memcpy"), Some(&3));
    assert!(report.makespan > 0.0, "{report:?}");
}

#[test]
fn a_missing_input_is_the_seeded_one() {
    let model = memcpy_chain();
    let options = RunOptions {
        seed: 11,
        ..RunOptions::default()
    };
    let result = run_model(&model, &options).unwrap();
    assert_eq!(
        result.ranks[0].outputs[0],
        seeded_input(&model.inputs, 0, 11, 0)
    );
}

#[test]
fn an_input_of_the_wrong_shape_or_type_is_refused() {
    let error = run_model(&memcpy_chain(), &with_input(&[1.0, 2.0])).unwrap_err();
    assert!(matches!(error, RuntimeError::Input(_)), "{error}");
    assert!(
        error
            .to_string()
            .contains("input 0 (`x`) is f32 [2], but the model takes f32 [4]"),
        "{error}"
    );
}

/// Stream 0 copies in -> ws and records event 0; stream 1 waits for it, resets it and
/// copies ws -> out.
fn two_streams() -> TaskModel {
    let mut m = model(
        4,
        vec![
            stream(
                0,
                vec![
                    copy(
                        operand(Region::Input(0), 0, 4),
                        operand(Region::Workspace, 0, 4),
                    ),
                    Task::EventRecord {
                        node: "send".into(),
                        event: 0,
                    },
                ],
            ),
            stream(
                1,
                vec![
                    Task::EventWait {
                        node: "recv".into(),
                        event: 0,
                    },
                    Task::EventReset {
                        node: "recv".into(),
                        event: 0,
                    },
                    copy(
                        operand(Region::Workspace, 0, 4),
                        operand(Region::Output(0), 0, 4),
                    ),
                    Task::ModelEndGraph,
                ],
            ),
        ],
    );
    m.event_num = 1;
    m
}

#[test]
fn two_streams_ordered_by_an_event_agree_under_every_schedule() {
    let options = RunOptions {
        iterations: 3,
        ..with_input(&[5.0, 6.0, 7.0, 8.0])
    };
    for mode in ["uniform", "reverse", "max-overlap", "delay-stream:0"] {
        let options = RunOptions {
            schedule_mode: Some(mode.to_owned()),
            ..options.clone()
        };
        let runs = run_schedules(&two_streams(), &options, 3, &mut |_, _| {}).unwrap();
        for run in runs {
            assert_eq!(
                run.ranks[0].outputs,
                vec![tensor(&[5.0, 6.0, 7.0, 8.0])],
                "{mode}"
            );
            let report = run.report.unwrap();
            assert_eq!(report.tasks_by_kind.get("event_wait"), Some(&3), "{mode}");
            // Streams 0 and 1 of the model, and the execute stream, all on device 0.
            assert!(
                report
                    .streams
                    .iter()
                    .any(|s| s.stream == Some(1) && s.device == Some(0) && s.busy > 0.0),
                "{report:?}"
            );
        }
    }
}

#[test]
fn a_wait_nobody_records_is_a_sync_timeout_naming_the_blocked_stream() {
    let mut m = two_streams();
    m.streams[0].tasks.pop(); // no EventRecord
    let error = run_model(&m, &with_input(&[1.0; 4])).unwrap_err();
    assert_eq!(error.acl_code(), Some(507046), "{error}");
    let text = error.to_string();
    assert!(text.contains("aclrtSynchronizeStreamWithTimeout failed: error 507046 (ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)"), "{text}");
    assert!(text.contains("run 1 of model `test`"), "{text}");
    assert!(text.contains("stream 1"), "{text}");
    // The device is usable again afterwards.
    run_model(&two_streams(), &with_input(&[1.0; 4])).unwrap();
}

#[test]
fn variables_stay_on_the_device_across_iterations() {
    // Each run: out = v; v = in. Run 1 gives v's initial value, later runs the input.
    let mut m = model(
        4,
        vec![stream(
            0,
            vec![
                copy(
                    operand(Region::Variable, 0, 4),
                    operand(Region::Output(0), 0, 4),
                ),
                copy(
                    operand(Region::Input(0), 0, 4),
                    operand(Region::Variable, 0, 4),
                ),
            ],
        )],
    );
    m.var_size = 16;
    m.variables = vec![Variable {
        node: "v".into(),
        offset: 0,
        desc: f32_desc(4),
        init: Some(floats(&[9.0; 4])),
    }];
    let once = run_model(&m, &with_input(&[1.0; 4])).unwrap();
    assert_eq!(once.ranks[0].outputs[0], tensor(&[9.0; 4]));
    assert_eq!(
        once.ranks[0].variables,
        vec![("v".to_owned(), tensor(&[1.0; 4]))]
    );
    let twice = run_model(
        &m,
        &RunOptions {
            iterations: 2,
            ..with_input(&[1.0; 4])
        },
    )
    .unwrap();
    assert_eq!(twice.ranks[0].outputs[0], tensor(&[1.0; 4]));
    // A fresh load starts from the initial value again.
    let again = run_model(&m, &with_input(&[2.0; 4])).unwrap();
    assert_eq!(again.ranks[0].outputs[0], tensor(&[9.0; 4]));
}

#[test]
fn a_seeded_variable_starts_from_the_shared_seeded_fill() {
    let mut m = model(
        4,
        vec![stream(
            0,
            vec![copy(
                operand(Region::Variable, 0, 4),
                operand(Region::Output(0), 0, 4),
            )],
        )],
    );
    m.var_size = 16;
    m.variables = vec![Variable {
        node: "w".into(),
        offset: 0,
        desc: f32_desc(4),
        init: None,
    }];
    let result = run_model(
        &m,
        &RunOptions {
            seed: 3,
            ..RunOptions::default()
        },
    )
    .unwrap();
    let expected = ascend_kernels::seeded_fill(3, "var:w", DType::F32, &[4]);
    assert_eq!(result.ranks[0].outputs[0].bytes, expected);
}

fn int_word(value: i32) -> Vec<u8> {
    value.to_le_bytes().to_vec()
}

#[test]
fn labels_make_a_loop_that_exits_on_its_index() {
    let word = |region, offset| Operand {
        addr: Addr { region, offset },
        size: 4,
        desc: TensorDesc {
            dtype: DType::I32,
            dims: vec![],
            format: 2,
        },
    };
    let index = word(Region::Workspace, 128);
    let mut m = model(
        4,
        vec![stream(
            0,
            vec![
                copy(word(Region::Weight, 0), index.clone()), // index = 1
                Task::LabelSet {
                    node: "loop".into(),
                    label: 0,
                },
                Task::LabelSwitchByIndex {
                    node: "cond".into(),
                    index: index.clone(),
                    labels: vec![1, 2], // 0: exit, 1: body
                },
                Task::LabelSet {
                    node: "body".into(),
                    label: 2,
                },
                copy(
                    operand(Region::Input(0), 0, 4),
                    operand(Region::Output(0), 0, 4),
                ),
                copy(word(Region::Weight, 4), index.clone()), // index = 0
                Task::LabelGoto {
                    node: "back".into(),
                    label: 0,
                },
                Task::LabelSet {
                    node: "exit".into(),
                    label: 1,
                },
                Task::ModelEndGraph,
            ],
        )],
    );
    m.label_num = 3;
    m.weight_size = 8;
    m.weights = vec![
        Weight {
            node: "one".into(),
            offset: 0,
            desc: TensorDesc {
                dtype: DType::I32,
                dims: vec![],
                format: 2,
            },
            bytes: int_word(1),
        },
        Weight {
            node: "zero".into(),
            offset: 4,
            desc: TensorDesc {
                dtype: DType::I32,
                dims: vec![],
                format: 2,
            },
            bytes: int_word(0),
        },
    ];
    let result = run_model(&m, &with_input(&[3.0; 4])).unwrap();
    assert_eq!(result.ranks[0].outputs[0], tensor(&[3.0; 4]));
    let report = result.report.unwrap();
    // The switch ran twice (into the body, then out), the goto once.
    assert_eq!(
        report.tasks_by_kind.get("label_switch"),
        Some(&3),
        "{report:?}"
    );
    assert_eq!(report.tasks_by_kind.get("memcpy"), Some(&3), "{report:?}");
}

#[test]
fn two_ranks_all_reduce_their_inputs() {
    let m = all_reduce_model();
    let options = RunOptions {
        ranks: 2,
        inputs: vec![
            vec![tensor(&[1.0, 2.0, 3.0, 4.0])],
            vec![tensor(&[10.0, 20.0, 30.0, 40.0])],
        ],
        ..RunOptions::default()
    };
    let result = run_model(&m, &options).unwrap();
    for rank in &result.ranks {
        assert_eq!(rank.outputs[0], tensor(&[11.0, 22.0, 33.0, 44.0]));
    }
}

#[test]
fn an_address_outside_its_region_names_the_task() {
    let m = model(
        4,
        vec![stream(
            0,
            vec![copy(
                operand(Region::Input(0), 0, 4),
                operand(Region::Workspace, 250, 4),
            )],
        )],
    );
    let error = run_model(&m, &with_input(&[1.0; 4])).unwrap_err();
    assert_eq!(
        error.to_string(),
        "stream 0, task 0 (MEMCPY_ASYNC `copy`): 16 bytes at offset 250 are outside the workspace (256 bytes)"
    );
}

#[test]
fn an_op_without_a_kernel_is_an_error_naming_it() {
    let m = model(
        4,
        vec![stream(
            0,
            vec![Task::Kernel {
                op_type: "NoSuchOp".into(),
                node: "mystery".into(),
                attrs: Default::default(),
                inputs: vec![operand(Region::Input(0), 0, 4)],
                outputs: vec![operand(Region::Output(0), 0, 4)],
                placement: ge_mlir::lowering::model::Placement::Hbm,
            }],
        )],
    );
    let error = run_model(&m, &with_input(&[1.0; 4])).unwrap_err();
    let text = error.to_string();
    assert!(text.contains("100024 (ACL_ERROR_OP_NOT_FOUND)"), "{text}");
    assert!(text.contains("NoSuchOp"), "{text}");
}

/// Each device limit, set through `geSimConfigure`, fails the call that exceeds it with
/// the real code, and the error names the function, the code and its name.
#[test]
fn device_limits_fail_with_the_function_code_and_name() {
    let cases: [(&str, TaskModel, &str); 4] = [
        ("max_streams=2", two_streams(), "aclrtCreateStreamWithConfig failed: error 207008 (ACL_ERROR_RT_NO_STREAM_RESOURCE)"),
        ("max_events=0", two_streams(), "creating event 0: aclrtCreateEventWithFlag failed: error 207007 (ACL_ERROR_RT_NO_EVENT_RESOURCE)"),
        ("memory_bytes=128", memcpy_chain(), "aclrtMalloc failed: error 207001 (ACL_ERROR_RT_MEMORY_ALLOCATION)"),
        ("max_tasks_per_stream=2", memcpy_chain(), "error 507002 (ACL_ERROR_RT_STREAM_TASK_FULL)"),
    ];
    for (limit, m, expected) in cases {
        let options = RunOptions {
            sim_config: vec![limit.to_owned()],
            ..with_input(&[1.0; 4])
        };
        let error = run_model(&m, &options).unwrap_err();
        assert!(error.to_string().contains(expected), "{limit}: {error}");
    }
    let mut notifies = memcpy_chain();
    notifies.notify_num = 2;
    let options = RunOptions {
        sim_config: vec!["max_notifies=1".to_owned()],
        ..with_input(&[1.0; 4])
    };
    let error = run_model(&notifies, &options).unwrap_err();
    assert!(error.to_string().contains("creating notify 1: aclrtCreateNotify failed: error 207009 (ACL_ERROR_RT_NO_NOTIFY_RESOURCE)"), "{error}");
    // Limits do not outlive their run.
    run_model(&two_streams(), &with_input(&[1.0; 4])).unwrap();
}

#[test]
fn a_missing_library_lists_every_path_tried() {
    let options = RunOptions {
        device: Device::Ascend,
        acl_lib_dir: Some(PathBuf::from("/nonexistent")),
        ..RunOptions::default()
    };
    let error = run_model(&memcpy_chain(), &options).unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot find libascendcl.so for --device ascend; tried:\n  /nonexistent/libascendcl.so\n\
         (install CANN, set ASCEND_HOME_PATH, or pass --acl-lib DIR)"
    );
}

/// Builds a fake `libascendcl.so` in its own directory from C source.
fn fake_library(name: &str, source: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join("fake.c");
    std::fs::write(&c, source).unwrap();
    let status = std::process::Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-shared", "-fPIC", "-o"])
        .arg(dir.join("libascendcl.so"))
        .arg(&c)
        .status()
        .expect("a C compiler");
    assert!(status.success());
    dir
}

/// Every ACL function returns `code` (as CANN's stub does with 100039).
fn stub_source(code: i32, skip: &str) -> String {
    let mut source = String::from("const char *aclGetRecentErrMsg(void) { return \"stub\"; }\n");
    for name in ACL_SYMBOLS.iter().chain(HCCL_SYMBOLS) {
        if *name != "aclGetRecentErrMsg" && *name != skip {
            source += &format!("long {name}(void) {{ return {code}; }}\n");
        }
    }
    source
}

#[test]
fn a_compile_stub_library_is_recognised() {
    let dir = fake_library("stub", &stub_source(100039, ""));
    let options = RunOptions {
        device: Device::Ascend,
        acl_lib_dir: Some(dir),
        ..RunOptions::default()
    };
    let error = run_model(&memcpy_chain(), &options).unwrap_err();
    assert_eq!(
        error.to_string(),
        "aclInit failed: error 100039 (ACL_ERROR_COMPILING_STUB_MODE): stub\n\
         (this libascendcl.so is CANN's compile stub: every call fails; install the runtime package)"
    );
}

#[test]
fn a_missing_symbol_is_named_with_the_library() {
    let dir = fake_library("missing", &stub_source(0, "aclrtSwitchStream"));
    let options = RunOptions {
        device: Device::Ascend,
        acl_lib_dir: Some(dir.clone()),
        ..RunOptions::default()
    };
    let error = run_model(&memcpy_chain(), &options).unwrap_err();
    assert_eq!(
        error,
        RuntimeError::MissingSymbol {
            symbol: "aclrtSwitchStream".into(),
            path: dir.join("libascendcl.so").canonicalize().unwrap(),
        }
    );
    assert!(error
        .to_string()
        .contains("does not export `aclrtSwitchStream`"));
}

#[test]
fn without_the_event_a_slow_producer_stream_is_visibly_raced() {
    // The same two streams with the wait and reset removed: when stream 0 is slow, stream
    // 1 copies the workspace before stream 0 wrote it. This is what the events prevent.
    let mut m = two_streams();
    m.event_num = 0;
    m.streams[0].tasks.pop();
    m.streams[1].tasks.drain(..2);
    let options = RunOptions {
        schedule_mode: Some("delay-stream:0".to_owned()),
        ..with_input(&[5.0, 6.0, 7.0, 8.0])
    };
    let result = run_model(&m, &options).unwrap();
    assert_ne!(result.ranks[0].outputs[0], tensor(&[5.0, 6.0, 7.0, 8.0]));
}

#[test]
fn a_deadlock_message_names_the_blocked_stream_and_event() {
    let mut m = two_streams();
    m.streams[0].tasks.pop();
    let text = run_model(&m, &with_input(&[1.0; 4]))
        .unwrap_err()
        .to_string();
    assert!(text.contains("device 0 stream 1"), "{text}");
}

/// Stream 0 copies in -> ws, then `signal` lets stream 1 go, which copies ws -> out.
/// Stream 1 is bound DEFAULT and started by stream 0's `start` task.
fn activated_stream(signal: Vec<Task>, start: Task) -> TaskModel {
    let mut tasks0 = vec![copy(
        operand(Region::Input(0), 0, 4),
        operand(Region::Workspace, 0, 4),
    )];
    tasks0.extend(signal);
    tasks0.push(start);
    let mut m = model(
        4,
        vec![
            stream(0, tasks0),
            StreamTasks {
                id: 1,
                activated: true,
                tasks: vec![copy(
                    operand(Region::Workspace, 0, 4),
                    operand(Region::Output(0), 0, 4),
                )],
            },
        ],
    );
    m.weight_size = 8;
    m.weights = [1, 2]
        .iter()
        .enumerate()
        .map(|(i, v)| Weight {
            node: format!("c{v}"),
            offset: 4 * i as u64,
            desc: TensorDesc {
                dtype: DType::I32,
                dims: vec![],
                format: 2,
            },
            bytes: int_word(*v),
        })
        .collect();
    m
}

fn int_operand(offset: u64) -> Operand {
    Operand {
        addr: Addr {
            region: Region::Weight,
            offset,
        },
        size: 4,
        desc: TensorDesc {
            dtype: DType::I32,
            dims: vec![],
            format: 2,
        },
    }
}

#[test]
fn a_stream_active_starts_a_default_stream_after_its_producer() {
    // The copy before the activation finishes before the activated stream starts (the
    // activation is a task of stream 0, in order).
    let m = activated_stream(
        vec![],
        Task::StreamActive {
            node: "active".into(),
            stream: 1,
        },
    );
    for mode in ["uniform", "delay-stream:0", "reverse"] {
        let options = RunOptions {
            schedule_mode: Some(mode.to_owned()),
            iterations: 2,
            ..with_input(&[4.0, 3.0, 2.0, 1.0])
        };
        let result = run_model(&m, &options).unwrap();
        assert_eq!(
            result.ranks[0].outputs[0],
            tensor(&[4.0, 3.0, 2.0, 1.0]),
            "{mode}"
        );
        let report = result.report.unwrap();
        assert_eq!(
            report.tasks_by_kind.get("stream_active"),
            Some(&2),
            "{report:?}"
        );
        assert_eq!(report.tasks_by_kind.get("memcpy"), Some(&4), "{report:?}");
    }
}

#[test]
fn a_stream_switch_starts_its_stream_only_when_the_comparison_holds() {
    let switch = |target_offset| Task::StreamSwitch {
        node: "switch".into(),
        value: int_operand(0),
        cond: 0, // EQUAL
        target: int_operand(target_offset),
        true_stream: 1,
    };
    let taken = run_model(&activated_stream(vec![], switch(0)), &with_input(&[1.0; 4])).unwrap();
    assert_eq!(taken.ranks[0].outputs[0], tensor(&[1.0; 4]));
    let report = taken.report.unwrap();
    assert_eq!(report.tasks_by_kind.get("memcpy"), Some(&2), "{report:?}");
    let skipped = run_model(&activated_stream(vec![], switch(4)), &with_input(&[1.0; 4])).unwrap();
    let report = skipped.report.unwrap();
    assert_eq!(report.tasks_by_kind.get("memcpy"), Some(&1), "{report:?}");
}

#[test]
fn notifies_order_two_streams_like_events() {
    let mut m = two_streams();
    m.event_num = 0;
    m.notify_num = 1;
    m.streams[0].tasks[1] = Task::NotifyRecord {
        node: "send".into(),
        notify: 0,
    };
    m.streams[1].tasks.splice(
        0..2,
        [Task::NotifyWait {
            node: "recv".into(),
            notify: 0,
        }],
    );
    let options = RunOptions {
        schedule_mode: Some("delay-stream:0".to_owned()),
        iterations: 2,
        ..with_input(&[5.0, 6.0, 7.0, 8.0])
    };
    let result = run_model(&m, &options).unwrap();
    assert_eq!(result.ranks[0].outputs[0], tensor(&[5.0, 6.0, 7.0, 8.0]));
}

#[test]
fn an_event_id_out_of_range_is_a_model_error_at_its_task() {
    let mut m = two_streams();
    m.event_num = 0;
    let error = run_model(&m, &with_input(&[1.0; 4])).unwrap_err();
    assert_eq!(
        error.to_string(),
        "stream 0, task 1 (EVENT_RECORD `send`): event 0 out of range (event_num 0)"
    );
}

#[test]
fn the_simulator_is_found_beside_the_test_binary_and_ascend_only_where_told() {
    use ge_mlir::runtime::device::search_dirs;
    let exe_dir = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_owned();
    let sim = search_dirs(Device::Sim, None);
    assert!(sim.contains(&exe_dir), "{sim:?}");
    assert!(sim.contains(&exe_dir.join("..").join("debug")), "{sim:?}");
    assert_eq!(
        search_dirs(Device::Ascend, Some(Path::new("/opt/cann"))),
        vec![PathBuf::from("/opt/cann")]
    );
    assert!(search_dirs(Device::Ascend, None).contains(&PathBuf::from(
        "/usr/local/Ascend/ascend-toolkit/latest/lib64"
    )));
}

#[test]
fn kernels_run_with_their_attributes() {
    // y = relu(x); z = x^T . x (MatMul with transpose_x1 set through aclopSetAttrBool).
    let mat = |region, offset| Operand {
        addr: Addr { region, offset },
        size: 16,
        desc: TensorDesc {
            dtype: DType::F32,
            dims: vec![2, 2],
            format: 2,
        },
    };
    let mut attrs = ascend_kernels::Attrs::default();
    attrs.set("transpose_x1", ascend_kernels::AttrValue::Bool(true));
    let mut m = model(
        4,
        vec![stream(
            0,
            vec![
                Task::Kernel {
                    op_type: "Relu".into(),
                    node: "relu".into(),
                    attrs: Default::default(),
                    inputs: vec![operand(Region::Input(0), 0, 4)],
                    outputs: vec![operand(Region::Output(0), 0, 4)],
                    placement: ge_mlir::lowering::model::Placement::Hbm,
                },
                Task::Kernel {
                    op_type: "MatMul".into(),
                    node: "gram".into(),
                    attrs,
                    inputs: vec![mat(Region::Input(0), 0), mat(Region::Input(0), 0)],
                    outputs: vec![mat(Region::Output(1), 0)],
                    placement: ge_mlir::lowering::model::Placement::Hbm,
                },
            ],
        )],
    );
    m.outputs.push(Output {
        index: 1,
        source: "gram:0".into(),
        operand: mat(Region::Output(1), 0),
    });
    let result = run_model(&m, &with_input(&[-1.0, 2.0, -3.0, 4.0])).unwrap();
    assert_eq!(result.ranks[0].outputs[0], tensor(&[0.0, 2.0, 0.0, 4.0]));
    // x = [[-1, 2], [-3, 4]]: x^T x = [[10, -14], [-14, 20]].
    assert_eq!(
        result.ranks[0].outputs[1].bytes,
        floats(&[10.0, -14.0, -14.0, 20.0])
    );
}

#[test]
fn opaque_kernels_stand_in_for_a_missing_kernel_and_are_counted() {
    let m = model(
        4,
        vec![stream(
            0,
            vec![Task::Kernel {
                op_type: "NoSuchOp".into(),
                node: "mystery".into(),
                attrs: Default::default(),
                inputs: vec![operand(Region::Input(0), 0, 4)],
                outputs: vec![operand(Region::Output(0), 0, 4)],
                placement: ge_mlir::lowering::model::Placement::Hbm,
            }],
        )],
    );
    let options = RunOptions {
        opaque_kernels: true,
        ..with_input(&[1.0; 4])
    };
    let first = run_model(&m, &options).unwrap();
    assert_eq!(first.report.as_ref().unwrap().opaque_uses, 1);
    // Deterministic stand-in: the same input gives the same bytes, another input others.
    assert_eq!(run_model(&m, &options).unwrap().ranks, first.ranks);
    let other = run_model(
        &m,
        &RunOptions {
            opaque_kernels: true,
            ..with_input(&[2.0; 4])
        },
    )
    .unwrap();
    assert_ne!(other.ranks, first.ranks);
}

#[test]
fn the_simulator_loads_as_ascend_through_the_same_loader() {
    // `--device ascend --acl-lib target/debug` opens the simulator exactly as it would open
    // CANN: same search, same binding; only geSimConfigure tells them apart.
    let sim_dir = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .join("..");
    let options = RunOptions {
        device: Device::Ascend,
        acl_lib_dir: Some(sim_dir),
        ..with_input(&[1.0, 2.0, 3.0, 4.0])
    };
    let result = run_model(&memcpy_chain(), &options).unwrap();
    assert_eq!(result.ranks[0].outputs, vec![tensor(&[1.0, 2.0, 3.0, 4.0])]);
    assert!(result.report.is_some());
}

/// What a device without the simulator's extension does for the calls an HCCL model
/// makes: CANN's symbols only (no `geSim*`, as the real libascendcl and libhccl), every
/// call succeeds, handles and device addresses are distinct non-NULL values, host memory
/// is real, and each collective appends a line to the file `CALLS_LOG`.
const NO_EXTENSION_DEVICE: &str = r#"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static uintptr_t next = 0x1000;
static void *handle(void) { next += 0x1000; return (void *)next; }
long aclrtGetDeviceCount(uint32_t *n) { *n = 1; return 0; }
long aclrtGetRunMode(int *m) { *m = 1; return 0; }
long aclrtCreateStream(void **s) { *s = handle(); return 0; }
long aclrtCreateStreamWithConfig(void **s, uint32_t p, uint32_t f) { *s = handle(); return 0; }
long aclrtStreamQuery(void *s, int *st) { *st = 0; return 0; }
long aclrtGetStreamAvailableNum(uint32_t *n) { *n = 1024; return 0; }
long aclrtCreateEvent(void **e) { *e = handle(); return 0; }
long aclrtCreateEventWithFlag(void **e, uint32_t f) { *e = handle(); return 0; }
long aclrtCreateEventExWithFlag(void **e, uint32_t f) { *e = handle(); return 0; }
long aclrtQueryEventStatus(void *e, int *st) { *st = 1; return 0; }
long aclrtGetEventAvailNum(uint32_t *n) { *n = 1024; return 0; }
long aclrtMalloc(void **p, size_t n, int policy) { *p = handle(); next += n; return 0; }
long aclrtMallocHost(void **p, size_t n) { *p = calloc(1, n ? n : 1); return 0; }
long aclrtFreeHost(void *p) { free(p); return 0; }
long aclrtCreateNotify(void **n, uint64_t f) { *n = handle(); return 0; }
long aclrtCreateLabel(void **l) { *l = handle(); return 0; }
long aclrtCreateLabelList(void **l, size_t n, void **list) { *list = handle(); return 0; }
long aclmdlRIBuildBegin(void **m, uint32_t f) { *m = handle(); return 0; }
void *aclCreateTensorDesc(int t, int n, const int64_t *d, int f) { return handle(); }
void *aclCreateDataBuffer(void *d, size_t n) { return handle(); }
void *aclopCreateAttr(void) { return handle(); }
long HcclGetRootInfo(char *info) { info[0] = 1; return 0; }
long HcclCommInitRootInfo(uint32_t n, const void *i, uint32_t r, void **c) { *c = handle(); return 0; }
long HcclCommInitAll(uint32_t n, int32_t *d, void **c) { for (uint32_t i = 0; i < n; i++) c[i] = handle(); return 0; }
long HcclGetRankSize(void *c, uint32_t *n) { *n = 1; return 0; }
long HcclGetRankId(void *c, uint32_t *r) { *r = 0; return 0; }
long HcclAllReduce(void) {
  FILE *f = fopen(CALLS_LOG, "a");
  if (f) { fputs("HcclAllReduce\n", f); fclose(f); }
  return 0;
}
"#;

/// A library without the simulator's extension (the real libascendcl and libhccl have
/// none) runs an HCCL model: the HCCL calls are issued, and the simulator-only
/// `geSimSetTaskName` / `geSimSetHcclTask` before them are looked up optionally, never
/// required.
#[test]
fn a_library_without_the_simulator_extension_runs_an_hccl_model() {
    let overridden: Vec<&str> = NO_EXTENSION_DEVICE
        .lines()
        .filter_map(|l| l.split('(').next()?.rsplit([' ', '*']).next())
        .filter(|name| name.starts_with("acl") || name.starts_with("Hccl"))
        .collect();
    let mut source = String::from("const char *aclGetRecentErrMsg(void) { return \"\"; }\n");
    for name in ACL_SYMBOLS.iter().chain(HCCL_SYMBOLS) {
        if *name != "aclGetRecentErrMsg" && !overridden.contains(name) {
            source += &format!("long {name}(void) {{ return 0; }}\n");
        }
    }
    let log = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-extension-calls.log");
    let _ = std::fs::remove_file(&log);
    source += &format!("#define CALLS_LOG {:?}\n", log.display().to_string());
    source += NO_EXTENSION_DEVICE;
    let dir = fake_library("no-extension", &source);
    let m = all_reduce_model();
    let options = RunOptions {
        device: Device::Ascend,
        acl_lib_dir: Some(dir),
        ..with_input(&[1.0; 4])
    };
    let result = run_model(&m, &options).unwrap();
    assert!(result.report.is_none(), "no simulator report");
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(calls, "HcclAllReduce\n");
}

/// A fused AllReduce (two input/output pairs, one HCCL call each) whose pair 1 reads
/// ws[0], filled by a copy on stream 1; `ordered` puts an event between them.
fn fused_all_reduce(ordered: bool) -> TaskModel {
    let ar = Task::Hccl {
        node: "ar".into(),
        collective: Collective::AllReduce,
        group: "hccl_world_group".into(),
        reduction: Reduction::Sum,
        root_rank: 0,
        inputs: vec![
            operand(Region::Input(0), 0, 4),
            operand(Region::Workspace, 0, 4),
        ],
        outputs: vec![
            operand(Region::Output(0), 0, 4),
            operand(Region::Workspace, 64, 4),
        ],
    };
    let fill = Task::MemcpyAsync {
        node: "fill".into(),
        src: operand(Region::Input(0), 0, 4),
        dst: operand(Region::Workspace, 0, 4),
    };
    let event = |t: fn(String, u32) -> Task| t("e".into(), 0);
    let (mut s0, mut s1) = (vec![ar], vec![fill]);
    if ordered {
        s1.push(event(|node, event| Task::EventRecord { node, event }));
        s0.insert(0, event(|node, event| Task::EventWait { node, event }));
        s0.insert(1, event(|node, event| Task::EventReset { node, event }));
    }
    let mut m = model(4, vec![stream(0, s0), stream(1, s1)]);
    m.event_num = u32::from(ordered);
    m
}

/// The races of `m` under 4 schedules, as `ge-run` prints them.
fn race_lines(m: &TaskModel) -> Vec<String> {
    let mut lines = Vec::new();
    for (seed, mode) in ["uniform", "reverse", "delay-stream:0", "delay-stream:1"]
        .iter()
        .enumerate()
    {
        let options = RunOptions {
            sim_seed: seed as u64,
            schedule_mode: Some((*mode).to_owned()),
            sim_config: vec!["race=1".to_owned()],
            ..with_input(&[1.0; 4])
        };
        let report = run_model(m, &options).unwrap().report.unwrap();
        lines.extend(
            report
                .races()
                .iter()
                .map(|r| ge_mlir::runtime::executor::SimReport::describe_race_in(r, m)),
        );
    }
    lines
}

/// Pair 1 of a fused collective node is its own HCCL call: a race on it names the node,
/// its op type and `input 1` (its second input) with the tensor there, not pair 0 or an
/// anonymous buffer; with an event between them there is none.
#[test]
fn a_race_on_pair_1_of_a_fused_collective_names_input_1() {
    let lines = race_lines(&fused_all_reduce(false));
    assert!(
        lines.iter().any(|l| l
            .contains("HcomAllReduce `ar` on device 0 stream 0 (input 1, tensor fill:0)")
            && l.contains("memcpy `fill`")),
        "{lines:?}"
    );
    assert!(
        !lines
            .iter()
            .any(|l| l.contains(" buffer)") || l.contains("(input 0")),
        "{lines:?}"
    );
    assert_eq!(race_lines(&fused_all_reduce(true)), Vec::<String>::new());
}
