//! The reports `--stream-alloc` writes besides the IR: the allocation summary (JSON like
//! GE's `GetStreamAllocationSummary`, or a human table) and Graphviz.
//!
//! The JSON is [`Allocation::summary_json`] plus what the pass adds: `removed_syncs` (every
//! event or notify one of GE's rules or the beyond-GE reduction dropped, with the rule) and
//! `options` (the options the allocation ran with, by GE name).

use crate::analysis::stream::{Allocation, StreamGraph, StreamOptions};
use serde_json::{json, Value};
use std::{collections::BTreeSet, io::Write, sync::Mutex};

/// `summary-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SummaryFormat {
    Json,
    Table,
}

impl SummaryFormat {
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "json" => Ok(Self::Json),
            "table" => Ok(Self::Table),
            _ => Err(format!(
                "pass 'stream-alloc': option 'summary-format': '{text}' is not json or table"
            )),
        }
    }
}

/// The JSON summary.
pub fn summary_json(sg: &StreamGraph, alloc: &Allocation, opts: &StreamOptions) -> Value {
    let mut value = alloc.summary_json(sg);
    let removed: Vec<Value> = alloc
        .syncs
        .recs
        .iter()
        .filter_map(|r| {
            let why = r.removed?;
            Some(json!({
                "kind": r.kind,
                "send": sg.node(r.send).name,
                "recv": sg.node(r.recv).name,
                "origin": r.origin,
                "removed_by": why.as_str(),
            }))
        })
        .collect();
    if let Value::Object(map) = &mut value {
        map.insert("removed_syncs".into(), Value::Array(removed));
        map.insert("options".into(), options_json(opts));
    }
    value
}

/// The options, by the names GE users know.
fn options_json(o: &StreamOptions) -> Value {
    let max_parallel: Vec<String> = o
        .max_parallel
        .iter()
        .map(|(e, n)| format!("{e}:{n}"))
        .collect();
    json!({
        "ge.enableSingleStream": o.single_stream,
        "ge.hcomParallel": o.hcom_parallel,
        "ge.streamMaxParallelNum": max_parallel.join(","),
        "ge.exec.memoryOptimizationPolicy": if o.memory_priority { "MemoryPriority" } else { "" },
        "ge.event": if o.use_notify { "notify" } else { "event" },
        "max_task_normal": o.max_task_normal,
        "max_task_huge": o.max_task_huge,
        "max_stream_normal": o.max_stream_normal,
        "max_stream_huge": o.max_stream_huge,
        "huge_stream_supported": o.huge_stream_supported,
        "unlimited_stream_depth": o.unlimited_stream_depth,
        "dynamic_shape": o.dynamic_shape,
        "ENABLE_DYNAMIC_SHAPE_MULTI_STREAM": o.dynamic_multi_stream,
        "max_events": o.max_events,
        "max_notifies": o.max_notifies,
        "minimize_events": o.minimize_events,
        "subgraph_entry_parent": o.subgraph_entry_parent,
    })
}

/// The summary text in `format`.
pub fn summary_text(
    sg: &StreamGraph,
    alloc: &Allocation,
    opts: &StreamOptions,
    format: SummaryFormat,
) -> String {
    match format {
        SummaryFormat::Json => {
            let mut text = serde_json::to_string_pretty(&summary_json(sg, alloc, opts))
                .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
            text.push('\n');
            text
        }
        SummaryFormat::Table => alloc.summary_table(sg),
    }
}

/// The summary of a module the pass left alone because it is already allocated.
pub fn skipped_text(root: &str, why: &str, format: SummaryFormat) -> String {
    match format {
        SummaryFormat::Json => {
            let value = json!({ "graph": root, "skipped": why });
            format!(
                "{}\n",
                serde_json::to_string_pretty(&value).unwrap_or_default()
            )
        }
        SummaryFormat::Table => format!("stream-alloc skipped {root}: {why}\n"),
    }
}

/// Files this process has written a report to.
static WRITTEN: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// Writes `text` to `path` (`-` is standard output). The first write to a file in this
/// process truncates it and later ones append: with `--split-input-file` every chunk runs
/// its own pass and the file holds every chunk's report, in chunk order (one JSON document
/// per chunk — a JSON text sequence `jq` reads as is —, one table, or one `digraph` per
/// chunk, which Graphviz renders one by one).
pub fn write_to(path: &str, text: &str) -> Result<(), String> {
    if path == "-" {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write standard output: {e}"));
    }
    let mut written = WRITTEN.lock().unwrap_or_else(|e| e.into_inner());
    let append = written.contains(path);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(path);
    file.and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("cannot write '{path}': {e}"))?;
    written.insert(path.to_string());
    Ok(())
}
