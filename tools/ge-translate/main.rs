//! `ge-translate`: the `mlir-translate` of the `ascend` dialect. Translates other formats
//! into `ascend` modules; today ONNX models:
//!
//! ```sh
//! ge-translate --import-onnx model.onnx -o model.mlir   # verified MLIR (ascend dialect)
//! ge-translate --import-onnx model.onnx --emit ge       # the same graphs as .ge text
//! ge-translate --list-onnx-ops                          # (op type, opsets) -> GE ops
//! ```
//!
//! Every failure is one message naming the file (and the node, op type and opset when a
//! node is the cause) and exit status 1.

use clap::{Parser, ValueEnum};
use ge_mlir::{dialect::new_context, onnx};
use std::{io::Write, path::PathBuf, process::ExitCode};

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Emit {
    Mlir,
    Ge,
}

/// Translates ONNX models into the ascend dialect (mlir-translate conventions).
#[derive(Debug, Parser)]
#[command(name = "ge-translate", version)]
struct Cli {
    /// Import an ONNX model (`.onnx`; external data files are read from its directory)
    #[arg(long, value_name = "MODEL")]
    import_onnx: Option<PathBuf>,

    /// Print the supported ONNX ops by (op type, opset range) and the GE ops they become
    #[arg(long)]
    list_onnx_ops: bool,

    /// Output file (`-` = standard output)
    #[arg(short = 'o', default_value = "-", value_name = "FILE")]
    output: String,

    /// Output syntax
    #[arg(long, value_enum, default_value = "mlir")]
    emit: Emit,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("ge-translate: error: {message}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: &Cli) -> Result<(), String> {
    let text = if cli.list_onnx_ops {
        onnx::list_onnx_ops()
    } else if let Some(model) = &cli.import_onnx {
        match cli.emit {
            Emit::Ge => onnx::onnx_file_to_ge(model)?,
            Emit::Mlir => {
                let context = new_context();
                let module = onnx::import_onnx_file(&context, model)?;
                format!("{}\n", module.as_operation())
            }
        }
    } else {
        return Err("nothing to do: give --import-onnx MODEL or --list-onnx-ops".into());
    };
    if cli.output == "-" {
        let mut out = std::io::stdout().lock();
        match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                Err(format!("cannot write standard output: {e}"))
            }
            _ => Ok(()),
        }
    } else {
        std::fs::write(&cli.output, text)
            .map_err(|e| format!("cannot write output file '{}': {e}", cli.output))
    }
}
