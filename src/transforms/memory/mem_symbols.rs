//! `--mem-symbols`: prints GE's memory symbols (notes B.19, `GraphUtils::GetRefMapping`) as
//! remarks, so tests and users can see which anchors share memory.
//!
//! One remark per symbol, in GE's map order (by symbol name), at the node the symbol is
//! named after:
//!
//! ```text
//! t.ge:3:3: remark: mem-symbols: symbol a_out_0 (3 anchors): a_out_0, b_in_0, c_in_0
//! ```
//!
//! Anchors are listed in GE's list order (the order the layout checkers pair them in).
//! Options: `root=<func>` (the root graph), `scope=<func>` (the graph whose symbols are built
//! with its nested subgraphs; default: the root), `min-anchors=<n>` (only symbols with at
//! least `n` anchors). The pass changes nothing. Analysis:
//! [`crate::analysis::memory::symbols`].

use super::{build_model, check_module, ROOT_OPTION};
use crate::{
    analysis::memory::{
        model::{GraphId, ROOT},
        symbols::Symbols,
    },
    ir::{
        diagnostics::emit_remark,
        external_pass::{as_op_ref, emit_error, PassFailed, PassId, RustPass},
    },
    pipeline::{OptionKind, OptionSpec, PassOptions, Statistic},
};
use melior::{
    ir::operation::{OperationLike, OperationRefMut},
    pass::Pass,
};

/// Options of the pass.
pub const OPTIONS: &[OptionSpec] = &[
    ROOT_OPTION,
    OptionSpec {
        name: "scope",
        kind: OptionKind::String,
        default: "",
        help: "the graph (function) whose symbols are printed, with its nested subgraphs \
               (default: the root)",
    },
    OptionSpec {
        name: "min-anchors",
        kind: OptionKind::UInt,
        default: "1",
        help: "print only symbols with at least this many anchors",
    },
];

static ID: PassId = PassId::new();

/// Registry constructor.
pub fn create(options: &PassOptions) -> Result<Pass, String> {
    let pass = MemSymbols {
        flag: options.info().flag,
        root: options.string(ROOT_OPTION.name)?.to_string(),
        scope: options.string("scope")?.to_string(),
        min_anchors: options.uint("min-anchors")? as usize,
        symbols: options.statistic("num-symbols", "Number of memory symbols"),
        printed: options.statistic("num-symbols-printed", "Number of symbols printed"),
    };
    Ok(options.build_pass(pass, &ID))
}

#[derive(Clone)]
struct MemSymbols {
    flag: &'static str,
    root: String,
    scope: String,
    min_anchors: usize,
    symbols: Statistic,
    printed: Statistic,
}

impl MemSymbols {
    fn run_on_module(&self, module: melior::ir::OperationRef) -> Result<(), PassFailed> {
        check_module(module, self.flag)?;
        let model = build_model(module, &self.root, self.flag)?;
        let g = &model.graph;
        let scope = if self.scope.is_empty() {
            ROOT
        } else {
            match g.graphs.iter().position(|x| x.name == self.scope) {
                Some(i) => GraphId(i as u32),
                None => {
                    emit_error(
                        module.location(),
                        &format!(
                            "{}: scope: no graph @{} under the root @{}",
                            self.flag, self.scope, self.root
                        ),
                    );
                    return Err(PassFailed);
                }
            }
        };
        let table = Symbols::build(g, scope);
        self.symbols.add(table.count() as u64);
        for s in table.ge_order(g) {
            if table.len(s) < self.min_anchors {
                continue;
            }
            let anchors: Vec<String> = table.anchors(s).map(|a| a.ge_name(g)).collect();
            let at = table.name_anchor(s).node();
            emit_remark(
                model.location(Some(at)),
                &format!(
                    "{}: symbol {} ({} anchor{}): {}",
                    self.flag,
                    table.name(g, s),
                    anchors.len(),
                    if anchors.len() == 1 { "" } else { "s" },
                    anchors.join(", ")
                ),
                &[],
            );
            self.printed.add(1);
        }
        Ok(())
    }
}

impl RustPass for MemSymbols {
    fn run(&mut self, operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        self.run_on_module(as_op_ref(&operation))
    }
}
