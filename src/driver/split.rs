//! `--split-input-file`: cutting one input into independently processed chunks.

/// The marker `mlir-opt` splits on and joins outputs with.
pub const DEFAULT_MARKER: &str = "// -----";

/// One chunk of the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// The chunk's text (the marker lines are not part of any chunk).
    pub text: &'a str,
    /// The 1-based line of the original input on which `text` starts.
    pub first_line: usize,
}

impl Chunk<'_> {
    /// The chunk's text preceded by `first_line - 1` newlines, so that a parser that
    /// counts lines from 1 reports the line numbers of the original input. Columns are
    /// unaffected.
    pub fn padded(&self) -> String {
        let mut text = "\n".repeat(self.first_line - 1);
        text.push_str(self.text);
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
            chunks.push(Chunk {
                text: &input[start..offset],
                first_line,
            });
            start = next;
            // `index` is 0-based: the line after the marker is line `index + 2`.
            first_line = index + 2;
        }
        offset = next;
    }
    chunks.push(Chunk {
        text: &input[start..],
        first_line,
    });
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_marker_lines_and_keeps_line_numbers() {
        let input = "a\nb\n// -----\nc\n  // ----- tail\nd";
        let chunks = split_input(input, DEFAULT_MARKER);
        assert_eq!(
            chunks,
            vec![
                Chunk {
                    text: "a\nb\n",
                    first_line: 1
                },
                Chunk {
                    text: "c\n",
                    first_line: 4
                },
                Chunk {
                    text: "d",
                    first_line: 6
                },
            ]
        );
        assert_eq!(chunks[2].padded(), "\n\n\n\n\nd");
    }

    #[test]
    fn no_marker_means_one_chunk() {
        assert_eq!(
            split_input("x // ----- not at start\n", DEFAULT_MARKER),
            vec![Chunk {
                text: "x // ----- not at start\n",
                first_line: 1
            }]
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
