//! `--split-input-file`: cutting one input into independently processed chunks.

use super::source::{find_excess_nesting, Input};

/// The marker `mlir-opt` splits on and joins outputs with.
pub const DEFAULT_MARKER: &str = "// -----";

/// One chunk of the input.
#[derive(Clone, Copy, Debug)]
pub struct Chunk<'a> {
    text: ChunkText<'a>,
    /// The 1-based line of the original input on which the text starts.
    pub first_line: usize,
}

/// Where a chunk's text is.
#[derive(Clone, Copy, Debug)]
enum ChunkText<'a> {
    /// A piece of text in memory (the marker lines are not part of any chunk).
    Slice(&'a str),
    /// The whole input, whose text is read only if something needs it (see [`Input`]).
    Whole(&'a Input),
}

impl<'a> Chunk<'a> {
    /// The chunk holding `text`, which starts on line `first_line` of the input.
    pub fn new(text: &'a str, first_line: usize) -> Self {
        Chunk {
            text: ChunkText::Slice(text),
            first_line,
        }
    }

    /// The whole of `input` as one chunk, without reading its text yet.
    pub fn whole(input: &'a Input) -> Self {
        Chunk {
            text: ChunkText::Whole(input),
            first_line: 1,
        }
    }

    /// The chunk's text (read from the file on first use for a whole-input chunk).
    pub fn text(&self) -> &'a str {
        match self.text {
            ChunkText::Slice(text) => text,
            ChunkText::Whole(input) => input.text(),
        }
    }

    /// The first bracket nested too deep for MLIR's parser (see
    /// [`find_excess_nesting`]), from the check made while the input was read when there
    /// was one.
    pub fn excess_nesting(&self) -> Option<(usize, usize)> {
        match self.text {
            ChunkText::Whole(Input {
                nesting: Some(found),
                ..
            }) => *found,
            _ => find_excess_nesting(self.text()),
        }
    }

    /// The chunk's text preceded by `first_line - 1` newlines, so that a parser that
    /// counts lines from 1 reports the line numbers of the original input. Columns are
    /// unaffected.
    pub fn padded(&self) -> String {
        let mut text = "\n".repeat(self.first_line - 1);
        text.push_str(self.text());
        text
    }
}

/// Splits `input` at every line that starts with `marker` (after optional indentation).
pub fn split_input<'a>(input: &'a str, marker: &str) -> Vec<Chunk<'a>> {
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut first_line = 1;
    let mut offset = 0;
    for (index, line) in input.split_inclusive('\n').enumerate() {
        let next = offset + line.len();
        if line.trim_start().starts_with(marker) {
            chunks.push(Chunk::new(&input[start..offset], first_line));
            start = next;
            // `index` is 0-based: the line after the marker is line `index + 2`.
            first_line = index + 2;
        }
        offset = next;
    }
    chunks.push(Chunk::new(&input[start..], first_line));
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces<'a>(chunks: &[Chunk<'a>]) -> Vec<(&'a str, usize)> {
        chunks.iter().map(|c| (c.text(), c.first_line)).collect()
    }

    #[test]
    fn splits_on_marker_lines_and_keeps_line_numbers() {
        let input = "a\nb\n// -----\nc\n  // ----- tail\nd";
        let chunks = split_input(input, DEFAULT_MARKER);
        assert_eq!(pieces(&chunks), vec![("a\nb\n", 1), ("c\n", 4), ("d", 6)]);
        assert_eq!(chunks[2].padded(), "\n\n\n\n\nd");
    }

    #[test]
    fn no_marker_means_one_chunk() {
        assert_eq!(
            pieces(&split_input("x // ----- not at start\n", DEFAULT_MARKER)),
            vec![("x // ----- not at start\n", 1)]
        );
        assert_eq!(split_input("", DEFAULT_MARKER).len(), 1);
    }

    #[test]
    fn custom_marker() {
        let chunks = split_input("a\n#--\nb\n", "#--");
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[1].first_line, 3);
    }
}
