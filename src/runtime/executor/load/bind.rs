//! Zero-copy IO, as GE binds user buffers (`DavinciModel::UpdateAllNodeArgs`: every task's
//! args re-pointed at the buffers the caller passes), and the check GE runs before each
//! execution that has such buffers (`CheckIoReuseAddrs`, `base/common/util.cc`): for every
//! pair of `output_reuse_input_mem_indexes` ("in,out|in,out", which `--mem-assign` writes
//! when a model output is a user input's memory) output `out` must be at input `in`'s
//! address, else PARAM_INVALID naming the pair.
//!
//! Recorded tasks cannot be patched through ACL's model RI, so binding rebuilds the model
//! runtime instance with the user's addresses (same streams, events, labels, memory).

use super::{LoadContext, RankModel};
use crate::{
    lowering::model::{Region, TaskModel},
    runtime::{acl::DevicePtr, error::RuntimeError},
};

/// GE's `PARAM_INVALID` (`ge_error_codes.h`), named in the check's errors.
pub const PARAM_INVALID: u32 = 145_000;

/// One pair of `output_reuse_input_mem_indexes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct IoReusePair {
    pub input: u32,
    pub output: u32,
}

/// GE's `ParseOutputReuseInputMemIndexes`: `"in,out|in,out"`; like GE, an empty piece or
/// one without a comma is skipped, and a negative or non-numeric index is skipped with a
/// warning (returned).
pub fn parse_io_reuse_pairs(text: &str) -> (Vec<IoReusePair>, Vec<String>) {
    let mut pairs = Vec::new();
    let mut warnings = Vec::new();
    for piece in text.split('|') {
        let Some((input, output)) = piece.split_once(',') else {
            continue;
        };
        if input.contains('-') || output.contains('-') {
            warnings.push(format!(
                "invalid negative index in output_reuse_input_mem_indexes `{text}`: `{piece}`"
            ));
            continue;
        }
        match (input.trim().parse(), output.trim().parse()) {
            (Ok(input), Ok(output)) => pairs.push(IoReusePair { input, output }),
            _ => warnings.push(format!(
                "invalid index in output_reuse_input_mem_indexes `{text}`: `{piece}`"
            )),
        }
    }
    (pairs, warnings)
}

/// The attribute's text for `pairs`.
pub fn format_io_reuse_pairs(pairs: &[IoReusePair]) -> String {
    pairs
        .iter()
        .map(|p| format!("{},{}", p.input, p.output))
        .collect::<Vec<_>>()
        .join("|")
}

/// The pairs of a lowered model: every output whose bytes are a model input's buffer (the
/// lowering gives such an output an `Input(k)` address, exactly where the plan's
/// `output_reuse_input_mem_indexes` says).
pub fn io_reuse_pairs(model: &TaskModel) -> Vec<IoReusePair> {
    model
        .outputs
        .iter()
        .filter_map(|o| match o.operand.addr.region {
            Region::Input(input) if o.operand.addr.offset == 0 => Some(IoReusePair {
                input,
                output: o.index,
            }),
            _ => None,
        })
        .collect()
}

/// The device buffers a caller binds: `inputs[k]` / `outputs[k]` for model input / output
/// index `k`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IoAddrs {
    pub inputs: Vec<DevicePtr>,
    pub outputs: Vec<DevicePtr>,
}

/// GE's `CheckIoReuseAddrPairs`.
pub fn check_io_reuse_addrs(pairs: &[IoReusePair], addrs: &IoAddrs) -> Result<(), RuntimeError> {
    for pair in pairs {
        let (i, o) = (pair.input as usize, pair.output as usize);
        let invalid = |why: String| {
            RuntimeError::Input(format!(
                "PARAM_INVALID ({PARAM_INVALID}): {why}, addr reuse check not pass"
            ))
        };
        let Some(&input) = addrs.inputs.get(i) else {
            return Err(invalid(format!(
                "input index {i} out of range, input_num is {}",
                addrs.inputs.len()
            )));
        };
        let Some(&output) = addrs.outputs.get(o) else {
            return Err(invalid(format!(
                "output index {o} out of range, output_num is {}",
                addrs.outputs.len()
            )));
        };
        if input != output {
            return Err(invalid(format!(
                "output[{o}] address ({:#x}) must be same as input[{i}] address ({:#x}) because \
                 output_reuse_input_mem_indexes contains `{i},{o}`",
                output.0, input.0
            )));
        }
    }
    Ok(())
}

impl RankModel {
    /// Binds user buffers to the model's inputs and outputs (zero copy): checks the reuse
    /// pairs, then rebuilds the runtime instance with every `Input(k)` / `Output(k)`
    /// address at the user's buffer. Each buffer must hold its tensor (the caller's
    /// responsibility, as in GE: ACL checks what it can).
    pub fn bind_io(
        &mut self,
        model: &TaskModel,
        cx: &LoadContext<'_>,
        addrs: &IoAddrs,
    ) -> Result<(), RuntimeError> {
        let count = |n: usize, what: &str, want: usize| {
            if n == want {
                Ok(())
            } else {
                Err(RuntimeError::Input(format!(
                    "zero-copy binding: {n} {what} buffers for a model of {want}"
                )))
            }
        };
        count(addrs.inputs.len(), "input", model.inputs.len())?;
        count(addrs.outputs.len(), "output", model.outputs.len())?;
        check_io_reuse_addrs(&io_reuse_pairs(model), addrs)?;
        for input in &model.inputs {
            if let Some(region) = self.inputs.get_mut(&input.index) {
                region.external = addrs.inputs.get(input.index as usize).copied();
            }
        }
        for output in &model.outputs {
            if let Some(region) = self.outputs.get_mut(&output.index) {
                region.external = addrs.outputs.get(output.index as usize).copied();
            }
        }
        // UpdateAllNodeArgs: the recorded tasks hold the old addresses; record them again.
        if let Some(ri) = self.model.take() {
            ri.release()?;
        }
        let mut result = Ok(());
        let mut keep = |outcome: Result<(), RuntimeError>| {
            if result.is_ok() {
                result = outcome;
            }
        };
        self.label_lists.drain(..).for_each(|h| keep(h.release()));
        self.op_buffers.drain(..).for_each(|h| keep(h.release()));
        self.op_descs.drain(..).for_each(|h| keep(h.release()));
        self.op_attrs.drain(..).for_each(|h| keep(h.release()));
        result?;
        self.build(model, cx)
    }

    /// One execution on bound buffers: `CheckIoReuseAddrs` on `addrs` (what the caller
    /// passes this time), then `aclmdlRIExecuteAsync`; the caller synchronises. `addrs`
    /// must be the bound ones (a different set needs [`Self::bind_io`] first).
    pub fn execute_bound(&self, model: &TaskModel, addrs: &IoAddrs) -> Result<(), RuntimeError> {
        check_io_reuse_addrs(&io_reuse_pairs(model), addrs)?;
        for input in &model.inputs {
            let bound = self.inputs.get(&input.index).and_then(|r| r.external);
            if bound != addrs.inputs.get(input.index as usize).copied() {
                return Err(RuntimeError::Input(format!(
                    "input {} is not bound to the buffer passed (bind it first)",
                    input.index
                )));
            }
        }
        let ri = self.model.as_ref().expect("a loaded model");
        self.acl.model_execute_async(ri, self.exec_stream())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_follows_ge() {
        let (pairs, warnings) = parse_io_reuse_pairs("0,0|1,2||3|x,1|-1,0|2,1");
        assert_eq!(
            pairs,
            [
                IoReusePair {
                    input: 0,
                    output: 0
                },
                IoReusePair {
                    input: 1,
                    output: 2
                },
                IoReusePair {
                    input: 2,
                    output: 1
                }
            ]
        );
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert_eq!(format_io_reuse_pairs(&pairs), "0,0|1,2|2,1");
        assert!(parse_io_reuse_pairs("").0.is_empty());
    }

    #[test]
    fn the_check_names_the_pair_that_breaks() {
        let pairs = parse_io_reuse_pairs("0,1").0;
        let good = IoAddrs {
            inputs: vec![DevicePtr(0x1000)],
            outputs: vec![DevicePtr(0x2000), DevicePtr(0x1000)],
        };
        check_io_reuse_addrs(&pairs, &good).unwrap();
        let bad = IoAddrs {
            outputs: vec![DevicePtr(0x1000), DevicePtr(0x3000)],
            ..good.clone()
        };
        let error = check_io_reuse_addrs(&pairs, &bad).unwrap_err().to_string();
        assert!(error.contains("PARAM_INVALID"), "{error}");
        assert!(
            error.contains("output[1] address (0x3000) must be same as input[0] address (0x1000)"),
            "{error}"
        );
        assert!(error.contains("`0,1`"), "{error}");
        let short = IoAddrs {
            outputs: vec![DevicePtr(0x1000)],
            ..good.clone()
        };
        let error = check_io_reuse_addrs(&pairs, &short)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("output index 1 out of range, output_num is 1"),
            "{error}"
        );
        let error = check_io_reuse_addrs(&parse_io_reuse_pairs("4,0").0, &good)
            .unwrap_err()
            .to_string();
        assert!(error.contains("input index 4 out of range"), "{error}");
        // no pairs: anything goes
        check_io_reuse_addrs(&[], &IoAddrs::default()).unwrap();
    }
}
