//! Running a model on user IO buffers (zero copy, GE's `UpdateAllNodeArgs`) with GE's
//! `CheckIoReuseAddrs` before each execution (`load/bind.rs`). The buffers are allocated
//! here the way a caller would: one per input, one per output, except that under
//! [`IoBufferPlan::Shared`] an output that reuses an input (`output_reuse_input_mem_indexes`)
//! gets that input's buffer, as the compiled model requires; [`IoBufferPlan::Separate`]
//! gives every output its own buffer, which breaks every pair and must be refused.

use super::{
    load::{
        bind::{io_reuse_pairs, IoAddrs},
        LoadContext, RankModel,
    },
    rank_inputs, RunOptions,
};
use crate::{
    lowering::model::TaskModel,
    runtime::{acl::DeviceBuffer, device, error::RuntimeError, tensor::HostTensor},
};

/// How the caller's output buffers relate to its input buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoBufferPlan {
    /// An output that reuses input `i` is given input `i`'s buffer.
    Shared,
    /// Every output has a buffer of its own.
    Separate,
}

/// What a zero-copy run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ZeroCopyResult {
    /// The outputs of the last run, read from the caller's output buffers.
    pub outputs: Vec<HostTensor>,
    /// The pairs checked before each execution.
    pub pairs: String,
}

/// Loads `model` (one rank), binds caller buffers per `plan`, and runs it
/// `options.iterations` times, the caller's inputs written into its input buffers first.
pub fn run_model_zero_copy(
    model: &TaskModel,
    options: &RunOptions,
    plan: IoBufferPlan,
) -> Result<ZeroCopyResult, RuntimeError> {
    if options.ranks != 1 || options.iterations == 0 {
        return Err(RuntimeError::Input(
            "zero-copy IO runs one rank, at least one iteration".to_owned(),
        ));
    }
    let inputs = rank_inputs(model, options)?.remove(0);
    let runtime = device::open(options.device, options.acl_lib_dir.as_deref())?;
    let _session = runtime.session();
    let acl = &runtime.acl;
    acl.sim_configure(&options.sim_config_string())?;
    acl.set_device(0)?;
    let cx = LoadContext {
        acl,
        hccl: None,
        rank: 0,
        seed: options.seed,
    };
    let pairs = io_reuse_pairs(model);
    let mut buffers: Vec<DeviceBuffer> = Vec::new();
    let result = (|| {
        let mut loaded = RankModel::load(model, &cx)?;
        let outcome = (|| {
            let mut addrs = IoAddrs {
                inputs: vec![Default::default(); model.inputs.len()],
                outputs: vec![Default::default(); model.outputs.len()],
            };
            for input in &model.inputs {
                let buffer = acl.malloc(input.desc.bytes().max(1))?;
                *slot(&mut addrs.inputs, input.index)? = buffer.ptr();
                buffers.push(buffer);
            }
            for output in &model.outputs {
                let shared = pairs.iter().find(|p| p.output == output.index);
                let ptr = match (plan, shared) {
                    (IoBufferPlan::Shared, Some(pair)) => *slot(&mut addrs.inputs, pair.input)?,
                    _ => {
                        let size = output.operand.size.max(output.operand.desc.bytes()).max(1);
                        let buffer = acl.malloc(size)?;
                        let ptr = buffer.ptr();
                        buffers.push(buffer);
                        ptr
                    }
                };
                *slot(&mut addrs.outputs, output.index)? = ptr;
            }
            loaded.bind_io(model, &cx, &addrs)?;
            let mut outputs = Vec::new();
            for _ in 0..options.iterations {
                for (input, tensor) in model.inputs.iter().zip(&inputs) {
                    let dst = addrs.inputs[input.index as usize];
                    acl.copy_to_device(dst, tensor.bytes.len() as u64, &tensor.bytes)?;
                }
                loaded.execute_bound(model, &addrs)?;
                loaded.synchronize(options.sync_timeout_ms)?;
                outputs = loaded.read_outputs(model)?;
            }
            Ok(outputs)
        })();
        let released = loaded.release();
        let outputs = outcome?;
        released?;
        Ok(outputs)
    })();
    let mut freed = Ok(());
    for buffer in buffers {
        let outcome = buffer.release();
        if freed.is_ok() {
            freed = outcome;
        }
    }
    let reset = acl.reset_device(0);
    let outputs = result?;
    freed?;
    reset?;
    Ok(ZeroCopyResult {
        outputs,
        pairs: super::load::bind::format_io_reuse_pairs(&pairs),
    })
}

fn slot<T>(list: &mut [T], index: u32) -> Result<&mut T, RuntimeError> {
    let n = list.len();
    list.get_mut(index as usize)
        .ok_or_else(|| RuntimeError::Model(format!("IO index {index} out of range ({n} entries)")))
}
