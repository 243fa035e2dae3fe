//! `ascend-topo-order`: numbers every ascend op of every function with a `topo_id`.
//!
//! GE passes reason about "which node comes first" through topological ids
//! (HcclMemcpyPass picks the earliest reader, stream splitting walks nodes by id). In
//! AscendIR a GE graph is a single-block `func.func` whose data *and* control edges are
//! SSA values, so program order already is a topological order of both; this pass writes
//! it down as an `i64` attribute so later passes and tests can read it.
//!
//! ```mlir
//! // before
//! %x:2 = "ascend.data"(%arg0) {name = "x", index = 0 : i64} : ...
//! %a:2 = "ascend.add"(%x#0, %x#0) {name = "a"} : ...
//! // after --ascend-topo-order
//! %x:2 = "ascend.data"(%arg0) {name = "x", index = 0 : i64, topo_id = 0 : i64} : ...
//! %a:2 = "ascend.add"(%x#0, %x#0) {name = "a", topo_id = 1 : i64} : ...
//! ```
//!
//! Ids restart at `start-id` in each function (GE numbers each graph separately). Ops of
//! other dialects (`func.return`) get no id. A function with several blocks is an error:
//! program order across blocks is not a topological order.

use crate::{
    ir::external_pass::{emit_error, integer_attribute, PassFailed, PassId, RustPass},
    pipeline::{OptionKind, OptionSpec, PassOptions, Statistic},
};
use melior::{
    ir::{
        attribute::StringAttribute,
        block::BlockLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
        RegionLike,
    },
    pass::Pass,
};

/// The attribute the pass writes.
pub const TOPO_ID: &str = "topo_id";

/// Options of the pass (see the registry row in [`crate::pipeline`]).
pub const OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "start-id",
    kind: OptionKind::Int,
    default: "0",
    help: "topo_id of the first ascend op of each function",
}];

static ID: PassId = PassId::new();

/// Registry constructor.
pub fn create(options: &PassOptions) -> Result<Pass, String> {
    let pass = TopoOrder {
        start: options.int("start-id")?,
        numbered: options.statistic("num-ops-numbered", "Number of ascend ops given a topo_id"),
        functions: options.statistic("num-functions", "Number of functions numbered"),
    };
    Ok(options.build_pass(pass, &ID))
}

#[derive(Clone)]
struct TopoOrder {
    start: i64,
    numbered: Statistic,
    functions: Statistic,
}

impl RustPass for TopoOrder {
    fn run(&mut self, mut operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        let mut result = Ok(());
        // Pre-order reaches `operation` itself first, so the pass works both at module
        // level and nested under `func.func(...)`.
        operation.walk_mut(WalkOrder::PreOrder, |function| {
            if !is_named(&function, "func.func") {
                return WalkResult::Advance;
            }
            if self.number_function(function).is_err() {
                result = Err(PassFailed);
            }
            WalkResult::Skip
        });
        result
    }
}

impl TopoOrder {
    fn number_function(&self, mut function: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        let blocks = function.region(0).map_or(0, |body| {
            std::iter::successors(body.first_block(), |block| block.next_in_region()).count()
        });
        if blocks == 0 {
            return Ok(()); // a declaration: nothing to number
        }
        if blocks > 1 {
            let name = function
                .attribute("sym_name")
                .ok()
                .and_then(|attribute| StringAttribute::try_from(attribute).ok())
                .and_then(crate::ir::string_value)
                .map_or_else(String::new, str::to_owned);
            emit_error(
                function.location(),
                &format!(
                    "ascend-topo-order: function @{name} has {blocks} blocks; a GE graph is a \
                     single-block function"
                ),
            );
            return Err(PassFailed);
        }
        // `None` once the ids have run past `i64::MAX`: the op that would get the next id
        // is an error (an id that wrapped would sort first).
        let mut next = Some(self.start);
        let mut numbered = 0u64;
        let mut overflow = false;
        function.walk_mut(WalkOrder::PreOrder, |mut op| {
            if op
                .name()
                .as_string_ref()
                .as_str()
                .is_ok_and(|name| name.starts_with("ascend."))
            {
                let Some(id) = next else {
                    emit_error(
                        op.location(),
                        &format!(
                            "ascend-topo-order: `{}` would get topo_id {} + {numbered}, past the \
                             largest 64-bit id (option start-id={} is too large for this graph)",
                            op.attribute("name")
                                .ok()
                                .and_then(|a| StringAttribute::try_from(a).ok())
                                .and_then(crate::ir::string_value)
                                .unwrap_or("?"),
                            self.start,
                            self.start
                        ),
                    );
                    overflow = true;
                    return WalkResult::Interrupt;
                };
                let attr = integer_attribute(op.context(), 64, id);
                op.set_discardable_attribute(TOPO_ID, attr);
                next = id.checked_add(1);
                numbered += 1;
            }
            WalkResult::Advance
        });
        if overflow {
            return Err(PassFailed);
        }
        self.numbered.add(numbered);
        self.functions.add(1);
        Ok(())
    }
}

fn is_named(operation: &OperationRefMut<'_, '_>, name: &str) -> bool {
    operation.name().as_string_ref().as_str() == Ok(name)
}

#[cfg(test)]
mod tests {
    use crate::{
        dialect::new_context,
        ir::pass_manager::module_pass_manager,
        pipeline::{PassStatistics, Pipeline},
    };
    use melior::ir::{
        attribute::IntegerAttribute,
        operation::{OperationLike, WalkOrder, WalkResult},
        Module,
    };

    const GRAPH: &str = r#"
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %b:2 = "ascend.add"(%a#0, %a#0, %a#1) {name = "b"} : (tensor<4xf32>, tensor<4xf32>, !ascend.ctrl) -> (tensor<4xf32>, !ascend.ctrl)
  return %b#0 : tensor<4xf32>
}
func.func private @sub(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %s:2 = "ascend.add"(%arg0, %arg0) {name = "s"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %s#0 : tensor<4xf32>
}
"#;

    /// (op name, topo_id) of every op carrying a topo_id, in walk order.
    fn ids(module: &Module) -> Vec<(String, i64)> {
        let mut found = Vec::new();
        module.as_operation().walk(WalkOrder::PreOrder, |op| {
            if let Ok(id) = op.attribute(super::TOPO_ID) {
                let id = IntegerAttribute::try_from(id).expect("an integer").value();
                found.push((op.name().as_string_ref().as_str().unwrap().to_owned(), id));
            }
            WalkResult::Advance
        });
        found
    }

    #[test]
    fn numbers_ascend_ops_per_function_and_counts_them() {
        let context = new_context();
        let mut module = Module::parse(&context, GRAPH).expect("test IR parses");
        let manager = module_pass_manager(&context);
        let statistics = PassStatistics::default();
        Pipeline::from_flags(&["ascend-topo-order=start-id=3"])
            .unwrap()
            .add_to(&manager, &statistics)
            .unwrap();
        manager.run(&mut module).expect("pass succeeds");
        let add = "ascend.add".to_owned();
        assert_eq!(
            ids(&module),
            vec![(add.clone(), 3), (add.clone(), 4), (add, 3)]
        );
        let report = statistics.render();
        assert!(report.contains("(S) 3 num-ops-numbered"), "{report}");
        assert!(report.contains("(S) 2 num-functions"), "{report}");
        assert!(module.as_operation().verify());
    }

    #[test]
    fn multi_block_functions_fail_the_pass() {
        let context = new_context();
        let mut module = Module::parse(
            &context,
            "func.func @f() {\n  cf.br ^bb1\n^bb1:\n  return\n}\n",
        )
        .expect("test IR parses");
        let manager = module_pass_manager(&context);
        Pipeline::from_flags(&["ascend-topo-order"])
            .unwrap()
            .add_to(&manager, &PassStatistics::default())
            .unwrap();
        assert!(manager.run(&mut module).is_err());
    }
}
