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
    cell::OnceCell,
    io::Read,
    path::PathBuf,
    str::Utf8Error,
    sync::atomic::{AtomicUsize, Ordering},
};

/// The name `mlir-opt` gives standard input in diagnostics.
pub const STDIN_NAME: &str = "<stdin>";

/// The whole input of one `ge-opt` run.
///
/// The text of a file is read only when something needs it. A `.mlir` file that MLIR
/// parses by its path is checked while it streams through a small buffer (UTF-8 and bracket
/// nesting, [`read_input`]) and is not held in memory: a million-op file is 200 MB that
/// MLIR reads for itself, and holding a second copy cost a tenth of a second per 40 MB
/// and as much peak memory. Diagnostics that quote the source read the text then.
#[derive(Clone, Debug)]
pub struct Input {
    /// Name used in diagnostics and locations: the path as given, or `<stdin>`.
    pub name: String,
    /// The path of a regular file; `None` for standard input, pipes and devices, which
    /// can be read only once (their text is held).
    pub path: Option<PathBuf>,
    /// The text: read at once for standard input and when the whole text is needed,
    /// otherwise on first use.
    text: OnceCell<String>,
    /// The result of [`find_excess_nesting`] when it ran while the file streamed in.
    pub(super) nesting: Option<Option<(usize, usize)>>,
}

impl Input {
    /// The input's text. A file checked while streaming is read again here, on first use;
    /// if it cannot be read any more (or is no longer UTF-8), the text is what is left
    /// of it, which only affects the source lines quoted by diagnostics.
    pub fn text(&self) -> &str {
        self.text.get_or_init(|| {
            let bytes = self
                .path
                .as_ref()
                .and_then(|path| std::fs::read(path).ok())
                .unwrap_or_default();
            String::from_utf8(bytes)
                .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
        })
    }
}

impl Input {
    /// An input whose text was made rather than read (an ONNX model translated to `.ge`):
    /// `name` is what diagnostics call it.
    pub fn from_text(name: &str, text: String) -> Input {
        Input {
            name: name.to_owned(),
            path: None,
            text: OnceCell::from(text),
            nesting: None,
        }
    }
}

/// Reads `path` (`-` = standard input). Errors are complete messages.
///
/// `whole`: hold the whole text now (it will be split, scanned for expected diagnostics,
/// imported as `.ge`, or parsed from memory). Otherwise a file is only checked as it
/// streams through: valid UTF-8, and the bracket nesting MLIR's parser can take.
pub fn read_input(path: &str, whole: bool) -> Result<Input, String> {
    // A pipe or a device (`<(cmd)`, `/dev/stdin`) can be read once: its text is held, and
    // MLIR parses that text, not the path (which would read nothing the second time).
    let regular = path != "-" && std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if regular && !whole {
        let file = std::fs::File::open(path)
            .map_err(|error| format!("cannot open input file '{path}': {error}"))?;
        let nesting = check_streaming(file, path)?;
        return Ok(Input {
            name: path.to_owned(),
            path: Some(PathBuf::from(path)),
            text: OnceCell::new(),
            nesting: Some(nesting),
        });
    }
    let (name, file, bytes) = if path == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|error| format!("cannot read standard input: {error}"))?;
        (STDIN_NAME.to_owned(), None, bytes)
    } else {
        let bytes = std::fs::read(path)
            .map_err(|error| format!("cannot open input file '{path}': {error}"))?;
        (path.to_owned(), regular.then(|| PathBuf::from(path)), bytes)
    };
    let text = String::from_utf8(bytes)
        .map_err(|error| not_utf8(&name, error.as_bytes(), error.utf8_error(), 1))?;
    Ok(Input {
        name,
        path: file,
        text: OnceCell::from(text),
        nesting: None,
    })
}

/// The error for input `name` that is not UTF-8, located at the first invalid byte of
/// `bytes` (whose first line is line `first_line`; the column counts characters, from 1).
fn not_utf8(name: &str, bytes: &[u8], error: Utf8Error, first_line: usize) -> String {
    let valid = &bytes[..error.valid_up_to()];
    let line = first_line + valid.iter().filter(|&&byte| byte == b'\n').count();
    let line_start = valid
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |newline| newline + 1);
    let column = String::from_utf8_lossy(&valid[line_start..])
        .chars()
        .count()
        + 1;
    format!("{name}:{line}:{column}: error: input is not valid UTF-8")
}

/// Reads `reader` through one reused buffer, a block of whole lines at a time, checking
/// that it is UTF-8 and finding the first bracket nested too deep
/// ([`find_excess_nesting`]); both checks carry nothing but the nesting depth and the line
/// number from one line to the next. Errors are complete messages naming `name`.
fn check_streaming(reader: impl Read, name: &str) -> Result<Option<(usize, usize)>, String> {
    check_streaming_with(reader, name, 1 << 20, MAX_MLIR_NESTING)
}

/// [`check_streaming`] with a first buffer of `buffer_size` bytes and a nesting `limit`.
fn check_streaming_with(
    mut reader: impl Read,
    name: &str,
    buffer_size: usize,
    limit: usize,
) -> Result<Option<(usize, usize)>, String> {
    let mut buffer = vec![0u8; buffer_size.max(1)];
    let mut filled = 0;
    let mut scan = NestingScan::default();
    let mut found = None;
    // Line number at the start of the next block (the scan's own stops at what it found).
    let mut line = 1;
    loop {
        if filled == buffer.len() {
            // A line longer than the buffer: make room for the rest of it.
            buffer.resize(buffer.len() * 2, 0);
        }
        let read = match reader.read(&mut buffer[filled..]) {
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(format!("cannot read input file '{name}': {error}")),
        };
        filled += read;
        let end_of_file = read == 0;
        // Whole lines only (a line break never falls inside a UTF-8 sequence), unless the
        // file ended.
        let complete = if end_of_file {
            filled
        } else {
            match memchr::memrchr(b'\n', &buffer[..filled]) {
                Some(newline) => newline + 1,
                None => continue,
            }
        };
        let block = &buffer[..complete];
        let text =
            std::str::from_utf8(block).map_err(|error| not_utf8(name, block, error, line))?;
        if found.is_none() {
            found = scan.feed(text, limit);
        }
        line = if found.is_none() {
            scan.line
        } else {
            line + memchr::memchr_iter(b'\n', block).count()
        };
        if end_of_file {
            return Ok(found);
        }
        buffer.copy_within(complete..filled, 0);
        filled -= complete;
    }
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

/// Deepest `(`/`[`/`{`/`<` nesting accepted in `.mlir` input (and in `.ge`'s `mlir"..."`
/// escapes, which MLIR's parser reads too). MLIR's parser recurses once per
/// level and overflows the stack somewhere past ten thousand (stock mlir-opt crashes the
/// same way); real graphs nest a handful of levels (a dense literal one per tensor rank).
pub const MAX_MLIR_NESTING: usize = 1000;

/// The first bracket that opens level [`MAX_MLIR_NESTING`] + 1, as `(line, column)`
/// (1-based, byte columns), skipping strings and `//` comments. A bracket counter, not a
/// parser: MLIR still parses the text. `<` and `>` count as brackets (`tuple<tuple<...>>`
/// recurses in the type parser like `[[...]]` in the attribute parser), except in `->`,
/// `<=` and `>=`.
pub fn find_excess_nesting(text: &str) -> Option<(usize, usize)> {
    first_bracket_deeper_than(text, MAX_MLIR_NESTING)
}

fn first_bracket_deeper_than(text: &str, limit: usize) -> Option<(usize, usize)> {
    NestingScan::default().feed(text, limit)
}

/// The bracket scan of [`find_excess_nesting`], resumable at a line break: strings and
/// comments end at the end of their line, so the depth and the line number are all it
/// carries from one block of whole lines to the next.
#[derive(Debug)]
struct NestingScan {
    depth: usize,
    /// Line number (1-based) at the start of the next block.
    line: usize,
}

impl Default for NestingScan {
    fn default() -> Self {
        NestingScan { depth: 0, line: 1 }
    }
}

impl NestingScan {
    /// Scans `text`, the next block of the input (whole lines, or the end of the input);
    /// returns the first bracket that opens level `limit + 1`, as `(line, column)`.
    fn feed(&mut self, text: &str, limit: usize) -> Option<(usize, usize)> {
        // One pass over the bytes that matter: a million-op file is 200 MB, and this scan
        // runs before every parse.
        const SPECIAL: [bool; 256] = {
            let mut table = [false; 256];
            let mut i = 0;
            let bytes = b"()[]{}<>\"/\n";
            while i < bytes.len() {
                table[bytes[i] as usize] = true;
                i += 1;
            }
            table
        };
        let bytes = text.as_bytes();
        let (mut line_start, mut i) = (0usize, 0usize);
        let found = 'scan: {
            while let Some(offset) = bytes[i..].iter().position(|&b| SPECIAL[b as usize]) {
                let at = i + offset;
                i = at + 1;
                match bytes[at] {
                    b'\n' => (self.line, line_start) = (self.line + 1, i),
                    b'"' => loop {
                        // A string ends at its closing quote or, unterminated, at the end of
                        // its line.
                        let Some(k) = memchr::memchr3(b'"', b'\\', b'\n', &bytes[i..]) else {
                            break 'scan None;
                        };
                        let found = bytes[i + k];
                        i += k + 1;
                        match found {
                            b'"' => break,
                            b'\\' if bytes.get(i).is_some_and(|&b| b != b'\n') => i += 1,
                            b'\\' => {}
                            _ => {
                                (self.line, line_start) = (self.line + 1, i);
                                break;
                            }
                        }
                    },
                    b'/' if bytes.get(i) == Some(&b'/') => {
                        match memchr::memchr(b'\n', &bytes[i..]) {
                            Some(k) => {
                                (i, self.line, line_start) = (i + k + 1, self.line + 1, i + k + 1)
                            }
                            None => break 'scan None,
                        }
                    }
                    b'/' => {}
                    b'<' if bytes.get(i) == Some(&b'=') => {}
                    b'>' if bytes.get(i) == Some(&b'=') || (at > 0 && bytes[at - 1] == b'-') => {}
                    b')' | b']' | b'}' | b'>' => self.depth = self.depth.saturating_sub(1),
                    _ => {
                        self.depth += 1;
                        if self.depth > limit {
                            break 'scan Some((self.line, at - line_start + 1));
                        }
                    }
                }
            }
            None
        };
        found
    }
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
        let chunk = Chunk::new(
            "func.func @f(%arg0: i32) {\n  return\n}\nfunc.func @g() {\n  return\n}\n",
            7,
        );
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
        // `<` nests like the others; `->`, `<=` and `>=` are not brackets.
        let angles = format!(
            "{}{}",
            "tuple<".repeat(MAX_MLIR_NESTING),
            ">".repeat(MAX_MLIR_NESTING)
        );
        assert_eq!(find_excess_nesting(&angles), None);
        assert_eq!(find_excess_nesting(&format!("<{angles}")), Some((1, 6001)));
        let arrow = format!("{}->(", "(".repeat(MAX_MLIR_NESTING));
        assert_eq!(find_excess_nesting(&arrow), Some((1, MAX_MLIR_NESTING + 3)));
        let arrows = format!("{}{}", "(<= ->".repeat(MAX_MLIR_NESTING), "x>=");
        assert_eq!(find_excess_nesting(&arrows), None);
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
                    (false, b'<' | b'>') if bytes.get(i + 1) == Some(&b'=') => {}
                    (false, b'>') if i > 0 && bytes[i - 1] == b'-' => {}
                    (false, b'(' | b'[' | b'{' | b'<') => {
                        depth += 1;
                        if depth > limit {
                            return Some((index + 1, i + 1));
                        }
                    }
                    (false, b')' | b']' | b'}' | b'>') => depth = depth.saturating_sub(1),
                    (false, _) => {}
                }
                i += 1;
            }
        }
        None
    }

    /// Texts over the bytes the nesting scan and the UTF-8 check care about (seeded
    /// xorshift), with `invalid` bytes that are not UTF-8 on their own.
    fn random_texts(count: usize, invalid: bool) -> Vec<Vec<u8>> {
        let alphabet: &[u8] = if invalid {
            b"([{<)]}>-=\"\\/\nx \xc3\xa9\xff"
        } else {
            b"([{<)]}>-=\"\\/\nx "
        };
        let mut state = 0x2545_f491_4f6c_dd1du64;
        (0..count)
            .map(|case| {
                (0..1 + case % 40)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        alphabet[(state % alphabet.len() as u64) as usize]
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn streaming_check_agrees_with_the_whole_text_checks() {
        // Buffers of a few bytes put block boundaries (and buffer growth for long lines)
        // everywhere; the answer must be the one the whole text gives.
        let mut disagreements = Vec::new();
        for bytes in random_texts(3000, true) {
            let whole = match String::from_utf8(bytes.clone()) {
                Ok(text) => Ok([0, 1, 3].map(|limit| first_bracket_deeper_than(&text, limit))),
                Err(error) => Err(not_utf8("t", &bytes, error.utf8_error(), 1)),
            };
            for buffer_size in [1, 2, 3, 7, 64] {
                let streamed = [0, 1, 3]
                    .map(|limit| check_streaming_with(bytes.as_slice(), "t", buffer_size, limit));
                let streamed = match streamed.iter().find_map(|r| r.as_ref().err()) {
                    Some(error) => Err(error.clone()),
                    None => Ok(streamed.map(Result::unwrap)),
                };
                if streamed != whole {
                    disagreements.push((bytes.clone(), buffer_size, streamed, whole.clone()));
                }
            }
        }
        assert!(
            disagreements.is_empty(),
            "{:?}",
            &disagreements[..disagreements.len().min(3)]
        );
    }

    #[test]
    fn a_streamed_file_is_read_again_only_when_its_text_is_needed() {
        let path = std::env::temp_dir().join(format!("ge-opt-lazy-{}.mlir", std::process::id()));
        std::fs::write(&path, "module {}\n").unwrap();
        let input = read_input(path.to_str().unwrap(), false).unwrap();
        assert_eq!(input.nesting, Some(None));
        assert!(input.text.get().is_none(), "checked, not held");
        assert_eq!(input.text(), "module {}\n");
        let whole = read_input(path.to_str().unwrap(), true).unwrap();
        assert!(whole.text.get().is_some() && whole.nesting.is_none());
        std::fs::remove_file(&path).unwrap();
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
