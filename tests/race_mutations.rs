//! Mutation tests of the race detector: compiled and lowered models (the example, the
//! runtime's step graph and small `ge-gen` graphs of each family) are race-free under 8
//! schedules; each mutation of their task lists that breaks an ordering is caught (a
//! race, an output that differs from the unmutated model's, or a deadlock error), and
//! valid changes (a tensor moved to fresh memory, a redundant event) pass.

use ge_mlir::{
    dialect::new_context,
    ir::pass_manager::module_pass_manager,
    lowering::{
        model::{Addr, Collective, Region, Task, TaskModel},
        read::read_task_model,
    },
    pipeline::{PassStatistics, Pipeline},
    runtime::executor::{run_model, RunOptions},
    syntax,
};
use melior::utility::register_all_passes;

/// `.ge` text compiled (`--ge-compile`) and lowered (`--lower-to-tasks`).
fn lower(text: &str, path: &str) -> Result<TaskModel, String> {
    register_all_passes();
    let context = new_context();
    let mut module = syntax::import_ge(&context, text, path).map_err(|e| e.to_string())?;
    let pipeline = Pipeline::from_flags(&["ge-compile".to_owned(), "lower-to-tasks".to_owned()])?;
    let manager = module_pass_manager(&context);
    let statistics = PassStatistics::default();
    pipeline.add_to(&manager, &statistics)?;
    manager
        .run(&mut module)
        .map_err(|_| format!("{path}: the pipeline failed"))?;
    read_task_model(&module).map_err(|e| format!("{path}: {} errors", e.len()))
}

fn file(path: &str) -> TaskModel {
    let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&full).unwrap();
    lower(&text, &full).unwrap()
}

fn generated(family: &str, ops: u32, seed: u64) -> Result<TaskModel, String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ge-gen"))
        .args(["--format", "ge", "--family", family, "--ops"])
        .arg(ops.to_string())
        .arg("--seed")
        .arg(seed.to_string())
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    lower(
        &String::from_utf8_lossy(&out.stdout),
        &format!("{family}.ge"),
    )
}

const MODES: [&str; 4] = ["uniform", "reverse", "delay-stream:1", "max-overlap"];

/// What a run of a (mutated) model gave.
#[derive(Debug)]
enum Outcome {
    Clean(Vec<Vec<u8>>),
    Races(Vec<String>),
    Failed(String),
}

fn run(model: &TaskModel, schedule: u32) -> Outcome {
    let options = RunOptions {
        sim_seed: u64::from(schedule),
        schedule_mode: Some(MODES[schedule as usize % 4].to_owned()),
        opaque_kernels: true,
        sim_config: vec!["race=1".to_owned()],
        sync_timeout_ms: 10_000,
        ..RunOptions::default()
    };
    match run_model(model, &options) {
        Err(e) => Outcome::Failed(e.to_string()),
        Ok(r) => {
            let report = r.report.expect("the simulator reports");
            assert!(report.race_checked(), "the detector ran");
            let races = report.races();
            if races.is_empty() {
                Outcome::Clean(r.ranks[0].outputs.iter().map(|t| t.bytes.clone()).collect())
            } else {
                Outcome::Races(
                    races
                        .iter()
                        .map(|r| ge_mlir::runtime::executor::SimReport::describe_race_in(r, model))
                        .collect(),
                )
            }
        }
    }
}

/// The unmutated model is race-free under `n` schedules; returns its outputs.
fn clean(model: &TaskModel, n: u32) -> Vec<Vec<u8>> {
    let mut first = None;
    for k in 0..n {
        match run(model, k) {
            Outcome::Clean(out) => {
                first.get_or_insert(out);
            }
            other => panic!("schedule {k} of the unmutated model: {other:?}"),
        }
    }
    first.unwrap()
}

/// Whether some of `n` schedules catches the mutant: a race, a failure, or outputs that
/// differ from the unmutated model's.
fn caught(mutant: &TaskModel, expected: &[Vec<u8>], n: u32) -> Option<String> {
    for k in 0..n {
        match run(mutant, k) {
            Outcome::Races(r) => return Some(format!("race: {}", r[0])),
            Outcome::Failed(e) => return Some(format!("error: {e}")),
            Outcome::Clean(out) if out != expected => {
                return Some(format!("schedule {k}: outputs differ"))
            }
            Outcome::Clean(_) => {}
        }
    }
    None
}

fn is_data(t: &Task) -> bool {
    matches!(
        t,
        Task::Kernel { .. } | Task::MemcpyAsync { .. } | Task::Hccl { .. } | Task::Memset { .. }
    )
}

/// (stream, index) of every EVENT_WAIT followed by a data task on its stream.
fn waits(m: &TaskModel) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for (s, st) in m.streams.iter().enumerate() {
        for (i, t) in st.tasks.iter().enumerate() {
            if matches!(t, Task::EventWait { .. }) && st.tasks[i + 1..].iter().any(is_data) {
                v.push((s, i));
            }
        }
    }
    v
}

fn event_of(t: &Task) -> Option<u32> {
    match t {
        Task::EventWait { event, .. }
        | Task::EventRecord { event, .. }
        | Task::EventReset { event, .. } => Some(*event),
        _ => None,
    }
}

/// Every mutant of one kind that the model admits, each with a description.
fn mutants(m: &TaskModel, kind: &str) -> Vec<(String, TaskModel)> {
    let mut out = Vec::new();
    match kind {
        "remove-wait" => {
            for (s, i) in waits(m) {
                let mut x = m.clone();
                x.streams[s].tasks.remove(i);
                out.push((format!("stream {s} task {i}"), x));
            }
        }
        "remove-record-wait" => {
            for (s, i) in waits(m) {
                let ev = event_of(&m.streams[s].tasks[i]).unwrap();
                let mut x = m.clone();
                for st in &mut x.streams {
                    st.tasks.retain(|t| event_of(t) != Some(ev));
                }
                out.push((format!("event {ev}"), x));
            }
        }
        "move-above-wait" => {
            for (s, i) in waits(m) {
                let tasks = &m.streams[s].tasks;
                let j = i + 1 + tasks[i + 1..].iter().position(is_data).unwrap();
                let mut x = m.clone();
                let t = x.streams[s].tasks.remove(j);
                x.streams[s].tasks.insert(i, t);
                out.push((format!("stream {s} task {j} above {i}"), x));
            }
        }
        "move-to-other-stream" => {
            // A data task after a wait, moved to the front of another HEAD stream.
            for (s, i) in waits(m) {
                let tasks = &m.streams[s].tasks;
                let j = i + 1 + tasks[i + 1..].iter().position(is_data).unwrap();
                let Some(other) = m
                    .streams
                    .iter()
                    .position(|o| o.id as usize != s && !o.activated)
                else {
                    continue;
                };
                let mut x = m.clone();
                let t = x.streams[s].tasks.remove(j);
                x.streams[other].tasks.insert(0, t);
                out.push((format!("stream {s} task {j} to stream {other}"), x));
            }
        }
        "output-onto-live-tensor" => {
            // A kernel's output moved onto another stream's kernel output (a live tensor).
            let kernels: Vec<(usize, usize, Addr, u64)> = m
                .streams
                .iter()
                .enumerate()
                .flat_map(|(s, st)| {
                    st.tasks
                        .iter()
                        .enumerate()
                        .filter_map(move |(i, t)| match t {
                            Task::Kernel { outputs, .. }
                                if outputs[0].addr.region == Region::Workspace =>
                            {
                                Some((s, i, outputs[0].addr, outputs[0].size))
                            }
                            _ => None,
                        })
                })
                .collect();
            // Prefer a tensor of another stream; else a later-read one of the same stream
            // (then the corruption shows as different outputs, not as a race).
            for &(s, i, own, size) in &kernels {
                let target = kernels
                    .iter()
                    .filter(|(_, _, a, sz)| *a != own && *sz >= size)
                    .min_by_key(|(s2, _, _, _)| *s2 == s);
                if let Some(&(_, _, addr, _)) = target {
                    let mut x = m.clone();
                    if let Task::Kernel { outputs, .. } = &mut x.streams[s].tasks[i] {
                        outputs[0].addr = addr;
                    }
                    out.push((format!("stream {s} task {i} output onto {addr:?}"), x));
                }
            }
        }
        "remove-activation-or-label" => {
            for (s, st) in m.streams.iter().enumerate() {
                for (i, t) in st.tasks.iter().enumerate() {
                    if matches!(
                        t,
                        Task::StreamActive { .. }
                            | Task::LabelSet { .. }
                            | Task::LabelGoto { .. }
                            | Task::LabelSwitchByIndex { .. }
                    ) {
                        let mut x = m.clone();
                        x.streams[s].tasks.remove(i);
                        out.push((format!("stream {s} task {i}"), x));
                    }
                }
            }
        }
        "inplace-unordered-reader" => out = inplace_mutants(m),
        "deadlock" => {
            // Every record of a waited event removed, the wait kept: nothing can set it.
            for (s, i) in waits(m) {
                let ev = event_of(&m.streams[s].tasks[i]).unwrap();
                let mut x = m.clone();
                for st in &mut x.streams {
                    st.tasks
                        .retain(|t| !matches!(t, Task::EventRecord { event, .. } if *event == ev));
                }
                out.push((format!("event {ev}"), x));
            }
        }
        _ => unreachable!(),
    }
    out
}

/// Happens-before of a model's tasks from its task lists alone (stream order, event and
/// notify record -> wait, stream activation), by running the lists abstractly once: the
/// vector clock each data task (stream, index) had. `None` for models with labels (a jump
/// needs the values) or whose lists block.
fn static_clocks(m: &TaskModel) -> Option<std::collections::HashMap<(usize, usize), Vec<u32>>> {
    use std::collections::HashMap;
    let n = m.streams.len();
    let mut clocks = vec![vec![0u32; n]; n];
    let mut pc = vec![0usize; n];
    let mut active: Vec<bool> = m.streams.iter().map(|s| !s.activated).collect();
    let mut events: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut notifies: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut out = HashMap::new();
    let join =
        |a: &mut Vec<u32>, b: &[u32]| a.iter_mut().zip(b).for_each(|(x, y)| *x = (*x).max(*y));
    loop {
        let mut progressed = false;
        for s in 0..n {
            while active[s] && pc[s] < m.streams[s].tasks.len() {
                let t = &m.streams[s].tasks[pc[s]];
                match t {
                    Task::EventWait { event, .. } => match events.get(event) {
                        Some(c) => {
                            let c = c.clone();
                            join(&mut clocks[s], &c);
                        }
                        None => break,
                    },
                    Task::NotifyWait { notify, .. } => match notifies.get(notify) {
                        Some(c) => {
                            let c = c.clone();
                            join(&mut clocks[s], &c);
                        }
                        None => break,
                    },
                    Task::LabelSet { .. }
                    | Task::LabelGoto { .. }
                    | Task::LabelSwitchByIndex { .. }
                    | Task::StreamSwitch { .. } => return None,
                    _ => {}
                }
                clocks[s][s] += 1;
                match t {
                    Task::EventRecord { event, .. } => {
                        events.insert(*event, clocks[s].clone());
                    }
                    Task::NotifyRecord { notify, .. } => {
                        notifies.insert(*notify, clocks[s].clone());
                    }
                    Task::StreamActive { stream, .. } => {
                        let (c, to) = (clocks[s].clone(), *stream as usize);
                        join(&mut clocks[to], &c);
                        active[to] = true;
                    }
                    t if is_data(t) => {
                        out.insert((s, pc[s]), clocks[s].clone());
                    }
                    _ => {}
                }
                pc[s] += 1;
                progressed = true;
            }
        }
        if !progressed {
            break;
        }
    }
    let finished = (0..n).all(|s| !active[s] || pc[s] == m.streams[s].tasks.len());
    finished.then_some(out)
}

/// The workspace ranges a data task reads.
fn reads(t: &Task) -> Vec<(u64, u64)> {
    let ws = |o: &ge_mlir::lowering::model::Operand| {
        (o.addr.region == Region::Workspace).then_some((o.addr.offset, o.size))
    };
    match t {
        Task::Kernel { inputs, .. } | Task::Hccl { inputs, .. } => {
            inputs.iter().filter_map(ws).collect()
        }
        Task::MemcpyAsync { src, .. } => ws(src).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// In-place reuses whose other reader is unordered: a kernel `k` reading tensor `t` gets
/// its output put onto `t`'s bytes, while another task reading `t` on another stream has
/// no ordering path to or from `k` (by [`static_clocks`]).
fn inplace_mutants(m: &TaskModel) -> Vec<(String, TaskModel)> {
    let Some(clocks) = static_clocks(m) else {
        return Vec::new();
    };
    let before = |a: (usize, usize), b: (usize, usize)| clocks[&b][a.0] >= clocks[&a][a.0];
    let mut out = Vec::new();
    for (s, st) in m.streams.iter().enumerate() {
        for (i, t) in st.tasks.iter().enumerate() {
            let Task::Kernel {
                inputs, outputs, ..
            } = t
            else {
                continue;
            };
            let Some(out0) = outputs.first() else {
                continue;
            };
            for input in inputs {
                let tensor = (input.addr.offset, input.size);
                if input.addr.region != Region::Workspace
                    || out0.addr == input.addr
                    || input.size < out0.size
                {
                    continue;
                }
                let other = m.streams.iter().enumerate().find_map(|(s2, st2)| {
                    st2.tasks.iter().enumerate().find_map(|(j, r)| {
                        let unordered = s2 != s
                            && clocks.contains_key(&(s2, j))
                            && !before((s, i), (s2, j))
                            && !before((s2, j), (s, i));
                        (unordered && reads(r).contains(&tensor)).then_some((s2, j))
                    })
                });
                if let Some((s2, j)) = other {
                    let mut x = m.clone();
                    if let Task::Kernel { outputs, .. } = &mut x.streams[s].tasks[i] {
                        outputs[0].addr = input.addr;
                    }
                    out.push((
                        format!("stream {s} task {i} in place on {:?}, read unordered by stream {s2} task {j}", input.addr),
                        x,
                    ));
                    break;
                }
            }
        }
    }
    out
}

/// Runs every mutant of `kind`; returns (caught, total) and the first few results.
fn score(m: &TaskModel, expected: &[Vec<u8>], kind: &str) -> (usize, usize, Vec<String>) {
    let all = mutants(m, kind);
    let mut caught_n = 0;
    let mut notes = Vec::new();
    for (what, x) in &all {
        match caught(x, expected, 4) {
            Some(how) => {
                caught_n += 1;
                if notes.len() < 2 {
                    notes.push(format!("{what}: {how}"));
                }
            }
            None => notes.push(format!("{what}: NOT caught")),
        }
    }
    (caught_n, all.len(), notes)
}

fn models() -> Vec<(&'static str, TaskModel)> {
    vec![
        (
            "examples/allreduce_step.ge",
            file("examples/allreduce_step.ge"),
        ),
        (
            "test/Runtime/Inputs/step.ge",
            file("test/Runtime/Inputs/step.ge"),
        ),
        ("wide-dag", generated("wide-dag", 60, 3).unwrap()),
    ]
}

#[test]
fn unmutated_models_are_race_free_under_8_schedules() {
    for (name, m) in models() {
        clean(&m, 8);
        eprintln!("{name}: race-free under 8 schedules");
    }
    for family in ["transformer", "resnet", "control-flow"] {
        match generated(family, 100, 1) {
            Ok(m) => {
                clean(&m, 8);
                eprintln!("{family}: race-free under 8 schedules");
            }
            Err(e) => eprintln!("{family}: not lowered ({})", e.lines().next().unwrap_or("")),
        }
    }
}

fn check_kind(kind: &str, every: bool) {
    let mut total = 0;
    for (name, m) in models() {
        let expected = clean(&m, 1);
        let (c, n, notes) = score(&m, &expected, kind);
        eprintln!("{kind} on {name}: {c}/{n} caught; {notes:?}");
        if every {
            assert_eq!(c, n, "{kind} on {name}: {notes:?}");
        } else {
            assert!(n == 0 || c > 0, "{kind} on {name}: none caught: {notes:?}");
        }
        total += n;
    }
    assert!(total > 0, "no model admits a {kind} mutant");
}

#[test]
fn a_removed_event_wait_is_caught() {
    // A wait can be implied by another path (then its removal changes nothing): at
    // least one per model must be caught, and the counts are printed.
    check_kind("remove-wait", false);
}

/// Every race of a removed wait between kernels, copies and the AllReduce names the op,
/// node, operand and tensor of both sides (some of them with the AllReduce), and in a
/// read-after-write the
/// reader's tensor is the writer's (the plan may have put other tensors at those bytes
/// too, which the reader's name lists as alternatives).
#[test]
fn a_removed_wait_race_names_the_tensors_of_both_sides() {
    let m = file("test/Runtime/Inputs/step.ge");
    let mut named = 0;
    let mut with_hccl = 0;
    for (what, mutant) in mutants(&m, "remove-wait") {
        for k in 0..4 {
            let Outcome::Races(lines) = run(&mutant, k) else {
                continue;
            };
            // Kernels, copies and collectives alike (the executor names each HCCL call's
            // node and pair through the simulator's side channel).
            assert!(
                !lines.iter().any(|l| l.contains("hccl on")
                    || l.contains("send buffer")
                    || l.contains("receive buffer")),
                "{what}: a side without its node: {lines:?}"
            );
            for line in lines.iter().filter(|l| l.contains(" and ")) {
                if line.contains("HcomAllReduce `ar` on ") {
                    with_hccl += 1;
                }
                let tensors: Vec<&str> = line
                    .split(", tensor ")
                    .skip(1)
                    .map(|t| t.split(')').next().unwrap())
                    .collect();
                assert_eq!(tensors.len(), 2, "{what}: both sides name a tensor: {line}");
                if line.starts_with("read-after-write: ") {
                    assert!(
                        tensors[1].split(" or ").any(|t| t == tensors[0]),
                        "{what}: the reader reads the writer's tensor: {line}"
                    );
                }
                named += 1;
            }
        }
    }
    assert!(named > 0, "no race between two tasks was reported");
    assert!(
        with_hccl > 0,
        "no race between the AllReduce and another task was reported"
    );
}

/// GE's op type of an HCCL task's node, as a race report names it.
fn hcom(collective: Collective) -> &'static str {
    match collective {
        Collective::AllReduce => "HcomAllReduce",
        Collective::Broadcast => "HcomBroadcast",
        Collective::AllGather => "HcomAllGather",
        Collective::ReduceScatter => "HcomReduceScatter",
    }
}

/// Every mutant that removes one wait ordering an HCCL task: a wait on its stream since
/// the previous data task (for its inputs' producers), or a wait on another stream for
/// an event its stream records after it before the next data task (for its outputs'
/// readers). Each with the race side it must show: `HcomAllReduce `ar` on `.
fn hccl_ordering_mutants(m: &TaskModel) -> Vec<(String, String, TaskModel)> {
    let mut out = Vec::new();
    let mut remove = |what: String, side: &str, (s, j): (usize, usize)| {
        let mut x = m.clone();
        x.streams[s].tasks.remove(j);
        out.push((what, side.to_owned(), x));
    };
    for (s, st) in m.streams.iter().enumerate() {
        for (i, t) in st.tasks.iter().enumerate() {
            let Task::Hccl {
                node, collective, ..
            } = t
            else {
                continue;
            };
            let side = format!("{} `{node}` on ", hcom(*collective));
            let before = st.tasks[..i].iter().rposition(is_data).map_or(0, |p| p + 1);
            for j in before..i {
                if matches!(st.tasks[j], Task::EventWait { .. }) {
                    remove(
                        format!("{node}: stream {s} wait {j} before it"),
                        &side,
                        (s, j),
                    );
                }
            }
            let after = st.tasks[i + 1..]
                .iter()
                .position(is_data)
                .map_or(st.tasks.len(), |p| i + 1 + p);
            for record in &st.tasks[i + 1..after] {
                let Task::EventRecord { event, .. } = record else {
                    continue;
                };
                for (s2, st2) in m.streams.iter().enumerate() {
                    for (k, w) in st2.tasks.iter().enumerate() {
                        if matches!(w, Task::EventWait { event: e, .. } if e == event) {
                            let what = format!("{node}: stream {s2} wait {k} after it");
                            remove(what, &side, (s2, k));
                        }
                    }
                }
            }
        }
    }
    out
}

/// A mutation that removes an ordering of an HCCL task is caught as a race, and the
/// report names the HCCL node by op type and name, with its operand (`input j` /
/// `output j`), never the HCCL call's anonymous `send buffer` / `receive buffer`.
#[test]
fn a_removed_ordering_of_an_hccl_task_is_caught_and_names_the_node() {
    let mut total = 0;
    for (name, m) in models() {
        clean(&m, 1);
        for (what, side, mutant) in hccl_ordering_mutants(&m) {
            let mut lines = Vec::new();
            for k in 0..4 {
                if let Outcome::Races(r) = run(&mutant, k) {
                    lines.extend(r);
                }
            }
            assert!(
                lines
                    .iter()
                    .any(|l| l.contains(&side)
                        && (l.contains(" (input ") || l.contains(" (output "))),
                "{name} {what}: no race names `{side}`: {lines:?}"
            );
            assert!(
                !lines.iter().any(|l| l.contains("send buffer")
                    || l.contains("receive buffer")
                    || l.contains("hccl on")),
                "{name} {what}: an unnamed HCCL side: {lines:?}"
            );
            total += 1;
        }
    }
    assert!(total > 0, "no model admits a removed HCCL ordering");
    eprintln!("{total} removed HCCL orderings, each caught and named");
}

#[test]
fn a_removed_record_wait_pair_is_caught() {
    check_kind("remove-record-wait", false);
}

#[test]
fn a_task_moved_above_its_wait_is_caught() {
    check_kind("move-above-wait", false);
}

#[test]
fn a_task_moved_to_another_stream_is_caught() {
    check_kind("move-to-other-stream", false);
}

#[test]
fn an_output_moved_onto_a_live_tensor_is_caught() {
    check_kind("output-onto-live-tensor", false);
}

/// Two readers of `p` on two streams (stream labels), no order between them.
const FORK: &str = r#"graph main {
  x = Data() {index = 0} : f32[64, 64]
  p = MatMul(x, x) {_stream_label = "A"} : f32[64, 64]
  r1 = Relu(p) {_stream_label = "A"} : f32[64, 64]
  r2 = MatMul(p, x) {_stream_label = "B"} : f32[64, 64]
  return r1, r2
}"#;

#[test]
fn an_inplace_reuse_whose_other_reader_is_unordered_is_caught() {
    let fork = lower(FORK, "fork.ge").unwrap();
    let mut all = models();
    all.push(("fork", fork));
    let mut total = 0;
    for (name, m) in all {
        clean(&m, 1);
        // The moved output also changes what later readers of the old bytes see, so the
        // outputs alone could tell; the detector must name the pair in every schedule.
        let mutants = mutants(&m, "inplace-unordered-reader");
        for (what, x) in &mutants {
            for k in 0..4 {
                match run(x, k) {
                    Outcome::Races(r) => assert!(
                        r.iter()
                            .any(|r| r.contains("write-after-read")
                                || r.contains("read-after-write")),
                        "{name} {what}: {r:?}"
                    ),
                    other => panic!("{name} {what}, schedule {k}: not caught: {other:?}"),
                }
            }
        }
        eprintln!(
            "inplace-unordered-reader on {name}: {} mutants, all caught as races",
            mutants.len()
        );
        total += mutants.len();
    }
    assert!(total > 0, "no model admits an unordered in-place reuse");
}

#[test]
fn an_inplace_reuse_whose_other_reader_is_ordered_passes() {
    // The valid counterpart: `r1` (stream A) reuses `p` in place only after `r2` read it,
    // ordered by a control edge (an event), so no schedule can tell.
    let text = FORK.replace(
        r#"r1 = Relu(p) {_stream_label = "A"}"#,
        r#"r1 = Relu(p, ^r2) {_stream_label = "A"}"#,
    );
    let m = lower(&text, "fork-ordered.ge").unwrap();
    let expected = clean(&m, 1);
    let clocks = static_clocks(&m).expect("no labels");
    let find = |node: &str| {
        m.streams
            .iter()
            .enumerate()
            .find_map(|(s, st)| {
                st.tasks
                    .iter()
                    .position(|t| matches!(t, Task::Kernel { node: n, .. } if n == node))
                    .map(|i| (s, i))
            })
            .unwrap()
    };
    let (r1, r2) = (find("r1"), find("r2"));
    assert_ne!(r1.0, r2.0, "two streams");
    assert!(
        clocks[&r1][r2.0] >= clocks[&r2][r2.0],
        "r2 happens before r1"
    );
    let mut x = m.clone();
    let p = match &m.streams[r1.0].tasks[r1.1] {
        Task::Kernel { inputs, .. } => inputs[0].addr,
        _ => unreachable!(),
    };
    if let Task::Kernel { outputs, .. } = &mut x.streams[r1.0].tasks[r1.1] {
        outputs[0].addr = p;
    }
    assert!(
        inplace_mutants(&m).is_empty(),
        "the ordered reuse is no mutant"
    );
    for k in 0..4 {
        match run(&x, k) {
            Outcome::Clean(out) => assert_eq!(out[1], expected[1], "r2's output"),
            // r1 now writes `p`, so nothing writes model output 0 any more: the host's
            // D2H read of it is an uninitialised read (a synchronous D2H copy is a host
            // read for the detector). No ordering race may be reported.
            Outcome::Races(r)
                if r.iter()
                    .all(|l| l.starts_with("uninitialised-read: host call on host")) =>
            {
                let options = RunOptions {
                    sim_seed: u64::from(k),
                    schedule_mode: Some(MODES[k as usize % 4].to_owned()),
                    opaque_kernels: true,
                    ..RunOptions::default()
                };
                let out = run_model(&x, &options).expect("runs");
                assert_eq!(out.ranks[0].outputs[1].bytes, expected[1], "r2's output");
            }
            other => panic!("an ordered in-place reuse: {other:?}"),
        }
    }
}

#[test]
fn an_induced_deadlock_is_an_error() {
    for (name, m) in models() {
        for (what, x) in mutants(&m, "deadlock") {
            match run(&x, 0) {
                Outcome::Failed(e) => assert!(e.contains("deadlock"), "{name} {what}: {e}"),
                other => panic!("{name} {what}: {other:?}"),
            }
        }
    }
}

/// Data, event and activation tasks run by kind (schedule 0, no detector): the work the
/// model's control flow did (label tasks left out: a removed switch whose fall-through is
/// the branch it would have taken runs one label task more and one switch less).
fn tasks_run(model: &TaskModel) -> std::collections::BTreeMap<String, u64> {
    let options = RunOptions {
        opaque_kernels: true,
        sync_timeout_ms: 10_000,
        ..RunOptions::default()
    };
    match run_model(model, &options) {
        Ok(r) => {
            let mut kinds = r.report.expect("the simulator reports").tasks_by_kind;
            kinds.retain(|k, _| !k.starts_with("label_"));
            kinds
        }
        Err(_) => Default::default(),
    }
}

/// Removed label and activation tasks: each is caught, or the mutant does exactly the work
/// of the unmutated model (the removed task sits on a path the run never takes: the
/// untaken branch of an If, the body of a loop that never iterates; or it is a switch
/// whose fall-through is the branch it took), so there was nothing to order. A mutant that runs differently and is not caught would be a gap of
/// the detector's happens-before. Returns (caught, on untaken paths, total).
fn activation_or_label_mutants(m: &TaskModel, name: &str) -> (usize, usize, usize) {
    let expected = clean(m, 4);
    let ran = tasks_run(m);
    let (mut c, mut untaken) = (0, 0);
    let all = mutants(m, "remove-activation-or-label");
    for (what, x) in &all {
        match caught(x, &expected, 4) {
            Some(_) => c += 1,
            None => {
                assert_eq!(
                    tasks_run(x),
                    ran,
                    "{name} {what}: not caught, yet it runs other tasks than the model"
                );
                untaken += 1;
            }
        }
    }
    eprintln!(
        "remove-activation-or-label on {name}: {c}/{} caught, {untaken} on paths never taken",
        all.len()
    );
    (c, untaken, all.len())
}

#[test]
fn removed_activations_and_labels_of_an_iterating_loop_are_caught_unless_never_run() {
    // ge-gen's control-flow family: an If and a While that iterates eight times.
    let m = generated("control-flow", 40, 3).unwrap();
    let (c, _, n) = activation_or_label_mutants(&m, "control-flow");
    assert!(n >= 8 && c * 2 > n, "{c}/{n}");
}

#[test]
fn a_removed_activation_or_label_is_caught() {
    let text = std::fs::read_to_string(format!(
        "{}/test/Runtime/Inputs/while-never.ge",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let m = lower(&text, "while-never.ge").unwrap();
    let (c, _, n) = activation_or_label_mutants(&m, "while-never.ge");
    assert!(n > 0 && c > 0, "{c}/{n}");
}

#[test]
fn a_tensor_moved_to_fresh_memory_passes() {
    for (name, m) in models() {
        let expected = clean(&m, 1);
        // A workspace range every operand uses whole (or not at all) moves past the end.
        let mut ranges = Vec::new();
        for st in &m.streams {
            for t in &st.tasks {
                if let Task::Kernel { outputs, .. } = t {
                    for o in outputs {
                        if o.addr.region == Region::Workspace {
                            ranges.push((o.addr.offset, o.size));
                        }
                    }
                }
            }
        }
        let overlaps = |a: (u64, u64), b: (u64, u64)| a.0 < b.0 + b.1 && b.0 < a.0 + a.1;
        let operands =
            |x: &mut TaskModel, f: &mut dyn FnMut(&mut ge_mlir::lowering::model::Operand)| {
                for st in &mut x.streams {
                    for t in &mut st.tasks {
                        match t {
                            Task::Kernel {
                                inputs, outputs, ..
                            }
                            | Task::Hccl {
                                inputs, outputs, ..
                            } => inputs
                                .iter_mut()
                                .chain(outputs.iter_mut())
                                .for_each(&mut *f),
                            Task::MemcpyAsync { src, dst, .. } => {
                                f(src);
                                f(dst)
                            }
                            _ => {}
                        }
                    }
                }
                for o in &mut x.outputs {
                    f(&mut o.operand);
                }
            };
        let mut moved = false;
        for &r in &ranges {
            let mut x = m.clone();
            let mut whole = true;
            operands(&mut x, &mut |o| {
                let q = (o.addr.offset, o.size);
                if o.addr.region == Region::Workspace && overlaps(q, r) && q != r {
                    whole = false;
                }
            });
            let has_memset = m.streams.iter().flat_map(|s| &s.tasks).any(|t| {
                matches!(t, Task::Memset { dst, size, .. }
                    if dst.region == Region::Workspace && overlaps((dst.offset, *size), r))
            });
            if !whole || has_memset {
                continue;
            }
            let fresh = m.memory_size.div_ceil(512) * 512;
            operands(&mut x, &mut |o| {
                if o.addr.region == Region::Workspace && (o.addr.offset, o.size) == r {
                    o.addr.offset = fresh;
                }
            });
            x.memory_size = fresh + r.1.div_ceil(512) * 512;
            for k in 0..4 {
                match run(&x, k) {
                    Outcome::Clean(out) => assert_eq!(out, expected, "{name}: {r:?} moved"),
                    other => panic!("{name}: {r:?} moved to fresh memory: {other:?}"),
                }
            }
            moved = true;
            break;
        }
        assert!(moved, "{name}: no tensor could be moved");
    }
}

#[test]
fn an_extra_redundant_event_passes() {
    for (name, m) in models() {
        let expected = clean(&m, 1);
        let heads: Vec<usize> = m
            .streams
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.activated)
            .map(|(i, _)| i)
            .collect();
        if heads.len() < 2 {
            continue;
        }
        let (a, b) = (heads[0], heads[1]);
        let mut x = m.clone();
        let ev = x.event_num;
        x.event_num += 1;
        x.streams[a].tasks.insert(
            0,
            Task::EventRecord {
                node: "extra_send".into(),
                event: ev,
            },
        );
        let tasks = &mut x.streams[b].tasks;
        let at = tasks
            .iter()
            .position(|t| matches!(t, Task::ModelEndGraph))
            .unwrap_or(tasks.len());
        tasks.insert(
            at,
            Task::EventWait {
                node: "extra_recv".into(),
                event: ev,
            },
        );
        tasks.insert(
            at + 1,
            Task::EventReset {
                node: "extra_recv".into(),
                event: ev,
            },
        );
        for k in 0..4 {
            match run(&x, k) {
                Outcome::Clean(out) => assert_eq!(out, expected, "{name}"),
                other => panic!("{name}: a redundant event: {other:?}"),
            }
        }
    }
}
