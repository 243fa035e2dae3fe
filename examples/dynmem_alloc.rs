//! Allocator throughput on the simulator: a lowered model's allocation sequence in
//! dynamic memory mode (every `Alloc`, `Wander`, `Free` and event step of its plan, no
//! launches) through GE's run-time allocators, against one `aclrtMalloc` / `aclrtFree`
//! per tensor. Used by `tools/bench-dynmem.sh`.
//!
//! Usage: `cargo run --release --example dynmem_alloc -- MODEL.mlir [ROUNDS]`

use ge_mlir::{
    lowering::read_task_model,
    runtime::{
        acl::DeviceBuffer,
        device::{self, Device},
        executor::dynamic::{
            plan::{self, Step},
            AclDeviceMemory,
        },
        memory::{
            events::{last_wait_events, send_event, wait_event},
            GertEvent, MultiStreamMemory, ScalableConfig,
        },
    },
};
use std::{collections::HashMap, time::Instant};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .ok_or("usage: dynmem_alloc MODEL.mlir [ROUNDS]")?;
    let rounds: u32 = args.get(2).map_or(Ok(20), |r| r.parse())?;
    let context = ge_mlir::dialect::new_context();
    let text = std::fs::read_to_string(path)?;
    let module = melior::ir::Module::parse(&context, &text).ok_or("not MLIR")?;
    let model = read_task_model(&module).map_err(|_| "not a lowered model")?;
    let plan = plan::build(&model)?;
    let runtime = device::open(Device::Sim, None)?;
    let _session = runtime.session();
    let acl = &runtime.acl;
    acl.sim_configure("reset=1")?;
    acl.set_device(0)?;
    let holders: Vec<usize> = (0..plan.buffers.len())
        .map(|b| {
            plan.steps
                .iter()
                .filter(|s| matches!(s, Step::Free { buffer, .. } if *buffer == b))
                .count()
        })
        .collect();
    let allocs = plan
        .steps
        .iter()
        .filter(|s| matches!(s, Step::Alloc { .. }))
        .count() as u64
        * u64::from(rounds);

    // One aclrtMalloc per tensor, freed when its last stream is done with it.
    let start = Instant::now();
    for _ in 0..rounds {
        let mut held: HashMap<usize, (DeviceBuffer, usize)> = HashMap::new();
        for step in &plan.steps {
            match *step {
                Step::Alloc { buffer, .. } => {
                    held.insert(
                        buffer,
                        (acl.malloc(plan.buffers[buffer].size)?, holders[buffer]),
                    );
                }
                Step::Free { buffer, .. } => {
                    let entry = held.get_mut(&buffer).expect("allocated");
                    entry.1 -= 1;
                    if entry.1 == 0 {
                        held.remove(&buffer).expect("held").0.release()?;
                    }
                }
                _ => {}
            }
        }
    }
    let direct = start.elapsed();

    // GE's allocators over the same device.
    let streams = (0..plan.stream_num)
        .map(|_| acl.create_stream(0, 0))
        .collect::<Result<Vec<_>, _>>()?;
    let device = AclDeviceMemory::new(acl, streams, 60_000);
    let mut memory =
        MultiStreamMemory::new(device, plan.stream_num, ScalableConfig::for_device(None))?;
    let mut events: Vec<GertEvent> = plan
        .events
        .iter()
        .map(|e| GertEvent {
            src_stream: e.src,
            dst_stream: e.dst,
            ..GertEvent::default()
        })
        .collect();
    let mut blocks = vec![None; plan.buffers.len()];
    let start = Instant::now();
    for _ in 0..rounds {
        for step in &plan.steps {
            match *step {
                Step::Alloc { buffer, stream } => {
                    blocks[buffer] = Some(memory.malloc(stream, plan.buffers[buffer].size)?)
                }
                Step::Wander { buffer, src, dst } => {
                    memory.wander_from(blocks[buffer].unwrap(), src, dst)?
                }
                Step::Free { buffer, stream } => memory.free(stream, blocks[buffer].unwrap())?,
                Step::Send { event } => send_event(&mut memory, &mut events[event])?,
                Step::Wait { event } => {
                    wait_event(&mut memory, &mut events[event])?;
                }
                Step::LastResourceClean => last_wait_events(&mut memory)?,
                _ => {}
            }
        }
    }
    let pooled = start.elapsed();
    let device_mallocs = memory.device().mallocs;
    let report = memory.finalize()?;
    memory.device_mut().release()?;
    let ns = |d: std::time::Duration| d.as_nanos() as f64 / allocs as f64;
    println!(
        "allocations: {allocs} ({} per round, {rounds} rounds, {} streams)",
        allocs / u64::from(rounds),
        plan.stream_num
    );
    println!(
        "one aclrtMalloc per tensor: {:.0} ns/alloc ({allocs} aclrtMalloc)",
        ns(direct)
    );
    println!(
        "GE allocators: {:.0} ns/alloc ({device_mallocs} aclrtMalloc, {} leaked blocks), {:.2}x",
        ns(pooled),
        report.leaked_blocks,
        direct.as_secs_f64() / pooled.as_secs_f64()
    );
    Ok(())
}
