//! Which data values belong to which table group: arity ranges for messages and the
//! table's same-type sets.

use crate::dialect::{Arity, Group, OpDef};

/// A data input or output of a node, by position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ValueRef {
    Input(usize),
    Output(usize),
}

/// A value whose type differs from the first value of its same-type set.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct SameTypeViolation<'d> {
    pub set: &'d [String],
    pub first: ValueRef,
    pub other: ValueRef,
}

/// Positions of each table group's values, from the IRDL segment sizes; without segment
/// sizes every group but at most one is single, and that one takes what is left.
fn group_positions<'g>(
    groups: &'g [Group],
    segments: Option<&[i32]>,
    n: usize,
) -> Vec<(&'g str, std::ops::Range<usize>)> {
    let mut out = Vec::with_capacity(groups.len());
    let mut next = 0usize;
    let mut sizes = segments.map(|s| s.iter().map(|&x| x.max(0) as usize));
    let singles = groups.iter().filter(|g| g.arity == Arity::Single).count();
    for g in groups {
        let size = match (&mut sizes, g.arity) {
            (Some(sizes), Arity::Slots(k)) => sizes.by_ref().take(k + 1).sum(),
            (Some(sizes), _) => sizes.next().unwrap_or(0),
            (None, Arity::Single) => 1,
            (None, _) => n.saturating_sub(singles),
        };
        let end = (next + size).min(n);
        out.push((g.name.as_str(), next.min(end)..end));
        next = end;
    }
    out
}

/// Checks the table's same-type sets (group names across inputs and outputs).
pub(super) fn same_type_violations<'d, T: PartialEq>(
    def: &OpDef,
    sets: &'d [Vec<String>],
    inputs: &[T],
    outputs: &[T],
    input_segments: Option<&[i32]>,
    output_segments: Option<&[i32]>,
) -> Vec<SameTypeViolation<'d>> {
    let ins = group_positions(&def.inputs, input_segments, inputs.len());
    let outs = group_positions(&def.outputs, output_segments, outputs.len());
    let mut found = Vec::new();
    for set in sets {
        let mut members: Vec<(ValueRef, &T)> = Vec::new();
        for name in set {
            for (g, range) in &ins {
                if g == name {
                    members.extend(range.clone().map(|i| (ValueRef::Input(i), &inputs[i])));
                }
            }
            for (g, range) in &outs {
                if g == name {
                    members.extend(range.clone().map(|i| (ValueRef::Output(i), &outputs[i])));
                }
            }
        }
        if let Some(&(first, want)) = members.first() {
            if let Some(&(other, _)) = members.iter().find(|(_, t)| *t != want) {
                found.push(SameTypeViolation { set, first, other });
            }
        }
    }
    found
}

/// How many data values groups accept: `(min, max)`, `None` = unbounded.
pub(super) fn arity_range(groups: &[Group]) -> (usize, Option<usize>) {
    groups
        .iter()
        .fold((0, Some(0)), |(min, max), g| match g.arity {
            Arity::Single => (min + 1, max.map(|m| m + 1)),
            Arity::Optional => (min, max.map(|m| m + 1)),
            Arity::Variadic | Arity::Slots(_) => (min, None),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::OpTable;

    #[test]
    fn same_type_sets_cover_inputs_and_outputs() {
        let table = OpTable::parse(
            "[[op]]\nmnemonic = \"n\"\nge_type = \"N\"\nengine = \"E\"\ninputs = [\"a\", \"x*\", \"k?\"]\noutputs = [\"y\"]\n",
        )
        .unwrap();
        let def = table.by_ge_type("N").unwrap();
        let sets = vec![vec!["x".to_string(), "y".to_string()]];
        let segments = def.operand_segments(&["i", "f", "f", "f"], 0).unwrap();
        assert_eq!(segments, Some(vec![1, 3, 0, 0]));
        let ok = same_type_violations(
            def,
            &sets,
            &["i", "f", "f", "f"],
            &["f"],
            segments.as_deref(),
            None,
        );
        assert!(ok.is_empty());
        let bad = same_type_violations(
            def,
            &sets,
            &["i", "f", "f", "f"],
            &["g"],
            segments.as_deref(),
            None,
        );
        assert_eq!(
            bad,
            vec![SameTypeViolation {
                set: &sets[0],
                first: ValueRef::Input(1),
                other: ValueRef::Output(0)
            }]
        );
        let single = OpTable::parse(
            "[[op]]\nmnemonic = \"r\"\nge_type = \"R\"\nengine = \"E\"\ninputs = [\"x\"]\noutputs = [\"y*\"]\n",
        )
        .unwrap();
        let def = single.by_ge_type("R").unwrap();
        let bad = same_type_violations(def, &sets, &["f"], &["f", "g"], None, None);
        assert_eq!(bad[0].other, ValueRef::Output(1));
    }

    #[test]
    fn arity_ranges() {
        let g = |s: &str, arity| Group {
            name: s.into(),
            arity,
        };
        assert_eq!(
            arity_range(&[g("a", Arity::Single), g("b", Arity::Optional)]),
            (1, Some(2))
        );
        assert_eq!(
            arity_range(&[g("a", Arity::Single), g("b", Arity::Slots(2))]),
            (1, None)
        );
    }
}
