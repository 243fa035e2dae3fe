//! Live workspace bytes over simulated time, from the trace's ranges (`reads`, `writes`
//! of every task): a write makes its bytes a live value from the writer's start; each
//! later read keeps it live until that reader ends; the next write of the same bytes (or
//! the end of the run) ends it. The plan's `memory_size` is an upper bound of the peak,
//! and the gap between them is what the plan's reuse did not find (or could not, across
//! unordered streams).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::lowering::model::{Region, Task, TaskModel};

/// One device's live workspace bytes as a step function.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveBytes {
    pub device: u32,
    /// The workspace's device address (found by matching a traced kernel to the model).
    pub base: u64,
    /// (simulated ns, live bytes from then on), in time order.
    pub points: Vec<(f64, u64)>,
    pub peak: u64,
}

/// A traced task with its ranges.
struct Traced {
    device: u32,
    node: Option<String>,
    start: f64,
    end: f64,
    reads: Vec<(u64, u64)>,
    writes: Vec<(u64, u64)>,
}

fn ranges(entry: &Value, key: &str) -> Vec<(u64, u64)> {
    entry
        .get(key)
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|r| Some((r.get(0)?.as_u64()?, r.get(1)?.as_u64()?)))
                .collect()
        })
        .unwrap_or_default()
}

fn traced(trace: &[Value]) -> Vec<Traced> {
    trace
        .iter()
        .filter(|e| e.get("reads").is_some() || e.get("writes").is_some())
        .map(|e| {
            let (device, _) =
                super::parse_label(e.get("stream").and_then(Value::as_str).unwrap_or(""));
            Traced {
                device: device.unwrap_or(0),
                node: e.get("node").and_then(Value::as_str).map(str::to_owned),
                start: e.get("start_ns").and_then(Value::as_f64).unwrap_or(0.0),
                end: e.get("end_ns").and_then(Value::as_f64).unwrap_or(0.0),
                reads: ranges(e, "reads"),
                writes: ranges(e, "writes"),
            }
        })
        .collect()
}

/// A kernel's planned workspace offsets: (inputs, outputs), `None` for other regions.
type PlannedOffsets = (Vec<Option<u64>>, Vec<Option<u64>>);

/// The workspace's address on each device: every traced kernel the model names votes
/// `address - planned offset` for each workspace operand; the most frequent vote wins
/// (names are unique per kernel, so one match already decides it).
fn workspace_bases(tasks: &[Traced], model: &TaskModel) -> BTreeMap<u32, u64> {
    let mut planned: BTreeMap<&str, PlannedOffsets> = BTreeMap::new();
    for task in model.streams.iter().flat_map(|s| &s.tasks) {
        if let Task::Kernel {
            node,
            inputs,
            outputs,
            ..
        } = task
        {
            let offsets = |ops: &Vec<crate::lowering::model::Operand>| {
                ops.iter()
                    .map(|o| (o.addr.region == Region::Workspace).then_some(o.addr.offset))
                    .collect()
            };
            planned.insert(node.as_str(), (offsets(inputs), offsets(outputs)));
        }
    }
    let mut votes: BTreeMap<(u32, u64), u64> = BTreeMap::new();
    for t in tasks {
        let Some((ins, outs)) = t.node.as_deref().and_then(|n| planned.get(n)) else {
            continue;
        };
        if ins.len() != t.reads.len() || outs.len() != t.writes.len() {
            continue;
        }
        let pairs = ins.iter().zip(&t.reads).chain(outs.iter().zip(&t.writes));
        for (offset, &(addr, _)) in pairs {
            if let Some(offset) = offset {
                *votes
                    .entry((t.device, addr.wrapping_sub(*offset)))
                    .or_default() += 1;
            }
        }
    }
    let mut best: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    for ((device, base), n) in votes {
        let entry = best.entry(device).or_insert((base, 0));
        if n > entry.1 {
            *entry = (base, n);
        }
    }
    best.into_iter().map(|(d, (base, _))| (d, base)).collect()
}

/// A piece of workspace holding one value: written at `born`, last needed at `last`.
#[derive(Clone, Copy)]
struct Piece {
    hi: u64,
    born: f64,
    last: f64,
}

/// Makes `at` a piece boundary.
fn split(pieces: &mut BTreeMap<u64, Piece>, at: u64) {
    let Some((&lo, &piece)) = pieces.range(..at).next_back() else {
        return;
    };
    if piece.hi > at {
        pieces.insert(lo, Piece { hi: at, ..piece });
        pieces.insert(at, piece);
    }
}

fn clip(range: (u64, u64), base: u64, size: u64) -> Option<(u64, u64)> {
    let lo = range.0.max(base);
    let hi = range.0.saturating_add(range.1).min(base + size);
    (lo < hi).then_some((lo, hi))
}

/// One device's step function from its tasks (in start order).
fn device_series(tasks: &[&Traced], base: u64, size: u64) -> (Vec<(f64, u64)>, u64) {
    let mut pieces: BTreeMap<u64, Piece> = BTreeMap::new();
    let mut done: Vec<(f64, f64, u64)> = Vec::new();
    for t in tasks {
        for (lo, hi) in t.reads.iter().filter_map(|&r| clip(r, base, size)) {
            split(&mut pieces, lo);
            split(&mut pieces, hi);
            for (_, p) in pieces.range_mut(lo..hi) {
                p.last = p.last.max(t.end);
            }
        }
        for (lo, hi) in t.writes.iter().filter_map(|&r| clip(r, base, size)) {
            split(&mut pieces, lo);
            split(&mut pieces, hi);
            let old: Vec<u64> = pieces.range(lo..hi).map(|(&k, _)| k).collect();
            for k in old {
                let p = pieces.remove(&k).expect("listed above");
                done.push((p.born, p.last, p.hi - k));
            }
            pieces.insert(
                lo,
                Piece {
                    hi,
                    born: t.start,
                    last: t.end,
                },
            );
        }
    }
    done.extend(pieces.iter().map(|(&lo, p)| (p.born, p.last, p.hi - lo)));
    let mut deltas: Vec<(f64, i64)> = Vec::with_capacity(done.len() * 2);
    for (born, last, bytes) in done {
        deltas.push((born, bytes as i64));
        deltas.push((last.max(born), -(bytes as i64)));
    }
    // Ends before starts at one instant: a value freed as the next is born is not both live.
    deltas.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut points: Vec<(f64, u64)> = Vec::new();
    let (mut live, mut peak) = (0i64, 0u64);
    for (time, delta) in deltas {
        live += delta;
        let now = live.max(0) as u64;
        peak = peak.max(now);
        match points.last_mut() {
            Some(last) if last.0 == time => last.1 = now,
            _ => points.push((time, now)),
        }
    }
    (points, peak)
}

/// Live workspace bytes per device, from a trace whose entries carry `reads`/`writes`
/// (the simulator's `trace=1`); empty when the trace has no ranges or no kernel could be
/// matched to the model.
pub fn live_workspace(trace: &[Value], model: &TaskModel) -> Vec<LiveBytes> {
    let tasks = traced(trace);
    let bases = workspace_bases(&tasks, model);
    bases
        .into_iter()
        .map(|(device, base)| {
            let mut mine: Vec<&Traced> = tasks.iter().filter(|t| t.device == device).collect();
            mine.sort_by(|a, b| a.start.total_cmp(&b.start).then(a.end.total_cmp(&b.end)));
            let (points, peak) = device_series(&mine, base, model.memory_size);
            LiveBytes {
                device,
                base,
                points,
                peak,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(start: f64, end: f64, reads: &[(u64, u64)], writes: &[(u64, u64)]) -> Traced {
        Traced {
            device: 0,
            node: None,
            start,
            end,
            reads: reads.to_vec(),
            writes: writes.to_vec(),
        }
    }

    #[test]
    fn a_value_lives_from_its_write_to_its_last_read() {
        // A writes [0,100) at 0..10; B writes [100,150) at 10..20 and reads A's value;
        // C reads B's at 20..30 and overwrites A's bytes (reuse); nothing reads C's.
        let a = task(0.0, 10.0, &[], &[(1000, 100)]);
        let b = task(10.0, 20.0, &[(1000, 100)], &[(1100, 50)]);
        let c = task(20.0, 30.0, &[(1100, 50)], &[(1000, 100)]);
        let (points, peak) = device_series(&[&a, &b, &c], 1000, 512);
        assert_eq!(peak, 150, "A's and B's values overlap during B");
        assert_eq!(
            points,
            vec![(0.0, 100), (10.0, 150), (20.0, 150), (30.0, 0)],
            "A dies as C is born at 20 (ends first); B and C die at 30"
        );
        // Ranges outside the workspace are not counted.
        let d = task(0.0, 5.0, &[], &[(5000, 64)]);
        assert_eq!(device_series(&[&d], 1000, 512).1, 0);
    }
}
