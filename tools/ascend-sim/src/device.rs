//! Init, devices, streams, events, notifies, memory and synchronisation: the safe side of
//! the ACL runtime calls. `cur` is the calling thread's current device (`aclrtSetDevice`).

use std::sync::Arc;

use crate::errors::*;
use crate::handles::{get, get_mut, Id, Kind};
use crate::scheduler::Outcome;
use crate::sim::{Busy, Event, EventMode, Notify, Sim, Stream};
use crate::task::{CopySource, Task};

const STREAM_FLAGS: u32 = 0x3F;
const EVENT_SYNC: u32 = 0x1;
const EVENT_FLAGS: u32 = 0x1 | 0x2 | 0x8 | 0x10 | 0x20 | 0x40;

/// A synchronize call's time bound: -1 forever, 0 polls, >0 milliseconds of simulated time.
fn limit_of(now: u64, timeout_ms: i32, what: &str) -> SimResult<Option<u64>> {
    match timeout_ms {
        -1 => Ok(None),
        t if t < -1 => fail!(
            INVALID_PARAM,
            "{what}: timeout {t} ms is invalid (-1 waits forever)"
        ),
        t => Ok(Some(now + t as u64 * 1_000_000)),
    }
}

impl Sim {
    pub fn init(&mut self) -> SimResult<()> {
        if self.initialized || self.finalized {
            fail!(
                REPEAT_INITIALIZE,
                "aclInit: ACL is already initialized (aclInit may be called once per process)"
            );
        }
        self.initialized = true;
        Ok(())
    }

    /// Drops every device object (aclFinalize, `geSimConfigure("reset=1")`).
    pub fn clear_objects(&mut self) {
        let cfg = self.cfg.clone();
        let (init, fin) = (self.initialized, self.finalized);
        *self = Sim::new(cfg);
        self.initialized = init;
        self.finalized = fin;
    }

    pub fn finalize(&mut self) -> SimResult<()> {
        self.require_init("aclFinalize")?;
        self.clear_objects();
        self.initialized = false;
        self.finalized = true;
        Ok(())
    }

    fn check_device(&self, d: i32, what: &str) -> SimResult<u32> {
        if d < 0 || d as u32 >= self.cfg.device_count {
            fail!(
                RT_INVALID_DEVICEID,
                "{what}: device {d} does not exist ({} devices)",
                self.cfg.device_count
            );
        }
        Ok(d as u32)
    }

    pub fn set_device(&mut self, d: i32) -> SimResult<u32> {
        self.require_init("aclrtSetDevice")?;
        let d = self.check_device(d, "aclrtSetDevice")?;
        if self.devices[d as usize].default_stream.is_none() {
            let s = self.new_stream(d, None, "aclrtSetDevice (default stream)")?;
            self.devices[d as usize].default_stream = Some(s);
        }
        self.devices[d as usize].refs += 1;
        Ok(d)
    }

    /// Returns true when the device's last reference went and its objects were released.
    pub fn reset_device(&mut self, d: i32) -> SimResult<bool> {
        self.require_init("aclrtResetDevice")?;
        let d = self.check_device(d, "aclrtResetDevice")?;
        let dev = &mut self.devices[d as usize];
        if dev.refs == 0 {
            fail!(RT_PARAM_INVALID, "aclrtResetDevice: device {d} was not set");
        }
        dev.refs -= 1;
        if dev.refs > 0 {
            return Ok(false);
        }
        self.streams.retain(|_, s| s.dev != d);
        let streams = &self.streams;
        for g in &mut self.groups {
            for q in &mut g.arrivals {
                q.retain(|s| streams.contains_key(s));
            }
        }
        self.events.retain(|_, e| e.dev != d);
        self.notifies.retain(|_, n| n.dev != d);
        self.labels.retain(|_, l| l.dev != d);
        self.label_lists.retain(|_, l| l.dev != d);
        self.models.retain(|_, m| m.dev != d);
        self.comms.retain(|_, c| c.dev != d);
        self.mem.release_device(d);
        self.device_errors.retain(|(e, _)| *e != d);
        self.devices[d as usize] = Default::default();
        Ok(true)
    }

    fn new_stream(&mut self, dev: u32, number: Option<u32>, what: &str) -> SimResult<Id> {
        let max = self.cfg.max_streams;
        let device = &mut self.devices[dev as usize];
        if device.streams >= max {
            fail!(
                RT_NO_STREAM_RESOURCE,
                "{what}: device {dev} has no stream left ({max} streams, the default stream included)"
            );
        }
        device.streams += 1;
        let id = self.handles.next(Kind::Stream);
        self.streams.insert(id, Stream::new(dev, number));
        Ok(id)
    }

    pub fn create_stream(&mut self, cur: Option<u32>, priority: u32, flag: u32) -> SimResult<Id> {
        let what = "aclrtCreateStreamWithConfig";
        self.require_init(what)?;
        let dev = self.current(cur, what)?;
        if priority > 7 {
            fail!(INVALID_PARAM, "{what}: priority {priority} is not in 0..=7");
        }
        if flag & !STREAM_FLAGS != 0 {
            fail!(
                INVALID_PARAM,
                "{what}: unknown stream flag bits {:#x}",
                flag & !STREAM_FLAGS
            );
        }
        let number = self.devices[dev as usize].next_stream_number;
        let id = self.new_stream(dev, Some(number), what)?;
        self.devices[dev as usize].next_stream_number += 1;
        Ok(id)
    }

    pub fn destroy_stream(&mut self, s: Id) -> SimResult<()> {
        let what = "aclrtDestroyStream";
        self.require_init(what)?;
        let st = get(&self.streams, s, Kind::Stream, what)?;
        if st.number.is_none() {
            fail!(
                INVALID_PARAM,
                "{what}: the default stream cannot be destroyed"
            );
        }
        if !st.is_done() {
            fail!(
                507004,
                "{what}: {} still has unfinished tasks (synchronize it first)",
                st.label
            );
        }
        if st.model.is_some() {
            fail!(
                RT_STREAM_MODEL,
                "{what}: {} is bound to a model RI (unbind or destroy the model first)",
                st.label
            );
        }
        let dev = st.dev;
        self.streams.remove(&s);
        self.devices[dev as usize].streams -= 1;
        Ok(())
    }

    pub fn stream_available(&self, cur: Option<u32>) -> SimResult<u32> {
        self.require_init("aclrtGetStreamAvailableNum")?;
        let dev = self.current(cur, "aclrtGetStreamAvailableNum")?;
        Ok(self
            .cfg
            .max_streams
            .saturating_sub(self.devices[dev as usize].streams))
    }

    /// Appends `task` to stream `s`: recorded into its program while its model is being
    /// built, queued otherwise.
    pub fn enqueue(&mut self, s: Id, task: Task, what: &str) -> SimResult<()> {
        let max = self.cfg.max_tasks_per_stream as usize;
        let st = self.streams.get_mut(&s).expect("resolved by the caller");
        if let Some(m) = st.model {
            let building = self.models.get(&m).is_some_and(|m| m.building);
            if !building {
                fail!(
                    RT_STREAM_MODEL,
                    "{what}: {} is bound to a model RI that is built; tasks can only be issued to it \
                     between aclmdlRIBuildBegin and aclmdlRIBuildEnd",
                    st.label
                );
            }
            if matches!(task, Task::ExecModel { .. }) {
                fail!(
                    RT_STREAM_MODEL,
                    "{what}: a model cannot be executed on a stream bound to a model"
                );
            }
            if st.program.len() >= max {
                fail!(
                    RT_STREAM_TASK_FULL,
                    "{what}: {} already holds {max} tasks",
                    st.label
                );
            }
            st.program.push(task);
            return Ok(());
        }
        let queued = st.queue.len() + (st.busy != Busy::Idle) as usize;
        if queued >= max {
            fail!(
                RT_STREAM_TASK_FULL,
                "{what}: {} already has {max} unfinished tasks (synchronize it)",
                st.label
            );
        }
        st.queue.push_back(task);
        if self.race.enabled {
            self.race.host_issue(s);
        }
        self.push_worklist(s);
        Ok(())
    }

    /// The capturing model of stream `s`, for the calls that exist only inside a model.
    pub fn capturing(&self, s: Id, what: &str) -> SimResult<Id> {
        let st = &self.streams[&s];
        match st.model {
            Some(m) if self.models.get(&m).is_some_and(|m| m.building) => Ok(m),
            _ => fail!(
                RT_STREAM_MODEL,
                "{what}: {} is not bound to a model RI being built (this task exists only inside a model)",
                st.label
            ),
        }
    }

    // ---- synchronisation ----

    /// Runs the device until `done`, turning the outcome and the failures of tasks that ran
    /// on `dev` into the call's result.
    fn sync_until(
        &mut self,
        done: &dyn Fn(&Sim) -> bool,
        limit: Option<u64>,
        dev: Option<u32>,
        stuck_code: i32,
        what: &str,
    ) -> SimResult<()> {
        let outcome = self.run(done, limit);
        self.finish_sync(outcome, dev, stuck_code, what)
    }

    fn finish_sync(
        &mut self,
        outcome: Outcome,
        dev: Option<u32>,
        stuck_code: i32,
        what: &str,
    ) -> SimResult<()> {
        let failed = self.take_device_errors(dev);
        let stuck = match outcome {
            Outcome::Done => None,
            Outcome::Stuck => Some(format!(
                "{what}: deadlock: no task can make progress: {}",
                self.blocked_report()
            )),
            Outcome::TimedOut => Some(format!(
                "{what}: timed out at simulated time {} ns: {}",
                self.sched.now,
                self.blocked_report()
            )),
            Outcome::Watchdog => Some(format!(
                "{what}: gave up after {} tasks without finishing (a model that never ends?); {}",
                self.cfg.watchdog_tasks,
                self.blocked_report()
            )),
        };
        match (failed, stuck) {
            (None, None) => Ok(()),
            (Some(e), None) => Err(SimError::new(
                e.code,
                format!("{what}: a task failed: {}", e.msg),
            )),
            (None, Some(msg)) => Err(SimError::new(stuck_code, msg)),
            (Some(e), Some(msg)) => Err(SimError::new(
                e.code,
                format!("{what}: a task failed: {}; {msg}", e.msg),
            )),
        }
    }

    /// `stream` for a synchronize call: NULL is the current device's default stream; any
    /// device's stream may be waited for.
    fn sync_target(&self, cur: Option<u32>, stream: Id, what: &str) -> SimResult<Id> {
        if stream == 0 {
            return self.resolve_stream(cur, 0, what);
        }
        get(&self.streams, stream, Kind::Stream, what)?;
        Ok(stream)
    }

    pub fn sync_stream(&mut self, cur: Option<u32>, stream: Id, timeout_ms: i32) -> SimResult<()> {
        let what = "aclrtSynchronizeStream";
        self.require_init(what)?;
        let s = self.sync_target(cur, stream, what)?;
        let limit = limit_of(self.sched.now, timeout_ms, what)?;
        let dev = self.streams[&s].dev;
        self.sync_until(
            &move |sim: &Sim| sim.streams.get(&s).is_none_or(|st| st.is_done()),
            limit,
            Some(dev),
            RT_STREAM_SYNC_TIMEOUT,
            what,
        )?;
        self.race_host_sync(&[s]);
        Ok(())
    }

    /// COMPLETE (0) or NOT_READY (1), after letting `poll_ns` of simulated time pass.
    pub fn stream_query(&mut self, cur: Option<u32>, stream: Id) -> SimResult<i32> {
        let what = "aclrtStreamQuery";
        self.require_init(what)?;
        let s = self.sync_target(cur, stream, what)?;
        let limit = Some(self.sched.now + self.cfg.poll_ns);
        let done = move |sim: &Sim| sim.streams.get(&s).is_none_or(|st| st.is_done());
        self.run(&done, limit);
        Ok(if done(self) { 0 } else { 1 })
    }

    /// Runs until nothing can progress; the current device must then have no work left.
    pub fn sync_device(&mut self, cur: Option<u32>) -> SimResult<()> {
        let what = "aclrtSynchronizeDevice";
        self.require_init(what)?;
        let dev = self.current(cur, what)?;
        let done = move |sim: &Sim| {
            sim.sched.in_flight() == 0 && sim.sched.worklist.is_empty() && sim.device_idle(dev)
        };
        self.sync_until(&done, None, Some(dev), RT_STREAM_SYNC_TIMEOUT, what)?;
        let streams: Vec<Id> = self
            .streams
            .iter()
            .filter(|(_, st)| st.dev == dev)
            .map(|(&id, _)| id)
            .collect();
        self.race_host_sync(&streams);
        Ok(())
    }

    fn device_idle(&self, dev: u32) -> bool {
        self.streams.values().all(|s| s.dev != dev || s.is_done())
    }

    // ---- events ----

    pub fn create_event(
        &mut self,
        cur: Option<u32>,
        mode: EventMode,
        flags: u32,
        what: &str,
    ) -> SimResult<Id> {
        self.require_init(what)?;
        let dev = self.current(cur, what)?;
        if mode != EventMode::Plain && (flags == 0 || flags & !EVENT_FLAGS != 0) {
            fail!(
                INVALID_PARAM,
                "{what}: event flag {flags:#x} is not a combination of the known flags"
            );
        }
        let max = self.cfg.max_events;
        let device = &mut self.devices[dev as usize];
        if device.events >= max {
            fail!(
                RT_NO_EVENT_RESOURCE,
                "{what}: device {dev} has no event left ({max} events)"
            );
        }
        device.events += 1;
        let number = device.next_event_number;
        device.next_event_number += 1;
        let mode = match mode {
            EventMode::Flag { .. } => EventMode::Flag {
                sync: flags & EVENT_SYNC != 0,
            },
            m => m,
        };
        let id = self.handles.next(Kind::Event);
        self.events.insert(
            id,
            Event {
                dev,
                number,
                mode,
                flags,
                set: false,
                issued: 0,
                done_floor: 0,
                done_above: Default::default(),
                waiters: Vec::new(),
            },
        );
        Ok(id)
    }

    fn event_on_stream(&self, ev: Id, s: Id, what: &str) -> SimResult<()> {
        let e = get(&self.events, ev, Kind::Event, what)?;
        let st = &self.streams[&s];
        if e.dev != st.dev {
            fail!(
                RT_STREAM_CONTEXT,
                "{what}: event #{} belongs to device {}, {} to device {}",
                e.number,
                e.dev,
                st.label,
                st.dev
            );
        }
        Ok(())
    }

    fn capturing_now(&self, s: Id) -> bool {
        self.streams[&s]
            .model
            .is_some_and(|m| self.models.get(&m).is_some_and(|m| m.building))
    }

    pub fn record_event(&mut self, cur: Option<u32>, ev: Id, stream: Id) -> SimResult<()> {
        let what = "aclrtRecordEvent";
        self.require_init(what)?;
        let s = self.resolve_stream(cur, stream, what)?;
        self.event_on_stream(ev, s, what)?;
        let capturing = self.capturing_now(s);
        let e = self.events.get_mut(&ev).expect("checked");
        let version = if e.mode == EventMode::Ex && !capturing {
            e.issued += 1;
            e.issued
        } else {
            0
        };
        let r = self.enqueue(s, Task::Record { ev, version }, what);
        if r.is_err() && version != 0 {
            self.events.get_mut(&ev).expect("checked").issued -= 1;
        }
        r
    }

    pub fn wait_event(&mut self, cur: Option<u32>, stream: Id, ev: Id) -> SimResult<()> {
        let what = "aclrtStreamWaitEvent";
        self.require_init(what)?;
        let s = self.resolve_stream(cur, stream, what)?;
        self.event_on_stream(ev, s, what)?;
        let e = &self.events[&ev];
        if e.mode == (EventMode::Flag { sync: false }) {
            fail!(
                RT_PARAM_INVALID,
                "{what}: event #{} was created with flag {:#x}, without ACL_EVENT_SYNC (0x1), so no stream can wait for it",
                e.number,
                e.flags
            );
        }
        let version = match e.mode {
            EventMode::Ex if !self.capturing_now(s) => Some(e.issued),
            _ => None,
        };
        self.enqueue(s, Task::Wait { ev, version }, what)
    }

    pub fn reset_event(&mut self, cur: Option<u32>, ev: Id, stream: Id) -> SimResult<()> {
        let what = "aclrtResetEvent";
        self.require_init(what)?;
        let s = self.resolve_stream(cur, stream, what)?;
        self.event_on_stream(ev, s, what)?;
        let e = &self.events[&ev];
        match e.mode {
            EventMode::Plain => fail!(
                RT_FEATURE_NOT_SUPPORT,
                "{what}: event #{} was created by aclrtCreateEvent, whose reset is undefined behaviour \
                 (create it with aclrtCreateEventWithFlag to reset it)",
                e.number
            ),
            EventMode::Ex => fail!(
                RT_FEATURE_NOT_SUPPORT,
                "{what}: event #{} was created by aclrtCreateEventExWithFlag, which cannot be reset \
                 (each record replaces the last)",
                e.number
            ),
            EventMode::Flag { .. } => {}
        }
        self.enqueue(s, Task::Reset { ev }, what)
    }

    fn event_done(&self, ev: Id, version: u64) -> bool {
        match self.events.get(&ev) {
            None => true,
            Some(e) if e.mode == EventMode::Ex => version == 0 || e.version_done(version),
            Some(e) => e.set,
        }
    }

    pub fn query_event(&mut self, ev: Id) -> SimResult<i32> {
        let what = "aclrtQueryEventStatus";
        self.require_init(what)?;
        let e = get(&self.events, ev, Kind::Event, what)?;
        if e.mode == EventMode::Ex {
            fail!(
                RT_FEATURE_NOT_SUPPORT,
                "{what}: event #{} was created by aclrtCreateEventExWithFlag, which cannot be queried",
                e.number
            );
        }
        let limit = Some(self.sched.now + self.cfg.poll_ns);
        self.run(&move |sim: &Sim| sim.event_done(ev, 0), limit);
        let done = self.event_done(ev, 0);
        if done && self.race.enabled {
            // A query that sees the record orders the host after it, as a synchronize does.
            self.race.host_join_event(ev);
        }
        Ok(if done { 1 } else { 0 })
    }

    /// Whether a record of `ev` is still queued or in a running model's program.
    fn record_pending(&self, ev: Id) -> bool {
        let is_rec = |t: &Task| matches!(t, Task::Record { ev: e, .. } if *e == ev);
        self.streams
            .values()
            .any(|s| s.queue.iter().any(is_rec) || (s.active && s.program.iter().any(is_rec)))
            || self.sched.in_flight() > 0
    }

    pub fn sync_event(&mut self, ev: Id, timeout_ms: i32) -> SimResult<()> {
        let what = "aclrtSynchronizeEvent";
        self.require_init(what)?;
        let e = get(&self.events, ev, Kind::Event, what)?;
        let (dev, version) = (e.dev, e.issued);
        let limit = limit_of(self.sched.now, timeout_ms, what)?;
        let outcome = self.run(&move |sim: &Sim| sim.event_done(ev, version), limit);
        // A latch that no queued or running task will ever record: as with a never-recorded
        // event on a real device, there is nothing to wait for.
        let outcome = if outcome == Outcome::Stuck && !self.record_pending(ev) {
            Outcome::Done
        } else {
            outcome
        };
        self.finish_sync(outcome, Some(dev), RT_EVENT_SYNC_TIMEOUT, what)?;
        if self.race.enabled {
            self.race.host_join_event(ev);
        }
        Ok(())
    }

    pub fn destroy_event(&mut self, ev: Id) -> SimResult<()> {
        let what = "aclrtDestroyEvent";
        self.require_init(what)?;
        let e = get(&self.events, ev, Kind::Event, what)?;
        let dev = e.dev;
        self.events.remove(&ev);
        self.devices[dev as usize].events -= 1;
        Ok(())
    }

    pub fn event_available(&self, cur: Option<u32>) -> SimResult<u32> {
        self.require_init("aclrtGetEventAvailNum")?;
        let dev = self.current(cur, "aclrtGetEventAvailNum")?;
        Ok(self
            .cfg
            .max_events
            .saturating_sub(self.devices[dev as usize].events))
    }

    // ---- notifies ----

    pub fn create_notify(&mut self, cur: Option<u32>, flag: u64) -> SimResult<Id> {
        let what = "aclrtCreateNotify";
        self.require_init(what)?;
        let dev = self.current(cur, what)?;
        if flag > 1 {
            fail!(
                INVALID_PARAM,
                "{what}: flag {flag} is not 0 or ACL_NOTIFY_DEVICE_USE_ONLY (1)"
            );
        }
        let max = self.cfg.max_notifies;
        let device = &mut self.devices[dev as usize];
        if device.notifies >= max {
            fail!(
                RT_NO_NOTIFY_RESOURCE,
                "{what}: device {dev} has no notify left ({max} notifies)"
            );
        }
        device.notifies += 1;
        let number = device.next_notify_number;
        device.next_notify_number += 1;
        let id = self.handles.next(Kind::Notify);
        self.notifies.insert(
            id,
            Notify {
                dev,
                number,
                set: false,
                waiters: Vec::new(),
            },
        );
        Ok(id)
    }

    fn notify_on_stream(&self, n: Id, s: Id, what: &str) -> SimResult<()> {
        let nt = get(&self.notifies, n, Kind::Notify, what)?;
        let st = &self.streams[&s];
        if nt.dev != st.dev {
            fail!(
                RT_STREAM_CONTEXT,
                "{what}: notify #{} belongs to device {}, {} to device {}",
                nt.number,
                nt.dev,
                st.label,
                st.dev
            );
        }
        Ok(())
    }

    pub fn record_notify(&mut self, cur: Option<u32>, n: Id, stream: Id) -> SimResult<()> {
        let what = "aclrtRecordNotify";
        self.require_init(what)?;
        let s = self.resolve_stream(cur, stream, what)?;
        self.notify_on_stream(n, s, what)?;
        self.enqueue(s, Task::NotifyRecord { notify: n }, what)
    }

    pub fn wait_notify(&mut self, cur: Option<u32>, n: Id, stream: Id) -> SimResult<()> {
        let what = "aclrtWaitAndResetNotify";
        self.require_init(what)?;
        let s = self.resolve_stream(cur, stream, what)?;
        self.notify_on_stream(n, s, what)?;
        self.enqueue(s, Task::NotifyWait { notify: n }, what)
    }

    pub fn destroy_notify(&mut self, n: Id) -> SimResult<()> {
        let what = "aclrtDestroyNotify";
        self.require_init(what)?;
        let dev = get(&self.notifies, n, Kind::Notify, what)?.dev;
        self.notifies.remove(&n);
        self.devices[dev as usize].notifies -= 1;
        Ok(())
    }

    // ---- memory ----

    pub fn malloc(&mut self, cur: Option<u32>, size: u64, policy: i32) -> SimResult<u64> {
        let what = "aclrtMalloc";
        self.require_init(what)?;
        let dev = self.current(cur, what)?;
        let Some(kind) = crate::memory::MemKind::of_policy(policy) else {
            fail!(
                INVALID_PARAM,
                "{what}: memory policy {policy} is not in 0..=5"
            );
        };
        let addr = self
            .mem
            .malloc_kind(dev, size, self.cfg.memory_bytes, kind)?;
        if self.race.enabled {
            self.race.allocate(addr, size);
        }
        Ok(addr)
    }

    pub fn free(&mut self, addr: u64) -> SimResult<()> {
        self.require_init("aclrtFree")?;
        if addr == 0 {
            fail!(INVALID_PARAM, "aclrtFree: devPtr is NULL");
        }
        if let Some(len) = self.mem.allocation_len(addr) {
            self.race_free(addr, len);
        }
        self.mem.free(addr).map(|_| ())
    }

    pub fn is_device_ptr(&self, addr: u64) -> bool {
        self.mem.device_of(addr).is_some()
    }

    fn check_count(count: u64, dest_max: u64, what: &str) -> SimResult<()> {
        if count > dest_max {
            fail!(
                INVALID_PARAM,
                "{what}: count {count} exceeds destMax {dest_max}"
            );
        }
        Ok(())
    }

    pub fn memcpy_h2d(&mut self, dst: u64, dest_max: u64, src: &[u8], what: &str) -> SimResult<()> {
        self.require_init(what)?;
        Self::check_count(src.len() as u64, dest_max, what)?;
        self.mem
            .write(&format!("{what} (H2D) destination"), dst, src)?;
        self.race_host_access(dst, src.len() as u64, true);
        Ok(())
    }

    /// A synchronous D2H copy: a host read of the source, which the race detector orders
    /// against the device tasks (a read before the host synchronised with the writer is a
    /// race).
    pub fn memcpy_d2h(
        &mut self,
        dest_max: u64,
        src: u64,
        count: u64,
        what: &str,
    ) -> SimResult<&[u8]> {
        self.require_init(what)?;
        Self::check_count(count, dest_max, what)?;
        self.mem
            .check(&format!("{what} (D2H) source"), src, count)?;
        self.race_host_access(src, count, false);
        self.mem.read(&format!("{what} (D2H) source"), src, count)
    }

    pub fn memcpy_d2d(
        &mut self,
        dst: u64,
        dest_max: u64,
        src: u64,
        count: u64,
        what: &str,
    ) -> SimResult<()> {
        self.require_init(what)?;
        Self::check_count(count, dest_max, what)?;
        self.mem
            .check(&format!("{what} (D2D) destination"), dst, count)?;
        let bytes = self
            .mem
            .read(&format!("{what} (D2D) source"), src, count)?
            .to_vec();
        self.mem.write(what, dst, &bytes)?;
        self.race_host_access(src, count, false);
        self.race_host_access(dst, count, true);
        Ok(())
    }

    pub fn memset(&mut self, dst: u64, max: u64, value: i32, count: u64) -> SimResult<()> {
        let what = "aclrtMemset";
        self.require_init(what)?;
        Self::check_count(count, max, what)?;
        self.mem.fill(what, dst, count, value as u8)?;
        self.race_host_access(dst, count, true);
        Ok(())
    }

    /// An async copy into device memory (`src` host bytes taken now, or a device address).
    pub fn memcpy_async_to_device(
        &mut self,
        cur: Option<u32>,
        dst: u64,
        dest_max: u64,
        src: CopySource,
        count: u64,
        stream: Id,
    ) -> SimResult<()> {
        let what = "aclrtMemcpyAsync";
        self.require_init(what)?;
        let s = self.resolve_stream(cur, stream, what)?;
        Self::check_count(count, dest_max, what)?;
        if !self.capturing_now(s) {
            self.mem.check(&format!("{what} destination"), dst, count)?;
            if let CopySource::Device(a) = src {
                self.mem.check(&format!("{what} source"), a, count)?;
            }
        }
        let node = self.race.take_name(s);
        self.enqueue(
            s,
            Task::CopyToDevice {
                dst,
                src,
                len: count,
                node,
            },
            what,
        )
    }

    pub fn memcpy_async_to_host(
        &mut self,
        cur: Option<u32>,
        dst_host: u64,
        dest_max: u64,
        src: u64,
        count: u64,
        stream: Id,
    ) -> SimResult<()> {
        let what = "aclrtMemcpyAsync";
        self.require_init(what)?;
        let s = self.resolve_stream(cur, stream, what)?;
        Self::check_count(count, dest_max, what)?;
        self.mem
            .check(&format!("{what} (D2H) source"), src, count)?;
        self.enqueue(
            s,
            Task::CopyToHost {
                dst: dst_host,
                src,
                len: count,
            },
            what,
        )
    }

    pub fn memset_async(
        &mut self,
        cur: Option<u32>,
        dst: u64,
        max: u64,
        value: i32,
        count: u64,
        stream: Id,
    ) -> SimResult<()> {
        let what = "aclrtMemsetAsync";
        self.require_init(what)?;
        let s = self.resolve_stream(cur, stream, what)?;
        Self::check_count(count, max, what)?;
        if !self.capturing_now(s) {
            self.mem.check(what, dst, count)?;
        }
        self.enqueue(
            s,
            Task::Memset {
                dst,
                len: count,
                value: value as u8,
            },
            what,
        )
    }

    /// Host bytes of an H2D copy, shared by the task (taken when the copy is issued).
    pub fn host_bytes(src: &[u8]) -> CopySource {
        CopySource::Host(Arc::from(src))
    }

    pub fn stream_mut(&mut self, s: Id, what: &str) -> SimResult<&mut Stream> {
        get_mut(&mut self.streams, s, Kind::Stream, what)
    }
}
