//! The passes over the execute graph, one per file: each reads the module into the model,
//! asks its analysis (`super::analysis`), applies the answer to the model and puts the
//! emitted module back. Module passes: they replace the whole body.

pub mod chain_conflict;
pub mod guarders;
pub mod lower;
pub mod placement;

use super::{emit::emit_module, model::Module, read::read_module};
use crate::ir::{
    external_pass::{emit_error, PassFailed},
    source::parse_module_in,
    IrRewriter, LocatedError,
};
use melior::ir::{operation::OperationLike, BlockLike, OperationRef, RegionLike};

fn emit_all(errors: Vec<LocatedError>) -> PassFailed {
    for e in errors {
        emit_error(e.location, &e.message);
    }
    PassFailed
}

fn check_module(module: OperationRef, flag: &str) -> Result<(), PassFailed> {
    if module.name().as_string_ref().as_str() == Ok("builtin.module") {
        return Ok(());
    }
    emit_error(
        module.location(),
        &format!("{flag}: must run on the builtin.module (it rewrites the whole graph)"),
    );
    Err(PassFailed)
}

/// Reads the execute graph, lets `change` rewrite it (an error names the node), writes
/// it back.
fn rewrite_module(
    module: OperationRef,
    flag: &str,
    change: impl FnOnce(&mut Module) -> Result<(), String>,
) -> Result<(), PassFailed> {
    check_module(module, flag)?;
    let mut model = read_module(module).map_err(emit_all)?;
    if let Err(message) = change(&mut model) {
        emit_error(module.location(), &format!("{flag}: {message}"));
        return Err(PassFailed);
    }
    put_back(module, &model, flag)
}

fn put_back(module: OperationRef, model: &Module, flag: &str) -> Result<(), PassFailed> {
    let text = emit_module(model);
    let Some(parsed) = parse_module_in(module.context(), &text) else {
        emit_error(
            module.location(),
            &format!("{flag}: the emitted execute graph does not parse (a pass bug)"),
        );
        return Err(PassFailed);
    };
    replace_body(module, parsed.body().first_operation());
    Ok(())
}

/// Moves the ops from `first` on into `module`'s body and erases what was there.
fn replace_body<'c>(module: OperationRef<'c, '_>, first: Option<OperationRef<'c, '_>>) {
    let Some(block) = module.region(0).ok().and_then(|r| r.first_block()) else {
        return;
    };
    let mut old = Vec::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        old.push(op);
    }
    let rewriter = IrRewriter::for_op(module);
    let rw = rewriter.rewriter();
    let mut next = first;
    let mut anchor = old.last().copied();
    while let Some(op) = next {
        next = op.next_in_block();
        match anchor {
            Some(a) => rw.move_after(op, a),
            None => {
                // an empty module: nothing to anchor on; leave the new body where it is
                // parsed (the pass writes nothing)
                break;
            }
        }
        anchor = Some(op);
    }
    for op in old {
        let _ = rw.erase(op);
    }
}
