//! Reading the input and parsing MLIR text under the name the user knows.

use super::diagnostics::DiagnosticCollector;
use crate::ir::source::{parse_file, set_block_argument_location};
use melior::{
    ir::{
        block::BlockLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut},
        Location, Module, RegionLike, ValueLike,
    },
    Context,
};
use std::{
    io::Read,
    path::PathBuf,
    sync::atomic::{AtomicUsize, Ordering},
};

/// The name `mlir-opt` gives standard input in diagnostics.
pub const STDIN_NAME: &str = "<stdin>";

/// The whole input of one `ge-opt` run.
#[derive(Clone, Debug)]
pub struct Input {
    /// Name used in diagnostics and locations: the path as given, or `<stdin>`.
    pub name: String,
    /// The file path, `None` for standard input.
    pub path: Option<PathBuf>,
    pub text: String,
}

/// Reads `path` (`-` = standard input). Errors are complete messages.
pub fn read_input(path: &str) -> Result<Input, String> {
    let (name, file, bytes) = if path == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|error| format!("cannot read standard input: {error}"))?;
        (STDIN_NAME.to_owned(), None, bytes)
    } else {
        let bytes = std::fs::read(path)
            .map_err(|error| format!("cannot open input file '{path}': {error}"))?;
        (path.to_owned(), Some(PathBuf::from(path)), bytes)
    };
    let text = String::from_utf8(bytes).map_err(|error| {
        let valid = &error.as_bytes()[..error.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|&&byte| byte == b'\n').count() + 1;
        let line_start = valid
            .iter()
            .rposition(|&byte| byte == b'\n')
            .map_or(0, |newline| newline + 1);
        let column = String::from_utf8_lossy(&valid[line_start..])
            .chars()
            .count()
            + 1;
        format!("{name}:{line}:{column}: error: input is not valid UTF-8")
    })?;
    Ok(Input {
        name,
        path: file,
        text,
    })
}

/// Parses MLIR `text` so that locations and diagnostics name `buffer_name`.
///
/// The C API can only name a parsed buffer after a file it reads
/// (`mlirModuleCreateParseFromFile`; `mlirOperationCreateParse` takes a name but rejects
/// several top-level operations). So the text goes to a temporary file; diagnostics are
/// renamed on the fly by `collector`, and the parsed module's locations are rewritten to
/// `buffer_name` afterwards.
pub fn parse_named_buffer<'c>(
    context: &'c Context,
    collector: &DiagnosticCollector,
    text: &str,
    buffer_name: &str,
) -> Result<Option<Module<'c>>, String> {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let temp = std::env::temp_dir().join(format!(
        "ge-opt-{}-{}.mlir",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&temp, text)
        .map_err(|error| format!("cannot write temporary file {}: {error}", temp.display()))?;
    let temp_name = temp.to_string_lossy().into_owned();
    collector.rename(&temp_name, buffer_name);
    let module = parse_file(context, &temp_name);
    collector.clear_renames();
    // Best effort: a leftover file in the temp directory is harmless.
    let _ = std::fs::remove_file(&temp);
    Ok(module.map(|mut module| {
        rename_locations(context, module.as_operation_mut(), &temp_name, buffer_name);
        module
    }))
}

/// Rewrites every location (of operations and block arguments) under `root` that names
/// file `from` so that it names `to`.
fn rename_locations<'c>(context: &'c Context, root: OperationRefMut<'c, '_>, from: &str, to: &str) {
    let mut stack = vec![root];
    while let Some(mut operation) = stack.pop() {
        let renamed = rename(context, operation.location(), from, to);
        operation.set_location(renamed);
        for region in operation.regions() {
            let mut block = region.first_block();
            while let Some(current) = block {
                for index in 0..current.argument_count() {
                    if let Ok(argument) = current.argument(index) {
                        let location = rename(context, argument.location(), from, to);
                        set_block_argument_location(argument, location);
                    }
                }
                let mut child = current.first_operation_mut();
                while let Some(operation) = child {
                    child = operation.next_in_block_mut();
                    stack.push(operation);
                }
                block = current.next_in_region();
            }
        }
    }
}

fn rename<'c>(context: &'c Context, location: Location<'c>, from: &str, to: &str) -> Location<'c> {
    if location.is_file_line_col_range() {
        let file = location.file_line_col_range_filename();
        if file.as_string_ref().as_str() != Ok(from) {
            return location;
        }
        let (line, column) = (
            location.file_line_col_range_start_line(),
            location.file_line_col_range_start_column(),
        );
        let (end_line, end_column) = (
            location.file_line_col_range_end_line(),
            location.file_line_col_range_end_column(),
        );
        return if (end_line, end_column) == (line, column) {
            Location::new(context, to, line, column)
        } else {
            Location::file_line_col_range(context, to, line, column, end_line, end_column)
        };
    }
    if location.is_name() {
        let child = rename(context, location.name_child_location(), from, to);
        let name = location.name_value();
        return Location::name(
            context,
            name.as_string_ref().as_str().unwrap_or_default(),
            child,
        );
    }
    if location.is_call_site() {
        return Location::call_site(
            rename(context, location.call_site_callee(), from, to),
            rename(context, location.call_site_caller(), from, to),
        );
    }
    if location.is_fused() {
        let parts: Vec<_> = (0..location.fused_num_locations())
            .map(|index| rename(context, location.fused_location(index), from, to))
            .collect();
        return Location::fused(context, &parts, location.fused_metadata());
    }
    location
}

/// The first op written in custom assembly form with the `ascend.` prefix, as
/// `(line, column, op name)` (1-based, columns in bytes as MLIR counts them): a bare
/// `ascend.x` token outside strings and comments that is not a type (`!ascend.`), an
/// attribute (`#ascend.`) or part of a longer name.
pub fn find_custom_form_op(text: &str) -> Option<(usize, usize, String)> {
    const PREFIX: &str = "ascend.";
    for (index, line) in text.lines().enumerate() {
        let bytes = line.as_bytes();
        let mut in_string = false;
        let mut i = 0;
        while i < bytes.len() {
            let byte = bytes[i];
            if in_string {
                match byte {
                    b'\\' => i += 1,
                    b'"' => in_string = false,
                    _ => {}
                }
            } else if byte == b'"' {
                in_string = true;
            } else if line[i..].starts_with("//") {
                break;
            } else if line[i..].starts_with(PREFIX) && (i == 0 || !is_name_or_sigil(bytes[i - 1])) {
                let end = line[i + PREFIX.len()..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                    .map_or(line.len(), |n| i + PREFIX.len() + n);
                return Some((index + 1, i + 1, line[i..end].to_owned()));
            }
            i += 1;
        }
    }
    None
}

/// Bytes that make an `ascend.` just after them part of something else than an op name.
fn is_name_or_sigil(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.' | b'!' | b'#' | b'@' | b'%' | b'$')
}

/// Deepest `(`/`[`/`{` nesting accepted in `.mlir` input. MLIR's parser recurses once per
/// level and overflows the stack somewhere past ten thousand (stock mlir-opt crashes the
/// same way); real graphs nest a handful of levels (a dense literal one per tensor rank).
pub const MAX_MLIR_NESTING: usize = 1000;

/// The first bracket that opens level [`MAX_MLIR_NESTING`] + 1, as `(line, column)`
/// (1-based, byte columns), skipping strings and `//` comments. A bracket counter, not a
/// parser: MLIR still parses the text.
pub fn find_excess_nesting(text: &str) -> Option<(usize, usize)> {
    first_bracket_deeper_than(text, MAX_MLIR_NESTING)
}

fn first_bracket_deeper_than(text: &str, limit: usize) -> Option<(usize, usize)> {
    // One pass over the bytes that matter: a million-op file is 200 MB, and this scan runs
    // before every parse.
    const SPECIAL: [bool; 256] = {
        let mut table = [false; 256];
        let mut i = 0;
        let bytes = b"()[]{}\"/\n";
        while i < bytes.len() {
            table[bytes[i] as usize] = true;
            i += 1;
        }
        table
    };
    let bytes = text.as_bytes();
    let (mut depth, mut line, mut line_start, mut i) = (0usize, 1usize, 0usize, 0usize);
    while let Some(offset) = bytes[i..].iter().position(|&b| SPECIAL[b as usize]) {
        let at = i + offset;
        i = at + 1;
        match bytes[at] {
            b'\n' => (line, line_start) = (line + 1, i),
            b'"' => loop {
                // A string ends at its closing quote or, unterminated, at the end of its line.
                let k = memchr::memchr3(b'"', b'\\', b'\n', &bytes[i..])?;
                let found = bytes[i + k];
                i += k + 1;
                match found {
                    b'"' => break,
                    b'\\' if bytes.get(i).is_some_and(|&b| b != b'\n') => i += 1,
                    b'\\' => {}
                    _ => {
                        (line, line_start) = (line + 1, i);
                        break;
                    }
                }
            },
            b'/' if bytes.get(i) == Some(&b'/') => match memchr::memchr(b'\n', &bytes[i..]) {
                Some(k) => (i, line, line_start) = (i + k + 1, line + 1, i + k + 1),
                None => return None,
            },
            b'/' => {}
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {
                depth += 1;
                if depth > limit {
                    return Some((line, at - line_start + 1));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{dialect::new_context, driver::split::Chunk};
    use melior::ir::{operation::OperationPrintingFlags, Module};

    fn printed_with_locations(module: &Module) -> String {
        module
            .as_operation()
            .to_string_with_flags(OperationPrintingFlags::new().enable_debug_info(true, false))
            .unwrap()
    }

    #[test]
    fn named_buffers_keep_their_name_and_line_numbers() {
        let context = new_context();
        let collector = DiagnosticCollector::attach(&context);
        let chunk = Chunk {
            text: "func.func @f(%arg0: i32) {\n  return\n}\nfunc.func @g() {\n  return\n}\n",
            first_line: 7,
        };
        let module = parse_named_buffer(&context, &collector, &chunk.padded(), "x.mlir")
            .unwrap()
            .expect("parses");
        let text = printed_with_locations(&module);
        assert!(text.contains(r#"loc("x.mlir":7:1)"#), "{text}");
        assert!(
            text.contains(r#"loc("x.mlir":7:14)"#),
            "block argument: {text}"
        );
        assert!(text.contains(r#"loc("x.mlir":11:3)"#), "{text}");
        assert!(!text.contains("ge-opt-"), "temporary name leaked: {text}");
        assert!(collector.take().is_empty());
    }

    #[test]
    fn named_buffer_diagnostics_use_the_name() {
        let context = new_context();
        let collector = DiagnosticCollector::attach(&context);
        let module = parse_named_buffer(&context, &collector, "\n\n  bogus", "<stdin>").unwrap();
        assert!(module.is_none());
        let diags = collector.take();
        let location = diags[0].location.clone().expect("a file position");
        assert_eq!(
            (location.file.as_str(), location.line, location.column),
            ("<stdin>", 3, 3)
        );
    }

    #[test]
    fn finds_the_custom_form_op_but_not_types_strings_or_comments() {
        let text = "// ascend.add in a comment\n  %0 = \"ascend.add\"(%a) : (tensor<f32>) -> !ascend.ctrl\n  %1:2 = ascend.real_div\"(%x)";
        assert_eq!(
            find_custom_form_op(text),
            Some((3, 10, "ascend.real_div".to_owned()))
        );
        assert_eq!(
            find_custom_form_op("%0 = \"ascend.add\"() {s = \"a \\\" ascend.x\"}"),
            None
        );
    }

    #[test]
    fn finds_the_bracket_past_the_nesting_limit_outside_strings_and_comments() {
        let deep = format!(
            "{}{}",
            "[".repeat(MAX_MLIR_NESTING),
            "]".repeat(MAX_MLIR_NESTING)
        );
        assert_eq!(find_excess_nesting(&deep), None);
        let text = format!(
            "// {}\n\"{}\" x = {}",
            "[".repeat(2000),
            "(".repeat(2000),
            "{".repeat(1001)
        );
        assert_eq!(find_excess_nesting(&text), Some((2, 3008)));
    }

    /// The scanner as first written, line by line: the oracle for the byte scanner.
    fn nesting_oracle(text: &str, limit: usize) -> Option<(usize, usize)> {
        let mut depth = 0usize;
        for (index, line) in text.lines().enumerate() {
            let bytes = line.as_bytes();
            let mut in_string = false;
            let mut i = 0;
            while i < bytes.len() {
                match (in_string, bytes[i]) {
                    (true, b'\\') => i += 1,
                    (true, b'"') => in_string = false,
                    (true, _) => {}
                    (false, b'"') => in_string = true,
                    (false, b'/') if bytes.get(i + 1) == Some(&b'/') => break,
                    (false, b'(' | b'[' | b'{') => {
                        depth += 1;
                        if depth > limit {
                            return Some((index + 1, i + 1));
                        }
                    }
                    (false, b')' | b']' | b'}') => depth = depth.saturating_sub(1),
                    (false, _) => {}
                }
                i += 1;
            }
        }
        None
    }

    #[test]
    fn nesting_scanner_agrees_with_the_line_by_line_oracle() {
        // Seeded xorshift over an alphabet of the bytes the scanner cares about.
        let alphabet = b"([{)]}\"\\/\nx ";
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut disagreements = Vec::new();
        for case in 0..4000 {
            let length = 1 + case % 40;
            let text: String = (0..length)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    alphabet[(state % alphabet.len() as u64) as usize] as char
                })
                .collect();
            for limit in [0, 1, 3] {
                let (fast, slow) = (
                    first_bracket_deeper_than(&text, limit),
                    nesting_oracle(&text, limit),
                );
                if fast != slow {
                    disagreements.push((text.clone(), limit, fast, slow));
                }
            }
        }
        assert!(
            disagreements.is_empty(),
            "{:?}",
            &disagreements[..disagreements.len().min(5)]
        );
    }
}
