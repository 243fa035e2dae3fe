//! The process-wide simulator state: every device object, the memory, the scheduler and
//! the report's statistics. The C entry points reach it through one mutex.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Arc;

use ascend_kernels::Attrs;

use crate::config::Config;
use crate::errors::{fail, SimError, SimResult, RT_CONTEXT_NULL, RT_STREAM_CONTEXT, UNINITIALIZE};
use crate::handles::{get, HandleCounter, Id, IdMap, Kind};
use crate::hccl::Group;
use crate::memory::Memory;
use crate::report::Stats;
use crate::scheduler::Scheduler;
use crate::task::{Task, TensorDesc};

/// The bind flags of `aclmdlRIBindStream`.
pub const BIND_HEAD: u32 = 0;
pub const BIND_DEFAULT: u32 = 0x7FFF_FFFF;

#[derive(Debug, Default)]
pub struct Device {
    /// `aclrtSetDevice` calls not yet matched by `aclrtResetDevice`.
    pub refs: u32,
    pub default_stream: Option<Id>,
    pub streams: u32,
    pub events: u32,
    pub notifies: u32,
    /// Creation counters, for the numbers messages and `delay-stream:N` use.
    pub next_stream_number: u32,
    pub next_event_number: u32,
    pub next_notify_number: u32,
}

/// What a stream's head is waiting for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocked {
    Event(Id),
    Notify(Id),
    Collective { group: usize, rank: u32 },
}

/// What a stream has in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Busy {
    Idle,
    /// A timed task in the scheduler's slab.
    Timed(usize),
    /// A model run it started (`aclmdlRIExecuteAsync`), done when the model's streams are.
    Model(Id),
}

#[derive(Debug)]
pub struct Stream {
    pub dev: u32,
    /// Creation number on its device (`None`: the default stream).
    pub number: Option<u32>,
    pub label: String,
    pub queue: VecDeque<Task>,
    pub busy: Busy,
    pub blocked: Option<Blocked>,
    pub in_worklist: bool,
    /// The collective at the head has been counted as arrived.
    pub arrived: bool,
    pub model: Option<Id>,
    pub bind_flag: u32,
    pub program: Vec<Task>,
    pub pc: usize,
    /// Running its program in a model run.
    pub active: bool,
}

impl Stream {
    pub fn new(dev: u32, number: Option<u32>) -> Stream {
        let label = match number {
            Some(n) => format!("device {dev} stream {n}"),
            None => format!("device {dev} default stream"),
        };
        Stream {
            dev,
            number,
            label,
            queue: VecDeque::new(),
            busy: Busy::Idle,
            blocked: None,
            in_worklist: false,
            arrived: false,
            model: None,
            bind_flag: BIND_HEAD,
            program: Vec::new(),
            pc: 0,
            active: false,
        }
    }

    /// Nothing queued, in flight or running.
    pub fn is_done(&self) -> bool {
        self.queue.is_empty() && self.busy == Busy::Idle && !self.active
    }
}

/// How an event was created, which fixes what record, wait and reset mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventMode {
    /// `aclrtCreateEvent`: a latch; reset is undefined on a real device, an error here.
    Plain,
    /// `aclrtCreateEventWithFlag`: a latch that reset clears; only SYNC events may be
    /// waited on.
    Flag { sync: bool },
    /// `aclrtCreateEventExWithFlag`: CUDA semantics (each wait is for the latest record
    /// issued before it; never recorded = complete; no reset, no query).
    Ex,
}

#[derive(Debug)]
pub struct Event {
    pub dev: u32,
    pub number: u32,
    pub mode: EventMode,
    pub flags: u32,
    /// Latch state (Plain and Flag).
    pub set: bool,
    /// Ex: records issued so far; every one up to `done_floor` and those in `done_above`
    /// have finished.
    pub issued: u64,
    pub done_floor: u64,
    pub done_above: BTreeSet<u64>,
    pub waiters: Vec<Id>,
}

impl Event {
    pub fn version_done(&self, v: u64) -> bool {
        v <= self.done_floor || self.done_above.contains(&v)
    }

    pub fn finish_version(&mut self, v: u64) {
        if v == self.done_floor + 1 {
            self.done_floor = v;
            while self.done_above.remove(&(self.done_floor + 1)) {
                self.done_floor += 1;
            }
        } else if v > self.done_floor {
            self.done_above.insert(v);
        }
    }
}

#[derive(Debug)]
pub struct Notify {
    pub dev: u32,
    pub number: u32,
    pub set: bool,
    pub waiters: Vec<Id>,
}

#[derive(Debug)]
pub struct Label {
    pub dev: u32,
    /// (stream, program position of its LabelSet).
    pub set_at: Option<(Id, usize)>,
}

#[derive(Debug)]
pub struct LabelList {
    pub dev: u32,
    pub labels: Vec<Id>,
}

#[derive(Debug)]
pub struct Model {
    pub dev: u32,
    pub building: bool,
    pub built: bool,
    pub streams: Vec<Id>,
    /// The stream whose ExecModel task is running this model, if any.
    pub running_on: Option<Id>,
    pub active_streams: u32,
    pub runs: u64,
}

#[derive(Debug)]
pub struct DataBuffer {
    pub addr: u64,
    pub size: u64,
}

/// Everything behind the C ABI.
pub struct Sim {
    pub cfg: Config,
    pub initialized: bool,
    pub finalized: bool,
    pub devices: Vec<Device>,
    pub mem: Memory,
    pub handles: HandleCounter,
    pub streams: IdMap<Stream>,
    pub events: IdMap<Event>,
    pub notifies: IdMap<Notify>,
    pub labels: IdMap<Label>,
    pub label_lists: IdMap<LabelList>,
    pub models: IdMap<Model>,
    pub descs: IdMap<Arc<TensorDesc>>,
    pub buffers: IdMap<DataBuffer>,
    pub attrs: IdMap<Arc<Attrs>>,
    pub comms: IdMap<crate::hccl::Comm>,
    pub groups: Vec<Group>,
    /// Op type names, interned so a task carries a number.
    pub op_names: Vec<Arc<str>>,
    /// `ascend_kernels::has_kernel` of each interned op type, asked once.
    pub op_has_kernel: Vec<bool>,
    pub op_index: HashMap<String, u32>,
    last_op: u32,
    pub sched: Scheduler,
    pub stats: Stats,
    /// D2H copies that finished: (host address, bytes), written by the C layer before the
    /// call that advanced the device returns.
    pub host_writes: Vec<(u64, Vec<u8>)>,
    /// Failures of tasks that ran (device, error), reported by the next synchronize call
    /// on that device.
    pub device_errors: Vec<(u32, SimError)>,
    pub model_dir: Option<String>,
    /// The attributes of an op issued with a NULL `aclopAttr`, shared by all such tasks.
    pub no_attrs: Arc<Attrs>,
    /// The race detector (`race=1`).
    pub race: crate::race::Detector,
}

impl Sim {
    pub fn new(cfg: Config) -> Sim {
        let n = cfg.device_count;
        let seed = cfg.seed;
        let race = cfg.race;
        Sim {
            devices: (0..n).map(|_| Device::default()).collect(),
            mem: Memory::new(n),
            cfg,
            initialized: false,
            finalized: false,
            handles: HandleCounter::default(),
            streams: IdMap::default(),
            events: IdMap::default(),
            notifies: IdMap::default(),
            labels: IdMap::default(),
            label_lists: IdMap::default(),
            models: IdMap::default(),
            descs: IdMap::default(),
            buffers: IdMap::default(),
            attrs: IdMap::default(),
            comms: IdMap::default(),
            groups: Vec::new(),
            op_names: Vec::new(),
            op_has_kernel: Vec::new(),
            op_index: HashMap::new(),
            last_op: 0,
            sched: Scheduler::new(seed),
            stats: Stats::default(),
            host_writes: Vec::new(),
            device_errors: Vec::new(),
            model_dir: None,
            no_attrs: Arc::new(Attrs::default()),
            race: crate::race::Detector::new(race),
        }
    }

    pub fn require_init(&self, what: &str) -> SimResult<()> {
        if !self.initialized {
            fail!(UNINITIALIZE, "{what}: aclInit has not been called");
        }
        Ok(())
    }

    pub fn intern_op(&mut self, op: &str) -> u32 {
        // Consecutive kernels often share a type: one comparison instead of a hash.
        if let Some(last) = self.op_names.get(self.last_op as usize) {
            if **last == *op {
                return self.last_op;
            }
        }
        let i = self.intern_op_slow(op);
        self.last_op = i;
        i
    }

    fn intern_op_slow(&mut self, op: &str) -> u32 {
        if let Some(&i) = self.op_index.get(op) {
            return i;
        }
        let i = self.op_names.len() as u32;
        self.op_names.push(Arc::from(op));
        self.op_has_kernel.push(ascend_kernels::has_kernel(op));
        self.op_index.insert(op.to_owned(), i);
        i
    }

    /// `stream` as the C side passed it: NULL means the current device's default stream.
    /// The stream must belong to the current device.
    pub fn resolve_stream(&self, cur: Option<u32>, stream: Id, what: &str) -> SimResult<Id> {
        let Some(dev) = cur else {
            fail!(
                RT_CONTEXT_NULL,
                "{what}: no current device (call aclrtSetDevice first)"
            );
        };
        if stream == 0 {
            return match self.devices[dev as usize].default_stream {
                Some(s) => Ok(s),
                None => fail!(
                    RT_CONTEXT_NULL,
                    "{what}: device {dev} has no default stream"
                ),
            };
        }
        let s = get(&self.streams, stream, Kind::Stream, what)?;
        if s.dev != dev {
            fail!(
                RT_STREAM_CONTEXT,
                "{what}: {} belongs to device {}, but the current device is {dev}",
                s.label,
                s.dev
            );
        }
        Ok(stream)
    }

    pub fn current(&self, cur: Option<u32>, what: &str) -> SimResult<u32> {
        match cur {
            Some(d) => Ok(d),
            None => fail!(
                RT_CONTEXT_NULL,
                "{what}: no current device (call aclrtSetDevice first)"
            ),
        }
    }

    /// Takes the failures of tasks that ran on `dev` as one error (first code, every message).
    pub fn take_device_errors(&mut self, dev: Option<u32>) -> Option<SimError> {
        let mut code = None;
        let mut msgs = Vec::new();
        self.device_errors.retain(|(d, e)| {
            if dev.is_none_or(|x| x == *d) {
                code.get_or_insert(e.code);
                msgs.push(e.msg.clone());
                false
            } else {
                true
            }
        });
        code.map(|c| SimError::new(c, msgs.join("; ")))
    }
}
