//! The body of `ge-opt`: read, split, parse or import, verify, run the pipeline, print,
//! check diagnostics. `tools/ge-opt/main.rs` only parses the command line into a
//! [`Config`].

pub mod diagnostics;
pub mod source;
pub mod split;
pub mod verify;

use crate::{
    dialect::new_context,
    ir::pass_manager::{enable_timing, enable_verifier, module_pass_manager},
    pipeline::{PassStatistics, Pipeline},
    syntax,
};
use diagnostics::{render, Diag, DiagnosticCollector, FileLoc, Severity, Sources};
use melior::{
    ir::{
        operation::{OperationLike, OperationPrintingFlags},
        Module,
    },
    pass::PassIrPrintingOptions,
    utility::register_all_passes,
    Context,
};
use source::{parse_named_buffer, read_input, Input};
use split::{split_input, Chunk};
use std::{io::Write, os::fd::AsFd, path::PathBuf};

/// Input and output syntaxes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Mlir,
    Ge,
}

/// Everything `ge-opt` was asked to do.
#[derive(Clone, Debug)]
pub struct Config {
    /// Input path, `-` for standard input.
    pub input: String,
    /// Output path, `-` for standard output.
    pub output: String,
    /// `None`: by extension (`.ge` is `.ge`, `.onnx` an ONNX model, anything else MLIR).
    pub input_format: Option<Format>,
    pub emit: Format,
    /// `Some(marker)`: `--split-input-file`.
    pub split_marker: Option<String>,
    pub verify_diagnostics: bool,
    pub print_ir_before_all: bool,
    pub print_ir_after_all: bool,
    pub timing: bool,
    pub statistics: bool,
    pub print_debuginfo: bool,
    /// Let MLIR run on several threads (`ge-opt --mlir-threading`). Off by default: the
    /// passes of this crate are module passes, which MLIR runs on one thread anyway, and a
    /// threaded context pays for its thread safety on every attribute and type it uniques
    /// (a per-thread cache beside each uniquing table, and locks).
    pub threading: bool,
    /// Verify the IR after every pass (`mlir-opt --verify-each`, default on).
    pub verify_each: bool,
    /// Accept operations of unknown dialects (`mlir-opt --allow-unregistered-dialect`).
    pub allow_unregistered_dialect: bool,
    pub pipeline: Pipeline,
}

/// Runs `ge-opt`; returns the process exit code. Never panics on user input.
pub fn run(config: &Config) -> i32 {
    match Driver::new(config) {
        Ok(driver) => driver.run(),
        Err(message) => {
            eprintln!("{message}");
            1
        }
    }
}

struct Driver<'a> {
    config: &'a Config,
    input: Input,
    format: Format,
}

/// What a chunk produced.
enum Output<'c> {
    /// A module to print as MLIR: printed straight into the output file, as mlir-opt does,
    /// rather than first into a string (for a million ops that is hundreds of MB held and
    /// copied twice).
    Module {
        module: Module<'c>,
        /// MLIR verified it since its last change (after the parse, and after each pass
        /// with `--verify-each`): the printer need not verify it again.
        verified: bool,
    },
    /// Already rendered text (`.ge` output), or nothing for a failed chunk.
    Text(String),
}

/// Why a chunk produced no output.
enum ChunkError {
    /// Reported through diagnostics (or expected by `--verify-diagnostics`).
    Failed,
    /// A configuration error (bad pipeline): stop everything.
    Fatal(String),
}

impl<'a> Driver<'a> {
    fn new(config: &'a Config) -> Result<Self, String> {
        let format = config.input_format.unwrap_or_else(|| {
            match std::path::Path::new(&config.input).extension() {
                Some(extension) if extension == "ge" && config.input != "-" => Format::Ge,
                _ => Format::Mlir,
            }
        });
        // An ONNX model (by extension) is translated to `.ge` graphs, imported as such.
        let onnx = config.input_format.is_none()
            && config.input != "-"
            && std::path::Path::new(&config.input).extension() == Some("onnx".as_ref());
        if onnx {
            let text = crate::onnx::onnx_file_to_ge(std::path::Path::new(&config.input))
                .map_err(|error| format!("ge-opt: error: {error}"))?;
            return Ok(Self {
                config,
                input: Input::from_text(&config.input, text),
                format: Format::Ge,
            });
        }
        // Only a `.mlir` file parsed by its path can do without its text in memory.
        let whole =
            format != Format::Mlir || config.split_marker.is_some() || config.verify_diagnostics;
        let input = read_input(&config.input, whole).map_err(|error| {
            if error.contains(": error: ") {
                error
            } else {
                format!("ge-opt: error: {error}")
            }
        })?;
        Ok(Self {
            config,
            input,
            format,
        })
    }

    fn run(&self) -> i32 {
        register_all_passes();
        let context = new_context();
        context.enable_multi_threading(self.config.threading);
        if self.config.allow_unregistered_dialect {
            context.set_allow_unregistered_dialects(true);
        }
        let collector = DiagnosticCollector::attach(&context);
        let chunks = match &self.config.split_marker {
            Some(marker) => split_input(self.input.text(), marker),
            None => vec![Chunk::whole(&self.input)],
        };
        let split = self.config.split_marker.is_some();
        let mut outputs = Vec::new();
        let mut ok = true;
        for chunk in &chunks {
            match self.process_chunk(&context, &collector, chunk, split) {
                Ok((output, chunk_ok)) => {
                    outputs.push(output);
                    ok &= chunk_ok;
                }
                Err(message) => {
                    eprintln!("ge-opt: error: {message}");
                    return 1;
                }
            }
        }
        let marker = self
            .config
            .split_marker
            .as_deref()
            .unwrap_or(split::DEFAULT_MARKER);
        match self.write_outputs(&outputs, &format!("{marker}\n"), ok) {
            Ok(()) if ok => 0,
            Ok(()) => 1,
            Err(message) => {
                eprintln!("ge-opt: error: {message}");
                1
            }
        }
    }

    /// Processes one chunk. `Ok((output, ok))`; `Err` only for fatal configuration errors.
    fn process_chunk<'c>(
        &self,
        context: &'c Context,
        collector: &DiagnosticCollector,
        chunk: &Chunk,
        split: bool,
    ) -> Result<(Output<'c>, bool), String> {
        let expected = if self.config.verify_diagnostics {
            match verify::parse_expected(chunk.text(), &self.input.name, chunk.first_line) {
                Ok(expected) => Some(expected),
                Err(errors) => {
                    self.print(&errors);
                    return Ok((Output::Text(String::new()), false));
                }
            }
        } else {
            None
        };
        let mut diagnostics = Vec::new();
        let result = self.compile(context, collector, chunk, split, &mut diagnostics);
        let (output, mut ok) = match result {
            Ok(output) => (output, true),
            Err(ChunkError::Failed) => (Output::Text(String::new()), false),
            Err(ChunkError::Fatal(message)) => return Err(message),
        };
        diagnostics.extend(collector.take());
        match expected {
            Some(mut expected) => {
                verify::strip_current_operation_notes(&mut diagnostics);
                let errors = verify::verify(&mut expected, &diagnostics);
                self.print(&errors);
                ok = errors.is_empty();
            }
            None => {
                self.print(&diagnostics);
                ok &= !diagnostics
                    .iter()
                    .any(|diag| diag.severity == Severity::Error);
            }
        }
        Ok((output, ok))
    }

    /// Parse or import, verify, run the pipeline. Diagnostics of each stage are appended to
    /// `diagnostics`; the caller prints or verifies them, then writes the output.
    fn compile<'c>(
        &self,
        context: &'c Context,
        collector: &DiagnosticCollector,
        chunk: &Chunk,
        split: bool,
        diagnostics: &mut Vec<Diag>,
    ) -> Result<Output<'c>, ChunkError> {
        // Build the pass manager first: a bad pipeline is reported before any input error.
        let manager = module_pass_manager(context);
        let statistics = PassStatistics::default();
        self.config
            .pipeline
            .add_to(&manager, &statistics)
            .map_err(ChunkError::Fatal)?;
        if self.config.timing {
            enable_timing(&manager);
        }
        enable_verifier(&manager, self.config.verify_each);
        if self.config.print_ir_after_all || self.config.print_ir_before_all {
            manager.enable_ir_printing(&PassIrPrintingOptions {
                before_all: self.config.print_ir_before_all,
                after_all: self.config.print_ir_after_all,
                module_scope: false,
                on_change: false,
                on_failure: false,
                flags: self.printing_flags(),
                tree_printing_path: PathBuf::new(),
            });
        }

        if self.format == Format::Mlir {
            if let Some((line, column)) = chunk.excess_nesting() {
                diagnostics.push(Diag::at(
                    Severity::Error,
                    FileLoc {
                        file: self.input.name.clone(),
                        line: chunk.first_line + line - 1,
                        column,
                    },
                    format!(
                        "nested deeper than {} levels of brackets (MLIR's parser would \
                         overflow its stack)",
                        source::MAX_MLIR_NESTING
                    ),
                ));
                return Err(ChunkError::Failed);
            }
        }
        let module = self.parse(context, collector, chunk, split);
        self.flush(collector, diagnostics);
        if self.format == Format::Mlir
            && matches!(module, Err(ChunkError::Failed))
            && !diagnostics.iter().any(|d| d.severity == Severity::Error)
        {
            diagnostics.push(self.silent_parse_failure(chunk));
        }
        let mut module = module?;

        let result = manager.run(&mut module);
        self.flush(collector, diagnostics);
        if result.is_err() {
            if !diagnostics
                .iter()
                .any(|diag| diag.severity == Severity::Error)
            {
                diagnostics.push(Diag {
                    severity: Severity::Error,
                    location: None,
                    location_text: self.input.name.clone(),
                    message: "pass pipeline failed".to_owned(),
                    notes: Vec::new(),
                });
            }
            return Err(ChunkError::Failed);
        }
        if self.config.statistics {
            eprint!("{}", statistics.render());
        }
        drop(manager); // prints the timing report, after the statistics like mlir-opt
        Ok(match self.config.emit {
            Format::Mlir => Output::Module {
                module,
                verified: self.config.verify_each,
            },
            Format::Ge => match syntax::try_print_ge(&module, crate::dialect::op_table()) {
                Ok(text) => Output::Text(text),
                Err(problems) => {
                    // Promised to round-trip exactly: what `.ge` cannot say is an error at the
                    // op it concerns, not a comment in a graph that reads back as another.
                    for problem in &problems {
                        crate::ir::external_pass::emit_error(
                            problem.location,
                            &format!("cannot print as .ge: {}", problem.message),
                        );
                    }
                    self.flush(collector, diagnostics);
                    return Err(ChunkError::Failed);
                }
            },
        })
    }

    fn parse<'c>(
        &self,
        context: &'c Context,
        collector: &DiagnosticCollector,
        chunk: &Chunk,
        split: bool,
    ) -> Result<Module<'c>, ChunkError> {
        let name = &self.input.name;
        match self.format {
            Format::Mlir => {
                let module = match (&self.input.path, split) {
                    (Some(path), false) => {
                        crate::ir::source::parse_file(context, &path.to_string_lossy())
                    }
                    _ => parse_named_buffer(context, collector, &chunk.padded(), name)
                        .map_err(ChunkError::Fatal)?,
                };
                let module = module.ok_or(ChunkError::Failed)?;
                // The parser verified each op; subgraph references span functions and are
                // checked here (the .ge importer checks them on its AST).
                if crate::dialect::verify_subgraphs(&module) {
                    Ok(module)
                } else {
                    Err(ChunkError::Failed)
                }
            }
            Format::Ge => {
                let module =
                    syntax::import_ge(context, &chunk.padded(), name).map_err(|error| {
                        eprintln!("{error}");
                        ChunkError::Failed
                    })?;
                // MLIR's parser verifies what it parses; an imported module is verified
                // here, before any pass (IRDL checks operand/result counts and types).
                if module.as_operation().verify() {
                    Ok(module)
                } else {
                    Err(ChunkError::Failed)
                }
            }
        }
    }

    /// MLIR 22's parser fails without a word on the custom (pretty) form of an op of a
    /// dialect loaded from IRDL (`%r = ascend.add(...)`): IRDL ops have no custom parser
    /// and the failing hook emits nothing. A failure must never be silent, so the driver
    /// names the first such op, or the chunk's first line when it cannot find one.
    fn silent_parse_failure(&self, chunk: &Chunk) -> Diag {
        let file = self.input.name.clone();
        match source::find_custom_form_op(chunk.text()) {
            Some((line, column, op)) => Diag::at(
                Severity::Error,
                FileLoc {
                    file,
                    line: chunk.first_line + line - 1,
                    column,
                },
                format!(
                    "custom assembly form of '{op}' cannot be parsed: ops of the IRDL-defined \
                     dialect only have the generic form \"{op}\"(...) : (...) -> (...)"
                ),
            ),
            None => Diag::at(
                Severity::Error,
                FileLoc {
                    file,
                    line: chunk.first_line,
                    column: 1,
                },
                "the MLIR parser failed without a diagnostic",
            ),
        }
    }

    fn printing_flags(&self) -> OperationPrintingFlags {
        OperationPrintingFlags::new().enable_debug_info(self.config.print_debuginfo, false)
    }

    /// Moves collected diagnostics into `into`.
    fn flush(&self, collector: &DiagnosticCollector, into: &mut Vec<Diag>) {
        into.extend(collector.take());
    }

    fn print(&self, diagnostics: &[Diag]) {
        if diagnostics.is_empty() {
            return; // nothing to render: the input text need not be read
        }
        let mut sources = Sources::default();
        sources.add(&self.input.name, self.input.text());
        let mut stderr = std::io::stderr().lock();
        for diag in diagnostics {
            let _ = stderr.write_all(render(diag, &sources).as_bytes());
        }
    }

    /// Writes the chunks' outputs, `separator` between two, to the output file or standard
    /// output.
    fn write_outputs(&self, outputs: &[Output], separator: &str, ok: bool) -> Result<(), String> {
        if self.config.output == "-" {
            return match self.write_to(&mut std::io::stdout().lock(), outputs, separator) {
                // The reader stopped reading (`ge-opt big.mlir | head`): not our failure.
                // mlir-opt dies of SIGPIPE there without a word; Rust ignores SIGPIPE, so
                // ge-opt stops writing and keeps the exit status of the run itself.
                Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                result => result.map_err(|error| format!("cannot write standard output: {error}")),
            };
        }
        // Like mlir-opt, a failed run leaves no output file behind.
        if !ok {
            return Ok(());
        }
        let failure = |error| format!("cannot write output file '{}': {error}", self.config.output);
        let mut file = std::fs::File::create(&self.config.output).map_err(failure)?;
        self.write_to(&mut file, outputs, separator)
            .map_err(failure)
    }

    fn write_to<W: Write + AsFd>(
        &self,
        out: &mut W,
        outputs: &[Output],
        separator: &str,
    ) -> std::io::Result<()> {
        for (index, output) in outputs.iter().enumerate() {
            if index > 0 {
                out.write_all(separator.as_bytes())?;
            }
            match output {
                Output::Text(text) => out.write_all(text.as_bytes())?,
                Output::Module { module, verified } => {
                    out.flush()?;
                    let mut flags = self.printing_flags();
                    if *verified {
                        flags = crate::ir::source::assume_verified(flags);
                    }
                    crate::ir::source::print_operation_to_fd(
                        module.as_operation(),
                        &flags,
                        out.as_fd(),
                    )?;
                }
            }
        }
        out.flush()
    }
}
