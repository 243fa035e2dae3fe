//! `ge-run model --zero-copy shared|separate`: the model runs on IO buffers ge-run
//! allocates as a caller would and binds (GE's zero-copy `UpdateAllNodeArgs`), with GE's
//! `CheckIoReuseAddrs` before each execution. `shared` gives an output that reuses an
//! input (`output_reuse_input_mem_indexes`) that input's buffer, as the compiled model
//! requires; `separate` gives every output its own buffer, which a model with such pairs
//! refuses with PARAM_INVALID naming the pair.

use ge_mlir::{
    lowering::model::TaskModel,
    runtime::executor::{run_model_zero_copy, IoBufferPlan, RunOptions},
};

pub fn run_zero_copy(model: &TaskModel, options: &RunOptions, plan: &str) -> Result<(), String> {
    let plan = match plan {
        "shared" => IoBufferPlan::Shared,
        _ => IoBufferPlan::Separate,
    };
    let result = run_model_zero_copy(model, options, plan).map_err(|e| e.to_string())?;
    println!(
        "zero copy: output_reuse_input_mem_indexes \"{}\" checked before each of {} execution(s)",
        result.pairs, options.iterations
    );
    for (output, tensor) in model.outputs.iter().zip(&result.outputs) {
        println!(
            "output {} (`{}`): {} bytes read from the bound buffer",
            output.index,
            output.source,
            tensor.bytes.len()
        );
    }
    Ok(())
}
