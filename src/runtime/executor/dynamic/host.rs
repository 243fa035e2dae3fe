//! Host-placed kernels in dynamic memory mode: a kernel task marked `placement = "host"`
//! (`_placement = "host"`, or a shape computation, as `--lower-to-rt` places it) is
//! computed by the host with the reference kernels, in host memory, with GE's placement
//! copies (`placed_lowering_result.cc`, `kOutputDataCopyer`) executed for real around it:
//!
//! * **device → host** (`SyncStream` + `CopyD2H` + `FreeMemory`): the host synchronises the
//!   task's stream (every producer is ordered before the task on it by the lowering's
//!   events, so this is GE's sync of the source stream), then copies each input it reads
//!   with a synchronous `aclrtMemcpy(D2H)`; that host copy is freed once the kernel ran.
//!   A shape computation (`Shape`, `Rank`, `Size`) reads no data: its inputs are described,
//!   not copied, and no sync is needed (GE: no copy for a Shape's input).
//! * **host → device** (`CopyH2D` + `FreeMemory` guarder): each output is written into
//!   pinned host memory (`aclrtMallocHost`) and copied with `aclrtMemcpyAsync(H2D)` on the
//!   task's stream into the output's device buffer (the dynamic plan allocated it on that
//!   stream, and its consumers are ordered after the task there by the model's events). The
//!   device reads pinned memory when the copy runs, so the host buffer's guarder frees it
//!   only after an event recorded behind the copy completed ([`Guarders`]).
//! * **host → host** (no copy): a host kernel reading the exact value another host
//!   kernel of the segment wrote reads that kernel's pinned buffer in place (no
//!   `SyncStream`, no D2H for it); an output gets its `CopyH2D` only if a device task, a
//!   model output, a switch index or a later segment reads it ([`super::forward`]). The
//!   pinned buffer goes to its FreeMemory guarder (or, never copied, is freed) after its
//!   last host reader ran. The device buffer stays allocated as the dynamic plan made it.
//! * HBM ↔ P2P, P2P → host: not done (the simulator has one kind of device memory; a
//!   `p2p` kernel runs as a device kernel).
//!
//! The simulator's race detector keeps shadow memory over pinned host allocations and
//! checks an H2D copy's source when the copy runs, so a guarder that frees too early is
//! reported (`free-while-in-use`, then `use-after-free`); a synchronous D2H copy is a host
//! read it orders against the device writers, so a missing `SyncStream` is a race.
//! [`HostMutation`] removes either ordering, for the tests that show this.

use super::forward::Forwarding;
use crate::dialect::table::{op_table, Trait};
use crate::lowering::model::{Attrs, Operand};
use crate::runtime::{
    acl::{Acl, DevicePtr, Event, HostBuffer, Stream},
    error::RuntimeError,
};
use ascend_kernels::{KernelError, TensorMut, TensorRef};
use std::{
    collections::{HashMap, VecDeque},
    sync::Arc,
};

/// Orderings removed on purpose (`ge-run --mutate-host`), to show the race detector
/// catches their absence. Never for real runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HostMutation {
    /// Both orderings kept.
    #[default]
    None,
    /// The FreeMemory guarder frees a host output as soon as its H2D copy is issued.
    FreeAtIssue,
    /// No `SyncStream` before the host reads its device inputs.
    NoSync,
    /// No `CopyH2D` of any host output, even one a device task reads.
    SkipH2d,
    /// P2P memory freed at the plan's last `Free` of it, without waiting for the streams
    /// that used it ([`super::p2p`]).
    P2pFreeEarly,
}

impl std::str::FromStr for HostMutation {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "none" => Ok(HostMutation::None),
            "free-at-issue" => Ok(HostMutation::FreeAtIssue),
            "no-sync" => Ok(HostMutation::NoSync),
            "skip-h2d" => Ok(HostMutation::SkipH2d),
            "p2p-free-early" => Ok(HostMutation::P2pFreeEarly),
            other => Err(format!(
                "unknown host mutation `{other}` (expected `none`, `free-at-issue`, `no-sync`, \
                 `skip-h2d` or `p2p-free-early`)"
            )),
        }
    }
}

/// How the host gets one input of a host kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostInput {
    /// Its bytes, copied device → host.
    Copy,
    /// Only its description (a shape computation reads no data).
    Describe,
}

/// What running one host kernel takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostKernelPlan {
    pub inputs: Vec<HostInput>,
    /// A `SyncStream` before the D2H copies (some input is copied).
    pub sync_stream: bool,
}

/// Whether `op_type` reads only its inputs' shapes (the op table's `shape_only`).
pub fn reads_no_data(op_type: &str) -> bool {
    op_table()
        .by_ge_type(op_type)
        .is_some_and(|d| d.has_trait(Trait::ShapeOnly))
}

/// The plan of a host kernel of `op_type` with `inputs` inputs.
pub fn plan_host_kernel(op_type: &str, inputs: usize) -> HostKernelPlan {
    let how = if reads_no_data(op_type) {
        HostInput::Describe
    } else {
        HostInput::Copy
    };
    HostKernelPlan {
        inputs: vec![how; inputs],
        sync_stream: how == HostInput::Copy && inputs > 0,
    }
}

/// Runs the reference kernel of `op_type` on the host: `inputs` (descriptions and host
/// bytes) → the bytes of each of `outputs` (by their descriptions). `opaque`: op types
/// without a kernel run the opaque stand-in, as on the device.
pub fn compute(
    op_type: &str,
    attrs: &Attrs,
    inputs: &[(&Operand, Vec<u8>)],
    outputs: &[Operand],
    opaque: bool,
) -> Result<Vec<Vec<u8>>, String> {
    let mut buffers: Vec<Vec<u8>> = outputs
        .iter()
        .map(|o| vec![0u8; o.desc.bytes() as usize])
        .collect();
    let refs: Vec<TensorRef> = inputs
        .iter()
        .map(|(o, bytes)| TensorRef {
            dtype: o.desc.dtype,
            dims: &o.desc.dims,
            data: bytes,
        })
        .collect();
    let mut muts: Vec<TensorMut> = outputs
        .iter()
        .zip(buffers.iter_mut())
        .map(|(o, b)| TensorMut {
            dtype: o.desc.dtype,
            dims: &o.desc.dims,
            data: b,
        })
        .collect();
    match ascend_kernels::execute(op_type, attrs, &refs, &mut muts) {
        Ok(()) => {}
        Err(KernelError::NotFound(_)) if opaque => {
            ascend_kernels::opaque(op_type, &refs, &mut muts)
        }
        Err(e) => return Err(format!("the host kernel {op_type}: {e}")),
    }
    drop(muts);
    Ok(buffers)
}

/// FreeMemory guarders of host memory a device copy still reads: each entry's buffers are
/// handed back only once its event (recorded on the copy's stream behind the copy) is
/// seen complete, never before. `E` and `B` are the event and buffer types (ACL handles
/// at run time; plain values in the tests).
#[derive(Debug)]
pub struct Guarders<E, B> {
    pending: VecDeque<(E, Vec<B>)>,
}

impl<E, B> Default for Guarders<E, B> {
    fn default() -> Self {
        Self {
            pending: VecDeque::new(),
        }
    }
}

impl<E, B> Guarders<E, B> {
    /// `buffers` may be freed once `event` completed.
    pub fn push(&mut self, event: E, buffers: Vec<B>) {
        self.pending.push_back((event, buffers));
    }

    pub fn len(&self) -> usize {
        self.pending.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The entries whose event `done` says completed, removed (in push order); the others
    /// stay. Events on different streams complete in any order, so every entry is asked.
    pub fn reap<Er>(
        &mut self,
        mut done: impl FnMut(&E) -> Result<bool, Er>,
    ) -> Result<Vec<(E, Vec<B>)>, Er> {
        let mut ready = Vec::new();
        let mut keep = VecDeque::new();
        while let Some(entry) = self.pending.pop_front() {
            match done(&entry.0) {
                Ok(true) => ready.push(entry),
                Ok(false) => keep.push_back(entry),
                Err(e) => {
                    keep.push_back(entry);
                    keep.extend(self.pending.drain(..));
                    self.pending = keep;
                    return Err(e);
                }
            }
        }
        self.pending = keep;
        Ok(ready)
    }

    /// Every entry, for the caller to wait on each event before freeing (end of a run).
    pub fn drain(&mut self) -> Vec<(E, Vec<B>)> {
        self.pending.drain(..).collect()
    }
}

/// What the host kernels of one rank did over the whole run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HostStats {
    pub kernels: u64,
    /// `SyncStream`s before D2H copies.
    pub syncs: u64,
    pub d2h_copies: u64,
    pub h2d_copies: u64,
    /// Pinned buffers freed by their guarder (after its event completed).
    pub guarded_frees: u64,
    /// Inputs read in place from another host kernel's pinned output (host → host).
    pub host_reads: u64,
    /// Outputs only host kernels read: no `CopyH2D`.
    pub unshipped: u64,
    /// Pinned buffers freed after their last host reader, with no copy to wait for.
    pub host_frees: u64,
}

/// A host kernel's pinned outputs, live until its last host reader ran.
#[derive(Debug)]
struct Live {
    buffers: Vec<Option<HostBuffer>>,
    /// Recorded behind the outputs' H2D copies (none copied, or the mutation).
    event: Option<Event>,
}

/// One rank's host kernels: the pinned outputs still guarded, and what was done.
#[derive(Debug, Default)]
pub struct HostKernels {
    pub mutation: HostMutation,
    /// Op types without a kernel run the opaque stand-in (`--opaque-kernels`).
    pub opaque: bool,
    guarders: Guarders<Event, HostBuffer>,
    pub stats: HostStats,
    /// The current segment's host → host analysis and the step being run.
    forwarding: Forwarding,
    at: usize,
    live: HashMap<usize, Live>,
}

impl HostKernels {
    pub fn new(mutation: HostMutation, opaque: bool) -> Self {
        Self {
            mutation,
            opaque,
            ..Self::default()
        }
    }

    /// A new segment: its host → host analysis ([`super::forward`]).
    pub fn begin_segment(&mut self, forwarding: Forwarding) {
        self.forwarding = forwarding;
    }

    /// The step index of the segment about to run.
    pub fn at_step(&mut self, step: usize) {
        self.at = step;
    }

    /// After step `step`: the pinned outputs whose last host reader it was go to their
    /// guarder (copied to the device) or are freed (never copied).
    pub fn after_step(&mut self, step: usize) -> Result<(), RuntimeError> {
        let done = self
            .forwarding
            .release_after
            .get(&step)
            .cloned()
            .unwrap_or_default();
        let mut result = Ok(());
        for p in done {
            if let Some(live) = self.live.remove(&p) {
                let outcome = self.retire(live);
                if result.is_ok() {
                    result = outcome;
                }
            }
        }
        result
    }

    /// The end of a segment: anything still live is retired (values do not cross a
    /// decision in pinned memory: the analysis ships them).
    pub fn end_segment(&mut self) -> Result<(), RuntimeError> {
        let mut result = Ok(());
        let mut all: Vec<(usize, Live)> = self.live.drain().collect();
        all.sort_by_key(|(p, _)| *p);
        for (_, live) in all {
            let outcome = self.retire(live);
            if result.is_ok() {
                result = outcome;
            }
        }
        self.forwarding = Forwarding::default();
        result
    }

    fn retire(&mut self, live: Live) -> Result<(), RuntimeError> {
        let buffers: Vec<HostBuffer> = live.buffers.into_iter().flatten().collect();
        match live.event {
            Some(event) => {
                self.guarders.push(event, buffers);
                Ok(())
            }
            None => {
                let mut result = Ok(());
                for buffer in buffers {
                    self.stats.host_frees += 1;
                    let outcome = buffer.release();
                    if result.is_ok() {
                        result = outcome;
                    }
                }
                result
            }
        }
    }

    /// Runs one host kernel whose operands are at `ptrs` (inputs, then outputs) for a task
    /// of `stream`: D2H copies of the device inputs it reads (after a `SyncStream`; an
    /// input another host kernel wrote is read from its pinned buffer), the reference
    /// kernel, an H2D copy on `stream` of each output the device needs, from pinned
    /// memory a guarder frees once an event recorded behind the copies completed and the
    /// last host reader ran.
    #[allow(clippy::too_many_arguments)]
    pub fn launch(
        &mut self,
        acl: &Arc<Acl>,
        stream: &Stream,
        (op_type, node): (&str, &str),
        attrs: &Attrs,
        (inputs, outputs): (&[Operand], &[Operand]),
        ptrs: &[DevicePtr],
        timeout_ms: i32,
    ) -> Result<(), RuntimeError> {
        self.reap(acl)?;
        let p = self.at;
        let (in_ptrs, out_ptrs) = ptrs.split_at(inputs.len());
        let plan = plan_host_kernel(op_type, inputs.len());
        // Inputs in another host kernel's pinned memory: no device read, no sync.
        let pinned_of: Vec<Option<(usize, usize)>> = (0..inputs.len())
            .map(|i| match plan.inputs[i] {
                HostInput::Copy => self.forwarding.read_of(p, i).filter(|(q, k)| {
                    self.live
                        .get(q)
                        .and_then(|l| l.buffers.get(*k))
                        .is_some_and(Option::is_some)
                }),
                HostInput::Describe => None,
            })
            .collect();
        let device_reads = plan
            .inputs
            .iter()
            .zip(&pinned_of)
            .any(|(how, from)| *how == HostInput::Copy && from.is_none());
        if device_reads && self.mutation != HostMutation::NoSync {
            acl.synchronize_stream(stream, timeout_ms)?;
            self.stats.syncs += 1;
        }
        let mut host_inputs = Vec::new();
        for (((operand, &ptr), how), from) in
            inputs.iter().zip(in_ptrs).zip(&plan.inputs).zip(&pinned_of)
        {
            let bytes = operand.desc.bytes();
            let data = match (how, from) {
                (HostInput::Copy, Some((q, k))) => {
                    self.stats.host_reads += 1;
                    let buffer = self.live[q].buffers[*k].as_ref().expect("checked above");
                    buffer.read(bytes)?
                }
                (HostInput::Copy, None) => {
                    self.stats.d2h_copies += 1;
                    acl.copy_to_host(ptr, bytes)?
                }
                (HostInput::Describe, _) => vec![0; bytes as usize],
            };
            host_inputs.push((operand, data));
        }
        let results = compute(op_type, attrs, &host_inputs, outputs, self.opaque)
            .map_err(RuntimeError::Other)?;
        // The D2H copies' FreeMemory: the kernel ran, nothing reads them any more.
        drop(host_inputs);
        self.stats.kernels += 1;
        let mut pinned = Vec::new();
        let mut copied = false;
        for (k, ((operand, &ptr), bytes)) in outputs.iter().zip(out_ptrs).zip(results).enumerate() {
            if bytes.is_empty() {
                pinned.push(None);
                continue;
            }
            let mut buffer = acl.malloc_host(bytes.len() as u64)?;
            buffer.write(&bytes)?;
            if self.forwarding.ships(p, k) && self.mutation != HostMutation::SkipH2d {
                if !node.is_empty() {
                    // The copy is the node's device side: race reports name it.
                    acl.sim_set_task_name(stream, node)?;
                }
                acl.memcpy_h2d_async(ptr, operand.size, &buffer, bytes.len() as u64, stream)?;
                self.stats.h2d_copies += 1;
                copied = true;
            } else {
                self.stats.unshipped += 1;
            }
            pinned.push(Some(buffer));
        }
        if pinned.iter().all(Option::is_none) {
            return Ok(());
        }
        // The mutation: no guarder event, the copies may not have read their sources
        // when the last host reader is done with them.
        let event = if copied && self.mutation != HostMutation::FreeAtIssue {
            let event = acl.create_event(crate::runtime::acl::EVENT_SYNC)?;
            acl.record_event(&event, stream)?;
            Some(event)
        } else {
            None
        };
        self.live.insert(
            p,
            Live {
                buffers: pinned,
                event,
            },
        );
        Ok(())
    }

    /// Frees the pinned buffers whose guarder event completed (a query, no wait).
    pub fn reap(&mut self, acl: &Acl) -> Result<(), RuntimeError> {
        let ready = self
            .guarders
            .reap(|event: &Event| acl.event_complete(event))?;
        self.free(ready)
    }

    /// Waits for every guarder's event, then frees its buffers (the end of a run).
    pub fn drain(&mut self, acl: &Acl, timeout_ms: i32) -> Result<(), RuntimeError> {
        let all = self.guarders.drain();
        let mut result = Ok(());
        for (event, _) in &all {
            if let Err(e) = acl.synchronize_event(event, timeout_ms) {
                result = Err(e);
                break;
            }
        }
        // On an error the buffers are still freed (on drop), the run fails anyway.
        result.and_then(|()| self.free(all))
    }

    fn free(&mut self, entries: Vec<(Event, Vec<HostBuffer>)>) -> Result<(), RuntimeError> {
        let mut result = Ok(());
        for (event, buffers) in entries {
            for buffer in buffers {
                self.stats.guarded_frees += 1;
                let outcome = buffer.release();
                if result.is_ok() {
                    result = outcome;
                }
            }
            let outcome = event.release();
            if result.is_ok() {
                result = outcome;
            }
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lowering::model::{Addr, DType, Region, TensorDesc};

    fn operand(dtype: DType, dims: &[i64]) -> Operand {
        let desc = TensorDesc {
            dtype,
            dims: dims.to_vec(),
            format: 2,
        };
        Operand {
            addr: Addr {
                region: Region::Workspace,
                offset: 0,
            },
            size: desc.bytes(),
            desc,
        }
    }

    #[test]
    fn shape_computations_describe_their_inputs_without_a_sync() {
        for op in ["Shape", "Rank", "Size"] {
            let plan = plan_host_kernel(op, 1);
            assert_eq!(plan.inputs, vec![HostInput::Describe], "{op}");
            assert!(!plan.sync_stream, "{op}");
        }
    }

    #[test]
    fn data_reading_host_kernels_copy_every_input_after_a_sync() {
        let plan = plan_host_kernel("Add", 2);
        assert_eq!(plan.inputs, vec![HostInput::Copy, HostInput::Copy]);
        assert!(plan.sync_stream);
        // No input: nothing to wait for.
        assert!(!plan_host_kernel("Add", 0).sync_stream);
    }

    #[test]
    fn the_host_computes_with_the_reference_kernels() {
        let x = operand(DType::F32, &[2, 3]);
        let out = operand(DType::I64, &[2]);
        // Shape reads no data: a described input holds zeros, the result is its dims.
        let y = compute(
            "Shape",
            &Attrs::default(),
            &[(&x, vec![0; 24])],
            &[out],
            false,
        )
        .expect("Shape runs");
        assert_eq!(y[0], [2i64.to_le_bytes(), 3i64.to_le_bytes()].concat());
        let a = operand(DType::F32, &[2]);
        let bytes: Vec<u8> = [1.5f32, -2.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let sum = compute(
            "Add",
            &Attrs::default(),
            &[(&a, bytes.clone()), (&a, bytes)],
            std::slice::from_ref(&a),
            false,
        )
        .expect("Add runs");
        let want: Vec<u8> = [3.0f32, -4.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(sum[0], want);
    }

    #[test]
    fn a_host_kernel_without_a_kernel_is_an_error_unless_opaque() {
        let a = operand(DType::F32, &[2]);
        let err = compute(
            "NoSuchOp",
            &Attrs::default(),
            &[(&a, vec![0; 8])],
            std::slice::from_ref(&a),
            false,
        )
        .expect_err("no kernel");
        assert!(err.contains("NoSuchOp"), "{err}");
        assert!(compute(
            "NoSuchOp",
            &Attrs::default(),
            &[(&a, vec![0; 8])],
            std::slice::from_ref(&a),
            true
        )
        .is_ok());
    }

    #[test]
    fn guarders_free_only_what_completed_in_push_order() {
        let mut g: Guarders<u32, &str> = Guarders::default();
        g.push(1, vec!["a"]);
        g.push(2, vec!["b", "c"]);
        g.push(3, vec!["d"]);
        // Nothing completed: nothing freed.
        assert!(g.reap(|_| Ok::<_, ()>(false)).unwrap().is_empty());
        assert_eq!(g.len(), 3);
        // Event 2 completes before 1 (another stream): only its buffers go.
        let ready = g.reap(|e| Ok::<_, ()>(*e == 2)).unwrap();
        assert_eq!(ready, vec![(2, vec!["b", "c"])]);
        assert_eq!(g.len(), 2);
        // An error keeps every entry, none lost.
        assert_eq!(
            g.reap(|_| Err::<bool, _>("query failed")),
            Err("query failed")
        );
        assert_eq!(g.len(), 2);
        let ready = g.reap(|_| Ok::<_, ()>(true)).unwrap();
        assert_eq!(ready, vec![(1, vec!["a"]), (3, vec!["d"])]);
        assert!(g.is_empty());
        g.push(4, vec!["e"]);
        assert_eq!(g.drain(), vec![(4, vec!["e"])]);
        assert!(g.is_empty());
    }

    #[test]
    fn mutations_parse_by_name() {
        assert_eq!("free-at-issue".parse(), Ok(HostMutation::FreeAtIssue));
        assert_eq!("no-sync".parse(), Ok(HostMutation::NoSync));
        assert_eq!("none".parse(), Ok(HostMutation::None));
        assert_eq!("skip-h2d".parse(), Ok(HostMutation::SkipH2d));
        assert_eq!("p2p-free-early".parse(), Ok(HostMutation::P2pFreeEarly));
        assert!("later".parse::<HostMutation>().is_err());
    }
}
