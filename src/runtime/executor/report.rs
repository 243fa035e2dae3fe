//! The simulator's report of a run (`geSimReport()` JSON), parsed into what `ge-run`
//! prints, and its trace written as a Chrome trace (`chrome://tracing`, Perfetto).

mod live;
mod svg;
pub mod tensors;

pub use live::LiveBytes;

use crate::lowering::model::TaskModel;
use crate::runtime::error::RuntimeError;
use serde_json::Value;
use std::collections::BTreeMap;

/// One stream's busy time in the last run.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamBusy {
    /// The simulator's name of the stream (`device 0 stream 2`).
    pub label: String,
    /// The device (rank) and the stream's creation number on it, read from the label
    /// (the executor creates the model's streams first, so number `k` is model stream
    /// `k`, and number `stream_num` its execute stream); `None` for the default stream.
    pub device: Option<u32>,
    pub stream: Option<u32>,
    /// Simulated time the stream spent running tasks.
    pub busy: f64,
    /// Tasks it ran.
    pub tasks: u64,
}

/// `device D stream N` -> (D, N).
fn parse_label(label: &str) -> (Option<u32>, Option<u32>) {
    let words: Vec<&str> = label.split_whitespace().collect();
    let after = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1)?.parse().ok())
    };
    (after("device"), after("stream"))
}

/// What the simulator says about the last run (`None` in a [`super::RunResult`] on a real
/// device).
#[derive(Debug, Clone, PartialEq)]
pub struct SimReport {
    /// Simulated nanoseconds from the first task's start to the last one's end (over
    /// every iteration of the run).
    pub makespan: f64,
    pub streams: Vec<StreamBusy>,
    /// Tasks run, by GE task kind or ACL call.
    pub tasks_by_kind: BTreeMap<String, u64>,
    /// How many kernel launches used the opaque stand-in (`--opaque-kernels`).
    pub opaque_uses: u64,
    /// The whole report, for fields not named above.
    pub raw: Value,
}

fn number(value: &Value, keys: &[&str]) -> Option<f64> {
    keys.iter().find_map(|key| value.get(key)?.as_f64())
}

impl SimReport {
    /// Parses the report JSON; unknown fields are kept in `raw`.
    pub fn parse(text: &str) -> Result<SimReport, RuntimeError> {
        let raw: Value = serde_json::from_str(text).map_err(|error| {
            RuntimeError::Other(format!(
                "the simulator's report is not JSON ({error}): {text}"
            ))
        })?;
        let makespan = number(&raw, &["makespan_ns"]).unwrap_or(0.0);
        let mut streams = Vec::new();
        if let Some(Value::Array(list)) = raw.get("streams") {
            for entry in list {
                let label = match entry.get("stream") {
                    Some(Value::String(label)) => label.clone(),
                    Some(other) => format!("stream {other}"),
                    None => String::from("?"),
                };
                let (device, stream) = parse_label(&label);
                streams.push(StreamBusy {
                    label,
                    device,
                    stream,
                    busy: number(entry, &["busy_ns", "busy"]).unwrap_or(0.0),
                    tasks: number(entry, &["tasks"]).unwrap_or(0.0) as u64,
                });
            }
        }
        let mut tasks_by_kind = BTreeMap::new();
        if let Some(Value::Object(map)) = raw.get("tasks_by_kind").or_else(|| raw.get("tasks")) {
            for (kind, count) in map {
                tasks_by_kind.insert(kind.clone(), count.as_u64().unwrap_or(0));
            }
        }
        let opaque_uses =
            number(&raw, &["opaque_uses", "opaque_kernels", "opaque"]).unwrap_or(0.0) as u64;
        Ok(SimReport {
            makespan,
            streams,
            tasks_by_kind,
            opaque_uses,
            raw,
        })
    }

    /// The trace's tasks as (device, stream, kind, event, start, end), model executions
    /// left out (they span the whole run).
    fn trace_tasks(&self) -> Vec<TraceTask> {
        let Some(entries) = self.raw.get("trace").and_then(Value::as_array) else {
            return Vec::new();
        };
        entries
            .iter()
            .filter(|e| e.get("kind").and_then(Value::as_str) != Some("model_execute"))
            .map(|e| {
                let (device, stream) =
                    parse_label(e.get("stream").and_then(Value::as_str).unwrap_or(""));
                let kind = e.get("kind").and_then(Value::as_str).unwrap_or("");
                let name = e.get("name").and_then(Value::as_str);
                TraceTask {
                    device: device.unwrap_or(0),
                    stream: stream.unwrap_or(u32::MAX),
                    kind: kind.to_owned(),
                    op: name.filter(|n| *n != kind).map(str::to_owned),
                    node: e.get("node").and_then(Value::as_str).map(str::to_owned),
                    event: e.get("event").and_then(Value::as_u64),
                    start: number(e, &["start_ns", "start"]).unwrap_or(0.0),
                    end: number(e, &["end_ns", "end"]).unwrap_or(0.0),
                }
            })
            .collect()
    }

    /// For each event wait of the trace, the record it waited for: the latest record of
    /// the same event (same device) that ended by the wait's start. Indices into `tasks`.
    fn record_wait_pairs(tasks: &[TraceTask]) -> Vec<(usize, usize)> {
        let mut order: Vec<usize> = (0..tasks.len()).collect();
        order.sort_by(|&a, &b| tasks[a].start.total_cmp(&tasks[b].start));
        let mut pairs = Vec::new();
        let mut records: Vec<usize> = order
            .iter()
            .copied()
            .filter(|&i| tasks[i].kind == "event_record")
            .collect();
        records.sort_by(|&a, &b| tasks[a].end.total_cmp(&tasks[b].end));
        for &w in order.iter().filter(|&&i| tasks[i].kind == "event_wait") {
            let t = &tasks[w];
            let found = records.iter().rev().copied().find(|&r| {
                let rec = &tasks[r];
                rec.device == t.device
                    && rec.event == t.event
                    && rec.event.is_some()
                    && rec.end <= t.start
            });
            if let Some(r) = found {
                pairs.push((r, w));
            }
        }
        pairs
    }

    /// Chrome flow arrows from each event record to the wait it released.
    fn flow_events(&self) -> Vec<Value> {
        let tasks = self.trace_tasks();
        let mut out = Vec::new();
        for (id, (r, w)) in Self::record_wait_pairs(&tasks).into_iter().enumerate() {
            let (r, w) = (&tasks[r], &tasks[w]);
            let name = format!("event {}", r.event.unwrap_or(0));
            out.push(
                serde_json::json!({"name": name, "cat": "event", "ph": "s", "id": id,
                "ts": r.end / 1000.0, "pid": r.device, "tid": r.stream}),
            );
            out.push(
                serde_json::json!({"name": name, "cat": "event", "ph": "f", "bp": "e",
                "id": id, "ts": w.start / 1000.0, "pid": w.device, "tid": w.stream}),
            );
        }
        out
    }

    /// `ge-run --report`: the timeline's bounds, from the trace (`trace=1`).
    pub fn timeline(&self) -> Option<Timeline> {
        let tasks = self.trace_tasks();
        if tasks.is_empty() {
            return None;
        }
        // Longest chain of durations over stream order and record -> wait edges: no
        // schedule of these durations can finish sooner (activations are left out, which
        // can only shorten the chain, so it stays a lower bound).
        let mut order: Vec<usize> = (0..tasks.len()).collect();
        order.sort_by(|&a, &b| tasks[a].start.total_cmp(&tasks[b].start));
        let released: std::collections::HashMap<usize, usize> = Self::record_wait_pairs(&tasks)
            .into_iter()
            .map(|(r, w)| (w, r))
            .collect();
        let mut chain = vec![0.0f64; tasks.len()];
        let mut last_on: std::collections::HashMap<(u32, u32), usize> = Default::default();
        for &i in &order {
            let t = &tasks[i];
            let mut before = 0.0f64;
            if let Some(&p) = last_on.get(&(t.device, t.stream)) {
                before = before.max(chain[p]);
            }
            if let Some(&r) = released.get(&i) {
                before = before.max(chain[r]);
            }
            chain[i] = before + (t.end - t.start);
            last_on.insert((t.device, t.stream), i);
        }
        let work: f64 = tasks.iter().map(|t| t.end - t.start).sum();
        let streams = last_on.len().max(1);
        Some(Timeline {
            makespan: self.makespan,
            critical_path: chain.iter().copied().fold(0.0, f64::max),
            one_stream: work,
            work_over_streams: work / streams as f64,
        })
    }

    /// The race detector's findings (`geSimConfigure("race=1")`), each as the simulator
    /// reported it; empty when the detector was off.
    pub fn races(&self) -> Vec<Value> {
        self.raw
            .get("races")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    }

    /// Whether the detector ran (the report has a `races` list, maybe empty).
    pub fn race_checked(&self) -> bool {
        self.raw.get("races").is_some()
    }

    /// One line for a race: its kind, both tasks (with the operand each touches), the bytes
    /// and the event that would have ordered them.
    pub fn describe_race(race: &Value) -> String {
        describe(race, None)
    }

    /// [`Self::describe_race`] with each kernel side's tensor named from `model` (the
    /// model that ran): `(output 0, tensor grad:0)`.
    pub fn describe_race_in(race: &Value, model: &TaskModel) -> String {
        describe(race, Some(model))
    }

    /// Live workspace bytes of each device over the run (`model`'s plan locates the
    /// workspace); empty without a trace that carries ranges.
    pub fn live_workspace(&self, model: &TaskModel) -> Vec<LiveBytes> {
        match self.raw.get("trace").and_then(Value::as_array) {
            Some(trace) => live::live_workspace(trace, model),
            None => Vec::new(),
        }
    }

    /// [`Self::chrome_trace`] plus a counter track per device of the live workspace bytes
    /// (Chrome `"C"` events).
    pub fn chrome_trace_for(&self, model: &TaskModel) -> Option<String> {
        let text = self.chrome_trace()?;
        let mut trace: Value = serde_json::from_str(&text).ok()?;
        let events = trace["traceEvents"].as_array_mut()?;
        for series in self.live_workspace(model) {
            for (time, bytes) in series.points {
                events.push(
                    serde_json::json!({"name": "live workspace bytes", "ph": "C",
                    "ts": time / 1000.0, "pid": series.device, "args": {"bytes": bytes}}),
                );
            }
        }
        Some(trace.to_string())
    }

    /// The run's trace as Chrome trace JSON, when the report carries one: either already
    /// Chrome events (`ph` set) or task records (`device`, `stream`, `name`/`kind`, `start`,
    /// `end`/`dur`), one row per (device, stream); a slice is named by its op type and node.
    pub fn chrome_trace(&self) -> Option<String> {
        let entries = self.raw.get("trace")?.as_array()?;
        let events: Vec<Value> = entries
            .iter()
            .map(|entry| {
                if entry.get("ph").is_some() {
                    return entry.clone();
                }
                let (device, stream) =
                    parse_label(entry.get("stream").and_then(Value::as_str).unwrap_or(""));
                let start = number(entry, &["start_ns", "start"]).unwrap_or(0.0);
                let duration = number(entry, &["dur", "duration"])
                    .or_else(|| number(entry, &["end_ns", "end"]).map(|end| end - start))
                    .unwrap_or(0.0);
                let name = ["name", "node", "kind"]
                    .iter()
                    .find_map(|key| entry.get(key)?.as_str())
                    .unwrap_or("task");
                let name = match entry.get("node").and_then(Value::as_str) {
                    Some(node) if node != name => format!("{name} {node}"),
                    _ => name.to_owned(),
                };
                serde_json::json!({
                    "name": name,
                    "cat": entry.get("kind").and_then(Value::as_str).unwrap_or("task"),
                    "ph": "X",
                    // Chrome traces count microseconds; the simulator nanoseconds.
                    "ts": start / 1000.0,
                    "dur": duration / 1000.0,
                    "pid": device.unwrap_or(0),
                    "tid": stream.map_or(u64::from(u32::MAX), u64::from),
                    "args": entry,
                })
            })
            .collect();
        let mut events = events;
        events.extend(self.flow_events());
        Some(serde_json::json!({ "traceEvents": events }).to_string())
    }
}

/// One task of the trace, as the timeline needs it.
#[derive(Debug, Clone)]
struct TraceTask {
    device: u32,
    stream: u32,
    kind: String,
    /// The op type (kernels, collectives).
    op: Option<String>,
    /// The node name the executor gave (`geSimSetTaskName`).
    node: Option<String>,
    event: Option<u64>,
    start: f64,
    end: f64,
}

/// Bounds of a run's timeline (simulated nanoseconds).
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    pub makespan: f64,
    /// The longest chain over stream order and event record -> wait edges.
    pub critical_path: f64,
    /// Every task one after another: the makespan on a single stream with these durations.
    pub one_stream: f64,
    /// Total work over the streams that ran something.
    pub work_over_streams: f64,
}

/// A race line; `model` names the tensors.
fn describe(race: &Value, model: Option<&TaskModel>) -> String {
    let task = |t: &Value| {
        if t.is_null() {
            return String::new();
        }
        let mut s = t["kind"].as_str().unwrap_or("task").to_owned();
        if let Some(op) = t["op"].as_str() {
            s = op.to_owned();
        }
        let node = t["node"].as_str();
        if let Some(node) = node {
            s += &format!(" `{node}`");
        }
        s += &format!(" on {}", t["stream"].as_str().unwrap_or("?"));
        if let Some(operand) = t["operand"].as_str() {
            let tensor = node
                .zip(model)
                .and_then(|(node, model)| tensors::tensor_name(model, node, operand));
            s += &match tensor {
                Some(tensor) => format!(" ({operand}, tensor {tensor})"),
                None => format!(" ({operand})"),
            };
        }
        s
    };
    let first = task(&race["first"]);
    let second = task(&race["second"]);
    let pair = if first.is_empty() {
        second
    } else {
        format!("{first} and {second}")
    };
    let mut line = format!(
        "{}: {pair}, {} bytes at {}",
        race["kind"].as_str().unwrap_or("race"),
        race["bytes"],
        race["addr"].as_str().unwrap_or("?")
    );
    if let Some(ev) = race["ordering_event"].as_str() {
        line += &format!(" (a wait for {ev} would order them)");
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_parses_its_fields_and_keeps_the_rest() {
        let report = SimReport::parse(
            r#"{"makespan_ns": 1500, "streams": [{"stream": "device 0 stream 1", "busy_ns": 700, "tasks": 3}],
                "tasks_by_kind": {"kernel": 2, "event_record": 1}, "opaque_kernels": 2, "extra": 1,
                "trace": [{"stream": "device 0 stream 1", "kind": "kernel", "name": "relu", "start_ns": 0, "end_ns": 700}]}"#,
        )
        .unwrap();
        assert_eq!(report.makespan, 1500.0);
        assert_eq!(report.streams[0].busy, 700.0);
        assert_eq!(report.streams[0].stream, Some(1));
        assert_eq!(report.streams[0].device, Some(0));
        assert_eq!(report.tasks_by_kind["kernel"], 2);
        assert_eq!(report.opaque_uses, 2);
        let trace: Value = serde_json::from_str(&report.chrome_trace().unwrap()).unwrap();
        assert_eq!(trace["traceEvents"][0]["dur"], 0.7);
        assert_eq!(trace["traceEvents"][0]["tid"], 1);
        assert!(SimReport::parse("not json").is_err());
    }

    #[test]
    fn the_timeline_chains_stream_order_and_record_wait_edges() {
        // s1: A [0,10] then record [10,11]; s2: wait [11,12] then B [12,30]; s3: C [0,5].
        let report = SimReport::parse(
            r#"{"makespan_ns": 30, "streams": [], "tasks_by_kind": {},
                "trace": [
                  {"stream": "device 0 stream 1", "kind": "kernel", "name": "A", "start_ns": 0, "end_ns": 10},
                  {"stream": "device 0 stream 3", "kind": "kernel", "name": "C", "start_ns": 0, "end_ns": 5},
                  {"stream": "device 0 stream 1", "kind": "event_record", "name": "event_record", "event": 4, "start_ns": 10, "end_ns": 11},
                  {"stream": "device 0 stream 2", "kind": "event_wait", "name": "event_wait", "event": 4, "start_ns": 11, "end_ns": 12},
                  {"stream": "device 0 stream 2", "kind": "kernel", "name": "B", "start_ns": 12, "end_ns": 30}]}"#,
        )
        .unwrap();
        let t = report.timeline().unwrap();
        assert_eq!(t.critical_path, 30.0, "A, record, wait, B");
        assert_eq!(t.one_stream, 35.0);
        assert!((t.work_over_streams - 35.0 / 3.0).abs() < 1e-9);
        let trace: Value = serde_json::from_str(&report.chrome_trace().unwrap()).unwrap();
        let flows: Vec<&Value> = trace["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["cat"] == "event")
            .collect();
        assert_eq!(flows.len(), 2);
        assert_eq!(
            (flows[0]["ph"].as_str(), flows[0]["tid"].as_u64()),
            (Some("s"), Some(1))
        );
        assert_eq!(
            (flows[1]["ph"].as_str(), flows[1]["tid"].as_u64()),
            (Some("f"), Some(2))
        );
    }
}
