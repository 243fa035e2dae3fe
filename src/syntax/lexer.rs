//! The `.ge` lexer (logos).
//!
//! Tokens carry byte spans (`start..end` into the source) so every later diagnostic can point
//! at the exact text. A lexical error is returned as a [`LexError`] with its own span instead of
//! a panic; the parser glue turns it into a located diagnostic.

use logos::Logos;
use std::fmt;

/// What went wrong while lexing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LexErrorKind {
    /// A character that starts no token.
    #[default]
    UnexpectedChar,
    /// A string literal without its closing quote on the same line.
    UnterminatedString,
    /// A backslash escape the format does not define.
    BadEscape(String),
    /// An integer literal that does not fit 128 bits.
    IntOutOfRange,
    /// A token sequence the grammar accepts but a grammar action rejects (a negative
    /// dimension, say); raised by the parser, never by the lexer itself.
    Invalid(String),
}

impl fmt::Display for LexErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LexErrorKind::UnexpectedChar => write!(f, "unexpected character"),
            LexErrorKind::UnterminatedString => write!(f, "unterminated string literal"),
            LexErrorKind::BadEscape(esc) => write!(f, "unknown escape sequence `{esc}`"),
            LexErrorKind::IntOutOfRange => write!(f, "integer literal out of range"),
            LexErrorKind::Invalid(message) => write!(f, "{message}"),
        }
    }
}

/// A lexical error and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    pub kind: LexErrorKind,
    pub start: usize,
    pub end: usize,
}

/// The tokens of the `.ge` format.
///
/// No token may cost a stack frame per character: logos compiles a pattern into functions
/// that call each other once per byte, except a loop over one byte class, and each skipped
/// stretch re-enters the lexer recursively. So whitespace and comments are skipped by
/// [`Lexer`] in a loop, and strings and numbers match their first character here and are
/// scanned to their end by a callback (an identifier is one byte class after its first
/// letters, a loop already). A 400k-character token used to overflow the stack of a debug
/// build.
#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(error = LexErrorKind)]
pub enum Tok<'input> {
    #[token("graph")]
    Graph,
    #[token("return")]
    Return,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("dense")]
    Dense,
    /// `mlir"..."`: an escape hatch for MLIR attributes and types the format has no syntax for.
    #[token("mlir")]
    Mlir,
    #[regex(r"[A-Za-z_][A-Za-z0-9_./-]*", priority = 1)]
    Ident(&'input str),
    /// `"..."` on one line, with the escapes `unescape` understands.
    #[token("\"", string)]
    Str(String),
    /// `-?[0-9]+`.
    Int(i128),
    /// `-?[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?`, `inf`, `-inf`, `nan`: the literal text; the
    /// importer converts it to the precision the context asks for, so an `f16` element is
    /// not rounded twice through `f64`.
    #[token("inf")]
    #[token("-inf")]
    #[token("nan")]
    Float(&'input str),
    #[token("=")]
    Eq,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token("^")]
    Caret,
    #[token("@")]
    At,
    #[token("?")]
    Question,
    #[token("*")]
    Star,
    /// The first character of a number; `number` scans the rest and turns it into an
    /// [`Tok::Int`] or a [`Tok::Float`] (never handed out itself).
    #[regex("-?[0-9]", number)]
    NumberStart,
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Graph => write!(f, "`graph`"),
            Tok::Return => write!(f, "`return`"),
            Tok::True => write!(f, "`true`"),
            Tok::False => write!(f, "`false`"),
            Tok::Dense => write!(f, "`dense`"),
            Tok::Mlir => write!(f, "`mlir`"),
            Tok::Ident(s) => write!(f, "identifier `{s}`"),
            Tok::Str(s) => write!(f, "string {s:?}"),
            Tok::Int(i) => write!(f, "integer `{i}`"),
            Tok::Float(s) => write!(f, "float `{s}`"),
            Tok::Eq => write!(f, "`=`"),
            Tok::LParen => write!(f, "`(`"),
            Tok::RParen => write!(f, "`)`"),
            Tok::LBrace => write!(f, "`{{`"),
            Tok::RBrace => write!(f, "`}}`"),
            Tok::LBracket => write!(f, "`[`"),
            Tok::RBracket => write!(f, "`]`"),
            Tok::Lt => write!(f, "`<`"),
            Tok::Gt => write!(f, "`>`"),
            Tok::Comma => write!(f, "`,`"),
            Tok::Colon => write!(f, "`:`"),
            Tok::Caret => write!(f, "`^`"),
            Tok::At => write!(f, "`@`"),
            Tok::Question => write!(f, "`?`"),
            Tok::Star => write!(f, "`*`"),
            Tok::NumberStart => write!(f, "number"),
        }
    }
}

/// Scans a string literal after its opening quote, in a loop: up to the closing quote (a
/// backslash takes the next character with it), else to the end of the line, which is an
/// unterminated string.
fn string<'input>(lex: &mut logos::Lexer<'input, Tok<'input>>) -> Result<String, LexErrorKind> {
    let rest = lex.remainder();
    let bytes = rest.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                lex.bump(i + 1);
                return unescape(&rest[..i]);
            }
            b'\n' => break,
            b'\\' if bytes.get(i + 1).is_some_and(|&b| b != b'\n') => {
                // The escaped character, whole (it may take several bytes).
                let c = rest[i + 1..].chars().next().map_or(1, char::len_utf8);
                i += 1 + c;
            }
            _ => i += 1,
        }
    }
    lex.bump(i.min(bytes.len()));
    Err(LexErrorKind::UnterminatedString)
}

/// Scans a number after its first character (`-` or a digit), in a loop: `-?[0-9]+` is an
/// [`Tok::Int`], with `\.[0-9]+([eE][+-]?[0-9]+)?` after it a [`Tok::Float`].
fn number<'input>(
    lex: &mut logos::Lexer<'input, Tok<'input>>,
) -> Result<Tok<'input>, LexErrorKind> {
    let bytes = lex.remainder().as_bytes();
    let digits = |from: usize| {
        bytes[from.min(bytes.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let mut end = digits(0);
    let mut float = false;
    if bytes.get(end) == Some(&b'.') {
        let fraction = digits(end + 1);
        if fraction > 0 {
            float = true;
            end += 1 + fraction;
            if matches!(bytes.get(end), Some(b'e' | b'E')) {
                let sign = usize::from(matches!(bytes.get(end + 1), Some(b'+' | b'-')));
                let exponent = digits(end + 1 + sign);
                if exponent > 0 {
                    end += 1 + sign + exponent;
                }
            }
        }
    }
    lex.bump(end);
    let text = lex.slice();
    if float {
        Ok(Tok::Float(text))
    } else {
        text.parse::<i128>()
            .map(Tok::Int)
            .map_err(|_| LexErrorKind::IntOutOfRange)
    }
}

/// Decodes the escapes of a string literal's body: `\"`, `\\`, `\n`, `\t`, `\r`, `\0`
/// and `\u{HEX}` (the printer uses the last for other control characters).
fn unescape(body: &str) -> Result<String, LexErrorKind> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.char_indices();
    while let Some((at, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some((_, esc)) = chars.next() else {
            return Err(LexErrorKind::BadEscape("\\".into()));
        };
        match esc {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0' => out.push('\0'),
            'u' => {
                let rest = &body[at + 2..];
                let decoded = rest
                    .strip_prefix('{')
                    .and_then(|r| r.find('}').map(|close| &r[..close]))
                    .and_then(|hex| {
                        let c = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)?;
                        Some((c, hex.len() + 2))
                    });
                let Some((c, consumed)) = decoded else {
                    let shown: String = rest.chars().take(8).collect();
                    return Err(LexErrorKind::BadEscape(format!("\\u{shown}")));
                };
                out.push(c);
                for _ in 0..consumed {
                    chars.next();
                }
            }
            other => return Err(LexErrorKind::BadEscape(format!("\\{other}"))),
        }
    }
    Ok(out)
}

/// A token with its byte span, as the lalrpop parser consumes it.
pub type Spanned<'input> = (usize, Tok<'input>, usize);

/// The token stream handed to the generated parser.
pub struct Lexer<'input> {
    inner: logos::Lexer<'input, Tok<'input>>,
}

impl<'input> Lexer<'input> {
    pub fn new(source: &'input str) -> Self {
        Lexer {
            inner: Tok::lexer(source),
        }
    }
}

impl Lexer<'_> {
    /// Skips whitespace (`[ \t\r\n\f]`, the BOM) and `#` / `//` comments up to the end of
    /// their line, in one loop (see [`Tok`] for why not with logos' `skip`).
    fn skip_trivia(&mut self) {
        let rest = self.inner.remainder();
        let bytes = rest.as_bytes();
        let mut i = 0;
        loop {
            match bytes.get(i) {
                Some(b' ' | b'\t' | b'\r' | b'\n' | b'\x0c') => i += 1,
                Some(0xEF) if rest[i..].starts_with('\u{FEFF}') => i += '\u{FEFF}'.len_utf8(),
                Some(b'#') => i += line_length(&bytes[i..]),
                Some(b'/') if bytes.get(i + 1) == Some(&b'/') => i += line_length(&bytes[i..]),
                _ => break,
            }
        }
        self.inner.bump(i);
    }
}

/// Bytes up to (not including) the next newline.
fn line_length(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len())
}

impl<'input> Iterator for Lexer<'input> {
    type Item = Result<Spanned<'input>, LexError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.skip_trivia();
        let token = self.inner.next()?;
        let span = self.inner.span();
        Some(match token {
            Ok(tok) => Ok((span.start, tok, span.end)),
            Err(kind) => Err(LexError {
                kind,
                start: span.start,
                end: span.end,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(source: &str) -> Vec<Result<Tok<'_>, LexErrorKind>> {
        Lexer::new(source)
            .map(|r| r.map(|(_, t, _)| t).map_err(|e| e.kind))
            .collect()
    }

    #[test]
    fn identifiers_take_ge_name_characters() {
        assert_eq!(
            lex("grad/add_1.x a-b _x9"),
            vec![
                Ok(Tok::Ident("grad/add_1.x")),
                Ok(Tok::Ident("a-b")),
                Ok(Tok::Ident("_x9"))
            ]
        );
    }

    #[test]
    fn keywords_win_only_on_whole_words() {
        assert_eq!(
            lex("graph graphs return inf info nan nanny true mlir dense"),
            vec![
                Ok(Tok::Graph),
                Ok(Tok::Ident("graphs")),
                Ok(Tok::Return),
                Ok(Tok::Float("inf")),
                Ok(Tok::Ident("info")),
                Ok(Tok::Float("nan")),
                Ok(Tok::Ident("nanny")),
                Ok(Tok::True),
                Ok(Tok::Mlir),
                Ok(Tok::Dense),
            ]
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(
            lex("3 -1 1.5 -2.0e-3 -inf 7E5"),
            vec![
                Ok(Tok::Int(3)),
                Ok(Tok::Int(-1)),
                Ok(Tok::Float("1.5")),
                Ok(Tok::Float("-2.0e-3")),
                Ok(Tok::Float("-inf")),
                Ok(Tok::Int(7)),
                Ok(Tok::Ident("E5")),
            ]
        );
        assert_eq!(
            lex("999999999999999999999999999999999999999999"),
            vec![Err(LexErrorKind::IntOutOfRange)]
        );
    }

    #[test]
    fn strings_decode_escapes() {
        assert_eq!(
            lex(r#""a\"b\\c\nd\te" "\u{1F600}x""#),
            vec![
                Ok(Tok::Str("a\"b\\c\nd\te".into())),
                Ok(Tok::Str("\u{1F600}x".into()))
            ]
        );
        assert_eq!(
            lex(r#""bad \q""#),
            vec![Err(LexErrorKind::BadEscape("\\q".into()))]
        );
        assert_eq!(
            lex("\"open\nx"),
            vec![Err(LexErrorKind::UnterminatedString), Ok(Tok::Ident("x"))]
        );
    }

    #[test]
    fn comments_and_punctuation() {
        assert_eq!(
            lex("# c1\n( ) // c2\n{ } [ ] < > , : ^ @ ? * ="),
            vec![
                Ok(Tok::LParen),
                Ok(Tok::RParen),
                Ok(Tok::LBrace),
                Ok(Tok::RBrace),
                Ok(Tok::LBracket),
                Ok(Tok::RBracket),
                Ok(Tok::Lt),
                Ok(Tok::Gt),
                Ok(Tok::Comma),
                Ok(Tok::Colon),
                Ok(Tok::Caret),
                Ok(Tok::At),
                Ok(Tok::Question),
                Ok(Tok::Star),
                Ok(Tok::Eq),
            ]
        );
    }

    #[test]
    fn errors_carry_byte_spans() {
        let errors: Vec<_> = Lexer::new("a = $").filter_map(|r| r.err()).collect();
        assert_eq!(
            errors,
            vec![LexError {
                kind: LexErrorKind::UnexpectedChar,
                start: 4,
                end: 5
            }]
        );
    }
}
