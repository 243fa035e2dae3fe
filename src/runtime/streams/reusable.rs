//! `ge::ReusableStreamAllocator` (GE `runtime/v1/graph/load/model_manager/
//! reusable_stream_allocator.cc`): one pool of device streams per process, keyed by
//! (priority, flags); each stream knows its task count and the set of models holding it.
//!
//! GE's HEAD always creates a new stream in `GetOrCreateRtStream` (its `Create()` logs "does
//! not need to reuse stream"). The design document (`ge-stream-allocation.md` 4.7) describes
//! the reuse this type does under [`ReusePolicy::TaskCount`]: among the streams of the same
//! key, never one the requesting model already holds, only one whose task count plus the
//! request stays within the per-stream task limit, the closest task count first; create a
//! new stream only when none fits. [`ReusePolicy::Never`] is GE's HEAD.
//!
//! A stream's task count is the sum of the tasks its current holders put on it. Devices
//! whose model runtime instances bind a stream to one model at a time (ACL's `aclmdlRI`,
//! the simulator) use `exclusive`: only streams no model holds are candidates, so reuse
//! happens across loads, after a model released its streams ([`ReusableStreamAllocator::release_model`]).

use super::StreamFactory;
use crate::runtime::error::RuntimeError;
use std::collections::BTreeMap;

/// The pool's key: GE's `<priority, stream_flag>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct StreamKey {
    pub priority: u32,
    pub flags: u32,
}

/// A stream of the pool, by creation order (GE's `rt_stream_id`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StreamId(pub usize);

/// Whether and how streams are reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReusePolicy {
    /// GE's HEAD: every request creates a stream.
    Never,
    /// The design's reuse by task count.
    TaskCount {
        /// The device's per-stream task limit (the simulator's `max_tasks_per_stream`).
        max_tasks_per_stream: u32,
        /// Only streams no model holds are reused (one model per stream at a time).
        exclusive: bool,
    },
}

/// GE's `RtStreamStatus`.
#[derive(Debug)]
struct StreamStatus<S> {
    /// `None` while lent out ([`ReusableStreamAllocator::lend`]) or after destruction.
    stream: Option<S>,
    key: StreamKey,
    /// Holding model → the tasks it put on the stream.
    models: BTreeMap<u32, u32>,
    valid: bool,
    lent: bool,
}

impl<S> StreamStatus<S> {
    fn task_num(&self) -> u64 {
        self.models.values().map(|&t| u64::from(t)).sum()
    }
}

/// Counters for reports and the benchmark.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// Requests (`GetOrCreateRtStream` calls): the streams created without reuse.
    pub requests: u64,
    /// Streams created.
    pub created: u64,
    /// Requests served by an existing stream.
    pub reused: u64,
    /// Streams destroyed.
    pub destroyed: u64,
}

pub struct ReusableStreamAllocator<F: StreamFactory> {
    factory: F,
    policy: ReusePolicy,
    streams: Vec<StreamStatus<F::Stream>>,
    stats: StreamStats,
}

impl<F: StreamFactory> ReusableStreamAllocator<F> {
    pub fn new(factory: F, policy: ReusePolicy) -> Self {
        Self {
            factory,
            policy,
            streams: Vec::new(),
            stats: StreamStats::default(),
        }
    }

    pub fn stats(&self) -> StreamStats {
        self.stats
    }

    pub fn factory(&self) -> &F {
        &self.factory
    }

    /// GE's `GetOrCreateRtStream(stream, rt_model_id, priority, stream_flag, task_num)`.
    pub fn get_or_create_rt_stream(
        &mut self,
        model_id: u32,
        priority: u32,
        flags: u32,
        task_num: u32,
    ) -> Result<StreamId, RuntimeError> {
        let key = StreamKey { priority, flags };
        self.stats.requests += 1;
        if let Some(id) = self.reusable(model_id, key, task_num) {
            self.streams[id.0].models.insert(model_id, task_num);
            self.stats.reused += 1;
            return Ok(id);
        }
        let stream = self.factory.create(priority, flags).map_err(|e| {
            e.at(|| {
                format!(
                    "GetOrCreateRtStream: creating a stream (priority {priority}, flags {flags:#x}) \
                     for model {model_id}"
                )
            })
        })?;
        self.stats.created += 1;
        self.streams.push(StreamStatus {
            stream: Some(stream),
            key,
            models: BTreeMap::from([(model_id, task_num)]),
            valid: true,
            lent: false,
        });
        Ok(StreamId(self.streams.len() - 1))
    }

    /// The stream a request reuses, if any: same key, valid, not lent, not held by the
    /// model, within the task limit (and free under `exclusive`); the task count closest to
    /// the request first, then the smaller count, then creation order.
    fn reusable(&self, model_id: u32, key: StreamKey, task_num: u32) -> Option<StreamId> {
        let ReusePolicy::TaskCount {
            max_tasks_per_stream,
            exclusive,
        } = self.policy
        else {
            return None;
        };
        self.streams
            .iter()
            .enumerate()
            .filter(|(_, s)| s.valid && !s.lent && s.key == key)
            .filter(|(_, s)| !s.models.contains_key(&model_id))
            .filter(|(_, s)| !exclusive || s.models.is_empty())
            .filter(|(_, s)| s.task_num() + u64::from(task_num) <= u64::from(max_tasks_per_stream))
            .min_by_key(|(id, s)| {
                (
                    s.task_num().abs_diff(u64::from(task_num)),
                    s.task_num(),
                    *id,
                )
            })
            .map(|(id, _)| StreamId(id))
    }

    /// The stream itself (`None` while lent out or after destruction).
    pub fn stream(&self, id: StreamId) -> Option<&F::Stream> {
        self.streams.get(id.0)?.stream.as_ref()
    }

    /// The stream's task count (the sum over its holders).
    pub fn task_num(&self, id: StreamId) -> Option<u64> {
        self.streams.get(id.0).map(StreamStatus::task_num)
    }

    /// The models holding the stream.
    pub fn models(&self, id: StreamId) -> Vec<u32> {
        self.streams
            .get(id.0)
            .map_or_else(Vec::new, |s| s.models.keys().copied().collect())
    }

    /// Moves the stream out to a loader that needs to own it (an exclusive holder);
    /// [`Self::give_back`] returns it. `None` when it is already lent or destroyed.
    pub fn lend(&mut self, id: StreamId) -> Option<F::Stream> {
        let status = self.streams.get_mut(id.0)?;
        let stream = status.stream.take()?;
        status.lent = true;
        Some(stream)
    }

    /// Takes a lent stream back.
    pub fn give_back(&mut self, id: StreamId, stream: F::Stream) -> Result<(), RuntimeError> {
        match self.streams.get_mut(id.0) {
            Some(status) if status.lent => {
                status.stream = Some(stream);
                status.lent = false;
                Ok(())
            }
            _ => Err(RuntimeError::Input(format!(
                "stream {} was not lent by this allocator",
                id.0
            ))),
        }
    }

    /// The model no longer holds any stream: it leaves every model-id set and its tasks
    /// leave the task counts. Returns the streams it held.
    pub fn release_model(&mut self, model_id: u32) -> Vec<StreamId> {
        self.streams
            .iter_mut()
            .enumerate()
            .filter_map(|(id, s)| s.models.remove(&model_id).map(|_| StreamId(id)))
            .collect()
    }

    /// GE's `DestroyStream(stream, is_force_destroy)`: an unknown stream is an error, one
    /// destroyed before is a success. Ours also refuses, unless forced, a stream some
    /// model still holds or that is lent out (GE leaves that to the runtime's error).
    pub fn destroy_stream(&mut self, id: StreamId, force: bool) -> Result<(), RuntimeError> {
        let Some(status) = self.streams.get_mut(id.0) else {
            return Err(RuntimeError::Input(format!(
                "DestroyStream: stream {} is not in the pool",
                id.0
            )));
        };
        if !status.valid {
            return Ok(());
        }
        if !force && (status.lent || !status.models.is_empty()) {
            return Err(RuntimeError::Input(format!(
                "DestroyStream: stream {} is still held by model(s) {:?}{}",
                id.0,
                status.models.keys().collect::<Vec<_>>(),
                if status.lent { " and lent out" } else { "" }
            )));
        }
        status.valid = false;
        status.models.clear();
        if let Some(stream) = status.stream.take() {
            self.factory.destroy(stream, force)?;
        }
        self.stats.destroyed += 1;
        Ok(())
    }

    /// Destroys every stream still valid (forced), reporting the first failure.
    pub fn destroy_all(&mut self) -> Result<(), RuntimeError> {
        let mut first = Ok(());
        for id in 0..self.streams.len() {
            let outcome = self.destroy_stream(StreamId(id), true);
            if first.is_ok() {
                first = outcome;
            }
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::streams::testing::CountingStreams;

    const SHARED: ReusePolicy = ReusePolicy::TaskCount {
        max_tasks_per_stream: 100,
        exclusive: false,
    };

    fn pool(policy: ReusePolicy) -> ReusableStreamAllocator<CountingStreams> {
        ReusableStreamAllocator::new(CountingStreams::default(), policy)
    }

    #[test]
    fn ge_head_creates_a_stream_per_request() {
        let mut p = pool(ReusePolicy::Never);
        let a = p.get_or_create_rt_stream(1, 0, 0, 10).unwrap();
        p.release_model(1);
        let b = p.get_or_create_rt_stream(2, 0, 0, 10).unwrap();
        assert_ne!(a, b);
        assert_eq!(p.stats().created, 2);
        assert_eq!(p.stats().reused, 0);
    }

    #[test]
    fn a_model_never_gets_its_own_stream_twice() {
        let mut p = pool(SHARED);
        let a = p.get_or_create_rt_stream(1, 0, 0, 10).unwrap();
        let b = p.get_or_create_rt_stream(1, 0, 0, 10).unwrap();
        assert_ne!(a, b);
        // another model may share them
        let c = p.get_or_create_rt_stream(2, 0, 0, 10).unwrap();
        assert!(c == a || c == b);
        assert_eq!(p.models(c), [1, 2]);
        assert_eq!(p.task_num(c), Some(20));
    }

    /// A pool whose model 1 holds streams of 5, 30 and 60 tasks.
    fn three_sizes() -> (ReusableStreamAllocator<CountingStreams>, [StreamId; 3]) {
        let mut p = pool(ReusePolicy::TaskCount {
            max_tasks_per_stream: 1000,
            exclusive: false,
        });
        let ids = [5, 30, 60].map(|t| p.get_or_create_rt_stream(1, 0, 0, t).unwrap());
        (p, ids)
    }

    #[test]
    fn the_closest_task_count_is_reused_first() {
        for (request, expected) in [(28, 1), (55, 2), (1, 0), (45, 1), (46, 2)] {
            let (mut p, ids) = three_sizes();
            assert_eq!(
                p.get_or_create_rt_stream(2, 0, 0, request).unwrap(),
                ids[expected],
                "a request of {request} tasks"
            );
            assert_eq!(p.stats().created, 3);
            assert_eq!(p.stats().reused, 1);
        }
        // the count grows with each holder: 30 + 28 = 58 is now closest to 55
        let (mut p, ids) = three_sizes();
        p.get_or_create_rt_stream(2, 0, 0, 28).unwrap();
        assert_eq!(p.get_or_create_rt_stream(3, 0, 0, 55).unwrap(), ids[1]);
    }

    #[test]
    fn equal_distances_prefer_the_smaller_count_then_creation_order() {
        let mut p = pool(SHARED);
        let ten = p.get_or_create_rt_stream(1, 0, 0, 10).unwrap();
        let _thirty = p.get_or_create_rt_stream(1, 0, 0, 30).unwrap();
        assert_eq!(p.get_or_create_rt_stream(2, 0, 0, 20).unwrap(), ten);
        let mut q = pool(SHARED);
        let first = q.get_or_create_rt_stream(1, 0, 0, 10).unwrap();
        let _second = q.get_or_create_rt_stream(1, 0, 0, 10).unwrap();
        assert_eq!(q.get_or_create_rt_stream(2, 0, 0, 10).unwrap(), first);
    }

    #[test]
    fn the_per_stream_task_limit_is_respected() {
        let mut p = pool(SHARED);
        let full = p.get_or_create_rt_stream(1, 0, 0, 90).unwrap();
        let fresh = p.get_or_create_rt_stream(2, 0, 0, 11).unwrap();
        assert_ne!(full, fresh, "90 + 11 tasks exceed the limit of 100");
        // 90 + 60 does not fit, 11 + 60 does, though 90 is closer to 60
        assert_eq!(p.get_or_create_rt_stream(3, 0, 0, 60).unwrap(), fresh);
        // exactly at the limit is allowed
        let mut q = pool(SHARED);
        let s = q.get_or_create_rt_stream(1, 0, 0, 90).unwrap();
        assert_eq!(q.get_or_create_rt_stream(2, 0, 0, 10).unwrap(), s);
        assert_eq!(q.task_num(s), Some(100));
        assert_ne!(q.get_or_create_rt_stream(3, 0, 0, 1).unwrap(), s);
    }

    #[test]
    fn the_key_separates_priorities_and_flags() {
        let mut p = pool(SHARED);
        let a = p.get_or_create_rt_stream(1, 0, 4, 10).unwrap();
        let b = p.get_or_create_rt_stream(2, 1, 4, 10).unwrap();
        let c = p.get_or_create_rt_stream(3, 0, 0, 10).unwrap();
        assert!(a != b && b != c && a != c);
        assert_eq!(p.get_or_create_rt_stream(4, 1, 4, 10).unwrap(), b);
    }

    #[test]
    fn exclusive_reuse_waits_for_the_holder_to_release() {
        let mut p = pool(ReusePolicy::TaskCount {
            max_tasks_per_stream: 100,
            exclusive: true,
        });
        let a = p.get_or_create_rt_stream(1, 0, 0, 10).unwrap();
        let b = p.get_or_create_rt_stream(2, 0, 0, 10).unwrap();
        assert_ne!(a, b);
        assert_eq!(p.release_model(1), [a]);
        assert_eq!(p.task_num(a), Some(0));
        assert_eq!(p.get_or_create_rt_stream(3, 0, 0, 10).unwrap(), a);
        assert_eq!(p.stats().created, 2);
    }

    #[test]
    fn lent_streams_are_not_reused_and_come_back() {
        let mut p = pool(ReusePolicy::TaskCount {
            max_tasks_per_stream: 100,
            exclusive: true,
        });
        let a = p.get_or_create_rt_stream(1, 0, 0, 10).unwrap();
        let stream = p.lend(a).unwrap();
        assert!(p.lend(a).is_none());
        p.release_model(1);
        assert_ne!(p.get_or_create_rt_stream(2, 0, 0, 10).unwrap(), a);
        p.give_back(a, stream).unwrap();
        assert!(p.give_back(a, 99).is_err());
        assert_eq!(p.get_or_create_rt_stream(3, 0, 0, 10).unwrap(), a);
    }

    #[test]
    fn destroy_is_idempotent_unknown_is_an_error_and_held_needs_force() {
        let mut p = pool(SHARED);
        let a = p.get_or_create_rt_stream(1, 0, 0, 10).unwrap();
        let error = p.destroy_stream(a, false).unwrap_err();
        assert!(
            error.to_string().contains("held by model(s) [1]"),
            "{error}"
        );
        p.destroy_stream(a, true).unwrap();
        p.destroy_stream(a, false).unwrap();
        assert_eq!(p.factory().destroyed, [(1, true)]);
        assert!(p.destroy_stream(StreamId(7), false).is_err());
        // a destroyed stream is never handed out again
        assert_ne!(p.get_or_create_rt_stream(2, 0, 0, 10).unwrap(), a);
    }

    #[test]
    fn a_failed_creation_names_the_request() {
        let mut p = ReusableStreamAllocator::new(
            CountingStreams {
                limit: Some(1),
                ..Default::default()
            },
            ReusePolicy::Never,
        );
        p.get_or_create_rt_stream(1, 0, 0, 1).unwrap();
        let error = p.get_or_create_rt_stream(1, 0, 4, 1).unwrap_err();
        assert!(error.to_string().contains("for model 1"), "{error}");
        assert_eq!(p.stats().created, 1);
    }
}
