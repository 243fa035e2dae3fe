//! `ge-run a.ge --models b.ge c.mlir --loads N`: several models in one process, loaded
//! one after another (`--loads` rounds over the list), their streams from one pool
//! (`ge_mlir::runtime::streams::ReusableStreamAllocator`), with `--stream-reuse on`
//! (the design's reuse by task count) or `off` (GE's HEAD: a stream per request).

use crate::compile::{Session, Source};
use ge_mlir::runtime::executor::{run_models, RunOptions};

/// Compiles every model, runs them, prints one line per load and the stream counts.
pub fn run_multi(
    paths: &[&str],
    pipeline_options: Option<&str>,
    options: &RunOptions,
    loads: u32,
    reuse: bool,
) -> Result<(), String> {
    let session = Session::new();
    let models = paths
        .iter()
        .map(|path| {
            let source = Source::read(path)?;
            session
                .task_model(&source, pipeline_options)
                .map_err(|e| format!("`{path}`: {e}"))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let result = run_models(&models, options, loads, reuse).map_err(|e| e.to_string())?;
    for (load, (position, outputs)) in result.loads.iter().enumerate() {
        let model = &models[*position];
        println!(
            "load {load}: model `{}` ({}): {} streams, {} output(s)",
            model.name,
            paths[*position],
            model.stream_num,
            outputs.len()
        );
    }
    let s = result.streams;
    println!(
        "streams ({} reuse): {} loads, {} requested (created without reuse), {} created, {} reused, {} destroyed",
        if reuse { "with" } else { "without" },
        result.loads.len(),
        s.requests,
        s.created,
        s.reused,
        s.destroyed
    );
    Ok(())
}
