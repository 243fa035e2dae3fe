//! `ge-gen`: deterministic generator of realistic GE-like graphs, as `.mlir` (ascend dialect,
//! generic form) or `.ge` text, for tests and for the parse/print benchmark
//! (`tools/bench.sh`).
//!
//! Output is streamed node by node and never held in memory, so a 1M-op graph costs a few
//! megabytes of RAM. Op counts count ascend ops (Data and Const included, `func.return` not)
//! over all functions.

mod builder;
mod families;
mod ops;
mod rng;
mod sink;
#[cfg(test)]
mod tests;
mod types;

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};

use builder::Builder;
use families::{Family, Style};
use sink::{GeSink, MlirSink};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// MLIR: `func.func` per graph, ascend ops in generic form.
    Mlir,
    /// The `.ge` text format.
    Ge,
}

#[derive(Parser, Debug)]
#[command(
    name = "ge-gen",
    about = "Generate deterministic GE-like graphs (.mlir or .ge)"
)]
struct Cli {
    /// Output syntax.
    #[arg(long, value_enum, default_value_t = Format::Mlir)]
    format: Format,
    /// Graph family.
    #[arg(long, value_enum)]
    family: Family,
    /// Approximate number of ops (within ±10%).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=20_000_000))]
    ops: u64,
    /// PRNG seed; equal seeds give byte-identical output.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Leave weight updates unordered with the backward reads of their weight (transformer):
    /// no control edges from those reads to the update, so GraphLint warns (W18888) on each
    /// pair. By default every update waits for them, as in real training graphs.
    #[arg(long)]
    unordered_updates: bool,
    /// Small tensor shapes (8x8 activations, 16x16 transformer blocks, a batch-1 32x32
    /// ResNet with 8 base channels): the same graph structure and op count with kernels
    /// that cost next to nothing, for runs about schedules and memory (tools/soak.py)
    #[arg(long)]
    small_tensors: bool,
    /// Output file (default: stdout).
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
}

/// Generates `family` sized to about `ops` ops into `w`; returns the exact op count.
pub fn write_graph(
    family: Family,
    format: Format,
    ops: u64,
    seed: u64,
    style: Style,
    w: impl Write,
) -> io::Result<u64> {
    let units = families::units_for(family, ops, seed)?;
    match format {
        Format::Mlir => run(family, units, seed, style, MlirSink::new(w)),
        Format::Ge => run(family, units, seed, style, GeSink::new(w)),
    }
}

fn run<S: sink::Sink>(
    family: Family,
    units: u64,
    seed: u64,
    style: Style,
    sink: S,
) -> io::Result<u64> {
    let mut b = Builder::new(sink);
    families::generate(family, units, seed, style, &mut b)?;
    b.finish()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let style = Style {
        unordered_updates: cli.unordered_updates,
        small_tensors: cli.small_tensors,
    };
    let result = match &cli.output {
        Some(path) if path.as_os_str() != "-" => File::create(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
            .and_then(|f| {
                write_graph(
                    cli.family,
                    cli.format,
                    cli.ops,
                    cli.seed,
                    style,
                    BufWriter::with_capacity(1 << 20, f),
                )
            }),
        _ => write_graph(
            cli.family,
            cli.format,
            cli.ops,
            cli.seed,
            style,
            BufWriter::with_capacity(1 << 20, io::stdout().lock()),
        ),
    };
    match result {
        Ok(_) => ExitCode::SUCCESS,
        // `ge-gen ... | head` is normal use, not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ge-gen: {e}");
            ExitCode::FAILURE
        }
    }
}
