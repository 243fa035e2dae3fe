//! `--verify-diagnostics`: checking the diagnostics of a run against the
//! `expected-error/warning/remark/note` comments of the input, as `mlir-opt` does.
//!
//! Directive syntax (anywhere on a line, usually in a `//` comment):
//! `expected-<kind>[@<where>] {{<substring>}}` with `<where>` one of `+N`, `-N` (relative
//! line), `above` / `below` (the closest line above / below that holds no directive) or
//! `unknown` (a diagnostic without a file position). Without `@`, the directive's own
//! line. A diagnostic matches when its file, line and kind match and its message contains
//! the substring; a directive may match several diagnostics.

use super::diagnostics::{Diag, FileLoc, Severity};

/// Which line an expected diagnostic is attached to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpectedLine {
    Line(usize),
    /// `@below` with no line below: can never match, so it is reported missing.
    Dangling,
    /// `@unknown`: a diagnostic without a file position.
    Unknown,
}

/// One `expected-*` directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    pub severity: Severity,
    pub line: ExpectedLine,
    pub message: String,
    /// Where the directive itself is written (for "was not produced").
    pub directive: FileLoc,
    pub matched: bool,
}

/// Parses the directives of `text`, whose first line is line `first_line` of `file`.
/// Malformed directives are returned as error diagnostics.
pub fn parse_expected(
    text: &str,
    file: &str,
    first_line: usize,
) -> Result<Vec<Expected>, Vec<Diag>> {
    let mut expected: Vec<Expected> = Vec::new();
    let mut errors = Vec::new();
    let mut below: Vec<usize> = Vec::new();
    let mut last_plain_line = None;
    for (index, line) in text.lines().enumerate() {
        let line_number = first_line + index;
        let directive = match parse_line(line) {
            None => {
                for waiting in below.drain(..) {
                    expected[waiting].line = ExpectedLine::Line(line_number);
                }
                last_plain_line = Some(line_number);
                continue;
            }
            Some(directive) => directive,
        };
        let location = |column| FileLoc {
            file: file.to_owned(),
            line: line_number,
            column,
        };
        let (column, severity, designator, message) = match directive {
            Ok(parsed) => parsed,
            Err((column, error)) => {
                errors.push(Diag::at(Severity::Error, location(column), error));
                continue;
            }
        };
        let line = match designator {
            Designator::Here => ExpectedLine::Line(line_number),
            Designator::Offset(offset) => match line_number.checked_add_signed(offset) {
                Some(target) if target >= 1 => ExpectedLine::Line(target),
                _ => {
                    errors.push(Diag::at(
                        Severity::Error,
                        location(column),
                        format!("expected diagnostic offset {offset:+} points before line 1"),
                    ));
                    continue;
                }
            },
            Designator::Above => last_plain_line.map_or(ExpectedLine::Dangling, ExpectedLine::Line),
            Designator::Below => {
                below.push(expected.len());
                ExpectedLine::Dangling
            }
            Designator::Unknown => ExpectedLine::Unknown,
        };
        expected.push(Expected {
            severity,
            line,
            message,
            directive: location(column),
            matched: false,
        });
    }
    if errors.is_empty() {
        Ok(expected)
    } else {
        Err(errors)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Designator {
    Here,
    Offset(isize),
    Above,
    Below,
    Unknown,
}

type ParsedDirective = (usize, Severity, Designator, String);

/// `None`: no directive on the line. `Some(Err((column, message)))`: a malformed one.
///
/// `expected-<kind>` only counts as a directive when `@` or `{` follows (after spaces),
/// so prose that mentions "expected-error" is left alone.
fn parse_line(line: &str) -> Option<Result<ParsedDirective, (usize, String)>> {
    const KINDS: [(&str, Severity); 4] = [
        ("error", Severity::Error),
        ("warning", Severity::Warning),
        ("remark", Severity::Remark),
        ("note", Severity::Note),
    ];
    let line = line.trim_end();
    let mut search = 0;
    while let Some(found) = line[search..].find("expected-") {
        let start = search + found;
        search = start + 1;
        let after = &line[start + "expected-".len()..];
        let Some((kind, severity)) = KINDS.iter().find(|(kind, _)| after.starts_with(kind)) else {
            continue;
        };
        let rest = &after[kind.len()..];
        let column = start + 1;
        if rest.starts_with("-re") {
            return Some(Err((
                column,
                format!("expected-{kind}-re (regular expressions) is not supported by ge-opt"),
            )));
        }
        let rest = rest.trim_start();
        if !rest.starts_with(['@', '{']) {
            continue;
        }
        return Some(
            parse_directive_tail(rest, kind)
                .map(|(designator, message)| (column, *severity, designator, message))
                .map_err(|error| (column, error)),
        );
    }
    None
}

fn parse_directive_tail(rest: &str, kind: &str) -> Result<(Designator, String), String> {
    let (designator, rest) = match rest.strip_prefix('@') {
        None => (Designator::Here, rest),
        Some(after) => {
            let end = after
                .find(|c: char| c.is_whitespace() || c == '{')
                .unwrap_or(after.len());
            let word = &after[..end];
            let designator = match word {
                "above" => Designator::Above,
                "below" => Designator::Below,
                "unknown" => Designator::Unknown,
                _ => {
                    let parsed = match word.as_bytes().first() {
                        Some(b'+') | Some(b'-') => word.parse::<isize>().ok(),
                        _ => None,
                    };
                    Designator::Offset(parsed.ok_or_else(|| {
                        format!(
                            "bad designator '@{word}' on expected-{kind} (use @+N, @-N, @above, \
                             @below or @unknown)"
                        )
                    })?)
                }
            };
            (designator, after[end..].trim_start())
        }
    };
    let body = rest
        .strip_prefix("{{")
        .and_then(|body| body.strip_suffix("}}"))
        .ok_or_else(|| {
            format!("expected-{kind} needs its message as '{{{{...}}}}' at the end of the line")
        })?;
    Ok((designator, body.to_owned()))
}

/// Checks `diagnostics` against `expected` and returns the mismatches as error
/// diagnostics, worded like `mlir-opt`'s verifier. Notes count as diagnostics of their own.
pub fn verify(expected: &mut [Expected], diagnostics: &[Diag]) -> Vec<Diag> {
    let mut errors = Vec::new();
    let mut flat = Vec::new();
    for diag in diagnostics {
        flatten(diag, &mut flat);
    }
    for diag in flat {
        let wanted = |candidate: &Expected| match (&diag.location, candidate.line) {
            (Some(location), ExpectedLine::Line(line)) => {
                location.file == candidate.directive.file && location.line == line
            }
            (None, ExpectedLine::Unknown) => true,
            _ => false,
        } && diag.message.contains(&candidate.message);
        if let Some(hit) = expected
            .iter_mut()
            .find(|candidate| candidate.severity == diag.severity && wanted(candidate))
        {
            hit.matched = true;
            continue;
        }
        if let Some(near) = expected.iter().find(|candidate| wanted(candidate)) {
            errors.push(Diag::at(
                Severity::Error,
                near.directive.clone(),
                format!(
                    "'{}' diagnostic emitted when expecting a '{}'",
                    diag.severity, near.severity
                ),
            ));
            continue;
        }
        let mut unexpected = diag.clone();
        unexpected.severity = Severity::Error;
        unexpected.message = format!("unexpected {}: {}", diag.severity, diag.message);
        errors.push(unexpected);
    }
    for missing in expected.iter().filter(|candidate| !candidate.matched) {
        errors.push(Diag::at(
            Severity::Error,
            missing.directive.clone(),
            format!(
                "expected {} \"{}\" was not produced",
                missing.severity, missing.message
            ),
        ));
    }
    errors
}

/// The note MLIR's verifier attaches to every op diagnostic. `mlir-opt` turns it off
/// under `--verify-diagnostics` (`printOpOnDiagnostic(false)`), which the C API cannot;
/// dropping it here gives the same behaviour.
const OP_NOTE_PREFIX: &str = "see current operation: ";

/// Removes the "see current operation" notes from `diagnostics`.
pub fn strip_current_operation_notes(diagnostics: &mut [Diag]) {
    for diag in diagnostics {
        diag.notes
            .retain(|note| !note.message.starts_with(OP_NOTE_PREFIX));
        strip_current_operation_notes(&mut diag.notes);
    }
}

fn flatten(diag: &Diag, into: &mut Vec<Diag>) {
    let mut head = diag.clone();
    head.notes.clear();
    into.push(head);
    for note in &diag.notes {
        flatten(note, into);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(expected: &[Expected]) -> Vec<(Severity, ExpectedLine, &str)> {
        expected
            .iter()
            .map(|e| (e.severity, e.line, e.message.as_str()))
            .collect()
    }

    #[test]
    fn parses_every_designator() {
        let text = "\
a
// expected-error {{here}}
b // expected-warning@+2 {{plus two}}
// expected-remark @-1 {{minus one}}
// expected-note@above {{above}}
// expected-error @below {{below}}
// expected-error@unknown {{nowhere}}

c
";
        let expected = parse_expected(text, "f.mlir", 10).unwrap();
        use ExpectedLine::*;
        assert_eq!(
            lines(&expected),
            vec![
                (Severity::Error, Line(11), "here"),
                (Severity::Warning, Line(14), "plus two"),
                (Severity::Remark, Line(12), "minus one"),
                // line 12 ("b // expected-...") is a directive line; `above` skips it.
                (Severity::Note, Line(10), "above"),
                (Severity::Error, Line(17), "below"),
                (Severity::Error, Unknown, "nowhere"),
            ]
        );
        assert_eq!(expected[1].directive.line, 12);
        assert_eq!(expected[1].directive.column, 6);
    }

    #[test]
    fn message_runs_to_the_last_closing_braces() {
        let expected = parse_expected("// expected-error {{a {{b}} c}}", "f", 1).unwrap();
        assert_eq!(expected[0].message, "a {{b}} c");
    }

    #[test]
    fn prose_is_not_a_directive_and_dangling_below_is_kept() {
        let expected = parse_expected(
            "// the expected-error directive is documented elsewhere\n// expected-error @below {{x}}",
            "f",
            1,
        )
        .unwrap();
        assert_eq!(
            lines(&expected),
            vec![(Severity::Error, ExpectedLine::Dangling, "x")]
        );
    }

    #[test]
    fn malformed_directives_are_errors() {
        for bad in [
            "// expected-error {{unclosed",
            "// expected-error @sideways {{x}}",
            "// expected-error @+x {{x}}",
            "// expected-error-re {{x.*}}",
            "// expected-error @-5 {{before the file}}",
        ] {
            let errors = parse_expected(bad, "f", 1).unwrap_err();
            assert_eq!(errors.len(), 1, "{bad}");
            assert_eq!(errors[0].location.as_ref().unwrap().column, 4, "{bad}");
        }
    }

    fn diag(severity: Severity, line: usize, message: &str) -> Diag {
        Diag::at(
            severity,
            FileLoc {
                file: "f".into(),
                line,
                column: 1,
            },
            message,
        )
    }

    #[test]
    fn matches_by_file_line_kind_and_substring() {
        let mut expected = parse_expected(
            "x\n// expected-error @-1 {{bad thing}}\n// expected-note @-2 {{see}}\n",
            "f",
            1,
        )
        .unwrap();
        let mut error = diag(Severity::Error, 1, "a bad thing happened");
        error.notes.push(diag(Severity::Note, 1, "see here"));
        assert_eq!(verify(&mut expected, &[error]), vec![]);
    }

    #[test]
    fn reports_unexpected_missing_and_near_misses() {
        let mut expected = parse_expected(
            "x // expected-error {{wanted}}\ny // expected-error {{kind}}\n",
            "f",
            1,
        )
        .unwrap();
        let errors = verify(
            &mut expected,
            &[
                diag(Severity::Error, 3, "surprise"),
                diag(Severity::Warning, 2, "wrong kind"),
            ],
        );
        let messages: Vec<_> = errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(
            messages,
            vec![
                "unexpected error: surprise",
                "'warning' diagnostic emitted when expecting a 'error'",
                "expected error \"wanted\" was not produced",
                "expected error \"kind\" was not produced",
            ]
        );
        assert_eq!(errors[2].location.as_ref().unwrap().line, 1);
    }

    #[test]
    fn other_files_and_unknown_locations() {
        let mut expected = parse_expected("// expected-error@unknown {{lost}}", "f", 1).unwrap();
        let mut elsewhere = diag(Severity::Error, 1, "lost");
        elsewhere.location.as_mut().unwrap().file = "g".into();
        let unknown = Diag {
            location: None,
            location_text: "loc(unknown)".into(),
            ..diag(Severity::Error, 1, "lost at sea")
        };
        let errors = verify(&mut expected, &[elsewhere, unknown]);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].message, "unexpected error: lost");
    }
}
