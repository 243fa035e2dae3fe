//! Host → host placement without a copy (GE: none for host → host), as an analysis of
//! one segment's steps: which input of a host kernel is read straight from the pinned
//! buffer a host kernel earlier in the segment wrote, which host output needs its
//! `CopyH2D` at all, and after which step a host kernel's pinned outputs may go to their
//! FreeMemory guarder (its last host reader has run).
//!
//! A pinned value is the exact (buffer, offset, size) a host kernel wrote; any other
//! task's write to bytes of it ends it. Its H2D copy is kept ("shipped") when a device
//! task reads any of its bytes in the segment, a model output or a switch index is
//! there, a host reader reads it other than exactly, or its buffer may outlive the
//! segment (not both allocated and freed on its birth stream here: a later segment, or
//! a later loop trip, reads the device copy). Only the dynamic plan's steps are looked
//! at; the device buffer itself stays allocated as planned.

use super::plan::{accesses, BufferId, Place, Step};
use crate::lowering::model::{Task, TaskModel};
use std::collections::{BTreeMap, HashMap, HashSet};

/// A host kernel's output: (the step index of its launch, its output index).
pub type Output = (usize, usize);

/// See the module documentation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Forwarding {
    /// Per host launch (step index): per input, the host output it reads from pinned
    /// memory (none: the device copy, by D2H).
    pub reads: HashMap<usize, Vec<Option<Output>>>,
    /// Per host launch: per output, whether its `CopyH2D` is made.
    pub ship: HashMap<usize, Vec<bool>>,
    /// Step index → host launches whose pinned outputs are released after it.
    pub release_after: BTreeMap<usize, Vec<usize>>,
}

impl Forwarding {
    /// Whether output `k` of the host launch at `step` is copied to the device (yes
    /// when the analysis does not know the launch).
    pub fn ships(&self, step: usize, k: usize) -> bool {
        self.ship
            .get(&step)
            .and_then(|s| s.get(k))
            .copied()
            .unwrap_or(true)
    }

    /// The pinned output input `i` of the host launch at `step` reads, if any.
    pub fn read_of(&self, step: usize, i: usize) -> Option<Output> {
        self.reads
            .get(&step)
            .and_then(|r| r.get(i))
            .copied()
            .flatten()
    }
}

/// A live pinned value.
#[derive(Debug, Clone, Copy)]
struct Value {
    offset: u64,
    size: u64,
    from: Output,
}

fn overlaps(v: &Value, offset: u64, size: u64) -> bool {
    v.offset < offset + size && offset < v.offset + v.size
}

/// The analysis of `steps` (one segment) of `model`; `reads_data(task)` says
/// whether a host kernel task reads its inputs' data (a shape computation's does not);
/// `device_reads` are the places read outside launches (model outputs, switch indexes).
pub fn analyse(
    model: &TaskModel,
    steps: &[Step],
    device_reads: &[Place],
    reads_data: impl Fn(&Task) -> bool,
) -> Forwarding {
    let mut out = Forwarding::default();
    let mut live: HashMap<BufferId, Vec<Value>> = HashMap::new();
    let mut shipped: HashSet<Output> = HashSet::new();
    let mut last_reader: HashMap<usize, usize> = HashMap::new();
    let mut producers: Vec<(usize, Vec<BufferId>)> = Vec::new();
    let mut births: HashMap<BufferId, usize> = HashMap::new();
    let mut freed_on_birth: HashSet<BufferId> = HashSet::new();
    let ship_overlapping = |live: &HashMap<BufferId, Vec<Value>>,
                            shipped: &mut HashSet<Output>,
                            b: BufferId,
                            offset: u64,
                            size: u64| {
        for v in live.get(&b).into_iter().flatten() {
            if overlaps(v, offset, size) {
                shipped.insert(v.from);
            }
        }
    };
    for (p, step) in steps.iter().enumerate() {
        match *step {
            Step::Alloc { buffer, stream } => {
                births.insert(buffer, stream);
            }
            Step::Free { buffer, stream } if births.get(&buffer) == Some(&stream) => {
                freed_on_birth.insert(buffer);
            }
            Step::Launch {
                task: (s, i),
                ref places,
            } => {
                let task: &Task = &model.streams[s].tasks[i];
                let host = matches!(
                    task,
                    Task::Kernel {
                        placement: crate::lowering::model::Placement::Host,
                        ..
                    }
                );
                let list = accesses(task);
                let mut reads = Vec::new();
                for (a, place) in list.iter().zip(places) {
                    if a.write {
                        continue;
                    }
                    let mut from = None;
                    if let Place::Buffer { buffer, offset } = *place {
                        if host && reads_data(task) {
                            from = live.get(&buffer).and_then(|vs| {
                                vs.iter()
                                    .find(|v| v.offset == offset && v.size == a.size)
                                    .map(|v| v.from)
                            });
                        }
                        match from {
                            Some(f) => {
                                last_reader.insert(f.0, p);
                            }
                            // Read on the device, or copied D2H from the device copy.
                            None if !host || reads_data(task) => {
                                ship_overlapping(&live, &mut shipped, buffer, offset, a.size)
                            }
                            None => {}
                        }
                    }
                    reads.push(from);
                }
                // Writes end the values they overwrite.
                let mut written = Vec::new();
                for (a, place) in list.iter().zip(places) {
                    if let (true, Place::Buffer { buffer, offset }) = (a.write, *place) {
                        if let Some(vs) = live.get_mut(&buffer) {
                            vs.retain(|v| !overlaps(v, offset, a.size));
                        }
                        written.push((buffer, offset, a.size));
                    }
                }
                if host {
                    out.reads.insert(p, reads);
                    let mut buffers = Vec::new();
                    for (k, &(buffer, offset, size)) in written.iter().enumerate() {
                        live.entry(buffer).or_default().push(Value {
                            offset,
                            size,
                            from: (p, k),
                        });
                        buffers.push(buffer);
                    }
                    producers.push((p, buffers));
                }
            }
            _ => {}
        }
    }
    for place in device_reads {
        if let Place::Buffer { buffer, offset } = *place {
            // A model output's or index's size is not known here: every value of the
            // buffer from `offset` on.
            ship_overlapping(&live, &mut shipped, buffer, offset, u64::MAX - offset);
        }
    }
    for (p, buffers) in producers {
        let ship = buffers
            .iter()
            .enumerate()
            .map(|(k, b)| shipped.contains(&(p, k)) || !freed_on_birth.contains(b))
            .collect();
        out.ship.insert(p, ship);
        let at = last_reader.get(&p).copied().unwrap_or(p).max(p);
        out.release_after.entry(at).or_default().push(p);
    }
    out
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

    fn kernel(host: bool, inputs: Vec<Operand>, output: u64) -> Task {
        let placement = if host {
            crate::lowering::model::Placement::Host
        } else {
            crate::lowering::model::Placement::Hbm
        };
        test_models::relu("", placement, inputs, vec![ws(output)])
    }

    fn model(tasks: Vec<Task>) -> TaskModel {
        test_models::model(vec![tasks], 0)
    }

    /// The launch step of task `i` and its places.
    fn launch(steps: &[Step], i: usize) -> (usize, Vec<Place>) {
        steps
            .iter()
            .enumerate()
            .find_map(|(p, s)| match s {
                Step::Launch {
                    task: (0, j),
                    places,
                } if *j == i => Some((p, places.clone())),
                _ => None,
            })
            .expect("launched")
    }

    /// a (host) → b (host) → c (device): b reads a in place, a is never copied to the
    /// device and is released after b ran; b is copied (c reads it).
    #[test]
    fn a_host_value_only_host_kernels_read_stays_in_pinned_memory() {
        let m = model(vec![
            kernel(true, vec![], 0),
            kernel(true, vec![ws(0)], 64),
            kernel(false, vec![ws(64)], 128),
        ]);
        let plan = build(&m).unwrap();
        let f = analyse(&m, &plan.steps, &[], |_| true);
        let (pa, _) = launch(&plan.steps, 0);
        let (pb, _) = launch(&plan.steps, 1);
        assert_eq!(f.read_of(pb, 0), Some((pa, 0)));
        assert!(!f.ships(pa, 0));
        assert!(f.ships(pb, 0));
        assert_eq!(f.release_after[&pb], vec![pa, pb]);
        // A shape computation's read (no data) neither reads in place nor ships.
        let g = analyse(&m, &plan.steps, &[], |_| false);
        assert_eq!(g.read_of(pb, 0), None);
        assert!(!g.ships(pa, 0));
        assert_eq!(g.release_after[&pa], vec![pa]);
    }

    /// A device reader, or a read outside launches (a model output, a switch index),
    /// makes the copy; the host reader still reads in place.
    #[test]
    fn a_device_read_of_a_host_value_keeps_its_copy() {
        let m = model(vec![
            kernel(true, vec![], 0),
            kernel(true, vec![ws(0)], 64),
            kernel(false, vec![ws(0)], 128),
        ]);
        let plan = build(&m).unwrap();
        let f = analyse(&m, &plan.steps, &[], |_| true);
        let (pa, _) = launch(&plan.steps, 0);
        let (pb, _) = launch(&plan.steps, 1);
        assert_eq!(f.read_of(pb, 0), Some((pa, 0)));
        assert!(f.ships(pa, 0));
        let m = model(vec![kernel(true, vec![], 0), kernel(true, vec![ws(0)], 64)]);
        let plan = build(&m).unwrap();
        let (pa, places_a) = launch(&plan.steps, 0);
        assert!(!analyse(&m, &plan.steps, &[], |_| true).ships(pa, 0));
        let f = analyse(&m, &plan.steps, &places_a, |_| true);
        assert!(f.ships(pa, 0));
    }

    /// A value whose buffer is not freed in the segment (a later segment may read its
    /// device copy) is copied; a launch the analysis does not know ships everything.
    #[test]
    fn a_value_that_may_outlive_the_segment_is_copied() {
        let m = model(vec![kernel(true, vec![], 0), kernel(true, vec![ws(0)], 64)]);
        let plan = build(&m).unwrap();
        let (pa, _) = launch(&plan.steps, 0);
        let steps: Vec<Step> = plan
            .steps
            .iter()
            .filter(|s| !matches!(s, Step::Free { .. }))
            .cloned()
            .collect();
        assert!(analyse(&m, &steps, &[], |_| true).ships(pa, 0));
        assert!(Forwarding::default().ships(3, 0));
    }
}
