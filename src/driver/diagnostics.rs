//! Collecting MLIR diagnostics into owned values, and printing them like `mlir-opt`:
//! `file:line:col: error: message`, then the source line and a caret.

use crate::ir::diagnostics::{attach_sink, ExtraSeverity, Note, SinkGuard};
use melior::{
    diagnostic::{Diagnostic, DiagnosticSeverity},
    ir::Location,
    Context,
};
use std::{
    collections::HashMap,
    fmt,
    sync::{Arc, Mutex, MutexGuard},
};

/// Diagnostic severity (MLIR's four kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Remark,
    Note,
}

impl fmt::Display for Severity {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Remark => "remark",
            Self::Note => "note",
        })
    }
}

/// A source position (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileLoc {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

/// An owned diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    pub severity: Severity,
    /// The first file position found in the MLIR location, if any.
    pub location: Option<FileLoc>,
    /// The MLIR location as text, for diagnostics without a file position.
    pub location_text: String,
    pub message: String,
    pub notes: Vec<Diag>,
}

impl Diag {
    /// A diagnostic of the driver itself at a file position.
    pub fn at(severity: Severity, location: FileLoc, message: impl Into<String>) -> Self {
        Self {
            severity,
            location_text: format!("{}:{}:{}", location.file, location.line, location.column),
            location: Some(location),
            message: message.into(),
            notes: Vec::new(),
        }
    }
}

#[derive(Default)]
struct State {
    diagnostics: Vec<Diag>,
    /// Buffer-name substitutions (temporary file -> name the user knows).
    renames: Vec<(String, String)>,
}

/// Collects every diagnostic of a context (the handler claims them, so MLIR prints none),
/// including the warnings and remarks of our passes ([`crate::ir::diagnostics`]: the C API
/// cannot emit those), in emission order.
#[derive(Clone)]
pub struct DiagnosticCollector {
    state: Arc<Mutex<State>>,
    /// Keeps the warning/remark sink attached while the collector lives.
    _sink: Arc<SinkGuard>,
}

impl DiagnosticCollector {
    /// Attaches a collecting handler to `context`, for the context's lifetime.
    pub fn attach(context: &Context) -> Self {
        let state: Arc<Mutex<State>> = Arc::default();
        let shared = state.clone();
        let sink = attach_sink(
            Location::unknown(context),
            Arc::new(
                move |severity: ExtraSeverity,
                      location: Location<'_>,
                      message: &str,
                      notes: &[Note<'_, '_>]| {
                    let mut state = lock(&shared);
                    let diag = convert_extra(severity, location, message, notes, &state.renames);
                    state.diagnostics.push(diag);
                },
            ),
        );
        let collector = Self {
            state,
            _sink: Arc::new(sink),
        };
        let shared = collector.clone();
        context.attach_diagnostic_handler(move |diagnostic| {
            let mut state = shared.lock();
            let diag = convert(&diagnostic, &state.renames);
            state.diagnostics.push(diag);
            true
        });
        collector
    }

    /// Takes the diagnostics collected so far.
    pub fn take(&self) -> Vec<Diag> {
        std::mem::take(&mut self.lock().diagnostics)
    }

    /// Reports file `from` as `to` in every diagnostic until [`Self::clear_renames`].
    pub fn rename(&self, from: &str, to: &str) {
        self.lock().renames.push((from.to_owned(), to.to_owned()));
    }

    /// Drops every rename.
    pub fn clear_renames(&self) {
        self.lock().renames.clear();
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A diagnostic of a located position, for the warnings / remarks of our passes.
fn located(
    severity: Severity,
    location: Location,
    message: &str,
    renames: &[(String, String)],
) -> Diag {
    let file_location = file_location(location).map(|mut loc| {
        if let Some((_, to)) = renames.iter().find(|(from, _)| *from == loc.file) {
            loc.file.clone_from(to);
        }
        loc
    });
    Diag {
        severity,
        location_text: match &file_location {
            Some(loc) => format!("{}:{}:{}", loc.file, loc.line, loc.column),
            None => location.to_string(),
        },
        location: file_location,
        message: message.to_owned(),
        notes: Vec::new(),
    }
}

fn convert_extra(
    severity: ExtraSeverity,
    location: Location,
    message: &str,
    notes: &[Note],
    renames: &[(String, String)],
) -> Diag {
    let severity = match severity {
        ExtraSeverity::Warning => Severity::Warning,
        ExtraSeverity::Remark => Severity::Remark,
    };
    let mut diag = located(severity, location, message, renames);
    diag.notes = notes
        .iter()
        .map(|n| located(Severity::Note, n.location, n.message, renames))
        .collect();
    diag
}

fn convert(diagnostic: &Diagnostic, renames: &[(String, String)]) -> Diag {
    let location = diagnostic.location();
    let notes = (0..diagnostic.note_count())
        .filter_map(|index| diagnostic.note(index).ok())
        .map(|note| convert(&note, renames))
        .collect();
    let file_location = file_location(location).map(|mut loc| {
        if let Some((_, to)) = renames.iter().find(|(from, _)| *from == loc.file) {
            loc.file.clone_from(to);
        }
        loc
    });
    Diag {
        severity: match diagnostic.severity() {
            DiagnosticSeverity::Error => Severity::Error,
            DiagnosticSeverity::Warning => Severity::Warning,
            DiagnosticSeverity::Remark => Severity::Remark,
            DiagnosticSeverity::Note => Severity::Note,
        },
        location_text: match &file_location {
            Some(loc) => format!("{}:{}:{}", loc.file, loc.line, loc.column),
            None => location.to_string(),
        },
        location: file_location,
        message: diagnostic.to_string(),
        notes,
    }
}

/// The first file position inside `location` (through name, call-site and fused
/// locations), as MLIR's diagnostic verifier finds it.
pub fn file_location(location: Location) -> Option<FileLoc> {
    if location.is_file_line_col_range() {
        let file = location.file_line_col_range_filename();
        return Some(FileLoc {
            file: file
                .as_string_ref()
                .as_str()
                .unwrap_or("<invalid utf-8>")
                .to_owned(),
            line: location.file_line_col_range_start_line(),
            column: location.file_line_col_range_start_column(),
        });
    }
    if location.is_name() {
        return file_location(location.name_child_location());
    }
    if location.is_call_site() {
        return file_location(location.call_site_callee())
            .or_else(|| file_location(location.call_site_caller()));
    }
    if location.is_fused() {
        return (0..location.fused_num_locations())
            .find_map(|index| file_location(location.fused_location(index)));
    }
    None
}

/// The texts of the inputs, by the name diagnostics use, for quoting source lines.
/// Borrowed: inputs can be large. The line starts of a text are indexed on its first
/// quoted line, so thousands of diagnostics (GraphLint on a big graph) cost one scan.
#[derive(Default)]
pub struct Sources<'a> {
    texts: HashMap<&'a str, &'a str>,
    line_starts: std::cell::RefCell<HashMap<&'a str, Vec<usize>>>,
}

impl<'a> Sources<'a> {
    /// Registers `text` as the content of `name`.
    pub fn add(&mut self, name: &'a str, text: &'a str) {
        self.texts.insert(name, text);
        self.line_starts.get_mut().remove(name);
    }

    fn line(&self, location: &FileLoc) -> Option<&'a str> {
        let (&name, &text) = self.texts.get_key_value(location.file.as_str())?;
        let mut index = self.line_starts.borrow_mut();
        let starts = index.entry(name).or_insert_with(|| {
            std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        let start = *starts.get(location.line.checked_sub(1)?)?;
        if start >= text.len() {
            return None; // past the last line (a trailing newline starts no line)
        }
        let line = text[start..].split('\n').next()?;
        Some(line.strip_suffix('\r').unwrap_or(line))
    }
}

/// Renders `diag` (and its notes) like `mlir-opt`.
pub fn render(diag: &Diag, sources: &Sources) -> String {
    let mut out = format!(
        "{}: {}: {}\n",
        diag.location_text, diag.severity, diag.message
    );
    if let Some(location) = &diag.location {
        if let Some(line) = sources.line(location) {
            let indent: String = line
                .chars()
                .take(location.column.saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            out.push_str(&format!("{line}\n{indent}^\n"));
        }
    }
    for note in &diag.notes {
        out.push_str(&render(note, sources));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_source_line_caret_and_notes() {
        let mut sources = Sources::default();
        sources.add("f.mlir", "line one\n  bad here\n");
        let mut diag = Diag::at(
            Severity::Error,
            FileLoc {
                file: "f.mlir".into(),
                line: 2,
                column: 3,
            },
            "boom",
        );
        diag.notes.push(Diag {
            severity: Severity::Note,
            location: None,
            location_text: "loc(unknown)".into(),
            message: "see this".into(),
            notes: vec![],
        });
        assert_eq!(
            render(&diag, &sources),
            "f.mlir:2:3: error: boom\n  bad here\n  ^\nloc(unknown): note: see this\n"
        );
    }

    #[test]
    fn collects_parser_diagnostics_with_file_positions() {
        let context = Context::new();
        let collector = DiagnosticCollector::attach(&context);
        let _ = melior::ir::Module::parse(&context, "\n  foo");
        let diags = collector.take();
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(diags[0].severity, Severity::Error);
        assert!(diags[0].message.contains("'foo' is unknown"), "{diags:?}");
        let location = diags[0].location.clone().expect("a file position");
        assert_eq!((location.line, location.column), (2, 3));
        assert!(collector.take().is_empty());
    }
}
