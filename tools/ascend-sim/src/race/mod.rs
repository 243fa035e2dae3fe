//! The race detector (`geSimConfigure("race=1")`): happens-before over vector clocks per
//! stream (stream order, event and notify record → wait, stream activation and switch,
//! model start, collectives, host issue and synchronisation) checked against shadow
//! memory on every device access. Every unordered read-after-write, write-after-read and
//! write-after-write pair is reported once, with both tasks, the byte range and an event
//! that would have ordered them; so are reads of never-written bytes, accesses to freed
//! memory and frees of memory a queued task still uses.
//!
//! Accesses are checked when a task starts; ordering is independent of simulated time, so
//! a race is found whichever schedule the seed chose, as long as both tasks run.

pub mod clock;
mod hooks;
pub mod shadow;
pub use hooks::task_accesses;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use serde_json::{json, Value};
use smallvec::SmallVec;

use crate::handles::{Id, IdMap};
use crate::task::TaskKind;
use clock::VClock;
use shadow::{Access, Conflict, Shadow};

/// The host's stream index.
pub const HOST: u32 = 0;
/// A task record meaning "a host call" (no task).
const HOST_TASK: u32 = u32::MAX;

/// What a report says about one task.
#[derive(Debug, Clone)]
pub struct TaskRecord {
    pub stream: Id,
    pub kind: TaskKind,
    /// Interned op type (kernels), else `u32::MAX`.
    pub op: u32,
    /// Interned node name given by `geSimSetTaskName`, else `u32::MAX`.
    pub node: u32,
    /// The device ranges the task touches, in `task_accesses` order, with their roles.
    pub args: SmallVec<[Arg; 4]>,
}

/// One device range a task touches: `[lo, hi)`, whether it writes it, and which of the
/// task's operands it is (`input 1`, `output 0`, `source`, ...), so a report can name
/// the tensor.
#[derive(Debug, Clone, Copy)]
pub struct Arg {
    pub lo: u64,
    pub hi: u64,
    pub write: bool,
    pub role: &'static str,
    /// The operand's index among those of its role (kernels: input j, output k).
    pub index: u32,
}

impl Arg {
    fn operand(&self) -> String {
        match self.role {
            "input" | "output" => format!("{} {}", self.role, self.index),
            role => role.to_owned(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Race {
    pub kind: &'static str,
    pub first: Option<Value>,
    pub second: Value,
    pub lo: u64,
    pub hi: u64,
    /// The earlier access and the later stream, for the ordering event (looked up when
    /// reported: the record may run after the race was seen).
    pub pair: Option<(Access, u32)>,
    pub count: u64,
}

/// What `geSimSetHcclTask` says about the next collective of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingHccl {
    /// The node's op type, interned in `Sim::op_names` (`u32::MAX`: not given).
    pub op_type: u32,
    /// Which input/output pair of its node the call is.
    pub part: u32,
}

#[derive(Debug, Default)]
pub struct Detector {
    pub enabled: bool,
    index: IdMap<u32>,
    labels: Vec<String>,
    clocks: Vec<VClock>,
    host: VClock,
    /// The host's clock when each queued (non-model) task was issued, by stream.
    issued: IdMap<std::collections::VecDeque<VClock>>,
    events: IdMap<VClock>,
    notifies: IdMap<VClock>,
    /// Per stream index: (clock, event, event label) of each record, in order.
    records: Vec<Vec<(u32, Id, Arc<str>)>>,
    /// Stream indices that waited for each event.
    waited: IdMap<HashSet<u32>>,
    shadow: Shadow,
    freed: BTreeMap<u64, u64>,
    pub tasks: Vec<TaskRecord>,
    pub names: Vec<Arc<str>>,
    name_index: HashMap<String, u32>,
    /// Node name for the next task issued on a stream (`geSimSetTaskName`).
    pub pending_name: IdMap<u32>,
    /// Op type (interned in `Sim::op_names`) and input/output pair of its node for the
    /// next collective issued on a stream (`geSimSetHcclTask`).
    pub pending_hccl: IdMap<PendingHccl>,
    pub races: Vec<Race>,
    seen: HashMap<(String, String, String), usize>,
    conflicts: Vec<Conflict>,
}

impl Detector {
    pub fn new(enabled: bool) -> Detector {
        Detector {
            enabled,
            ..Default::default()
        }
    }

    /// The name `geSimSetTaskName` gave the next task of stream `s` (`u32::MAX`: none),
    /// for a kernel or copy being issued there. It also drops a pending
    /// `geSimSetHcclTask`, which was meant for a collective: a stale one must not name a
    /// later collective.
    pub fn take_name(&mut self, s: Id) -> u32 {
        self.pending_hccl.remove(&s);
        self.pending_name.remove(&s).unwrap_or(u32::MAX)
    }

    /// The name and the `geSimSetHcclTask` details for a collective being issued on
    /// stream `s`; either may be missing (the report then falls back to the HCCL call
    /// and `send buffer` / `receive buffer`).
    pub fn take_collective(&mut self, s: Id) -> (u32, Option<PendingHccl>) {
        let hccl = self.pending_hccl.remove(&s);
        (self.pending_name.remove(&s).unwrap_or(u32::MAX), hccl)
    }

    pub fn intern_name(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.name_index.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(Arc::from(name));
        self.name_index.insert(name.to_owned(), i);
        i
    }

    /// Forgets every stream, event, allocation and race (a reset).
    pub fn clear(&mut self) {
        let enabled = self.enabled;
        *self = Detector::default();
        self.enabled = enabled;
    }

    pub fn clear_races(&mut self) {
        self.races.clear();
        self.seen.clear();
    }

    /// The dense index of stream `s` (1, 2, ...; 0 is the host).
    pub fn stream(&mut self, s: Id, label: &str) -> u32 {
        if let Some(&i) = self.index.get(&s) {
            return i;
        }
        if self.clocks.is_empty() {
            self.clocks.push(VClock::default());
            self.labels.push("host".to_owned());
            self.records.push(Vec::new());
        }
        let i = self.clocks.len() as u32;
        self.index.insert(s, i);
        self.clocks.push(VClock::default());
        self.labels.push(label.to_owned());
        self.records.push(Vec::new());
        i
    }

    fn idx(&self, s: Id) -> Option<u32> {
        self.index.get(&s).copied()
    }

    // ---- happens-before ----

    /// The host issued a task to a (non-model) stream: the task will know what the host
    /// knew then.
    pub fn host_issue(&mut self, s: Id) {
        self.host.tick(HOST);
        self.issued
            .entry(s)
            .or_default()
            .push_back(self.host.clone());
    }

    /// A task of stream `s` starts: a new epoch of `s`, joined with the host's clock at its
    /// issue (`from_queue`). Returns the stream index.
    pub fn task_start(&mut self, s: Id, label: &str, from_queue: bool) -> u32 {
        let i = self.stream(s, label);
        if from_queue {
            if let Some(h) = self.issued.get_mut(&s).and_then(|q| q.pop_front()) {
                self.clocks[i as usize].join(&h);
            }
        }
        self.clocks[i as usize].tick(i);
        i
    }

    /// An event record on `s` finished: a wait that sees it knows everything before it.
    pub fn record(&mut self, ev: Id, ev_label: &str, s: Id) {
        let Some(i) = self.idx(s) else { return };
        let c = self.clocks[i as usize].clone();
        let own = c.get(i);
        self.events.insert(ev, c);
        let label: Arc<str> = Arc::from(ev_label);
        self.records[i as usize].push((own, ev, label));
    }

    pub fn wait(&mut self, ev: Id, s: Id) {
        let Some(i) = self.idx(s) else { return };
        self.waited.entry(ev).or_default().insert(i);
        if let Some(c) = self.events.get(&ev) {
            let c = c.clone();
            self.clocks[i as usize].join(&c);
        }
    }

    pub fn notify_record(&mut self, n: Id, s: Id) {
        let Some(i) = self.idx(s) else { return };
        self.notifies.insert(n, self.clocks[i as usize].clone());
    }

    pub fn notify_wait(&mut self, n: Id, s: Id) {
        let Some(i) = self.idx(s) else { return };
        if let Some(c) = self.notifies.get(&n) {
            let c = c.clone();
            self.clocks[i as usize].join(&c);
        }
    }

    /// `to` learns everything `from` knows (activation, a model start, a model end).
    pub fn join_streams(&mut self, from: Id, from_label: &str, to: Id, to_label: &str) {
        let f = self.stream(from, from_label);
        let t = self.stream(to, to_label);
        let c = self.clocks[f as usize].clone();
        self.clocks[t as usize].join(&c);
    }

    /// The streams of one collective all learn what each of them knew.
    pub fn collective(&mut self, streams: &[(Id, String)]) {
        let mut all = VClock::default();
        let idx: Vec<u32> = streams.iter().map(|(s, l)| self.stream(*s, l)).collect();
        for &i in &idx {
            all.join(&self.clocks[i as usize]);
        }
        for &i in &idx {
            self.clocks[i as usize].join(&all);
        }
    }

    /// A synchronize call returned: the host knows everything stream `s` did.
    pub fn host_join_stream(&mut self, s: Id) {
        if let Some(i) = self.idx(s) {
            let c = self.clocks[i as usize].clone();
            self.host.join(&c);
        }
    }

    pub fn host_join_event(&mut self, ev: Id) {
        if let Some(c) = self.events.get(&ev) {
            let c = c.clone();
            self.host.join(&c);
        }
    }

    // ---- memory ----

    pub fn allocate(&mut self, base: u64, len: u64) {
        self.freed.remove(&base);
        self.shadow.allocate(base, len);
    }

    pub fn free(&mut self, base: u64, len: u64) {
        self.shadow.remove(base, base + len);
        self.freed.insert(base, len);
    }

    /// Records a task (for reports) and returns its number.
    pub fn task_record(&mut self, rec: TaskRecord) -> u32 {
        self.tasks.push(rec);
        self.tasks.len() as u32 - 1
    }

    fn freed_hit(&self, lo: u64, hi: u64) -> bool {
        self.freed
            .range(..hi)
            .next_back()
            .is_some_and(|(&b, &l)| b + l > lo)
    }

    /// A device access of `[addr, addr+len)` by task `task` of stream index `i` (or the
    /// host, `i == HOST`).
    pub fn access(&mut self, i: u32, task: u32, addr: u64, len: u64, write: bool, cx: &Names) {
        if len == 0 {
            return;
        }
        let (lo, hi) = (addr, addr.saturating_add(len));
        if !self.shadow.covers_any(lo, hi) {
            if self.freed_hit(lo, hi) {
                let second = self.describe(i, task, cx, (lo, hi, write));
                self.add("use-after-free", None, second, lo, hi, None);
            }
            return;
        }
        let clock = if i == HOST {
            self.host.get(HOST)
        } else {
            self.clocks[i as usize].get(i)
        };
        let acc = Access {
            stream: i,
            clock,
            task,
        };
        let mut out = std::mem::take(&mut self.conflicts);
        out.clear();
        {
            let vc = if i == HOST {
                &self.host
            } else {
                &self.clocks[i as usize]
            };
            if write {
                self.shadow.write(lo, hi, acc, vc, &mut out);
            } else {
                self.shadow.read(lo, hi, acc, vc, &mut out);
            }
        }
        for c in out.drain(..) {
            let (kind, earlier, lo, hi) = match c {
                Conflict::ReadAfterWrite { earlier, lo, hi } => {
                    ("read-after-write", Some(earlier), lo, hi)
                }
                Conflict::WriteAfterRead { earlier, lo, hi } => {
                    ("write-after-read", Some(earlier), lo, hi)
                }
                Conflict::WriteAfterWrite { earlier, lo, hi } => {
                    ("write-after-write", Some(earlier), lo, hi)
                }
                Conflict::Uninitialised { lo, hi } => ("uninitialised-read", None, lo, hi),
            };
            // The earlier side wrote (read-after-write, write-after-write) or read.
            let earlier_wrote = kind != "write-after-read";
            let first =
                earlier.map(|e| self.describe(e.stream, e.task, cx, (lo, hi, earlier_wrote)));
            let event = earlier.map(|e| (e, i));
            let second = self.describe(i, task, cx, (lo, hi, write));
            self.add(kind, first, second, lo, hi, event);
        }
        self.conflicts = out;
    }

    /// An event recorded on the earlier access's stream after it that stream `later`
    /// never waited for: the wait that is missing.
    fn ordering_event(&self, earlier: Access, later: u32) -> Option<String> {
        let recs = self.records.get(earlier.stream as usize)?;
        let from = recs.partition_point(|r| r.0 <= earlier.clock);
        recs[from..]
            .iter()
            .take(64)
            .find(|(_, ev, _)| self.waited.get(ev).is_none_or(|w| !w.contains(&later)))
            .map(|(_, _, label)| label.to_string())
    }

    /// A task of a report: stream, kind, op type, node name and the operand (`input 1`,
    /// `output 0`, `source`, ...) whose bytes overlap the race's `(lo, hi)` with the
    /// access's direction (`write`), for the report to name the tensor.
    fn describe(&self, i: u32, task: u32, cx: &Names, (lo, hi, write): (u64, u64, bool)) -> Value {
        let stream = self.labels.get(i as usize).cloned().unwrap_or_default();
        if task == HOST_TASK || i == HOST {
            return json!({"stream": "host", "kind": "host call"});
        }
        let t = &self.tasks[task as usize];
        let op = cx.ops.get(t.op as usize).map(|s| s.to_string());
        let node = self.names.get(t.node as usize).map(|s| s.to_string());
        let overlaps = |a: &&Arg| a.lo < hi && lo < a.hi;
        let operand = t
            .args
            .iter()
            .filter(overlaps)
            .find(|a| a.write == write)
            .or_else(|| t.args.iter().find(overlaps))
            .map(Arg::operand);
        json!({"stream": stream, "kind": t.kind.name(), "op": op, "node": node,
               "operand": operand})
    }

    fn add(
        &mut self,
        kind: &'static str,
        first: Option<Value>,
        second: Value,
        lo: u64,
        hi: u64,
        pair: Option<(Access, u32)>,
    ) {
        let key = (
            kind.to_owned(),
            first.as_ref().map_or(String::new(), |f| f.to_string()),
            second.to_string(),
        );
        if let Some(&k) = self.seen.get(&key) {
            let r = &mut self.races[k];
            r.count += 1;
            r.lo = r.lo.min(lo);
            r.hi = r.hi.max(hi);
            return;
        }
        self.seen.insert(key, self.races.len());
        self.races.push(Race {
            kind,
            first,
            second,
            lo,
            hi,
            pair,
            count: 1,
        });
    }

    /// The host accessed device memory (a synchronous copy or memset).
    pub fn host_access(&mut self, addr: u64, len: u64, write: bool, cx: &Names) {
        self.host.tick(HOST);
        self.access(HOST, HOST_TASK, addr, len, write, cx);
    }

    /// `aclrtFree` of `[base, base+len)` while a queued or running task still uses it.
    pub fn free_in_use(&mut self, base: u64, len: u64, user: Value) {
        self.add("free-while-in-use", None, user, base, base + len, None);
    }

    pub fn to_json(&self) -> Value {
        Value::Array(
            self.races
                .iter()
                .map(|r| {
                    json!({"kind": r.kind, "first": r.first, "second": r.second,
                           "addr": format!("{:#x}", r.lo), "bytes": r.hi - r.lo,
                           "range": [format!("{:#x}", r.lo), format!("{:#x}", r.hi)],
                           "ordering_event": r.pair.and_then(|(e, l)| self.ordering_event(e, l)),
                           "occurrences": r.count})
                })
                .collect(),
        )
    }
}

/// Names the detector's reports need from the simulator.
pub struct Names<'a> {
    pub ops: &'a [Arc<str>],
}
