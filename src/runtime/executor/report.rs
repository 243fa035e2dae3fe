//! The simulator's report of a run (`geSimReport()` JSON), parsed into what `ge-run`
//! prints, and its trace written as a Chrome trace (`chrome://tracing`, Perfetto).

use crate::runtime::error::RuntimeError;
use serde_json::Value;
use std::collections::BTreeMap;

/// One stream's busy time in the last run.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamBusy {
    /// The device (rank) of the stream.
    pub device: u32,
    pub stream: u32,
    /// Simulated time the stream spent running tasks.
    pub busy: f64,
    /// Tasks it ran.
    pub tasks: u64,
}

/// What the simulator says about the last run (`None` in a [`super::RunResult`] on a real
/// device).
#[derive(Debug, Clone, PartialEq)]
pub struct SimReport {
    /// Simulated time from the start of the run to its end.
    pub makespan: f64,
    /// The time unit of `makespan` and `busy` as the report names it (`ns` by default).
    pub unit: String,
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
        let makespan = number(&raw, &["makespan_ns", "makespan", "makespan_us"]).unwrap_or(0.0);
        let unit = if raw.get("makespan_us").is_some() {
            "us"
        } else {
            "ns"
        }
        .to_owned();
        let mut streams = Vec::new();
        match raw.get("streams") {
            Some(Value::Array(list)) => {
                for (position, entry) in list.iter().enumerate() {
                    streams.push(StreamBusy {
                        device: number(entry, &["device", "rank"]).unwrap_or(0.0) as u32,
                        stream: number(entry, &["stream", "id"]).unwrap_or(position as f64) as u32,
                        busy: number(entry, &["busy_ns", "busy", "busy_us"]).unwrap_or(0.0),
                        tasks: number(entry, &["tasks"]).unwrap_or(0.0) as u64,
                    });
                }
            }
            Some(Value::Object(map)) => {
                for (key, entry) in map {
                    let busy = entry
                        .as_f64()
                        .or_else(|| number(entry, &["busy_ns", "busy", "busy_us"]))
                        .unwrap_or(0.0);
                    streams.push(StreamBusy {
                        device: 0,
                        stream: key.parse().unwrap_or(0),
                        busy,
                        tasks: number(entry, &["tasks"]).unwrap_or(0.0) as u64,
                    });
                }
            }
            _ => {}
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
            unit,
            streams,
            tasks_by_kind,
            opaque_uses,
            raw,
        })
    }

    /// The run's trace as Chrome trace JSON, when the report carries one: either already
    /// Chrome events (`ph` set) or task records (`device`, `stream`, `name`/`kind`, `start`,
    /// `end`/`dur`), one row per (device, stream).
    pub fn chrome_trace(&self) -> Option<String> {
        let entries = self.raw.get("trace")?.as_array()?;
        let events: Vec<Value> = entries
            .iter()
            .map(|entry| {
                if entry.get("ph").is_some() {
                    return entry.clone();
                }
                let start = number(entry, &["start", "start_ns", "ts"]).unwrap_or(0.0);
                let duration = number(entry, &["dur", "duration"])
                    .or_else(|| number(entry, &["end", "end_ns"]).map(|end| end - start))
                    .unwrap_or(0.0);
                let name = ["name", "node", "kind"]
                    .iter()
                    .find_map(|key| entry.get(key)?.as_str())
                    .unwrap_or("task");
                serde_json::json!({
                    "name": name,
                    "cat": entry.get("kind").and_then(Value::as_str).unwrap_or("task"),
                    "ph": "X",
                    // Chrome traces count microseconds; the simulator nanoseconds.
                    "ts": start / 1000.0,
                    "dur": duration / 1000.0,
                    "pid": number(entry, &["device", "rank"]).unwrap_or(0.0) as u64,
                    "tid": number(entry, &["stream"]).unwrap_or(0.0) as u64,
                    "args": entry,
                })
            })
            .collect();
        Some(serde_json::json!({ "traceEvents": events }).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_parses_its_fields_and_keeps_the_rest() {
        let report = SimReport::parse(
            r#"{"makespan_ns": 1500, "streams": [{"device": 0, "stream": 1, "busy_ns": 700, "tasks": 3}],
                "tasks_by_kind": {"KERNEL": 2, "EVENT_RECORD": 1}, "opaque_uses": 2, "extra": 1,
                "trace": [{"device": 0, "stream": 1, "name": "relu", "start": 0, "end": 700}]}"#,
        )
        .unwrap();
        assert_eq!(report.makespan, 1500.0);
        assert_eq!(report.streams[0].busy, 700.0);
        assert_eq!(report.streams[0].stream, 1);
        assert_eq!(report.tasks_by_kind["KERNEL"], 2);
        assert_eq!(report.opaque_uses, 2);
        let trace: Value = serde_json::from_str(&report.chrome_trace().unwrap()).unwrap();
        assert_eq!(trace["traceEvents"][0]["dur"], 0.7);
        assert!(SimReport::parse("not json").is_err());
    }
}
