//! Glue between the lalrpop parser generated from `grammar/ascend.lalrpop` and the rest of
//! the syntax module: runs lexer + parser and turns their errors into located diagnostics.

use super::{
    ast::{File, Span},
    diagnostics::Diagnostic,
    lexer::{LexError, LexErrorKind, Lexer, Tok},
};
use lalrpop_util::ParseError;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_parens, dead_code)]
    grammar,
    "/ascend.rs"
);

/// Deepest nesting of `[`, `(` and `<` the format accepts. The parser itself keeps an
/// explicit stack, but the syntax tree's values nest as deep as the text, and lowering,
/// printing and dropping them recurse: a hostile file must get an error, not a stack
/// overflow. Real attribute values nest a few levels.
pub const MAX_NESTING: usize = 256;

/// Parses a whole `.ge` file into its syntax tree.
pub fn parse_file(source: &str) -> Result<File, Diagnostic> {
    grammar::FileParser::new()
        .parse(NestingLimit::new(Lexer::new(source)))
        .map_err(|e| syntax_error(source, e))
}

/// Passes tokens through, failing at the first opening bracket beyond [`MAX_NESTING`].
struct NestingLimit<I> {
    tokens: I,
    depth: usize,
}

impl<I> NestingLimit<I> {
    fn new(tokens: I) -> Self {
        NestingLimit { tokens, depth: 0 }
    }
}

impl<'input, I> Iterator for NestingLimit<I>
where
    I: Iterator<Item = Result<(usize, Tok<'input>, usize), LexError>>,
{
    type Item = I::Item;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.tokens.next()?;
        if let Ok((start, tok, end)) = &item {
            match tok {
                Tok::LBracket | Tok::LParen | Tok::Lt => {
                    self.depth += 1;
                    if self.depth > MAX_NESTING {
                        return Some(Err(LexError {
                            kind: LexErrorKind::Invalid(format!(
                                "nested deeper than {MAX_NESTING} levels"
                            )),
                            start: *start,
                            end: *end,
                        }));
                    }
                }
                Tok::RBracket | Tok::RParen | Tok::Gt => {
                    self.depth = self.depth.saturating_sub(1);
                }
                _ => {}
            }
        }
        Some(item)
    }
}

/// Makes lalrpop's terminal names readable: `"graph"` -> `` `graph` ``, `Ident` -> identifier.
fn describe_expected(expected: &[String]) -> String {
    let mut names: Vec<String> = expected
        .iter()
        .map(|t| match t.as_str() {
            "Ident" => "identifier".to_string(),
            "Str" => "string".to_string(),
            "Int" => "integer".to_string(),
            "Float" => "float".to_string(),
            quoted => format!("`{}`", quoted.trim_matches('"')),
        })
        .collect();
    names.dedup();
    match names.len() {
        0 => "nothing".to_string(),
        1 => names.remove(0),
        _ => {
            let last = names.pop().unwrap_or_default();
            format!("{} or {last}", names.join(", "))
        }
    }
}

fn syntax_error(source: &str, error: ParseError<usize, Tok<'_>, LexError>) -> Diagnostic {
    match error {
        ParseError::InvalidToken { location } => Diagnostic::new(
            "invalid token",
            Span::new(location, location + 1),
            "not a token of the .ge format",
        ),
        ParseError::UnrecognizedEof { location, expected } => {
            let at = Span::new(location, location);
            Diagnostic::new("unexpected end of file", at, "the file ends here")
                .with_hint(format!("expected {}", describe_expected(&expected)))
        }
        ParseError::UnrecognizedToken {
            token: (start, tok, end),
            expected,
        } => {
            let mut d = Diagnostic::new(
                format!("unexpected {tok}"),
                Span::new(start, end),
                format!("expected {}", describe_expected(&expected)),
            );
            if let Some(hint) = hint_for(&tok, &expected, source, start) {
                d = d.with_hint(hint);
            }
            d
        }
        ParseError::ExtraToken {
            token: (start, tok, end),
        } => Diagnostic::new(
            format!("unexpected {tok}"),
            Span::new(start, end),
            "expected end of file",
        ),
        ParseError::User { error } => {
            let span = Span::new(error.start, error.end);
            let label = match error.kind {
                super::lexer::LexErrorKind::Invalid(_) => "here",
                _ => "lexical error",
            };
            Diagnostic::new(error.kind.to_string(), span, label)
        }
    }
}

/// A few common mistakes deserve more than a token list.
fn hint_for(tok: &Tok<'_>, expected: &[String], source: &str, at: usize) -> Option<String> {
    let expects = |t: &str| expected.iter().any(|e| e == t);
    if matches!(tok, Tok::Return) || (expects("\"}\"") && !expects("\"return\"")) {
        return Some(
            "`return` must be the last statement of a graph, and a graph has at most one"
                .to_string(),
        );
    }
    if expects("\":\"")
        && !expects("\",\"")
        && matches!(tok, Tok::Ident(_) | Tok::Str(_) | Tok::RBrace)
    {
        return Some("every node needs its result types: `name = Op(...) : f32[2]`".into());
    }
    let _ = (source, at);
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::*;

    #[test]
    fn parses_nodes_inputs_attrs_and_types() {
        let src = r#"
graph main {
  x = Data() {index = 0} : f32[4, ?]
  s = Split(x, ^x) {dims = [1, 2], f = 1.5, s = "a", t = f16[*], g = @sub} : (f32[2, 8], i1[])
  "odd name" = "MyOp"(s:1) {d = dense<f32[2]>[1.0, 2.0], e = dense<i32[]>(3), m = mlir"unit"} : ()
  return s:0, "odd name"
}
graph sub { }
"#;
        let file = parse_file(src).unwrap();
        assert_eq!(file.graphs.len(), 2);
        let main = &file.graphs[0];
        assert_eq!(main.name.text, "main");
        assert_eq!(main.nodes.len(), 3);
        let x = &main.nodes[0];
        assert_eq!(x.op_type.kind, OpTypeKind::Known("Data".into()));
        let Type::Tensor(t) = &x.result_types[0] else {
            panic!()
        };
        assert_eq!(t.dims, Some(vec![Some(4), None]));
        assert_eq!(
            &src[x.span.start..x.span.end],
            "x = Data() {index = 0} : f32[4, ?]"
        );
        let s = &main.nodes[1];
        assert!(matches!(&s.inputs[1], Input::Control { node, .. } if node.text == "x"));
        assert_eq!(s.attrs.len(), 5);
        assert!(matches!(
            s.attrs[3].value.kind,
            AttrValueKind::Type(TensorType { dims: None, .. })
        ));
        assert!(matches!(&s.attrs[4].value.kind, AttrValueKind::Symbol(n) if n.text == "sub"));
        assert_eq!(s.result_types.len(), 2);
        let odd = &main.nodes[2];
        assert_eq!(odd.name.text, "odd name");
        assert_eq!(odd.op_type.kind, OpTypeKind::Generic("MyOp".into()));
        assert!(matches!(
            &odd.inputs[0],
            Input::Data {
                index: Some((1, _)),
                ..
            }
        ));
        assert!(odd.result_types.is_empty());
        assert!(matches!(odd.attrs[2].value.kind, AttrValueKind::Raw(_)));
        let ret = main.ret.as_ref().unwrap();
        assert_eq!(ret.inputs.len(), 2);
        assert!(file.graphs[1].nodes.is_empty() && file.graphs[1].ret.is_none());
    }

    #[test]
    fn empty_file_parses_to_no_graphs() {
        assert_eq!(parse_file("# nothing\n").unwrap().graphs.len(), 0);
    }

    #[test]
    fn syntax_error_lists_expected_tokens() {
        let d = parse_file("graph main {\n  a = Add(x y) : f32[]\n}").unwrap_err();
        assert_eq!(d.message, "unexpected identifier `y`");
        assert_eq!(d.span, Span::new(25, 26));
        assert!(
            d.label.contains("`)`") && d.label.contains("`,`"),
            "{}",
            d.label
        );
    }

    #[test]
    fn return_must_be_last() {
        let d = parse_file("graph main {\n  return\n  a = X() : f32[]\n}").unwrap_err();
        assert!(d.hint().unwrap().contains("last statement"));
    }

    #[test]
    fn missing_result_types_and_eof() {
        let d = parse_file("graph main {\n  a = X()\n}").unwrap_err();
        assert!(d.hint().unwrap().contains("result types"));
        let d = parse_file("graph main {").unwrap_err();
        assert_eq!(d.message, "unexpected end of file");
    }

    #[test]
    fn lexical_and_action_errors_are_located() {
        let d = parse_file("graph main { a = X() : f32[-1] }").unwrap_err();
        assert!(d.message.contains("dimension `-1`"), "{}", d.message);
        assert_eq!(d.span, Span::new(27, 29));
        let d = parse_file("graph main { $ }").unwrap_err();
        assert_eq!(d.message, "unexpected character");
        assert_eq!(d.span, Span::new(13, 14));
    }
}
