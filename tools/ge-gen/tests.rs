//! Whole-output tests: determinism, seed sensitivity, size accuracy, and structural validity
//! of what the families print (checked on the text itself, independently of the builder's
//! own checks).

use std::collections::{HashMap, HashSet};

use crate::families::{Family, Style};
use crate::{write_graph, Format};

fn gen(family: Family, format: Format, ops: u64, seed: u64) -> (String, u64) {
    gen_styled(family, format, ops, seed, Style::default())
}

fn gen_styled(family: Family, format: Format, ops: u64, seed: u64, style: Style) -> (String, u64) {
    let mut buf = Vec::new();
    let n = write_graph(family, format, ops, seed, style, &mut buf).expect("generation succeeds");
    (String::from_utf8(buf).expect("utf-8 output"), n)
}

#[test]
fn same_seed_gives_identical_bytes() {
    for family in Family::ALL {
        for format in [Format::Mlir, Format::Ge] {
            let a = gen(family, format, 2000, 42).0;
            let b = gen(family, format, 2000, 42).0;
            assert!(a == b, "{family:?} {format:?} is not deterministic");
        }
    }
}

#[test]
fn different_seed_gives_different_graph() {
    for family in Family::ALL {
        let a = gen(family, Format::Ge, 1000, 1).0;
        let b = gen(family, Format::Ge, 1000, 2).0;
        assert_ne!(a, b, "{family:?} ignores the seed");
    }
}

#[test]
fn op_count_within_ten_percent() {
    for family in Family::ALL {
        for target in [1000u64, 3000, 20000] {
            let (text, n) = gen(family, Format::Ge, target, 7);
            let lines = ge_nodes(&text).len() as u64;
            assert_eq!(
                lines, n,
                "{family:?}: reported count differs from printed nodes"
            );
            assert!(
                n.abs_diff(target) * 10 <= target,
                "{family:?}: asked {target} ops, got {n}"
            );
            let (mlir, m) = gen(family, Format::Mlir, target, 7);
            assert_eq!(m, n);
            assert_eq!(
                mlir.matches(" = \"ascend.").count() as u64,
                n,
                "{family:?} mlir op count"
            );
        }
    }
}

/// A parsed `.ge` node line: graph, name, referenced node names (data and control).
struct GeNode {
    graph: String,
    name: String,
    inputs: Vec<String>,
    symbols: Vec<String>,
}

/// Minimal parser for the canonical output (one node per line, names without spaces).
fn ge_nodes(text: &str) -> Vec<GeNode> {
    let mut graph = String::new();
    let mut nodes = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("graph ") {
            graph = rest.trim_end_matches(" {").to_string();
        } else if let Some((name, rest)) = line.trim().split_once(" = ") {
            let open = rest.find('(').expect("node has an input list");
            let close = rest.find(')').expect("node input list is closed");
            let inputs = rest[open + 1..close]
                .split(", ")
                .filter(|s| !s.is_empty())
                .map(|s| {
                    let s = s.trim_start_matches('^');
                    s.split(':').next().unwrap_or(s).to_string()
                })
                .collect();
            let symbols = rest
                .split('@')
                .skip(1)
                .map(|s| s.split([',', '}']).next().unwrap_or("").to_string())
                .collect();
            nodes.push(GeNode {
                graph: graph.clone(),
                name: name.to_string(),
                inputs,
                symbols,
            });
        }
    }
    nodes
}

#[test]
fn ge_nodes_defined_once_and_acyclic() {
    for family in Family::ALL {
        let (text, _) = gen(family, Format::Ge, 3000, 11);
        let graphs: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("graph "))
            .collect();
        let graph_names: HashSet<String> = graphs
            .iter()
            .map(|g| g.trim_end_matches(" {").to_string())
            .collect();
        assert_eq!(
            graph_names.len(),
            graphs.len(),
            "{family:?}: duplicate graph names"
        );
        let mut defined: HashMap<(String, String), usize> = HashMap::new();
        let mut referenced_graphs: HashMap<String, usize> = HashMap::new();
        let nodes = ge_nodes(&text);
        let edges: usize = nodes.iter().map(|n| n.inputs.len()).sum();
        assert!(
            edges > nodes.len() / 2,
            "{family:?}: parser found too few edges ({edges})"
        );
        for n in nodes {
            // Every input names a node already defined in the same graph: emission order is
            // a topological order, so the graph (data + control edges) has no cycle.
            for i in &n.inputs {
                assert!(
                    defined.contains_key(&(n.graph.clone(), i.clone())),
                    "{family:?}: {} uses {i} before (or without) its definition",
                    n.name
                );
            }
            // Unquoted `.ge` identifiers: [A-Za-z_][A-Za-z0-9_./-]*.
            let valid = n
                .name
                .starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && n.name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_./-".contains(c));
            assert!(valid, "{family:?}: node name {:?} needs quoting", n.name);
            let key = (n.graph.clone(), n.name.clone());
            assert!(
                defined.insert(key, 1).is_none(),
                "{family:?}: {} defined twice",
                n.name
            );
            for s in n.symbols {
                *referenced_graphs.entry(s).or_default() += 1;
            }
        }
        // Every subgraph is referenced exactly once (GE subgraphs belong to one parent node).
        for g in &graph_names {
            let refs = referenced_graphs.get(g).copied().unwrap_or(0);
            assert_eq!(
                refs,
                usize::from(g != "main"),
                "{family:?}: graph {g} referenced {refs} times"
            );
        }
        assert!(
            referenced_graphs.keys().all(|s| graph_names.contains(s)),
            "{family:?}: dangling @symbol"
        );
    }
}

#[test]
fn mlir_ssa_defined_before_use_and_args_consumed_once() {
    for family in Family::ALL {
        let (text, _) = gen(family, Format::Mlir, 3000, 5);
        let mut defined: HashSet<&str> = HashSet::new();
        let mut args = 0usize;
        let mut arg_uses: HashMap<String, usize> = HashMap::new();
        let mut checked_uses = 0usize;
        let check_args = |args: usize, uses: &HashMap<String, usize>| {
            for i in 0..args {
                assert_eq!(
                    uses.get(&format!("%arg{i}")),
                    Some(&1),
                    "{family:?}: %arg{i} not used exactly once"
                );
            }
        };
        for line in text.lines() {
            if line.starts_with("func.func") {
                check_args(args, &arg_uses);
                defined.clear();
                arg_uses.clear();
                args = line.matches("%arg").count();
                continue;
            }
            let (def, uses) = match line.trim().split_once(" = ") {
                Some((d, u)) => (Some(d.split(':').next().unwrap_or(d)), u),
                None => (None, line),
            };
            for tok in uses.split(['(', ',', ')', ' ']) {
                if let Some(v) = tok.split('#').next().filter(|v| v.starts_with('%')) {
                    if v.starts_with("%arg") {
                        *arg_uses.entry(v.to_string()).or_default() += 1;
                    } else {
                        assert!(
                            defined.contains(v),
                            "{family:?}: {v} used before definition"
                        );
                        checked_uses += 1;
                    }
                }
            }
            if let Some(d) = def {
                assert!(defined.insert(d), "{family:?}: {d} defined twice");
            }
        }
        check_args(args, &arg_uses);
        assert!(
            checked_uses > 1000,
            "{family:?}: only {checked_uses} uses checked"
        );
        assert!(text
            .lines()
            .all(|l| !l.contains("\"ascend.") || l.ends_with("!ascend.ctrl)")));
    }
}

#[test]
fn transformer_has_training_structure() {
    let (text, _) = gen(Family::Transformer, Format::Ge, 2000, 3);
    let count = |ty: &str| text.matches(&format!(" = {ty}(")).count();
    assert!(
        count("HcomAllReduce") > 0
            && count("HcomAllReduce") == count("ApplyMomentum") + count("Assign") - 1
    );
    assert!(text
        .lines()
        .filter(|l| l.contains("HcomAllReduce("))
        .all(|l| l.contains("_input_mutable = true")));
    for ty in [
        "MatMul",
        "BatchMatMul",
        "LayerNorm",
        "Softmax",
        "Reshape",
        "Transpose",
        "Cast",
        "Variable",
    ] {
        assert!(count(ty) > 0, "no {ty}");
    }
}

#[test]
fn control_flow_uses_subgraph_ops() {
    let (text, _) = gen(Family::ControlFlow, Format::Mlir, 2000, 3);
    for op in [
        "ascend.if",
        "ascend.while",
        "ascend.partitioned_call",
        "ascend.assign",
        "ascend.variable",
    ] {
        assert!(text.contains(&format!("\"{op}\"")), "no {op}");
    }
    assert!(text.contains("func.func private @cf0_then("));
}

/// Each ApplyMomentum waits (control edges) for the backward MatMuls that read its weight, as
/// a framework orders a training graph; `unordered_updates` drops exactly those edges.
#[test]
fn updates_wait_for_the_backward_reads_of_their_weight() {
    let (ordered, n) = gen(Family::Transformer, Format::Ge, 3000, 5);
    let style = Style {
        unordered_updates: true,
        ..Style::default()
    };
    let (unordered, m) = gen_styled(Family::Transformer, Format::Ge, 3000, 5, style);
    assert_eq!(n, m, "the style changes edges, not ops");
    // (weight, the backward op that reads it)
    let readers = [
        ("w2", "ffn_act"),
        ("w1", "ffn_ln"),
        ("wo", "attn_context"),
        ("wq", "attn_ln"),
    ];
    let mut checked = 0;
    for line in ordered.lines().filter(|l| l.contains(" = ApplyMomentum(")) {
        let name = line.trim().split(" = ").next().expect("a node line");
        let mut parts = name.split('/');
        let (layer, weight) = (parts.next().unwrap(), parts.nth(1).unwrap());
        let ctrl: Vec<&str> = line
            .split(['(', ')', ','])
            .map(str::trim)
            .filter_map(|s| s.strip_prefix('^'))
            .collect();
        match readers.iter().find(|(w, _)| *w == weight) {
            Some((_, reader)) => {
                assert_eq!(ctrl, [format!("{layer}/grad/{reader}")], "{line}");
                checked += 1;
            }
            None => assert!(ctrl.is_empty(), "{line}"),
        }
    }
    assert!(checked >= 8, "only {checked} updates checked");
    assert!(unordered
        .lines()
        .filter(|l| l.contains(" = ApplyMomentum("))
        .all(|l| !l.contains('^')));
    // Apart from control edges, the two forms are the same graph.
    let drop_ctrl = |line: &str| -> String {
        let (mut out, mut rest) = (String::new(), line);
        while let Some(i) = rest.find(", ^") {
            out.push_str(&rest[..i]);
            let after = &rest[i + 3..];
            rest = &after[after.find([',', ')']).unwrap_or(after.len())..];
        }
        out + rest
    };
    let a: Vec<String> = ordered.lines().map(drop_ctrl).collect();
    let b: Vec<String> = unordered.lines().map(drop_ctrl).collect();
    assert!(a == b, "the forms differ beyond control edges");
}

/// `small_tensors` keeps every family's nodes, names and edges and shrinks its shapes (no
/// 64x64 activation, no 224x224 image).
#[test]
fn small_tensors_keep_the_graph_and_shrink_the_shapes() {
    let style = Style {
        small_tensors: true,
        ..Style::default()
    };
    let names = |text: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| l.trim().split_once(" = ").map(|(n, _)| n.to_owned()))
            .collect()
    };
    for family in Family::ALL {
        let (full, n) = gen(family, Format::Ge, 300, 3);
        let (small, m) = gen_styled(family, Format::Ge, 300, 3, style);
        assert_eq!(n, m, "{family:?}: same op count");
        assert_eq!(
            names(&full),
            names(&small),
            "{family:?}: same nodes in the same order"
        );
        assert_eq!(full.lines().count(), small.lines().count(), "{family:?}");
        for (line_full, line_small) in full.lines().zip(small.lines()) {
            let (a, b) = (
                line_full.matches('[').count(),
                line_small.matches('[').count(),
            );
            assert_eq!(a, b, "{family:?}: same ranks: {line_full} / {line_small}");
        }
        let big = |t: &str| t.contains("[64, 64]") || t.contains("224, 224]");
        assert!(big(&full), "{family:?}: the full graph has its big shapes");
        assert!(!big(&small), "{family:?}: the small graph has none");
    }
}
