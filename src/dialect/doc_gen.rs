//! Generates the dialect reference (`dialects/ascend.md`) from the op table, the way
//! `mlir-tblgen -gen-dialect-doc` documents a dialect from its ODS: one section per op with
//! its operands, results and attributes, plus what the passes read from the table (engine,
//! ref outputs, written inputs, continuous and atomic needs, task count). The table is the
//! single source of truth, so the reference cannot drift from the IRDL or the passes: a
//! unit test fails when the committed file is stale (`GE_BLESS=1 cargo test --lib doc_gen`
//! rewrites it).

use super::table::{Arity, AttrKind, Group, OpDef, OpTable, Trait, TABLE_SOURCE};
use std::fmt::Write;

/// The header of the generated file.
pub const HEADER: &str =
    "<!-- Generated from dialects/ascend.ops.toml by src/dialect/doc_gen.rs -- do not edit.\n     \
     Regenerate with: GE_BLESS=1 cargo test --lib doc_gen -->\n";

/// The section titles of the table (`# ---- title` comment lines), with the mnemonic of the
/// first op under each, in file order. Serde drops comments, so they are read from the text.
fn sections(source: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut pending: Option<String> = None;
    for line in source.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("# ---") {
            let title = rest.trim_start_matches('-').trim();
            if !title.is_empty() {
                pending = Some(title.to_owned());
            }
        } else if let Some(value) = line.strip_prefix("mnemonic = ") {
            if let Some(title) = pending.take() {
                out.push((title, value.trim_matches('"').to_owned()));
            }
        }
    }
    out
}

fn group_text(group: &Group) -> String {
    match group.arity {
        Arity::Single => format!("`{}`", group.name),
        Arity::Optional => format!("`{}` (optional)", group.name),
        Arity::Variadic => format!("`{}` (variadic, one type)", group.name),
        Arity::Slots(n) => format!(
            "`{}` (up to {n} of any types, then variadic of one type)",
            group.name
        ),
    }
}

fn groups_text(groups: &[Group]) -> String {
    if groups.is_empty() {
        return "none".into();
    }
    groups.iter().map(group_text).collect::<Vec<_>>().join(", ")
}

fn trait_name(t: Trait) -> String {
    // The serde name, which is how the table spells it.
    let debug = format!("{t:?}");
    let mut out = String::new();
    for (i, c) in debug.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The memory semantics of a row, as the passes read them.
fn semantics_lines(def: &OpDef) -> Vec<String> {
    let row = &def.row;
    let mut lines = Vec::new();
    let refs: Vec<&str> = def
        .outputs
        .iter()
        .filter(|out| def.inputs.iter().any(|input| input.name == out.name))
        .map(|out| out.name.as_str())
        .collect();
    if !refs.is_empty() {
        lines.push(format!(
            "ref outputs (share their input's memory, GE MarkRefRelations): {}",
            refs.iter()
                .map(|r| format!("`{r}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if row.input_mutable {
        lines.push("writes its inputs (`_input_mutable`: every input is scope-writeable)".into());
    }
    if !row.atomic_outputs.is_empty() {
        lines.push(format!(
            "atomic outputs (zeroed first by AtomicAddrClean, `atomic_output_index`): {:?}",
            row.atomic_outputs
        ));
    }
    if row.kernel_atomic {
        lines.push("the engine's kernel reports it atomic (`_kernel_atomic`)".into());
    }
    for (flag, text) in [
        (
            row.continuous_input,
            "continuous inputs (`continuous_input`)",
        ),
        (
            row.continuous_output,
            "continuous outputs (`continuous_output`)",
        ),
        (
            row.nopadding_continuous_input,
            "continuous inputs without padding (`_no_padding_continuous_input`)",
        ),
        (
            row.nopadding_continuous_output,
            "continuous outputs without padding (`_no_padding_continuous_output`)",
        ),
    ] {
        if flag {
            lines.push(text.into());
        }
    }
    lines.push(match row.task_num {
        Some(0) => "tasks: none (no task on any stream)".into(),
        Some(n) => format!("tasks on its stream: {n}"),
        None => "tasks on its stream: 1".into(),
    });
    lines
}

fn attrs_text(def: &OpDef) -> Vec<String> {
    let mut out = Vec::new();
    for name in &def.row.subgraph_attrs {
        out.push(format!("`{name}`: a subgraph symbol (required)"));
    }
    for name in &def.row.subgraph_list_attrs {
        out.push(format!("`{name}`: an array of subgraph symbols (required)"));
    }
    for (name, kind) in &def.row.required_attrs {
        let kind = match kind {
            AttrKind::Any => "any attribute",
            AttrKind::String => "a string",
            AttrKind::Integer => "an integer",
            AttrKind::Array => "an array",
        };
        out.push(format!("`{name}`: {kind} (required)"));
    }
    out
}

fn emit_op(out: &mut String, def: &OpDef) {
    let ge = if def.is_generic() {
        "any GE type (its `type` attribute)".to_owned()
    } else {
        format!("`{}`", def.ge_type)
    };
    let _ = writeln!(out, "### `{}`\n", def.op_name());
    let _ = writeln!(out, "GE type {ge}, engine `{}`.", def.row.engine);
    if !def.row.aliases.is_empty() {
        let aliases: Vec<String> = def.row.aliases.iter().map(|a| format!("`{a}`")).collect();
        let _ = writeln!(out, "Also answers for GE types {}.", aliases.join(", "));
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "* operands: {}, then control tokens",
        groups_text(&def.inputs)
    );
    let _ = writeln!(
        out,
        "* results: {}, then one `!ascend.ctrl`",
        groups_text(&def.outputs)
    );
    let attrs = attrs_text(def);
    if !attrs.is_empty() {
        let _ = writeln!(out, "* attributes: {}", attrs.join("; "));
    }
    if !def.row.traits.is_empty() {
        let traits: Vec<String> = def
            .row
            .traits
            .iter()
            .map(|&t| format!("`{}`", trait_name(t)))
            .collect();
        let _ = writeln!(out, "* traits: {}", traits.join(", "));
    }
    for line in semantics_lines(def) {
        let _ = writeln!(out, "* {line}");
    }
    out.push('\n');
}

/// Renders the reference. Deterministic: sections and ops in table order.
pub fn generate_dialect_doc(table: &OpTable) -> String {
    let mut out = String::from(HEADER);
    out.push_str(
        "\n# The `ascend` dialect: op reference\n\n\
         Every op below is defined in IRDL (`dialects/ascend.irdl.mlir`) and described to the \
         passes by its row of `dialects/ascend.ops.toml`; both this page and the IRDL are \
         generated from that row. Every op also takes a trailing variadic group of control \
         tokens (`ctrl_in`) and returns one `!ascend.ctrl` result last. A per-op attribute \
         with the GE name in brackets overrides a table column (`_input_mutable`, \
         `continuous_input`, ...). Traits are the closed set `Trait` of \
         `src/dialect/table.rs`, which says what each one means to the passes.\n\n",
    );
    let sections = sections(TABLE_SOURCE);
    let _ = writeln!(out, "{} ops.\n", table.ops().len());
    for def in table.ops() {
        if let Some((title, _)) = sections.iter().find(|(_, first)| *first == def.mnemonic) {
            let _ = writeln!(out, "## {title}\n");
        }
        emit_op(&mut out, def);
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::op_table;

    const COMMITTED: &str = include_str!("../../dialects/ascend.md");

    /// The committed reference must be what the table generates. `GE_BLESS=1` rewrites it.
    #[test]
    fn committed_dialect_doc_is_up_to_date() {
        let generated = generate_dialect_doc(op_table());
        if std::env::var_os("GE_BLESS").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/dialects/ascend.md");
            std::fs::write(path, &generated).expect("write dialects/ascend.md");
            return;
        }
        assert!(
            generated == COMMITTED,
            "dialects/ascend.md is stale: it differs from what dialects/ascend.ops.toml \
             generates. Regenerate it with `GE_BLESS=1 cargo test --lib doc_gen` and commit it."
        );
    }

    #[test]
    fn every_op_has_a_section_and_sections_come_from_the_table() {
        let doc = generate_dialect_doc(op_table());
        for def in op_table().ops() {
            assert!(
                doc.contains(&format!("### `{}`", def.op_name())),
                "{}",
                def.op_name()
            );
        }
        let titles = sections(TABLE_SOURCE);
        assert!(titles.len() >= 5, "{titles:?}");
        assert_eq!(
            titles[0],
            ("sources and graph inputs".to_owned(), "data".to_owned())
        );
    }

    #[test]
    fn semantics_name_refs_writes_atomics_and_tasks() {
        let table = op_table();
        let assign = generate_for(table, "assign");
        assert!(
            assign.contains("ref outputs") && assign.contains("`ref`"),
            "{assign}"
        );
        let all_reduce = generate_for(table, "hcom_all_reduce");
        assert!(all_reduce.contains("engine `DNN_HCCL`"), "{all_reduce}");
        let data = generate_for(table, "data");
        assert!(data.contains("tasks: none"), "{data}");
        assert!(data.contains("`AippData`"), "{data}");
        let clean = generate_for(table, "atomic_addr_clean");
        assert!(clean.contains("`atomic_clean`"), "{clean}");
    }

    fn generate_for(table: &OpTable, mnemonic: &str) -> String {
        let def = table
            .by_op_name(&format!("ascend.{mnemonic}"))
            .expect("op in table");
        let mut out = String::new();
        emit_op(&mut out, def);
        out
    }
}
