//! Pass options: their declaration (in a registry row), their textual syntax, and the
//! resolved values a pass constructor reads.
//!
//! Syntax, as in `mlir-opt`: on the command line `--pass=k=v,k2=v2` (or `--pass="k=v k2=v2"`),
//! inside a pipeline `pass{k=v k2=v2}`. Assignments are separated by commas or whitespace;
//! a value may be double-quoted (`name="a b"`) or braced (`list={a,b}`) to contain those.
//! A bool option given without a value (`pass{verbose}`) is `true`.

use super::{
    shared::ModelShare,
    statistics::{PassStatistics, Statistic},
    PassInfo,
};
use crate::ir::external_pass::{
    create_pass, marked_unchanged, set_unchanged, PassFailed, PassId, RustPass,
};
use melior::ir::operation::OperationRefMut;
use melior::pass::Pass;
use std::collections::BTreeMap;

/// The type of an option value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Bool,
    Int,
    UInt,
    String,
}

impl OptionKind {
    /// The name shown in help text (`<int>`), as `mlir-opt` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Bool => "bool",
            Self::Int => "long",
            Self::UInt => "ulong",
            Self::String => "string",
        }
    }

    /// Parses `text` as a value of this kind.
    pub fn parse(self, text: &str) -> Result<OptionValue, String> {
        match self {
            Self::Bool => match text {
                "true" | "1" => Ok(OptionValue::Bool(true)),
                "false" | "0" => Ok(OptionValue::Bool(false)),
                _ => Err(format!("'{text}' is not a bool (true/false/1/0)")),
            },
            Self::Int => text
                .parse()
                .map(OptionValue::Int)
                .map_err(|_| format!("'{text}' is not an integer")),
            Self::UInt => text
                .parse()
                .map(OptionValue::UInt)
                .map_err(|_| format!("'{text}' is not an unsigned integer")),
            Self::String => Ok(OptionValue::String(text.to_owned())),
        }
    }
}

/// The declaration of one option in a registry row.
#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: OptionKind,
    /// Default value, in option syntax (`"0"`, `"true"`, `""`).
    pub default: &'static str,
    pub help: &'static str,
}

/// A resolved option value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    Bool(bool),
    Int(i64),
    UInt(u64),
    String(String),
}

/// What a constructor receives: the pass's row, every option resolved (defaults filled
/// in), and the statistics sink of this pass instance.
#[derive(Clone, Debug)]
pub struct PassOptions {
    info: &'static PassInfo,
    values: BTreeMap<&'static str, OptionValue>,
    statistics: PassStatistics,
    instance: usize,
    share: ModelShare,
}

impl PassOptions {
    /// Resolves `assignments` (as split by [`parse_assignments`]) against `info`'s
    /// declared options. Unknown options, duplicates and ill-typed values are errors.
    pub fn resolve(
        info: &'static PassInfo,
        assignments: &[(String, Option<String>)],
    ) -> Result<Self, String> {
        let mut values = BTreeMap::new();
        for spec in info.options {
            let value = spec.kind.parse(spec.default).map_err(|error| {
                format!(
                    "pass '{}': bad default for '{}': {error}",
                    info.flag, spec.name
                )
            })?;
            values.insert(spec.name, value);
        }
        let mut seen = Vec::new();
        for (name, value) in assignments {
            let Some(spec) = info.options.iter().find(|spec| spec.name == name) else {
                return Err(unknown_option(info, name));
            };
            if seen.contains(&spec.name) {
                return Err(format!(
                    "pass '{}': option '{name}' given more than once",
                    info.flag
                ));
            }
            seen.push(spec.name);
            let value = match (value, spec.kind) {
                (Some(text), kind) => kind.parse(text),
                (None, OptionKind::Bool) => Ok(OptionValue::Bool(true)),
                (None, _) => Err("missing value (expected <name>=<value>)".to_owned()),
            }
            .map_err(|error| format!("pass '{}': option '{name}': {error}", info.flag))?;
            values.insert(spec.name, value);
        }
        Ok(Self {
            info,
            values,
            statistics: PassStatistics::default(),
            instance: 0,
            share: ModelShare::NONE,
        })
    }

    /// The registry row of the pass.
    pub fn info(&self) -> &'static PassInfo {
        self.info
    }

    /// Attaches the statistics sink this instance reports to (done by [`super::Pipeline`]).
    pub(super) fn with_statistics(mut self, statistics: PassStatistics) -> Self {
        self.instance = statistics.add_instance(self.info);
        self.statistics = statistics;
        self
    }

    /// Links this instance to its neighbours in the pipeline (done by [`super::Pipeline`]).
    pub(super) fn with_share(mut self, share: ModelShare) -> Self {
        self.share = share;
        self
    }

    /// What this instance may take from the step before it and keep for the step after
    /// it ([`ModelShare::NONE`] when it runs alone).
    pub fn model_share(&self) -> ModelShare {
        self.share
    }

    /// A bool option.
    pub fn bool(&self, name: &str) -> Result<bool, String> {
        match self.value(name)? {
            OptionValue::Bool(value) => Ok(*value),
            other => Err(self.wrong_kind(name, other)),
        }
    }

    /// A signed integer option.
    pub fn int(&self, name: &str) -> Result<i64, String> {
        match self.value(name)? {
            OptionValue::Int(value) => Ok(*value),
            other => Err(self.wrong_kind(name, other)),
        }
    }

    /// An unsigned integer option.
    pub fn uint(&self, name: &str) -> Result<u64, String> {
        match self.value(name)? {
            OptionValue::UInt(value) => Ok(*value),
            other => Err(self.wrong_kind(name, other)),
        }
    }

    /// A string option.
    pub fn string(&self, name: &str) -> Result<&str, String> {
        match self.value(name)? {
            OptionValue::String(value) => Ok(value),
            other => Err(self.wrong_kind(name, other)),
        }
    }

    /// Registers a statistic (shown by `--mlir-pass-statistics`) for this pass instance.
    /// Names follow MLIR's style: `num-ops-numbered`.
    pub fn statistic(&self, name: &'static str, description: &'static str) -> Statistic {
        self.statistics.register(self.instance, name, description)
    }

    /// Wraps a [`RustPass`] into the MLIR pass for this row (name, flag and description
    /// come from the row). `id` must be a `static` unique to the pass kind.
    /// The pass is run between the checks that keep a shared model from reaching any step
    /// but the next ([`ModelShare`]).
    pub fn build_pass<P: RustPass>(&self, pass: P, id: &'static PassId) -> Pass {
        create_pass(
            Linked {
                pass,
                share: self.share,
            },
            id,
            &self.info.display_name(),
            self.info.flag,
            self.info.description,
        )
    }

    fn value(&self, name: &str) -> Result<&OptionValue, String> {
        self.values
            .get(name)
            .ok_or_else(|| format!("pass '{}' declares no option '{name}'", self.info.flag))
    }

    fn wrong_kind(&self, name: &str, value: &OptionValue) -> String {
        format!(
            "pass '{}': option '{name}' is not of the requested type (it holds {value:?})",
            self.info.flag
        )
    }
}

/// A pass with its place in the pipeline's chain of shared models.
#[derive(Clone)]
struct Linked<P> {
    pass: P,
    share: ModelShare,
}

impl<P: RustPass> RustPass for Linked<P> {
    fn run(&mut self, operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        self.share.before_run();
        let result = self.pass.run(operation);
        self.share.after_run();
        if result.is_ok() {
            let unchanged = self.share.verify_at_chain_end(marked_unchanged());
            set_unchanged(unchanged);
        }
        result
    }
}

fn unknown_option(info: &PassInfo, name: &str) -> String {
    let known: Vec<_> = info.options.iter().map(|spec| spec.name).collect();
    if known.is_empty() {
        format!("pass '{}' has no options, got '{name}'", info.flag)
    } else {
        format!(
            "pass '{}' has no option '{name}' (options: {})",
            info.flag,
            known.join(", ")
        )
    }
}

/// Splits an option list (`k=v,k2="a b" k3 k4={x,y}`) into `(name, value)` pairs.
/// Quotes around a value are removed; braces are kept (the option parses them).
/// One `name=value` (or bare `name`) option assignment as written.
pub type Assignment = (String, Option<String>);

pub fn parse_assignments(text: &str) -> Result<Vec<Assignment>, String> {
    let mut result = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches(|c: char| c == ',' || c.is_whitespace());
        if rest.is_empty() {
            return Ok(result);
        }
        let name_end = rest
            .find(|c: char| c == '=' || c == ',' || c.is_whitespace())
            .unwrap_or(rest.len());
        let name = &rest[..name_end];
        if name.is_empty() || name.contains(['"', '{', '}']) {
            return Err(format!(
                "malformed option list '{text}': expected an option name"
            ));
        }
        rest = &rest[name_end..];
        let Some(after_eq) = rest.strip_prefix('=') else {
            result.push((name.to_owned(), None));
            continue;
        };
        let (value, remainder) = split_value(after_eq)
            .map_err(|error| format!("malformed option list '{text}': {error}"))?;
        result.push((name.to_owned(), Some(value)));
        rest = remainder;
    }
}

/// Splits one value off the front of `text`; returns it (unquoted) and the remainder.
fn split_value(text: &str) -> Result<(String, &str), String> {
    if let Some(quoted) = text.strip_prefix('"') {
        let end = quoted
            .find('"')
            .ok_or_else(|| "unterminated '\"'".to_owned())?;
        let remainder = &quoted[end + 1..];
        if !remainder.is_empty() && !remainder.starts_with(|c: char| c == ',' || c.is_whitespace())
        {
            return Err(format!("unexpected text after quoted value: '{remainder}'"));
        }
        return Ok((quoted[..end].to_owned(), remainder));
    }
    let mut depth = 0usize;
    for (index, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Err("unbalanced '}'".to_owned()),
            '}' => depth -= 1,
            ',' if depth == 0 => return Ok((text[..index].to_owned(), &text[index..])),
            c if c.is_whitespace() && depth == 0 => {
                return Ok((text[..index].to_owned(), &text[index..]))
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err("unbalanced '{'".to_owned());
    }
    Ok((text.to_owned(), ""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::PassInfo;

    fn pairs(text: &str) -> Vec<(String, Option<String>)> {
        parse_assignments(text).unwrap()
    }

    fn kv(name: &str, value: Option<&str>) -> (String, Option<String>) {
        (name.to_owned(), value.map(str::to_owned))
    }

    #[test]
    fn assignments_accept_commas_and_spaces() {
        assert_eq!(
            pairs("a=1,b=2 c=3  d"),
            vec![
                kv("a", Some("1")),
                kv("b", Some("2")),
                kv("c", Some("3")),
                kv("d", None)
            ]
        );
        assert_eq!(pairs(""), vec![]);
        assert_eq!(pairs("  , "), vec![]);
    }

    #[test]
    fn assignments_keep_quoted_and_braced_values_whole() {
        assert_eq!(
            pairs(r#"s="a b,c" l={x,y z} t=1"#),
            vec![
                kv("s", Some("a b,c")),
                kv("l", Some("{x,y z}")),
                kv("t", Some("1"))
            ]
        );
        assert_eq!(pairs("e="), vec![kv("e", Some(""))]);
    }

    #[test]
    fn malformed_assignments_are_errors() {
        for bad in [r#"s="open"#, "l={x", "l=x}", "=3", r#"s="a"b"#] {
            assert!(parse_assignments(bad).is_err(), "{bad} should fail");
        }
    }

    fn dummy(_: &PassOptions) -> Result<Pass, String> {
        Err("not built in tests".to_owned())
    }

    static ROW: PassInfo = PassInfo {
        flag: "test-pass",
        description: "",
        options: &[
            OptionSpec {
                name: "n",
                kind: OptionKind::Int,
                default: "-1",
                help: "",
            },
            OptionSpec {
                name: "u",
                kind: OptionKind::UInt,
                default: "7",
                help: "",
            },
            OptionSpec {
                name: "flag",
                kind: OptionKind::Bool,
                default: "false",
                help: "",
            },
            OptionSpec {
                name: "s",
                kind: OptionKind::String,
                default: "",
                help: "",
            },
        ],
        create: dummy,
    };

    #[test]
    fn resolve_fills_defaults_and_types_values() {
        let options = PassOptions::resolve(&ROW, &[]).unwrap();
        assert_eq!(options.int("n"), Ok(-1));
        assert_eq!(options.uint("u"), Ok(7));
        assert_eq!(options.bool("flag"), Ok(false));
        assert_eq!(options.string("s"), Ok(""));

        let options = PassOptions::resolve(&ROW, &pairs("n=5 flag s=\"x y\" u=0")).unwrap();
        assert_eq!(options.int("n"), Ok(5));
        assert_eq!(options.uint("u"), Ok(0));
        assert_eq!(options.bool("flag"), Ok(true));
        assert_eq!(options.string("s"), Ok("x y"));
        assert!(options.int("flag").is_err());
        assert!(options.int("missing").is_err());
    }

    #[test]
    fn resolve_rejects_bad_options() {
        let error = PassOptions::resolve(&ROW, &pairs("nope=1")).unwrap_err();
        assert!(error.contains("has no option 'nope'"), "{error}");
        assert!(error.contains("n, u, flag, s"), "{error}");
        assert!(PassOptions::resolve(&ROW, &pairs("n=x")).is_err());
        assert!(PassOptions::resolve(&ROW, &pairs("u=-1")).is_err());
        assert!(PassOptions::resolve(&ROW, &pairs("flag=yes")).is_err());
        assert!(PassOptions::resolve(&ROW, &pairs("n")).is_err());
        let error = PassOptions::resolve(&ROW, &pairs("n=1 n=2")).unwrap_err();
        assert!(error.contains("more than once"), "{error}");
    }
}
