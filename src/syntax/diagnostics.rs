//! Located diagnostics for `.ge` input, rendered with ariadne.
//!
//! Every report renders as a one-line header `file:line:col: error: message` (what FileCheck
//! tests and editors match), followed by an ariadne snippet: the source line, a caret under
//! the span with a label, secondary labels, the hint and notes. Output is plain ASCII without
//! colour so it is stable in tests and logs.

use super::ast::Span;
use ariadne::{CharSet, Config, IndexType, Label, Report, ReportKind, Source};
use std::fmt;

/// One error report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub message: String,
    /// Where the error is (byte offsets into the source).
    pub span: Span,
    /// The text under the caret.
    pub label: String,
    /// Boxed: most diagnostics have few details, and this keeps `Result<_, Diagnostic>` small.
    pub details: Box<Details>,
}

/// The optional parts of a [`Diagnostic`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Details {
    /// Other places that explain the error (the first definition of a duplicate, ...).
    pub secondary: Vec<(Span, String)>,
    /// What to do about it.
    pub hint: Option<String>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(message: impl Into<String>, span: Span, label: impl Into<String>) -> Self {
        Diagnostic {
            message: message.into(),
            span,
            label: label.into(),
            details: Box::default(),
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.details.hint = Some(hint.into());
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.details.notes.push(note.into());
        self
    }

    pub fn hint(&self) -> Option<&str> {
        self.details.hint.as_deref()
    }

    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Self {
        self.details.secondary.push((span, label.into()));
        self
    }
}

/// The error of the `.ge` importer: one or more reports against one source file.
#[derive(Clone, Debug)]
pub struct GeDiagnostics {
    file_name: String,
    /// The source as text (lossily decoded if it was not UTF-8), kept for rendering.
    source: String,
    pub diagnostics: Vec<Diagnostic>,
}

impl GeDiagnostics {
    pub fn new(file_name: &str, source: &str, diagnostics: Vec<Diagnostic>) -> Self {
        GeDiagnostics {
            file_name: file_name.to_string(),
            source: source.to_string(),
            diagnostics,
        }
    }

    pub fn file_name(&self) -> &str {
        &self.file_name
    }

    /// 1-based line and byte column of a byte offset, as MLIR's `FileLineColLoc` counts them.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        line_col(&self.source, offset)
    }

    /// The one-line form of every report: `file:line:col: error: message`.
    pub fn short(&self) -> String {
        let mut out = String::new();
        for d in &self.diagnostics {
            out.push_str(&self.header(d));
            out.push('\n');
        }
        out
    }

    fn header(&self, d: &Diagnostic) -> String {
        let (line, col) = self.line_col(d.span.start);
        format!("{}:{line}:{col}: error: {}", self.file_name, d.message)
    }

    /// The full rendering: for each report its header line, then the ariadne snippet.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for d in &self.diagnostics {
            out.push_str(&self.header(d));
            out.push('\n');
            out.push_str(&self.snippet(d));
        }
        out
    }

    fn clamp(&self, span: Span) -> std::ops::Range<usize> {
        let len = self.source.len();
        let start = span.start.min(len);
        let end = span.end.clamp(start, len);
        // Snap to char boundaries so a lossily decoded source never splits a character.
        let start = floor_char_boundary(&self.source, start);
        let end = floor_char_boundary(&self.source, end).max(start);
        start..end
    }

    fn snippet(&self, d: &Diagnostic) -> String {
        let id = self.file_name.clone();
        let config = Config::default()
            .with_color(false)
            .with_char_set(CharSet::Ascii)
            .with_index_type(IndexType::Byte);
        let mut report = Report::build(ReportKind::Error, (id.clone(), self.clamp(d.span)))
            .with_config(config)
            .with_message(&d.message)
            .with_label(Label::new((id.clone(), self.clamp(d.span))).with_message(&d.label));
        for (span, label) in &d.details.secondary {
            report =
                report.with_label(Label::new((id.clone(), self.clamp(*span))).with_message(label));
        }
        if let Some(hint) = &d.details.hint {
            report = report.with_help(hint);
        }
        for note in &d.details.notes {
            report = report.with_note(note);
        }
        let mut buf = Vec::new();
        let written = report
            .finish()
            .write((id, Source::from(self.source.as_str())), &mut buf);
        match written {
            Ok(()) => String::from_utf8_lossy(&buf).into_owned(),
            // Rendering into memory cannot fail on I/O; keep the header-only form if it does.
            Err(_) => String::new(),
        }
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// 1-based line and byte column of `offset` in `source`.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    (line, offset - line_start + 1)
}

/// Line starts of a source, for many offset -> (line, column) lookups in O(log n) each
/// (the importer locates every op).
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(source: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            source
                .bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { starts }
    }

    /// 1-based line and byte column, as [`line_col`].
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&s| s <= offset);
        (line, offset - self.starts[line - 1] + 1)
    }
}

/// Byte offset of a 1-based line and byte column (clamped to the source).
pub fn offset_of(source: &str, line: usize, col: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match source[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return source.len(),
        }
    }
    (start + col.saturating_sub(1)).min(source.len())
}

impl fmt::Display for GeDiagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for GeDiagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_bytes_from_one() {
        let src = "ab\ncd\n";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 4), (2, 2));
        assert_eq!(line_col(src, 99), (3, 1));
        assert_eq!(offset_of(src, 2, 2), 4);
        let index = LineIndex::new(src);
        for offset in 0..=src.len() {
            assert_eq!(index.line_col(offset), line_col(src, offset));
        }
    }

    #[test]
    fn render_has_header_source_line_caret_and_hint() {
        let src = "graph main {\n  a = Ad() : f32[]\n}\n";
        let d = Diagnostic::new(
            "unknown op type `Ad`",
            Span::new(19, 21),
            "not in the op table",
        )
        .with_hint("did you mean `Add`?")
        .with_note("a note");
        let diags = GeDiagnostics::new("t.ge", src, vec![d]);
        let text = diags.render();
        assert!(
            text.starts_with("t.ge:2:7: error: unknown op type `Ad`\n"),
            "{text}"
        );
        assert!(text.contains("a = Ad() : f32[]"), "{text}");
        assert!(text.contains("       ^"), "{text}");
        assert!(text.contains("not in the op table"), "{text}");
        assert!(text.contains("did you mean `Add`?"), "{text}");
        assert!(text.contains("a note"), "{text}");
        assert_eq!(diags.short(), "t.ge:2:7: error: unknown op type `Ad`\n");
    }
}
