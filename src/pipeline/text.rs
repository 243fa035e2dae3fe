//! Pipeline text, split the way MLIR's pipeline parser reads it:
//! `anchor(element, element, ...)` where an element is `pass`, `pass{options}` or a nested
//! `op-name(elements)`. Only the structure is parsed here; pass names are resolved by
//! [`super::Pipeline`].

/// One pipeline element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element<'a> {
    /// `name` or `name{options}` (`options` is the text between the braces).
    Pass {
        name: &'a str,
        options: Option<&'a str>,
    },
    /// `anchor(body)`: passes nested under operations named `anchor`.
    Nested { anchor: &'a str, body: &'a str },
}

/// Splits `text` at the commas that are outside parentheses, braces and double quotes.
/// Elements are trimmed; an empty list (`""`) is allowed, an empty element is not.
pub fn split_top_level(text: &str) -> Result<Vec<&str>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut elements = Vec::new();
    let mut stack = Vec::new();
    let mut in_string = false;
    let mut start = 0;
    for (index, c) in text.char_indices() {
        if in_string {
            in_string = c != '"';
            continue;
        }
        match c {
            '"' => in_string = true,
            '(' | '{' => stack.push((c, index)),
            ')' | '}' => {
                let open = if c == ')' { '(' } else { '{' };
                match stack.pop() {
                    Some((top, _)) if top == open => {}
                    _ => return Err(format!("unbalanced '{c}' at offset {index} in '{text}'")),
                }
            }
            ',' if stack.is_empty() => {
                elements.push(non_empty(&text[start..index], text)?);
                start = index + 1;
            }
            _ => {}
        }
    }
    if in_string {
        return Err(format!("unterminated '\"' in '{text}'"));
    }
    if let Some((open, index)) = stack.pop() {
        return Err(format!("unclosed '{open}' at offset {index} in '{text}'"));
    }
    elements.push(non_empty(&text[start..], text)?);
    Ok(elements)
}

fn non_empty<'a>(element: &'a str, text: &str) -> Result<&'a str, String> {
    let element = element.trim();
    if element.is_empty() {
        Err(format!("empty pipeline element in '{text}'"))
    } else {
        Ok(element)
    }
}

/// Parses one (trimmed, balanced) element as returned by [`split_top_level`].
pub fn parse_element(text: &str) -> Result<Element<'_>, String> {
    let name_end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(text.len());
    let name = &text[..name_end];
    if name.is_empty() {
        return Err(format!("expected a pass or operation name in '{text}'"));
    }
    let rest = text[name_end..].trim_start();
    if rest.is_empty() {
        return Ok(Element::Pass {
            name,
            options: None,
        });
    }
    let (open, close) = match rest.chars().next() {
        Some('{') => ('{', '}'),
        Some('(') => ('(', ')'),
        _ => return Err(format!("unexpected '{rest}' after '{name}'")),
    };
    let inner_end = matching_close(rest, open, close)
        .ok_or_else(|| format!("unclosed '{open}' in '{text}'"))?;
    let trailing = rest[inner_end + 1..].trim();
    if !trailing.is_empty() {
        return Err(format!(
            "unexpected '{trailing}' after '{}'",
            &rest[..=inner_end]
        ));
    }
    let inner = &rest[1..inner_end];
    Ok(if open == '{' {
        Element::Pass {
            name,
            options: Some(inner),
        }
    } else {
        Element::Nested {
            anchor: name,
            body: inner,
        }
    })
}

/// The byte index of the delimiter closing the one `text` starts with.
fn matching_close(text: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    for (index, c) in text.char_indices() {
        if in_string {
            in_string = c != '"';
        } else if c == '"' {
            in_string = true;
        } else if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(index);
            }
        }
    }
    None
}

/// Strips the mandatory anchor of a whole pipeline: `builtin.module(body)` -> `body`.
pub fn strip_anchor<'a>(text: &'a str, anchor: &str) -> Result<&'a str, String> {
    let trimmed = text.trim();
    let hint =
        || format!("expected the pass pipeline to be wrapped in '{anchor}(...)', got '{trimmed}'");
    let elements = split_top_level(trimmed)?;
    match elements.as_slice() {
        [only] => match parse_element(only)? {
            Element::Nested {
                anchor: found,
                body,
            } if found == anchor => Ok(body),
            _ => Err(hint()),
        },
        _ => Err(hint()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_only_top_level_commas() {
        assert_eq!(
            split_top_level(r#"canonicalize, func.func(cse, a{x=1,y="p,q"}),b{l={1,2}} ,c"#)
                .unwrap(),
            vec![
                "canonicalize",
                r#"func.func(cse, a{x=1,y="p,q"})"#,
                "b{l={1,2}}",
                "c"
            ]
        );
        assert_eq!(split_top_level("  ").unwrap(), Vec::<&str>::new());
    }

    #[test]
    fn split_reports_unbalanced_and_empty() {
        for bad in ["a(b", "a)b", "a{b)", "a,,b", "a,", ",a", "a{\"x}"] {
            assert!(split_top_level(bad).is_err(), "{bad} should fail");
        }
    }

    #[test]
    fn parses_elements() {
        assert_eq!(
            parse_element("cse").unwrap(),
            Element::Pass {
                name: "cse",
                options: None
            }
        );
        assert_eq!(
            parse_element("ascend-topo-order{start-id=3 x}").unwrap(),
            Element::Pass {
                name: "ascend-topo-order",
                options: Some("start-id=3 x")
            }
        );
        assert_eq!(
            parse_element("func.func(cse, canonicalize{max-iterations=1})").unwrap(),
            Element::Nested {
                anchor: "func.func",
                body: "cse, canonicalize{max-iterations=1}"
            }
        );
    }

    #[test]
    fn rejects_malformed_elements() {
        for bad in ["{x}", "a{x}y", "a(b)c", "a b", "a{x"] {
            assert!(parse_element(bad).is_err(), "{bad} should fail");
        }
    }

    #[test]
    fn strips_the_anchor() {
        assert_eq!(
            strip_anchor(" builtin.module(cse, a) ", "builtin.module").unwrap(),
            "cse, a"
        );
        assert_eq!(
            strip_anchor("builtin.module()", "builtin.module").unwrap(),
            ""
        );
        for bad in [
            "cse",
            "func.func(cse)",
            "builtin.module(cse), cse",
            "builtin.module{x}",
        ] {
            let error = strip_anchor(bad, "builtin.module").unwrap_err();
            assert!(error.contains("builtin.module(...)"), "{bad}: {error}");
        }
    }
}
