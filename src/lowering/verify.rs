//! Checks on a task model (`--verify-tasks`, and the end of `--lower-to-tasks`): what the
//! runtime would otherwise find as a hang, a bad address or an ACL error at load.
//!
//! * stream, event, notify and label ids are in range; streams are numbered densely;
//! * every waited event (notify) is recorded on another stream; every reset follows a
//!   wait of its event on the same stream;
//! * every label a switch or goto targets is set on the same stream, and set once;
//! * every activated stream exists and is marked `activated`, and every stream marked
//!   `activated` has an activation;
//! * every address lies inside its region (workspace `memory_size`, weight and variable
//!   sizes, the input and output buffers), and each operand holds its tensor;
//! * the model ends (one MODEL_END_GRAPH).

use super::model::*;
use std::collections::{HashMap, HashSet};

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Model,
    Stream(usize),
    /// Stream position, task position.
    Task(usize, usize),
    Weight(usize),
    Variable(usize),
    Output(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub place: Place,
    pub message: String,
}

/// Every problem of `model`, in model order.
pub fn verify_model(model: &TaskModel) -> Vec<Finding> {
    let mut v = Verifier {
        model,
        findings: Vec::new(),
    };
    v.run();
    v.findings
}

struct Verifier<'m> {
    model: &'m TaskModel,
    findings: Vec<Finding>,
}

impl Verifier<'_> {
    fn add(&mut self, place: Place, message: String) {
        self.findings.push(Finding { place, message });
    }

    fn run(&mut self) {
        let m = self.model;
        if m.streams.len() != m.stream_num as usize {
            self.add(
                Place::Model,
                format!(
                    "stream_num is {} but the model has {} streams",
                    m.stream_num,
                    m.streams.len()
                ),
            );
        }
        for (s, stream) in m.streams.iter().enumerate() {
            if stream.id as usize != s {
                self.add(
                    Place::Stream(s),
                    format!(
                        "stream {} is at position {s}: streams must be numbered 0..stream_num",
                        stream.id
                    ),
                );
            }
        }
        self.regions();
        self.sync();
        self.labels();
        self.activation();
        let ends: usize = m
            .streams
            .iter()
            .map(|s| {
                s.tasks
                    .iter()
                    .filter(|t| matches!(t, Task::ModelEndGraph))
                    .count()
            })
            .sum();
        if ends != 1 {
            self.add(
                Place::Model,
                format!("the model has {ends} MODEL_END_GRAPH tasks, expected 1"),
            );
        }
    }

    /// The byte size of `region`, if it exists.
    fn region_size(&self, region: Region) -> Option<u64> {
        let m = self.model;
        match region {
            Region::Workspace => Some(m.memory_size),
            Region::Weight => Some(m.weight_size),
            Region::Variable => Some(m.var_size),
            Region::Input(k) => m
                .inputs
                .iter()
                .find(|i| i.index == k)
                .map(|i| i.desc.bytes()),
            Region::Output(k) => m
                .outputs
                .iter()
                .find(|o| o.index == k)
                .map(|o| o.operand.desc.bytes()),
        }
    }

    fn span(&mut self, place: Place, what: &str, addr: Addr, size: u64) {
        match self.region_size(addr.region) {
            None => self.add(
                place,
                format!("{what}: {} does not exist", region_text(addr.region)),
            ),
            Some(limit) if addr.offset.checked_add(size).is_none_or(|end| end > limit) => self.add(
                place,
                format!(
                    "{what}: bytes [{}, {}) lie outside {} ({limit} bytes)",
                    addr.offset,
                    addr.offset.saturating_add(size),
                    region_text(addr.region)
                ),
            ),
            _ => {}
        }
    }

    fn operand(&mut self, place: Place, what: &str, o: &Operand) {
        if o.size < o.desc.bytes() {
            self.add(
                place,
                format!(
                    "{what}: {} bytes cannot hold its tensor of {} bytes",
                    o.size,
                    o.desc.bytes()
                ),
            );
        }
        self.span(place, what, o.addr, o.size);
    }

    fn regions(&mut self) {
        let m = self.model;
        for (i, w) in m.weights.iter().enumerate() {
            if w.bytes.len() as u64 != w.desc.bytes() {
                self.add(
                    Place::Weight(i),
                    format!(
                        "weight `{}` has {} bytes, its type {}",
                        w.node,
                        w.bytes.len(),
                        w.desc.bytes()
                    ),
                );
            }
            self.span(
                Place::Weight(i),
                "weight",
                Addr {
                    region: Region::Weight,
                    offset: w.offset,
                },
                w.desc.bytes(),
            );
        }
        for (i, v) in m.variables.iter().enumerate() {
            if let Some(init) = &v.init {
                if init.len() as u64 != v.desc.bytes() {
                    self.add(
                        Place::Variable(i),
                        format!(
                            "variable `{}` has {} initial bytes, its type {}",
                            v.node,
                            init.len(),
                            v.desc.bytes()
                        ),
                    );
                }
            }
            self.span(
                Place::Variable(i),
                "variable",
                Addr {
                    region: Region::Variable,
                    offset: v.offset,
                },
                v.desc.bytes(),
            );
        }
        for (i, o) in m.outputs.iter().enumerate() {
            self.operand(Place::Output(i), "output", &o.operand);
        }
        for (s, stream) in m.streams.iter().enumerate() {
            for (t, task) in stream.tasks.iter().enumerate() {
                let place = Place::Task(s, t);
                match task {
                    Task::Kernel {
                        inputs, outputs, ..
                    }
                    | Task::Hccl {
                        inputs, outputs, ..
                    } => {
                        for (k, o) in inputs.iter().enumerate() {
                            self.operand(place, &format!("input {k}"), o);
                        }
                        for (k, o) in outputs.iter().enumerate() {
                            self.operand(place, &format!("output {k}"), o);
                        }
                    }
                    Task::MemcpyAsync { src, dst, .. } => {
                        self.operand(place, "source", src);
                        self.operand(place, "destination", dst);
                        if dst.size < src.size {
                            self.add(
                                place,
                                format!("copies {} bytes into {} bytes", src.size, dst.size),
                            );
                        }
                    }
                    Task::Memset { dst, size, .. } => self.span(place, "memset", *dst, *size),
                    Task::StreamSwitch { value, target, .. } => {
                        self.operand(place, "value", value);
                        self.operand(place, "target", target);
                    }
                    Task::LabelSwitchByIndex { index, .. } => {
                        self.operand(place, "index", index);
                        if !matches!(index.desc.dtype, DType::I32 | DType::U32) || index.size < 4 {
                            self.add(
                                place,
                                "the switch index must be an int32/uint32 scalar".into(),
                            );
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    fn sync(&mut self) {
        let m = self.model;
        let mut recorded: HashMap<u32, HashSet<usize>> = HashMap::new();
        let mut notified: HashMap<u32, HashSet<usize>> = HashMap::new();
        for (s, stream) in m.streams.iter().enumerate() {
            for task in &stream.tasks {
                match task {
                    Task::EventRecord { event, .. } => {
                        recorded.entry(*event).or_default().insert(s);
                    }
                    Task::NotifyRecord { notify, .. } => {
                        notified.entry(*notify).or_default().insert(s);
                    }
                    _ => {}
                }
            }
        }
        for (s, stream) in m.streams.iter().enumerate() {
            let mut waited: HashSet<u32> = HashSet::new();
            for (t, task) in stream.tasks.iter().enumerate() {
                let place = Place::Task(s, t);
                match task {
                    Task::EventRecord { event, .. } => self.event_id(place, *event),
                    Task::EventWait { event, .. } => {
                        self.event_id(place, *event);
                        waited.insert(*event);
                        if !recorded
                            .get(event)
                            .is_some_and(|on| on.iter().any(|&r| r != s))
                        {
                            self.add(
                                place,
                                format!(
                                    "event {event} is waited but never recorded on another stream"
                                ),
                            );
                        }
                    }
                    Task::EventReset { event, .. } => {
                        self.event_id(place, *event);
                        if !waited.contains(event) {
                            self.add(
                                place,
                                format!("event {event} is reset before this stream waits for it"),
                            );
                        }
                    }
                    Task::NotifyRecord { notify, .. } => self.notify_id(place, *notify),
                    Task::NotifyWait { notify, .. } => {
                        self.notify_id(place, *notify);
                        if !notified
                            .get(notify)
                            .is_some_and(|on| on.iter().any(|&r| r != s))
                        {
                            self.add(place, format!("notify {notify} is waited but never recorded on another stream"));
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    fn event_id(&mut self, place: Place, event: u32) {
        if event >= self.model.event_num {
            self.add(
                place,
                format!(
                    "event {event} is out of range (event_num {})",
                    self.model.event_num
                ),
            );
        }
    }

    fn notify_id(&mut self, place: Place, notify: u32) {
        if notify >= self.model.notify_num {
            self.add(
                place,
                format!(
                    "notify {notify} is out of range (notify_num {})",
                    self.model.notify_num
                ),
            );
        }
    }

    fn labels(&mut self) {
        let m = self.model;
        let mut set_on: HashMap<u32, usize> = HashMap::new();
        for (s, stream) in m.streams.iter().enumerate() {
            for (t, task) in stream.tasks.iter().enumerate() {
                if let Task::LabelSet { label, .. } = task {
                    if *label >= m.label_num {
                        self.add(
                            Place::Task(s, t),
                            format!("label {label} is out of range (label_num {})", m.label_num),
                        );
                    }
                    if set_on.insert(*label, s).is_some() {
                        self.add(Place::Task(s, t), format!("label {label} is set twice"));
                    }
                }
            }
        }
        for (s, stream) in m.streams.iter().enumerate() {
            for (t, task) in stream.tasks.iter().enumerate() {
                let targets: &[u32] = match task {
                    Task::LabelGoto { label, .. } => std::slice::from_ref(label),
                    Task::LabelSwitchByIndex { labels, .. } => labels,
                    _ => continue,
                };
                if targets.is_empty() {
                    self.add(Place::Task(s, t), "a label switch with no labels".into());
                }
                for label in targets {
                    match set_on.get(label) {
                        Some(&on) if on == s => {}
                        Some(&on) => self.add(
                            Place::Task(s, t),
                            format!("label {label} is set on stream {on}, not on this stream {s}"),
                        ),
                        None => self.add(Place::Task(s, t), format!("label {label} is never set")),
                    }
                }
            }
        }
    }

    fn activation(&mut self) {
        let m = self.model;
        let mut activated: HashSet<u32> = HashSet::new();
        for (s, stream) in m.streams.iter().enumerate() {
            for (t, task) in stream.tasks.iter().enumerate() {
                let target = match task {
                    Task::StreamActive { stream, .. } => *stream,
                    Task::StreamSwitch { true_stream, .. } => *true_stream,
                    _ => continue,
                };
                activated.insert(target);
                match m.streams.get(target as usize) {
                    None => self.add(Place::Task(s, t), format!("activates stream {target}, which does not exist")),
                    Some(st) if !st.activated => self.add(
                        Place::Task(s, t),
                        format!("activates stream {target}, which is bound as a HEAD stream (activated = false)"),
                    ),
                    _ => {}
                }
            }
        }
        for (s, stream) in m.streams.iter().enumerate() {
            if stream.activated && !activated.contains(&stream.id) {
                self.add(
                    Place::Stream(s),
                    format!(
                        "stream {} is marked activated but no task activates it",
                        stream.id
                    ),
                );
            }
        }
    }
}

fn region_text(r: Region) -> String {
    match r {
        Region::Workspace => "the workspace".into(),
        Region::Weight => "the weight region".into(),
        Region::Variable => "the variable region".into(),
        Region::Input(k) => format!("model input {k}"),
        Region::Output(k) => format!("model output {k}"),
    }
}
