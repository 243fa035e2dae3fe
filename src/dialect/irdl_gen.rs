//! Generates the IRDL definition of the dialect (`dialects/ascend.irdl.mlir`) from the op
//! table, so the table stays the single source of truth.
//!
//! IRDL (MLIR 22) binds every constraint SSA value to the first type or attribute it
//! matches. The generator therefore emits a fresh constraint for every operand or result
//! group and every attribute, except groups the table lists together in `same_type`, which
//! deliberately share one (Identity's `x` and `y` must have the same type). Control operands
//! and the control result share one `!ascend.ctrl` constraint: the type has no parameters.

use super::table::{expand_groups, Arity, AttrKind, Group, OpDef, OpTable};
use std::fmt::Write;

/// The header of the generated file; the staleness test and readers rely on it.
pub const HEADER: &str =
    "// Generated from dialects/ascend.ops.toml by src/dialect/irdl_gen.rs -- do not edit.\n\
// Regenerate with: GE_BLESS=1 cargo test --lib irdl\n";

/// Renders the whole dialect. Deterministic: ops in table order, groups in row order.
pub fn generate_irdl(table: &OpTable) -> String {
    let mut out = String::from(HEADER);
    out.push_str("irdl.dialect @ascend {\n");
    out.push_str("  // The control token: one per op, last result; control edges consume it.\n");
    out.push_str("  irdl.type @ctrl\n");
    for def in table.ops() {
        out.push('\n');
        emit_operation(&mut out, def);
    }
    out.push_str("}\n");
    out
}

/// Which `same_type` set (if any) a group name belongs to.
fn same_type_set(def: &OpDef, name: &str) -> Option<usize> {
    def.row
        .same_type
        .iter()
        .position(|set| set.iter().any(|n| n == name))
}

/// Emits `%name = any tensor` as three fresh constraint ops.
fn emit_tensor_constraint(out: &mut String, var: &str) {
    let _ = writeln!(out, "    %{var}_r = irdl.base \"!builtin.tensor\"");
    let _ = writeln!(out, "    %{var}_u = irdl.base \"!builtin.unranked_tensor\"");
    let _ = writeln!(out, "    %{var} = irdl.any_of(%{var}_r, %{var}_u)");
}

/// Emits constraints for one side's groups and returns the `name: [variadicity] %var`
/// entries of its `irdl.operands` / `irdl.results` list (without the ctrl entry).
fn emit_side(
    out: &mut String,
    def: &OpDef,
    groups: &[Group],
    irdl_names: &[String],
    prefix: &str,
    shared: &mut [bool],
) -> Vec<String> {
    let mut entries = Vec::new();
    let mut names = irdl_names.iter();
    for group in groups {
        let set = same_type_set(def, &group.name);
        for prim in expand_groups(std::slice::from_ref(group)) {
            let irdl_name = names.next().expect("irdl names match expanded groups");
            let var = match set {
                Some(i) => {
                    let var = format!("same{i}");
                    if !shared[i] {
                        emit_tensor_constraint(out, &var);
                        shared[i] = true;
                    }
                    var
                }
                None => {
                    let var = format!("{prefix}_{}", prim.name);
                    emit_tensor_constraint(out, &var);
                    var
                }
            };
            let variadicity = match prim.arity {
                Arity::Single => "",
                Arity::Optional => "optional ",
                Arity::Variadic => "variadic ",
                Arity::Slots(_) => unreachable!("slots are expanded"),
            };
            entries.push(format!("{irdl_name}: {variadicity}%{var}"));
        }
    }
    entries
}

fn emit_operation(out: &mut String, def: &OpDef) {
    let _ = writeln!(out, "  // GE type {} on {}", def.ge_type, def.engine);
    let _ = writeln!(out, "  irdl.operation @{} {{", def.mnemonic);
    out.push_str("    %ctrl = irdl.base @ascend::@ctrl\n");
    let mut shared = vec![false; def.row.same_type.len()];

    let operand_names: Vec<String> = def.irdl_operands().into_iter().map(|g| g.name).collect();
    let mut operands = emit_side(out, def, &def.inputs, &operand_names, "in", &mut shared);
    operands.push("ctrl_in: variadic %ctrl".into());

    let result_names: Vec<String> = def.irdl_results().into_iter().map(|g| g.name).collect();
    let mut results = emit_side(out, def, &def.outputs, &result_names, "out", &mut shared);
    results.push("ctrl: %ctrl".into());

    let mut attrs = Vec::new();
    for name in &def.row.subgraph_attrs {
        attrs.push((name.as_str(), "irdl.base \"#builtin.symbol_ref\""));
    }
    for name in &def.row.subgraph_list_attrs {
        attrs.push((name.as_str(), "irdl.base \"#builtin.array\""));
    }
    for (name, kind) in &def.row.required_attrs {
        let constraint = match kind {
            AttrKind::Any => "irdl.any",
            AttrKind::String => "irdl.base \"#builtin.string\"",
            AttrKind::Integer => "irdl.base \"#builtin.integer\"",
            AttrKind::Array => "irdl.base \"#builtin.array\"",
        };
        attrs.push((name.as_str(), constraint));
    }
    for (name, constraint) in &attrs {
        let _ = writeln!(out, "    %attr_{name} = {constraint}");
    }

    let _ = writeln!(out, "    irdl.operands({})", operands.join(", "));
    let _ = writeln!(out, "    irdl.results({})", results.join(", "));
    if !attrs.is_empty() {
        let list: Vec<String> = attrs
            .iter()
            .map(|(name, _)| format!("\"{name}\" = %attr_{name}"))
            .collect();
        let _ = writeln!(out, "    irdl.attributes {{{}}}", list.join(", "));
    }
    out.push_str("  }\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::{context::IRDL_SOURCE, op_table};

    /// The committed IRDL must be what the table generates. `GE_BLESS=1` rewrites it.
    #[test]
    fn committed_irdl_is_up_to_date() {
        let generated = generate_irdl(op_table());
        if std::env::var_os("GE_BLESS").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/dialects/ascend.irdl.mlir");
            std::fs::write(path, &generated).expect("write dialects/ascend.irdl.mlir");
            return;
        }
        assert!(
            generated == IRDL_SOURCE,
            "dialects/ascend.irdl.mlir is stale: it differs from what dialects/ascend.ops.toml \
             generates. Regenerate it with `GE_BLESS=1 cargo test --lib irdl` and commit it."
        );
    }

    #[test]
    fn generation_is_deterministic_and_headed() {
        let a = generate_irdl(op_table());
        assert_eq!(a, generate_irdl(op_table()));
        assert!(a.starts_with(HEADER));
    }

    #[test]
    fn single_groups_get_fresh_constraints_and_same_type_groups_share() {
        let table = OpTable::parse(
            r#"
[[op]]
mnemonic = "add"
ge_type = "Add"
engine = "AIcoreEngine"
inputs = ["x1", "x2"]
outputs = ["y"]

[[op]]
mnemonic = "identity"
ge_type = "Identity"
engine = "DNN_VM_RTS"
inputs = ["x"]
outputs = ["y"]
same_type = [["x", "y"]]
"#,
        )
        .unwrap();
        let text = generate_irdl(&table);
        assert!(text.contains("irdl.operands(x1: %in_x1, x2: %in_x2, ctrl_in: variadic %ctrl)"));
        assert!(text.contains("irdl.results(y: %out_y, ctrl: %ctrl)"));
        assert!(text.contains("irdl.operands(x: %same0, ctrl_in: variadic %ctrl)"));
        assert!(text.contains("irdl.results(y: %same0, ctrl: %ctrl)"));
        assert_eq!(text.matches("%same0 = irdl.any_of").count(), 1);
    }

    #[test]
    fn slots_attributes_and_ref_results_are_declared() {
        let table = OpTable::parse(
            r#"
[[op]]
mnemonic = "if"
ge_type = "If"
engine = "DNN_VM_GE_LOCAL"
inputs = ["cond", "input[2]"]
outputs = ["output[2]"]
subgraph_attrs = ["then_branch", "else_branch"]

[[op]]
mnemonic = "assign"
ge_type = "Assign"
engine = "AIcoreEngine"
inputs = ["ref", "value"]
outputs = ["ref"]

[[op]]
mnemonic = "op"
ge_type = "*"
engine = "AIcoreEngine"
inputs = ["x[1]"]
outputs = ["y[1]"]
required_attrs = { type = "string" }
"#,
        )
        .unwrap();
        let text = generate_irdl(&table);
        assert!(text.contains(
            "irdl.operands(cond: %in_cond, input0: optional %in_input0, input1: optional \
             %in_input1, input_rest: variadic %in_input_rest, ctrl_in: variadic %ctrl)"
        ));
        assert!(text
            .contains("\"then_branch\" = %attr_then_branch, \"else_branch\" = %attr_else_branch"));
        assert!(text.contains("%attr_then_branch = irdl.base \"#builtin.symbol_ref\""));
        assert!(text.contains("irdl.results(ref_out: %out_ref, ctrl: %ctrl)"));
        assert!(text.contains("%attr_type = irdl.base \"#builtin.string\""));
    }
}
