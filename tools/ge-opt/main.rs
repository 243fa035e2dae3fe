//! `ge-opt`: the `mlir-opt` of the `ascend` dialect.
//!
//! Reads `.mlir` or `.ge`, runs our passes (one flag each, in command-line order) or a
//! `--pass-pipeline` mixing them with upstream MLIR passes, and prints MLIR or `.ge`.
//! All the work is in `ge_mlir::driver`; this file turns the command line into a
//! `driver::Config`.

use clap::{CommandFactory, FromArgMatches, Parser, ValueEnum};
use ge_mlir::{
    driver::{self, split::DEFAULT_MARKER, Config, Format},
    pipeline::{self, is_pass_flag, Pipeline},
};
use std::process::ExitCode;

mod allocator;

/// Every allocation of the process goes to mimalloc: the Rust side through this global
/// allocator, MLIR's C++ side because the crate's `override` feature makes mimalloc provide
/// `malloc`/`free`/`operator new` for the whole executable (as LLVM's own
/// `LLVM_INTEGRATED_CRT_ALLOC` build option does). glibc's malloc spent a tenth of a
/// million-op pipeline consolidating the models' freed chunks, and its arenas kept the
/// memory the passes free apart from the memory MLIR allocates next; one heap for both cuts
/// the CPU time of parse+print by about a fifth and the peak RSS of a pass run by about a
/// seventh at a million ops (README, Performance).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FormatArg {
    Mlir,
    Ge,
}

impl From<FormatArg> for Format {
    fn from(format: FormatArg) -> Self {
        match format {
            FormatArg::Mlir => Format::Mlir,
            FormatArg::Ge => Format::Ge,
        }
    }
}

/// The ascend-dialect optimizer driver (mlir-opt conventions).
#[derive(Debug, Parser)]
#[command(name = "ge-opt", version)]
struct Cli {
    /// Input file (`-` = standard input)
    #[arg(default_value = "-")]
    input: String,

    /// Output file (`-` = standard output)
    #[arg(short = 'o', default_value = "-", value_name = "FILE")]
    output: String,

    /// Input syntax [default: `ge` for `.ge` files, else `mlir`]
    #[arg(long, value_enum)]
    input_format: Option<FormatArg>,

    /// Output syntax
    #[arg(long, value_enum, default_value = "mlir")]
    emit: FormatArg,

    /// A pipeline mixing our passes and upstream ones: 'builtin.module(canonicalize, ascend-topo-order{start-id=1}, cse)'
    #[arg(long, value_name = "PIPELINE")]
    pass_pipeline: Option<String>,

    /// Split the input at lines starting with the marker, process each chunk independently
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = DEFAULT_MARKER, value_name = "MARKER")]
    split_input_file: Option<String>,

    /// Check diagnostics against the input's expected-error/warning/remark/note comments
    #[arg(long)]
    verify_diagnostics: bool,

    /// Print the IR before every pass (stderr)
    #[arg(long)]
    mlir_print_ir_before_all: bool,

    /// Print the IR after every pass (stderr)
    #[arg(long)]
    mlir_print_ir_after_all: bool,

    /// Print the pass timing report (stderr)
    #[arg(long)]
    mlir_timing: bool,

    /// Print the statistics of our passes (stderr)
    #[arg(long)]
    mlir_pass_statistics: bool,

    /// Print locations in the output and in IR dumps
    #[arg(long)]
    mlir_print_debuginfo: bool,

    /// Let MLIR use threads [default: false]: our passes are module passes, which MLIR
    /// runs on one thread anyway, while a threaded context makes every attribute and type
    /// lookup also go through a per-thread cache. Turn it on for upstream pipelines nested
    /// under many functions
    #[arg(long, value_name = "BOOL", default_value_t = false, num_args = 0..=1,
          default_missing_value = "true", action = clap::ArgAction::Set)]
    mlir_threading: bool,

    /// Run MLIR on one thread (the default; overrides --mlir-threading)
    #[arg(long)]
    mlir_disable_threading: bool,

    /// Verify the IR after every pass, or once after a run of consecutive passes of ours
    /// while they hand their models on (`--verify-each=false` skips it; the input is
    /// verified when parsed either way)
    #[arg(long, value_name = "BOOL", default_value_t = true, num_args = 0..=1,
          default_missing_value = "true", action = clap::ArgAction::Set)]
    verify_each: bool,

    /// Let consecutive passes of ours hand their models on instead of each reading the IR
    /// again, with MLIR verifying after the last of them (`--share-models=false` reads it
    /// and verifies in every pass: the output is the same, only slower; for checking exactly
    /// that)
    #[arg(long, value_name = "BOOL", default_value_t = true, num_args = 0..=1,
          default_missing_value = "true", action = clap::ArgAction::Set)]
    share_models: bool,

    /// Accept operations of dialects that are not registered
    #[arg(long)]
    allow_unregistered_dialect: bool,

    /// Print the embedded IRDL definition of the ascend dialect and exit
    #[arg(long)]
    emit_irdl: bool,

    /// List the registered passes and exit
    #[arg(long)]
    list_passes: bool,
}

fn main() -> ExitCode {
    allocator::apply_defaults();
    let raw: Vec<String> = std::env::args().collect();
    let (pass_flags, rest) = extract_pass_flags(&raw);
    let command = Cli::command().after_help(format!(
        "Passes (in command-line order; options as --<pass>=<opt>=<value>[,...]):\n{}\n\
         Upstream MLIR passes are available through --pass-pipeline.",
        pipeline::pass_table()
    ));
    let cli = match command
        .try_get_matches_from(&rest)
        .and_then(|matches| Cli::from_arg_matches(&matches))
    {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            if error.use_stderr() {
                eprintln!(
                    "(passes: see `ge-opt --list-passes`; upstream passes go in --pass-pipeline)"
                );
                return ExitCode::FAILURE;
            }
            return ExitCode::SUCCESS; // --help, --version
        }
    };
    if cli.emit_irdl {
        print!("{}", ge_mlir::dialect::IRDL_SOURCE);
        return ExitCode::SUCCESS;
    }
    if cli.list_passes {
        print!("{}", pipeline::list_passes_text());
        return ExitCode::SUCCESS;
    }
    if cli
        .split_input_file
        .as_deref()
        .is_some_and(|marker| marker.trim().is_empty())
    {
        eprintln!("ge-opt: error: --split-input-file=<marker> needs a non-empty marker");
        return ExitCode::FAILURE;
    }
    let pipeline = match (&cli.pass_pipeline, pass_flags.is_empty()) {
        (Some(_), false) => Err(
            "--pass-pipeline cannot be combined with individual pass flags; put every pass in the pipeline"
                .to_owned(),
        ),
        (Some(text), true) => Pipeline::parse(text),
        (None, _) => Pipeline::from_flags(&pass_flags),
    };
    let pipeline = match pipeline {
        Ok(pipeline) => pipeline.share_models(cli.share_models),
        Err(error) => {
            eprintln!("ge-opt: error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let config = Config {
        input: cli.input,
        output: cli.output,
        input_format: cli.input_format.map(Format::from),
        emit: cli.emit.into(),
        split_marker: cli.split_input_file,
        verify_diagnostics: cli.verify_diagnostics,
        print_ir_before_all: cli.mlir_print_ir_before_all,
        print_ir_after_all: cli.mlir_print_ir_after_all,
        timing: cli.mlir_timing,
        statistics: cli.mlir_pass_statistics,
        print_debuginfo: cli.mlir_print_debuginfo,
        threading: cli.mlir_threading && !cli.mlir_disable_threading,
        verify_each: cli.verify_each,
        allow_unregistered_dialect: cli.allow_unregistered_dialect,
        pipeline,
    };
    match driver::run(&config) {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}

/// Takes our pass flags out of the command line, in order (clap cannot keep the relative
/// order of many distinct flags), and accepts `mlir-opt`'s single-dash long options
/// (`-split-input-file`, `-ascend-topo-order`). Returns the pass flags without dashes and
/// the remaining arguments for clap.
fn extract_pass_flags(raw: &[String]) -> (Vec<String>, Vec<String>) {
    let long_names: Vec<String> = Cli::command()
        .get_arguments()
        .filter_map(|arg| arg.get_long().map(str::to_owned))
        .chain(["help".to_owned(), "version".to_owned()])
        .collect();
    let mut passes = Vec::new();
    let mut rest = Vec::new();
    let mut after_double_dash = false;
    for (index, arg) in raw.iter().enumerate() {
        if index == 0 || after_double_dash {
            rest.push(arg.clone());
            continue;
        }
        if arg == "--" {
            after_double_dash = true;
            rest.push(arg.clone());
            continue;
        }
        let arg = normalize_single_dash(arg, &long_names);
        if is_pass_flag(&arg) {
            passes.push(arg[2..].to_owned());
        } else {
            rest.push(arg);
        }
    }
    (passes, rest)
}

/// `-name[=value]` -> `--name[=value]` when `name` is a long option or a pass flag.
fn normalize_single_dash(arg: &str, long_names: &[String]) -> String {
    let Some(body) = arg.strip_prefix('-') else {
        return arg.to_owned();
    };
    if body.starts_with('-') || body.len() < 2 {
        return arg.to_owned();
    }
    let name = body.split_once('=').map_or(body, |(name, _)| name);
    if long_names.iter().any(|long| long == name) || pipeline::lookup(name).is_some() {
        format!("-{arg}")
    } else {
        arg.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        std::iter::once("ge-opt")
            .chain(list.iter().copied())
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn pass_flags_are_extracted_in_order_and_single_dashes_normalised() {
        let (passes, rest) = extract_pass_flags(&args(&[
            "-ascend-topo-order=start-id=1",
            "in.mlir",
            "-split-input-file",
            "-o",
            "out.mlir",
            "--ascend-topo-order",
            "-mlir-timing",
        ]));
        assert_eq!(
            passes,
            vec!["ascend-topo-order=start-id=1", "ascend-topo-order"]
        );
        assert_eq!(
            rest,
            args(&[
                "in.mlir",
                "--split-input-file",
                "-o",
                "out.mlir",
                "--mlir-timing"
            ])
        );
    }

    #[test]
    fn unknown_and_short_options_and_files_are_left_alone() {
        let (passes, rest) =
            extract_pass_flags(&args(&["-x", "-bogus", "--", "--ascend-topo-order", "-"]));
        assert!(passes.is_empty());
        assert_eq!(
            rest,
            args(&["-x", "-bogus", "--", "--ascend-topo-order", "-"])
        );
    }

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
