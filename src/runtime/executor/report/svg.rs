//! `ge-run --timeline out.svg`: the run's timeline as a picture. One row per (device,
//! stream), one box per task (coloured by kind, its tooltip the op, node and interval),
//! an arrow from each event record to the wait it released, and a time axis. For people
//! who would rather look than read; the numbers are in `--report` and `--trace`.

use std::collections::BTreeMap;

use svg::node::element::{Group, Line, Marker, Path, Rectangle, Text, Title};
use svg::Document;

use super::{SimReport, TraceTask};

const LEFT: f64 = 140.0;
const WIDTH: f64 = 1200.0;
const ROW: f64 = 28.0;
const BOX: f64 = 18.0;
const TOP: f64 = 40.0;

fn colour(kind: &str) -> &'static str {
    match kind {
        "kernel" => "#4e79a7",
        "hccl" => "#e15759",
        "memcpy" | "memcpy_d2d" | "memcpy_h2d" | "memcpy_d2h" => "#f28e2b",
        "memset" => "#edc948",
        "event_record" | "event_wait" | "event_reset" => "#59a14f",
        "notify_record" | "notify_wait" => "#76b7b2",
        _ => "#9c9c9c",
    }
}

impl SimReport {
    /// The timeline as SVG text, or `None` without a trace.
    pub fn timeline_svg(&self) -> Option<String> {
        let tasks = self.trace_tasks();
        if tasks.is_empty() {
            return None;
        }
        let rows: BTreeMap<(u32, u32), usize> = {
            let mut keys: Vec<(u32, u32)> = tasks.iter().map(|t| (t.device, t.stream)).collect();
            keys.sort_unstable();
            keys.dedup();
            keys.into_iter().enumerate().map(|(i, k)| (k, i)).collect()
        };
        let t0 = tasks.iter().map(|t| t.start).fold(f64::INFINITY, f64::min);
        let t1 = tasks.iter().map(|t| t.end).fold(0.0, f64::max);
        let span = (t1 - t0).max(1.0);
        let x = |t: f64| LEFT + (t - t0) / span * WIDTH;
        let y = |task: &TraceTask| TOP + rows[&(task.device, task.stream)] as f64 * ROW;
        let height = TOP + rows.len() as f64 * ROW + 30.0;
        let arrow = Marker::new()
            .set("id", "arrow")
            .set("viewBox", "0 0 10 10")
            .set("refX", 10)
            .set("refY", 5)
            .set("markerWidth", 6)
            .set("markerHeight", 6)
            .set("orient", "auto")
            .add(
                Path::new()
                    .set("d", "M 0 0 L 10 5 L 0 10 z")
                    .set("fill", "#333"),
            );
        let mut doc = Document::new()
            .set("width", LEFT + WIDTH + 20.0)
            .set("height", height)
            .set("font-family", "sans-serif")
            .set("font-size", 11)
            .add(svg::node::element::Definitions::new().add(arrow))
            .add(
                Text::new(format!(
                    "timeline: {} tasks on {} streams, makespan {:.3} us",
                    tasks.len(),
                    rows.len(),
                    self.makespan / 1000.0
                ))
                .set("x", 10)
                .set("y", 18)
                .set("font-size", 13),
            );
        for (&(device, stream), &i) in &rows {
            let label = if stream == u32::MAX {
                format!("device {device} default")
            } else {
                format!("device {device} stream {stream}")
            };
            doc = doc.add(
                Text::new(label)
                    .set("x", 10)
                    .set("y", TOP + i as f64 * ROW + BOX * 0.75),
            );
        }
        let mut boxes = Group::new().set("class", "tasks");
        for t in &tasks {
            let mut tip = t.kind.clone();
            if let Some(op) = &t.op {
                tip = op.clone();
            }
            if let Some(node) = &t.node {
                tip += &format!(" `{node}`");
            }
            tip += &format!(" [{:.3}, {:.3}] us", t.start / 1000.0, t.end / 1000.0);
            boxes = boxes.add(
                Rectangle::new()
                    .set("class", "task")
                    .set("x", x(t.start))
                    .set("y", y(t))
                    .set("width", (x(t.end) - x(t.start)).max(0.5))
                    .set("height", BOX)
                    .set("fill", colour(&t.kind))
                    .set("stroke", "#222")
                    .set("stroke-width", 0.3)
                    .add(Title::new(tip)),
            );
        }
        doc = doc.add(boxes);
        let mut arrows = Group::new()
            .set("class", "events")
            .set("stroke", "#333")
            .set("stroke-width", 0.8);
        for (r, w) in Self::record_wait_pairs(&tasks) {
            let (r, w) = (&tasks[r], &tasks[w]);
            arrows = arrows.add(
                Line::new()
                    .set("class", "event")
                    .set("x1", x(r.end))
                    .set("y1", y(r) + BOX / 2.0)
                    .set("x2", x(w.start))
                    .set("y2", y(w) + BOX / 2.0)
                    .set("marker-end", "url(#arrow)")
                    .add(Title::new(format!("event {}", r.event.unwrap_or(0)))),
            );
        }
        doc = doc.add(arrows);
        let axis_y = TOP + rows.len() as f64 * ROW + 5.0;
        doc = doc.add(
            Line::new()
                .set("x1", LEFT)
                .set("y1", axis_y)
                .set("x2", LEFT + WIDTH)
                .set("y2", axis_y)
                .set("stroke", "#000"),
        );
        for k in 0..=4 {
            let t = t0 + span * f64::from(k) / 4.0;
            doc = doc.add(
                Text::new(format!("{:.3} us", t / 1000.0))
                    .set("x", x(t))
                    .set("y", axis_y + 15.0)
                    .set("text-anchor", "middle"),
            );
        }
        Some(doc.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_picture_is_well_formed_xml_with_one_box_per_task_and_an_arrow_per_wait() {
        let report = SimReport::parse(
            r#"{"makespan_ns": 30, "streams": [], "tasks_by_kind": {},
                "trace": [
                  {"stream": "device 0 stream 1", "kind": "kernel", "name": "MatMul", "node": "a<b>&c", "start_ns": 0, "end_ns": 10},
                  {"stream": "device 0 stream 3", "kind": "kernel", "name": "Relu", "start_ns": 0, "end_ns": 5},
                  {"stream": "device 0 stream 1", "kind": "event_record", "name": "event_record", "event": 4, "start_ns": 10, "end_ns": 11},
                  {"stream": "device 0 stream 2", "kind": "event_wait", "name": "event_wait", "event": 4, "start_ns": 11, "end_ns": 12},
                  {"stream": "device 0 stream 2", "kind": "kernel", "name": "Add", "start_ns": 12, "end_ns": 30},
                  {"stream": "device 0 stream 4", "kind": "model_execute", "name": "model_execute", "start_ns": 0, "end_ns": 30}]}"#,
        )
        .unwrap();
        let text = report.timeline_svg().unwrap();
        let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        let with_class = |tag: &str, class: &str| {
            doc.descendants()
                .filter(|n| n.tag_name().name() == tag && n.attribute("class") == Some(class))
                .count()
        };
        assert_eq!(
            with_class("rect", "task"),
            5,
            "the model execution is not a task"
        );
        assert_eq!(with_class("line", "event"), 1);
        let labels: Vec<&str> = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "text")
            .filter_map(|n| n.text())
            .map(str::trim)
            .collect();
        for row in [
            "device 0 stream 1",
            "device 0 stream 2",
            "device 0 stream 3",
        ] {
            assert!(labels.contains(&row), "{labels:?}");
        }
        let tips: Vec<&str> = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "title")
            .filter_map(|n| n.text())
            .map(str::trim)
            .collect();
        assert!(
            tips.iter().any(|t| t.starts_with("MatMul `a<b>&c`")),
            "{tips:?}"
        );
        // A box's width is its share of the span: the 18 ns Add is wider than the 5 ns Relu.
        let width = |tip: &str| {
            doc.descendants()
                .find(|n| {
                    n.attribute("class") == Some("task")
                        && n.children()
                            .any(|c| c.text().is_some_and(|t| t.trim().starts_with(tip)))
                })
                .and_then(|n| n.attribute("width")?.parse::<f64>().ok())
                .unwrap()
        };
        assert!(width("Add") > 3.0 * width("Relu"));
        assert!(SimReport::parse(r#"{"makespan_ns": 0}"#)
            .unwrap()
            .timeline_svg()
            .is_none());
    }
}
