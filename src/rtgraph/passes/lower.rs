//! `--lower-to-rt`: a compiled `ascend` module becomes its runtime v2 execute graph
//! (`crate::rtgraph::lower`).

use super::{check_module, emit_all, put_back};
use crate::{
    ir::external_pass::{as_op_ref, PassFailed, PassId, RustPass},
    pipeline::{OptionKind, OptionSpec, PassOptions, Statistic},
    rtgraph::lower::lower_module,
};
use melior::{ir::operation::OperationRefMut, pass::Pass};

pub const OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "root",
    kind: OptionKind::String,
    default: "main",
    help: "the function that is the root graph (else the module's only public function)",
}];

static ID: PassId = PassId::new();

pub fn create(options: &PassOptions) -> Result<Pass, String> {
    let pass = LowerToRt {
        flag: options.info().flag,
        root: options.string("root")?.to_string(),
        nodes: options.statistic("num-rt-nodes", "Number of execute-graph nodes built"),
    };
    Ok(options.build_pass(pass, &ID))
}

#[derive(Clone)]
struct LowerToRt {
    flag: &'static str,
    root: String,
    nodes: Statistic,
}

impl RustPass for LowerToRt {
    fn run(&mut self, operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        let module = as_op_ref(&operation);
        check_module(module, self.flag)?;
        let lowered = lower_module(module, &self.root).map_err(emit_all)?;
        self.nodes
            .add(lowered.graphs.iter().map(|g| g.nodes.len() as u64).sum());
        put_back(module, &lowered, self.flag)
    }
}
