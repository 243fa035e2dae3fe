//! P2P placement in dynamic memory mode: the outputs of a kernel placed `p2p`
//! (`_placement = "p2p"`) live in P2P memory, and GE's placement copies between HBM and
//! P2P (`placed_lowering_result.cc`: HBM → P2P; `MakeSureTensorAtDevice` both ways in
//! `rtgraph::analysis::placement`) run as device-to-device copies.
//!
//! * **Where.** A buffer a `p2p` kernel writes is a P2P buffer: `aclrtMalloc` with
//!   `ACL_MEM_MALLOC_HUGE_FIRST_P2P` at the plan's `Alloc` step, not GE's caching
//!   allocator (its pools hold HBM pages; P2P memory is a distinct kind the simulator
//!   reports). The plan's `Wander` / `Free` steps count the streams using it; each `Free`
//!   records an event on its stream, and once every stream freed it, its FreeMemory
//!   guarder returns it after all those events completed (`aclrtFree` frees at once).
//! * **Copies.** A device kernel reads its inputs at its own placement: an `hbm` kernel
//!   reading a P2P buffer, or a `p2p` kernel reading HBM, gets a device-to-device copy on
//!   its own stream right before it (ordered like any task: after the kernel's waits,
//!   where the plan has the read) into memory of its kind, freed by a guarder after an
//!   event behind the kernel. One copy per consuming kernel (GE caches one per output and
//!   placement). A host kernel, a model output or a switch index reading P2P memory is
//!   a `SyncStream` + D2H as for HBM (P2P is device memory).

use super::host::Guarders;
use super::plan::{accesses, BufferId, Place, Step};
use crate::lowering::model::{Placement, Task, TaskModel};
use crate::runtime::{
    acl::{Acl, DeviceBuffer, DevicePtr, Event, Stream, EVENT_SYNC, MALLOC_HUGE_FIRST_P2P},
    error::RuntimeError,
};
use std::{
    collections::{HashMap, HashSet},
    sync::Arc,
};

/// What P2P placement did over the whole run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct P2pStats {
    /// Plan buffers in P2P memory.
    pub buffers: u64,
    /// `aclrtMalloc`s with the P2P policy (buffers and copy destinations).
    pub p2p_mallocs: u64,
    pub hbm_to_p2p: u64,
    pub p2p_to_hbm: u64,
    /// Allocations returned by their guarder (after every event completed).
    pub guarded_frees: u64,
}

/// A P2P buffer of the plan, live.
#[derive(Debug)]
struct Live {
    memory: DeviceBuffer,
    /// Streams that have it and have not freed it yet.
    users: usize,
    events: Vec<Event>,
}

/// The buffers `steps` has `p2p` kernels write: the ones the segment allocates. A `p2p`
/// kernel writing a buffer allocated before (a loop variable a trip before allocated in
/// HBM) is refused, with the kernel named.
pub fn p2p_buffers(
    model: &TaskModel,
    steps: &[Step],
    known: &HashSet<BufferId>,
) -> Result<HashSet<BufferId>, String> {
    let allocated: HashSet<BufferId> = steps
        .iter()
        .filter_map(|s| match s {
            Step::Alloc { buffer, .. } => Some(*buffer),
            _ => None,
        })
        .collect();
    let mut out = HashSet::new();
    for step in steps {
        let Step::Launch {
            task: (s, i),
            places,
        } = step
        else {
            continue;
        };
        let task = &model.streams[*s].tasks[*i];
        let Task::Kernel {
            placement: Placement::P2p,
            node,
            ..
        } = task
        else {
            continue;
        };
        for (a, place) in accesses(task).iter().zip(places) {
            if let (true, Place::Buffer { buffer, .. }) = (a.write, place) {
                if allocated.contains(buffer) || known.contains(buffer) {
                    out.insert(*buffer);
                } else {
                    return Err(format!(
                        "the p2p kernel `{node}` writes a value whose buffer an earlier \
                         segment allocated in HBM (a loop variable?): not supported"
                    ));
                }
            }
        }
    }
    Ok(out)
}

/// One rank's P2P memory.
#[derive(Debug, Default)]
pub struct P2pMemory {
    /// Free at the plan's last `Free`, without waiting for the events (a mutation).
    pub free_early: bool,
    kinds: HashSet<BufferId>,
    live: HashMap<BufferId, Live>,
    guarders: Guarders<Vec<Event>, DeviceBuffer>,
    pub stats: P2pStats,
}

impl P2pMemory {
    pub fn new(free_early: bool) -> Self {
        Self {
            free_early,
            ..Self::default()
        }
    }

    /// A new run: buffer numbers start again.
    pub fn begin_run(&mut self) {
        self.kinds.clear();
    }

    /// A segment's steps: the buffers its `p2p` kernels write become P2P buffers.
    pub fn begin_segment(&mut self, model: &TaskModel, steps: &[Step]) -> Result<(), String> {
        let found = p2p_buffers(model, steps, &self.kinds)?;
        self.kinds.extend(found);
        Ok(())
    }

    pub fn is_p2p(&self, buffer: BufferId) -> bool {
        self.kinds.contains(&buffer)
    }

    /// Where a live P2P buffer is.
    pub fn ptr(&self, buffer: BufferId) -> Option<(DevicePtr, u64)> {
        self.live
            .get(&buffer)
            .map(|l| (l.memory.ptr(), l.memory.size()))
    }

    /// The plan's `Alloc` of a P2P buffer.
    pub fn alloc(
        &mut self,
        acl: &Arc<Acl>,
        buffer: BufferId,
        size: u64,
    ) -> Result<(), RuntimeError> {
        let memory = acl.malloc_with(size.max(1), MALLOC_HUGE_FIRST_P2P)?;
        self.stats.buffers += 1;
        self.stats.p2p_mallocs += 1;
        self.live.insert(
            buffer,
            Live {
                memory,
                users: 1,
                events: Vec::new(),
            },
        );
        Ok(())
    }

    /// The plan's `Wander` of a P2P buffer: one more stream has it.
    pub fn wander(&mut self, buffer: BufferId) {
        if let Some(l) = self.live.get_mut(&buffer) {
            l.users += 1;
        }
    }

    /// The plan's `Free` of a P2P buffer on `stream`: an event there; the last one hands
    /// the memory to its guarder.
    pub fn free(
        &mut self,
        acl: &Arc<Acl>,
        buffer: BufferId,
        stream: &Stream,
    ) -> Result<(), RuntimeError> {
        self.reap(acl)?;
        let Some(l) = self.live.get_mut(&buffer) else {
            return Err(RuntimeError::Other(format!(
                "--memory=dynamic: P2P buffer {buffer} freed but not allocated"
            )));
        };
        if !self.free_early {
            let event = acl.create_event(EVENT_SYNC)?;
            acl.record_event(&event, stream)?;
            l.events.push(event);
        }
        l.users -= 1;
        if l.users > 0 {
            return Ok(());
        }
        let l = self.live.remove(&buffer).expect("present");
        self.guard(l.events, l.memory)
    }

    /// `memory`, free once `events` completed (at once when there are none).
    fn guard(&mut self, events: Vec<Event>, memory: DeviceBuffer) -> Result<(), RuntimeError> {
        if events.is_empty() {
            return memory.release();
        }
        self.guarders.push(events, vec![memory]);
        Ok(())
    }

    /// The copy of a kernel's input at `src` (`size` bytes) into fresh memory of
    /// `to`'s kind, on `stream` before the kernel; the caller calls [`Self::after`]
    /// with what this returns once the kernel is launched.
    #[allow(clippy::too_many_arguments)]
    pub fn copy_in(
        &mut self,
        acl: &Arc<Acl>,
        stream: &Stream,
        node: &str,
        src: DevicePtr,
        size: u64,
        to: Placement,
    ) -> Result<DeviceBuffer, RuntimeError> {
        let memory = if to == Placement::P2p {
            self.stats.p2p_mallocs += 1;
            self.stats.hbm_to_p2p += 1;
            acl.malloc_with(size.max(1), MALLOC_HUGE_FIRST_P2P)?
        } else {
            self.stats.p2p_to_hbm += 1;
            acl.malloc(size.max(1))?
        };
        if !node.is_empty() {
            acl.sim_set_task_name(stream, node)?;
        }
        acl.memcpy_async(memory.ptr(), size, src, size, stream)?;
        Ok(memory)
    }

    /// The copies' destinations of a launched kernel, guarded by an event behind it.
    pub fn after(
        &mut self,
        acl: &Arc<Acl>,
        stream: &Stream,
        copies: Vec<DeviceBuffer>,
    ) -> Result<(), RuntimeError> {
        for memory in copies {
            let events = if self.free_early {
                Vec::new()
            } else {
                let event = acl.create_event(EVENT_SYNC)?;
                acl.record_event(&event, stream)?;
                vec![event]
            };
            self.guard(events, memory)?;
        }
        Ok(())
    }

    /// Frees what completed (a query, no wait).
    pub fn reap(&mut self, acl: &Acl) -> Result<(), RuntimeError> {
        let ready = self.guarders.reap(|events: &Vec<Event>| {
            for e in events {
                if !acl.event_complete(e)? {
                    return Ok(false);
                }
            }
            Ok::<_, RuntimeError>(true)
        })?;
        self.release(ready)
    }

    /// Waits for every guarder's events, then frees (the end of a run).
    pub fn drain(&mut self, acl: &Acl, timeout_ms: i32) -> Result<(), RuntimeError> {
        let all = self.guarders.drain();
        for (events, _) in &all {
            for e in events {
                acl.synchronize_event(e, timeout_ms)?;
            }
        }
        self.release(all)
    }

    fn release(
        &mut self,
        entries: Vec<(Vec<Event>, Vec<DeviceBuffer>)>,
    ) -> Result<(), RuntimeError> {
        let mut result = Ok(());
        let mut keep = |outcome: Result<(), RuntimeError>| {
            if result.is_ok() {
                result = outcome;
            }
        };
        for (events, memory) in entries {
            for m in memory {
                self.stats.guarded_frees += 1;
                keep(m.release());
            }
            for e in events {
                keep(e.release());
            }
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_models;
    use super::*;
    use crate::lowering::model::Operand;
    use crate::runtime::executor::dynamic::plan::build;

    fn ws(offset: u64) -> Operand {
        test_models::ws(offset, 64)
    }

    fn kernel(node: &str, placement: Placement, inputs: Vec<Operand>, output: u64) -> Task {
        test_models::relu(node, placement, inputs, vec![ws(output)])
    }

    fn model(tasks: Vec<Task>) -> TaskModel {
        test_models::model(vec![tasks], 0)
    }

    fn written(steps: &[Step], i: usize) -> BufferId {
        steps
            .iter()
            .find_map(|s| match s {
                Step::Launch {
                    task: (0, j),
                    places,
                } if *j == i => match places.last() {
                    Some(Place::Buffer { buffer, .. }) => Some(*buffer),
                    _ => None,
                },
                _ => None,
            })
            .expect("a launch writing a buffer")
    }

    /// Only what a p2p kernel writes is P2P; its readers' buffers are not.
    #[test]
    fn the_buffers_p2p_kernels_write_are_p2p() {
        let m = model(vec![
            kernel("a", Placement::Hbm, vec![], 0),
            kernel("p", Placement::P2p, vec![ws(0)], 64),
            kernel("b", Placement::Hbm, vec![ws(64)], 128),
        ]);
        let plan = build(&m).unwrap();
        let found = p2p_buffers(&m, &plan.steps, &HashSet::new()).unwrap();
        assert_eq!(found, HashSet::from([written(&plan.steps, 1)]));
        assert!(!found.contains(&written(&plan.steps, 0)));
        assert!(!found.contains(&written(&plan.steps, 2)));
    }

    /// A p2p kernel writing a buffer the segment did not allocate (an HBM value from
    /// before a decision) is refused with the kernel named; one known as P2P is fine.
    #[test]
    fn a_p2p_write_into_an_earlier_hbm_buffer_is_refused() {
        let m = model(vec![
            kernel("a", Placement::Hbm, vec![], 0),
            kernel("p", Placement::P2p, vec![], 0),
        ]);
        let plan = build(&m).unwrap();
        let steps: Vec<Step> = plan
            .steps
            .iter()
            .filter(|s| !matches!(s, Step::Alloc { .. }))
            .cloned()
            .collect();
        let error = p2p_buffers(&m, &steps, &HashSet::new()).unwrap_err();
        assert!(error.contains("the p2p kernel `p`"), "{error}");
        let b = written(&plan.steps, 1);
        assert_eq!(
            p2p_buffers(&m, &steps, &HashSet::from([b])).unwrap(),
            HashSet::from([b])
        );
    }
}
