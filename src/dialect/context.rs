//! Creating an MLIR context that knows the `ascend` dialect.
//!
//! The dialect is defined in IRDL (`dialects/ascend.irdl.mlir`), embedded in the binary and
//! loaded into every context at start-up, so `ge-opt` and stock `mlir-opt --irdl-file` read
//! the very same definition.

use melior::{
    dialect::DialectRegistry,
    ir::Module,
    utility::{load_irdl_dialects, register_all_dialects},
    Context,
};

/// The IRDL definition of the dialect, as shipped in `dialects/`.
pub const IRDL_SOURCE: &str = include_str!("../../dialects/ascend.irdl.mlir");

/// The IRDL definition of the `ascend_task` dialect (the lowered model's task lists),
/// hand-written in `dialects/ascend_task.irdl.mlir`.
pub const TASK_IRDL_SOURCE: &str = include_str!("../../dialects/ascend_task.irdl.mlir");

/// The IRDL definition of the `ascend_rt` dialect (the runtime v2 execute graph),
/// hand-written in `dialects/ascend_rt.irdl.mlir`.
pub const RT_IRDL_SOURCE: &str = include_str!("../../dialects/ascend_rt.irdl.mlir");

/// Creates a context with every upstream dialect registered (so `--pass-pipeline` can mix
/// upstream passes) and the `ascend` and `ascend_task` dialects loaded from IRDL.
pub fn new_context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    load_ascend_dialect(&context);
    context
}

/// Loads the embedded IRDL definition into `context`.
///
/// The IRDL module is our own shipped file: failing to load it is a build defect, not a
/// user error, hence the panic.
fn load_ascend_dialect(context: &Context) {
    for source in [IRDL_SOURCE, TASK_IRDL_SOURCE, RT_IRDL_SOURCE] {
        let module = Module::parse(context, source).expect("embedded IRDL must parse");
        assert!(
            load_irdl_dialects(&module),
            "embedded IRDL must load into the context"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascend_ops_are_registered() {
        let context = new_context();
        assert!(context.is_registered_operation("ascend.add"));
        assert!(!context.is_registered_operation("ascend.no_such_op"));
        assert!(context.is_registered_operation("ascend_task.kernel"));
        assert!(context.is_registered_operation("ascend_rt.cond"));
    }
}
