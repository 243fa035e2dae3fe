//! From the file on the command line to a [`TaskModel`]: a lowered `ascend_task` module is
//! read as it is; a `.ge` graph or an `ascend` module is first compiled and lowered in
//! process with the default pipeline (`--ge-compile`, then `--lower-to-tasks`), through
//! the same pass registry as `ge-opt`. Diagnostics are rendered like `ge-opt`'s
//! (`file:line:col: error: ...` with the source line).

use ge_mlir::{
    dialect::new_context,
    driver::diagnostics::{file_location, render, Diag, DiagnosticCollector, Severity, Sources},
    ir::{pass_manager::module_pass_manager, LocatedError},
    lowering::{model::TaskModel, read::read_task_model},
    pipeline::{PassStatistics, Pipeline},
    syntax,
};
use melior::{
    ir::{operation::OperationLike, Module},
    utility::register_all_passes,
    Context,
};

/// What the input file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// `.ge` text.
    Ge,
    /// An `ascend` module (compiled or not).
    Graph,
    /// An `ascend_task` module (the output of `--lower-to-tasks`).
    Lowered,
    /// An `ascend` module after `--ge-compile`: only the lowering is left.
    Compiled,
}

/// The input file, read once.
pub struct Source {
    pub path: String,
    pub text: String,
    pub kind: InputKind,
}

impl Source {
    pub fn read(path: &str) -> Result<Source, String> {
        // An ONNX model is imported as the `.ge` text of its graph (the importer's own
        // path), so everything after it is the `.ge` flow.
        if std::path::Path::new(path).extension() == Some("onnx".as_ref()) {
            let text = ge_mlir::onnx::onnx_file_to_ge(std::path::Path::new(path))?;
            return Ok(Source {
                path: path.to_owned(),
                text,
                kind: InputKind::Ge,
            });
        }
        let bytes =
            std::fs::read(path).map_err(|error| format!("cannot read `{path}`: {error}"))?;
        let text = String::from_utf8(bytes).map_err(|error| {
            format!(
                "`{path}` is not UTF-8 (byte {})",
                error.utf8_error().valid_up_to()
            )
        })?;
        // The pipeline's own marks: the lowering writes one `ascend_task.model` op, and
        // `--ge-compile` leaves the plan's `memory_size` on the root graph.
        let kind = if path.ends_with(".ge") {
            InputKind::Ge
        } else if text.contains("ascend_task.model") {
            InputKind::Lowered
        } else if text.contains("memory_size =") {
            InputKind::Compiled
        } else {
            InputKind::Graph
        };
        Ok(Source {
            path: path.to_owned(),
            text,
            kind,
        })
    }
}

/// An MLIR context with the dialects loaded and the diagnostics collected.
pub struct Session {
    pub context: Context,
    collector: DiagnosticCollector,
    /// The node pairs of GraphLint's W18888 warnings seen so far (races the graph itself
    /// leaves open, told apart from the compiler's by `races::RaceLog`).
    lint_pairs: std::cell::RefCell<Vec<(String, String)>>,
}

impl Session {
    pub fn new() -> Session {
        register_all_passes();
        let context = new_context();
        let collector = DiagnosticCollector::attach(&context);
        Session {
            context,
            collector,
            lint_pairs: Default::default(),
        }
    }

    /// The unordered node pairs GraphLint reported while compiling.
    pub fn lint_pairs(&self) -> Vec<(String, String)> {
        self.lint_pairs.borrow().clone()
    }

    /// Renders what MLIR reported, and `extra`, to stderr; returns whether any was an error.
    fn report(&self, source: &Source, extra: Vec<Diag>) -> bool {
        // The passes' remarks (plan sizes) are ge-opt's business; a run shows only what
        // went wrong or might have.
        let mut diagnostics: Vec<Diag> = self
            .collector
            .take()
            .into_iter()
            .filter(|d| d.severity != Severity::Remark)
            .collect();
        diagnostics.extend(extra);
        self.lint_pairs.borrow_mut().extend(
            diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Warning)
                .filter_map(|d| crate::races::lint_pair(&d.message)),
        );
        let mut sources = Sources::default();
        sources.add(&source.path, &source.text);
        for diag in &diagnostics {
            eprint!("{}", render(diag, &sources));
        }
        diagnostics.iter().any(|d| d.severity == Severity::Error)
    }

    /// Parses (or imports) and verifies the input as written.
    pub fn parse<'c>(&'c self, source: &Source) -> Result<Module<'c>, String> {
        let failed = || format!("cannot parse `{}`", source.path);
        let module = match source.kind {
            InputKind::Ge => match syntax::import_ge(&self.context, &source.text, &source.path) {
                Ok(module) => module,
                Err(diagnostics) => {
                    self.report(source, Vec::new());
                    eprint!("{diagnostics}");
                    return Err(failed());
                }
            },
            _ => match ge_mlir::ir::source::parse_file(&self.context, &source.path) {
                Some(module) => module,
                None => {
                    self.report(source, Vec::new());
                    return Err(failed());
                }
            },
        };
        let verified = module.as_operation().verify()
            && (source.kind == InputKind::Lowered || ge_mlir::dialect::verify_subgraphs(&module));
        if self.report(source, Vec::new()) || !verified {
            return Err(format!("`{}` does not verify", source.path));
        }
        Ok(module)
    }

    /// The task model of the input: read from a lowered module, or compiled and lowered.
    pub fn task_model(
        &self,
        source: &Source,
        pipeline_options: Option<&str>,
    ) -> Result<TaskModel, String> {
        let module = self.run_pipeline(source, pipeline_options, &["lower-to-tasks"])?;
        read_task_model(&module).map_err(|errors| self.located(source, errors))
    }

    /// The input compiled (`--ge-compile`, unless it is compiled already) and not lowered:
    /// what `--lower-to-rt` starts from.
    pub fn compiled<'c>(
        &'c self,
        source: &Source,
        pipeline_options: Option<&str>,
    ) -> Result<Module<'c>, String> {
        if source.kind == InputKind::Lowered {
            return Err(format!(
                "`{}` is a lowered task model; the execute graph is built from the graph (a                  .ge file or an ascend module)",
                source.path
            ));
        }
        self.run_pipeline(source, pipeline_options, &[])
    }

    /// Parses the input and runs `--ge-compile` (not on a compiled or lowered input), then
    /// the passes `then`.
    fn run_pipeline<'c>(
        &'c self,
        source: &Source,
        pipeline_options: Option<&str>,
        then: &[&str],
    ) -> Result<Module<'c>, String> {
        let mut module = self.parse(source)?;
        if source.kind == InputKind::Lowered {
            return Ok(module);
        }
        let mut flags: Vec<String> = Vec::new();
        if source.kind != InputKind::Compiled {
            flags.push(match pipeline_options {
                Some(options) if !options.is_empty() => format!("ge-compile={options}"),
                _ => "ge-compile".to_owned(),
            });
        }
        flags.extend(then.iter().map(|f| f.to_string()));
        if flags.is_empty() {
            return Ok(module);
        }
        let pipeline =
            Pipeline::from_flags(&flags).map_err(|error| format!("--pipeline-options: {error}"))?;
        let manager = module_pass_manager(&self.context);
        let statistics = PassStatistics::default();
        pipeline.add_to(&manager, &statistics)?;
        let result = manager.run(&mut module);
        if self.report(source, Vec::new()) || result.is_err() {
            return Err(format!(
                "cannot compile{} `{}`",
                if then.is_empty() { "" } else { " and lower" },
                source.path
            ));
        }
        Ok(module)
    }

    fn located(&self, source: &Source, errors: Vec<LocatedError<'_>>) -> String {
        let mut unlocated = Vec::new();
        let diags = errors
            .into_iter()
            .filter_map(|error| match file_location(error.location) {
                Some(location) => Some(Diag::at(Severity::Error, location, error.message)),
                None => {
                    unlocated.push(error.message);
                    None
                }
            })
            .collect();
        self.report(source, diags);
        for message in unlocated {
            eprintln!("ge-run: error: {message}");
        }
        format!("cannot read the task model of `{}`", source.path)
    }
}
