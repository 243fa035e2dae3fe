//! Several models in one process on one device, their streams from one
//! [`ReusableStreamAllocator`] (GE runtime v1's pool): each load takes `stream_num`
//! streams from the pool (priority 0, PERSISTENT, the task count of each model stream),
//! runs, and gives them back when the model is released, so the next load reuses them.
//! ACL's model runtime instance binds a stream to one model at a time, hence the pool's
//! exclusive policy here.

use super::{
    load::{LoadContext, RankModel},
    rank_inputs, RunOptions,
};
use crate::{
    lowering::model::{Task, TaskModel},
    runtime::{
        acl::{Acl, STREAM_PERSISTENT},
        device,
        error::RuntimeError,
        streams::{AclStreams, ReusableStreamAllocator, ReusePolicy, StreamId, StreamStats},
        tensor::HostTensor,
    },
};
use std::sync::Arc;

/// The simulator's default `max_tasks_per_stream` (`tools/ascend-sim/src/config.rs`); a
/// `max_tasks_per_stream=N` in `RunOptions::sim_config` overrides it.
const DEFAULT_MAX_TASKS_PER_STREAM: u32 = 1 << 20;

/// What a multi-model run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiRunResult {
    /// Per load, in order (`loads` rounds over the models): the model's index in the list
    /// and its outputs of the last run.
    pub loads: Vec<(usize, Vec<HostTensor>)>,
    /// The pool's counters: `requests` is what creating streams without reuse costs.
    pub streams: StreamStats,
}

/// Runs `models` in turn, `loads` rounds (a model is loaded, run `options.iterations` times
/// and released before the next), with stream reuse on or off. One rank only.
pub fn run_models(
    models: &[TaskModel],
    options: &RunOptions,
    loads: u32,
    reuse: bool,
) -> Result<MultiRunResult, RuntimeError> {
    if options.ranks != 1 || options.iterations == 0 || loads == 0 || models.is_empty() {
        return Err(RuntimeError::Input(
            "several models run on one rank, with at least one model, one load and one \
             iteration"
                .to_owned(),
        ));
    }
    let inputs = models
        .iter()
        .map(|model| {
            let options = RunOptions {
                inputs: Vec::new(),
                ..options.clone()
            };
            rank_inputs(model, &options).map(|mut ranks| ranks.remove(0))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if models.iter().any(|m| {
        m.streams
            .iter()
            .flat_map(|s| &s.tasks)
            .any(|t| matches!(t, Task::Hccl { .. }))
    }) {
        return Err(RuntimeError::Input(
            "several models in one process: collectives need --ranks, which this mode does not \
             take"
                .to_owned(),
        ));
    }
    let runtime = device::open(options.device, options.acl_lib_dir.as_deref())?;
    let _session = runtime.session();
    let acl = &runtime.acl;
    acl.sim_configure(&options.sim_config_string())?;
    acl.set_device(0)?;
    let policy = if reuse {
        ReusePolicy::TaskCount {
            max_tasks_per_stream: max_tasks_per_stream(options),
            exclusive: true,
        }
    } else {
        ReusePolicy::Never
    };
    let mut pool = ReusableStreamAllocator::new(
        AclStreams {
            acl: Arc::clone(acl),
            sync_timeout_ms: options.sync_timeout_ms,
        },
        policy,
    );
    let result = (|| {
        let mut done = Vec::new();
        let mut model_id = 0u32;
        for round in 0..loads {
            for (position, model) in models.iter().enumerate() {
                model_id += 1;
                let outputs =
                    load_and_run(acl, &mut pool, model_id, model, &inputs[position], options)
                        .map_err(|e| {
                            e.at(|| {
                                format!(
                                    "load {} of model `{}` (round {round})",
                                    model_id, model.name
                                )
                            })
                        })?;
                if !reuse {
                    // GE's HEAD: a model's streams die with it.
                    for id in pool.release_model(model_id) {
                        pool.destroy_stream(id, false)?;
                    }
                }
                done.push((position, outputs));
            }
        }
        Ok(done)
    })();
    let destroyed = pool.destroy_all();
    let streams = pool.stats();
    drop(pool);
    let reset = acl.reset_device(0);
    let loads = result?;
    destroyed?;
    reset?;
    Ok(MultiRunResult { loads, streams })
}

fn max_tasks_per_stream(options: &RunOptions) -> u32 {
    options
        .sim_config
        .iter()
        .flat_map(|c| c.split(';'))
        .filter_map(|kv| kv.trim().strip_prefix("max_tasks_per_stream="))
        .filter_map(|v| v.trim().parse().ok())
        .next_back()
        .unwrap_or(DEFAULT_MAX_TASKS_PER_STREAM)
}

/// One load: streams from the pool, load, `iterations` runs, release with the streams back.
fn load_and_run(
    acl: &Arc<Acl>,
    pool: &mut ReusableStreamAllocator<AclStreams>,
    model_id: u32,
    model: &TaskModel,
    inputs: &[HostTensor],
    options: &RunOptions,
) -> Result<Vec<HostTensor>, RuntimeError> {
    let mut ids: Vec<StreamId> = Vec::new();
    let mut streams = Vec::new();
    for tasks in &model.streams {
        let task_num = u32::try_from(tasks.tasks.len()).unwrap_or(u32::MAX);
        let id = pool
            .get_or_create_rt_stream(model_id, 0, STREAM_PERSISTENT, task_num)
            .map_err(|e| e.at(|| format!("stream {}", tasks.id)))?;
        ids.push(id);
        streams.push(
            pool.lend(id)
                .expect("a stream just handed out is in the pool"),
        );
    }
    let forget = |pool: &mut ReusableStreamAllocator<AclStreams>, ids: &[StreamId]| {
        pool.release_model(model_id);
        for &id in ids {
            // Dropped with the failed load: the pool only forgets them.
            let _ = pool.destroy_stream(id, true);
        }
    };
    let cx = LoadContext {
        acl,
        hccl: None,
        rank: 0,
        seed: options.seed,
    };
    let loaded = match RankModel::load_on_streams(model, &cx, Some(streams)) {
        Ok(loaded) => loaded,
        Err(error) => {
            forget(pool, &ids);
            return Err(error);
        }
    };
    let run = (|| {
        let mut outputs = Vec::new();
        for _ in 0..options.iterations {
            loaded.start(model, inputs)?;
            loaded.synchronize(options.sync_timeout_ms)?;
            outputs = loaded.read_outputs(model)?;
        }
        Ok(outputs)
    })();
    let (released, streams) = loaded.release_keeping_streams();
    if streams.len() == ids.len() {
        for (&id, stream) in ids.iter().zip(streams) {
            pool.give_back(id, stream)?;
        }
        pool.release_model(model_id);
    } else {
        forget(pool, &ids);
    }
    let outputs = run?;
    released?;
    Ok(outputs)
}
