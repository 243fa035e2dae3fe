//! GE input slots: which of an op's in-data anchors each data operand feeds, and which
//! anchors are left unconnected.
//!
//! GE gives every input an anchor at a fixed index, optional inputs included
//! (`AddOptionalInputDesc`): a node may leave an optional anchor without a peer while a later
//! one is connected, and every GE rule keeps counting anchors by their index. MLIR's own way
//! to say that an optional operand is absent is its operand segment sizes
//! (`operandSegmentSizes`), which IRDL already declares for every op with an optional group:
//! an optional group (or one of the generic op's 32 slots) of size 0 *before a later value*
//! is an unconnected slot. So the IR needs nothing new, stock `mlir-opt` checks the structure,
//! and no second list can disagree with the segments. An absent optional group after the
//! last value is no slot at all (GE's `MatMul` without `bias` has two inputs).
//!
//! Slots are numbered over the primitive groups (slot groups expanded): a single or optional
//! group, and each slot of a slot group, is one slot, a variadic group one per value.
//! Only optional groups and the generic op's slots (any GE op's input may be optional) may
//! be left unconnected; the slot groups of the table's other ops (If's `input`, ConcatV2's
//! `x`) exist for their types and are filled in order.

use super::table::{Arity, Group, OpDef};

/// One primitive group after slot expansion: (arity, holes allowed, name of slot `i`).
fn primitive(groups: &[Group], generic: bool) -> Vec<(Arity, bool, String)> {
    let mut out = Vec::new();
    for g in groups {
        match g.arity {
            Arity::Slots(n) => {
                out.extend((0..n).map(|i| (Arity::Optional, generic, format!("{}{i}", g.name))));
                out.push((Arity::Variadic, false, format!("{}_rest", g.name)));
            }
            a => out.push((a, a == Arity::Optional, g.name.clone())),
        }
    }
    out
}

/// One anchor of a layout: whether an operand feeds it, whether it may be left
/// unconnected, and GE's name for it.
struct Anchor {
    filled: bool,
    may_hole: bool,
    name: String,
}

/// Every anchor of an op with these per-primitive-group sizes (`operandSegmentSizes`
/// without its trailing control entry), in slot order, up to the last operand; `None` when
/// the sizes do not fit the groups. A single or optional group is one anchor; a slot group
/// has one per slot up to its last filled slot, then one per overflow value; a variadic
/// group one per value.
fn anchors(groups: &[Group], sizes: &[usize], generic: bool) -> Option<Vec<Anchor>> {
    let mut out = Vec::with_capacity(sizes.len());
    let mut next = 0usize;
    let anchor = |filled, may_hole, name| Anchor {
        filled,
        may_hole,
        name,
    };
    for g in groups {
        match g.arity {
            Arity::Single | Arity::Optional => {
                let size = *sizes.get(next)?;
                if size > 1 || (g.arity == Arity::Single && size != 1) {
                    return None;
                }
                out.push(anchor(
                    size == 1,
                    g.arity == Arity::Optional,
                    g.name.clone(),
                ));
                next += 1;
            }
            Arity::Variadic => {
                let size = *sizes.get(next)?;
                out.extend((0..size).map(|i| anchor(true, false, format!("{}{i}", g.name))));
                next += 1;
            }
            Arity::Slots(n) => {
                let slots = sizes.get(next..next + n)?;
                let rest = *sizes.get(next + n)?;
                if slots.iter().any(|&s| s > 1) {
                    return None;
                }
                let width = if rest > 0 {
                    n
                } else {
                    slots.iter().rposition(|&s| s == 1).map_or(0, |i| i + 1)
                };
                out.extend(
                    (0..width).map(|i| anchor(slots[i] == 1, generic, format!("{}{i}", g.name))),
                );
                out.extend((n..n + rest).map(|i| anchor(true, false, format!("{}{i}", g.name))));
                next += n + 1;
            }
        }
    }
    if next != sizes.len() {
        return None;
    }
    let last = out.iter().rposition(|a| a.filled).map_or(0, |i| i + 1);
    out.truncate(last);
    Some(out)
}

/// Whether these sizes may leave a slot unconnected at all: an optional primitive group of
/// size 0 before a later non-empty one. Cheap, so hot paths skip the layout otherwise.
pub fn may_have_holes(groups: &[Group], sizes: &[usize]) -> bool {
    let Some(last) = sizes.iter().rposition(|&s| s > 0) else {
        return false;
    };
    let prims = groups.iter().flat_map(|g| {
        let n = match g.arity {
            Arity::Slots(n) => n + 1,
            _ => 1,
        };
        std::iter::repeat_n(g.arity, n)
    });
    sizes[..last]
        .iter()
        .zip(prims)
        .any(|(&s, a)| s == 0 && a != Arity::Variadic)
}

/// The slot of each data operand, from per-primitive-group sizes (`operandSegmentSizes`
/// without its trailing control entry); `None` when the sizes do not fit the groups.
pub fn operand_slots(groups: &[Group], sizes: &[usize]) -> Option<Vec<usize>> {
    let anchors = anchors(groups, sizes, false)?;
    Some(
        anchors
            .iter()
            .enumerate()
            .filter(|(_, a)| a.filled)
            .map(|(i, _)| i)
            .collect(),
    )
}

/// The unconnected slots of an operand layout: the slots before the last operand's that no
/// operand feeds.
pub fn holes(slots: &[usize]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut expected = 0usize;
    for &s in slots {
        out.extend(expected..s);
        expected = s + 1;
    }
    out
}

/// Whether a layout has an unconnected slot (operand `i` not in slot `i`).
pub fn has_holes(slots: &[usize]) -> bool {
    slots.iter().enumerate().any(|(i, &s)| i != s)
}

/// GE's name of every slot up to the last operand's, connected or not: a single or optional
/// group keeps its name, slot `i` of a slot group and value `i` of a variadic group are
/// `x<i>`. Ref relations compare these names, so an unconnected ref input keeps its ref
/// output. Empty when the sizes do not fit the groups.
pub fn slot_names(groups: &[Group], sizes: &[usize]) -> Vec<String> {
    anchors(groups, sizes, false)
        .unwrap_or_default()
        .into_iter()
        .map(|a| a.name)
        .collect()
}

/// Why a layout leaves a slot unconnected that may not be: the first such slot and its
/// group, as a sentence for a located error; `None` when every hole is allowed (or the sizes
/// do not fit the groups, which IRDL reports).
pub fn hole_problem(def: &OpDef, sizes: &[usize]) -> Option<String> {
    let anchors = anchors(&def.inputs, sizes, def.is_generic())?;
    let (slot, a) = anchors
        .iter()
        .enumerate()
        .find(|(_, a)| !a.filled && !a.may_hole)?;
    Some(not_optional(def, slot, &a.name))
}

/// Why inputs given by slot do not fit an op: the slot to point at (when one is to blame)
/// and a sentence.
pub type SlotError = (Option<usize>, String);

/// The primitive group sizes for inputs given by slot (`None`: unconnected), or why they
/// do not fit: an unconnected slot that is not optional, a trailing unconnected slot (GE has
/// no such anchor; leave it out), a count the groups cannot take, or values of different
/// types in one homogeneous variadic group.
pub fn slot_segments<T: PartialEq>(
    def: &OpDef,
    inputs: &[Option<T>],
) -> Result<Vec<usize>, SlotError> {
    let n = inputs.len();
    if matches!(inputs.last(), Some(None)) {
        return Err((
            Some(n - 1),
            format!(
                "input slot {} is the last one and unconnected: leave trailing unconnected \
                 inputs out",
                n - 1
            ),
        ));
    }
    let prims = primitive(&def.inputs, def.is_generic());
    let singles_after: Vec<usize> = (0..prims.len())
        .map(|i| {
            prims[i + 1..]
                .iter()
                .filter(|p| p.0 == Arity::Single)
                .count()
        })
        .collect();
    let mut sizes = Vec::with_capacity(prims.len());
    let mut s = 0usize;
    for (i, (arity, may_hole, name)) in prims.iter().enumerate() {
        let left = n.saturating_sub(s);
        let size = match arity {
            Arity::Single => {
                if s >= n {
                    return Err((None, format!("expects at least {} inputs, got {n}", s + 1)));
                }
                if inputs[s].is_none() {
                    return Err((Some(s), not_optional(def, s, name)));
                }
                s += 1;
                1
            }
            Arity::Optional => {
                if left > singles_after[i] {
                    let present = inputs[s].is_some();
                    if !present && !may_hole {
                        return Err((Some(s), not_optional(def, s, name)));
                    }
                    s += 1;
                    usize::from(present)
                } else {
                    0
                }
            }
            _ => {
                let take = left.saturating_sub(singles_after[i]);
                let values = &inputs[s..s + take];
                if let Some(k) = values.iter().position(Option::is_none) {
                    return Err((Some(s + k), not_optional(def, s + k, name)));
                }
                if let Some(k) = values.iter().position(|v| *v != values[0]) {
                    return Err((
                        Some(s + k),
                        format!(
                            "input slots {s} and {} fall into the variadic group `{name}` and \
                             must have the same type",
                            s + k
                        ),
                    ));
                }
                s += take;
                take
            }
        };
        sizes.push(size);
    }
    if s != n {
        return Err((None, format!("expects at most {s} inputs, got {n}")));
    }
    Ok(sizes)
}

fn not_optional(def: &OpDef, slot: usize, group: &str) -> String {
    format!(
        "input slot {slot} (`{group}`) of {} ({}) cannot be unconnected: it is not an \
         optional input",
        def.op_name(),
        def.ge_type
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::op_table;

    fn def(name: &str) -> &'static OpDef {
        op_table().by_op_name(name).unwrap()
    }

    #[test]
    fn slots_skip_an_empty_optional_before_a_later_value() {
        let conv = def("ascend.conv2d");
        // x, filter, bias? (absent), offset_w? (present)
        assert_eq!(
            operand_slots(&conv.inputs, &[1, 1, 0, 1]),
            Some(vec![0, 1, 3])
        );
        assert_eq!(holes(&[0, 1, 3]), vec![2]);
        assert!(has_holes(&[0, 1, 3]));
        assert!(!has_holes(&[0, 1]));
        assert_eq!(
            slot_names(&conv.inputs, &[1, 1, 0, 1]),
            ["x", "filter", "bias", "offset_w"]
        );
        assert_eq!(hole_problem(conv, &[1, 1, 0, 1]), None);
        assert_eq!(
            slot_segments(conv, &[Some(()), Some(()), None, Some(())]),
            Ok(vec![1, 1, 0, 1])
        );
    }

    #[test]
    fn generic_slots_may_be_unconnected_others_not() {
        let generic = def("ascend.op");
        let mut sizes = vec![0usize; 33];
        sizes[0] = 1;
        sizes[2] = 1;
        assert_eq!(operand_slots(&generic.inputs, &sizes), Some(vec![0, 2]));
        assert_eq!(slot_names(&generic.inputs, &sizes), ["x0", "x1", "x2"]);
        assert!(may_have_holes(&generic.inputs, &sizes));
        assert_eq!(hole_problem(generic, &sizes), None);
        let if_op = def("ascend.if");
        let mut sizes = vec![0usize; if_op.irdl_operands().len() - 1];
        sizes[0] = 1; // cond
        sizes[2] = 1; // input1, input0 left empty
        let problem = hole_problem(if_op, &sizes).unwrap();
        assert!(problem.contains("input slot 1 (`input0`)"), "{problem}");
        let (at, err) = slot_segments(if_op, &[Some(()), None, Some(())]).unwrap_err();
        assert_eq!(at, Some(1));
        assert!(err.contains("input slot 1 (`input0`)"), "{err}");
    }

    #[test]
    fn filled_layouts_match_the_plain_distribution() {
        let conv = def("ascend.conv2d");
        assert_eq!(
            slot_segments(conv, &[Some(1), Some(2)]),
            Ok(vec![1, 1, 0, 0])
        );
        assert_eq!(
            slot_segments(conv, &[Some(1), Some(2), Some(3)]),
            Ok(vec![1, 1, 1, 0])
        );
        let (at, err) = slot_segments(conv, &[Some(1), None, Some(2)]).unwrap_err();
        assert_eq!(at, Some(1));
        assert!(err.contains("input slot 1 (`filter`)"), "{err}");
        let (at, err) = slot_segments(conv, &[Some(1), Some(2), None]).unwrap_err();
        assert_eq!(at, Some(2));
        assert!(err.contains("trailing"), "{err}");
        let (_, err) =
            slot_segments(conv, &[Some(1), Some(2), None, Some(3), Some(4)]).unwrap_err();
        assert!(err.contains("at most 4"), "{err}");
    }
}
