//! TEMPORARY ge-opt of the `syntax` branch, only to run test/Syntax by hand; the driver
//! helper's real `ge-opt` replaces it at merge. Usage:
//! `ge-opt [--emit ge|mlir] [--input-format ge|mlir] [-o FILE] [INPUT|-]`.
use ge_mlir::{dialect::new_context, syntax};
use melior::ir::{
    operation::{OperationLike, OperationPrintingFlags},
    Module,
};
use std::{io::Read, process::ExitCode};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut input, mut output, mut emit, mut format) =
        ("-".to_string(), "-".to_string(), "mlir".to_string(), None);
    let mut debuginfo = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--emit" => emit = args.next().unwrap_or_default(),
            "--input-format" => format = args.next(),
            "-o" => output = args.next().unwrap_or_default(),
            "--mlir-print-debuginfo" => debuginfo = true,
            _ => input = arg,
        }
    }
    let bytes = if input == "-" {
        let mut buf = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut buf);
        buf
    } else {
        match std::fs::read(&input) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("ge-opt: error: cannot read {input}: {e}");
                return ExitCode::FAILURE;
            }
        }
    };
    let is_ge = format
        .as_deref()
        .map_or(input.ends_with(".ge"), |f| f == "ge");
    let context = new_context();
    let module = if is_ge {
        match syntax::import_ge_bytes(&context, &bytes, &input) {
            Ok(m) => m,
            Err(e) => {
                eprint!("{e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        match Module::parse(&context, &String::from_utf8_lossy(&bytes)) {
            Some(m) => m,
            None => return ExitCode::FAILURE,
        }
    };
    let text = if emit == "ge" {
        syntax::print_ge(&module)
    } else {
        let flags = OperationPrintingFlags::new().enable_debug_info(debuginfo, false);
        let op = module.as_operation();
        format!(
            "{}\n",
            op.to_string_with_flags(flags)
                .unwrap_or_else(|_| op.to_string())
        )
    };
    if output == "-" {
        print!("{text}");
    } else if std::fs::write(&output, text).is_err() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
