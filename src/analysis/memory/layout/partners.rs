//! Which anchor pairs of one symbol the conflict search must look at, in GE's order.
//!
//! GE's `CheckConflict` visits every pair `i < j` of a symbol's anchors and, for each
//! attribute `x` of `i` and `y` of `j`, applies the table's rule for `(x, y)`. A pair whose
//! attribute sets meet only `Never` / `Unregistered` rules, or checkers that are dormant in
//! this graph (they return at once on its `GraphInfo`, e.g. the unrefreshable-address
//! checkers when neither the feature map nor the physical memory is refreshable), does
//! nothing (the skip test before the rules only reads), and a pair of two inert anchors is
//! never visited. So only
//! pairs whose two sets *meet* some other rule need a visit; visiting exactly those, in the
//! same `(i, j)` order, leaves every observable effect as it was: the first decision per
//! anchor, the checkers that run once per symbol on the first pair of their attribute
//! types, and the error a pair raises.
//!
//! A symbol has few distinct attribute sets, so anchors are grouped by set; for anchor `i`
//! the partners are the later members of the groups its group meets, merged back into
//! index order. A Const feeding 5000 `Assign`s is one symbol of 15001 anchors: the search
//! used to visit 50M pairs there (5000 of them meeting a rule), now it visits those 5000;
//! a Data read by 20k `HcomAllReduce`s (unrefreshable inputs, pairwise under a dormant
//! checker) went from 200M visits to 20k.

use super::attrs::AttrSet;
use super::checkers;
use super::table::{self, PairRule};
use super::GraphInfo;

/// The anchors of one symbol grouped by attribute set, and which groups meet.
pub(super) struct Partners {
    /// Group of each anchor.
    group_of: Vec<u32>,
    /// Anchor indices of each group, ascending.
    members: Vec<Vec<u32>>,
    /// `meets[a]`: the groups whose anchors a later anchor of group `a` is checked against
    /// (ordered: the rule table is not symmetric).
    meets: Vec<Vec<u32>>,
}

/// Whether a pair of anchors with sets `a` (the earlier anchor) and `b` can decide
/// anything in a graph with facts `info`.
pub(super) fn sets_meet(a: AttrSet, b: AttrSet, info: GraphInfo) -> bool {
    if a.is_inert() && b.is_inert() {
        return false;
    }
    a.iter().any(|x| {
        b.iter().any(|y| match table::rule(x, y) {
            PairRule::Never | PairRule::Unregistered => false,
            PairRule::Always => true,
            PairRule::Check { checker, .. } => !checkers::dormant(checker, info),
        })
    })
}

impl Partners {
    pub(super) fn new(types: &[AttrSet], info: GraphInfo) -> Partners {
        let mut sets: Vec<AttrSet> = Vec::new();
        let mut members: Vec<Vec<u32>> = Vec::new();
        let group_of = types
            .iter()
            .enumerate()
            .map(|(i, &t)| {
                let g = match sets.iter().position(|&s| s == t) {
                    Some(g) => g,
                    None => {
                        sets.push(t);
                        members.push(Vec::new());
                        sets.len() - 1
                    }
                };
                members[g].push(i as u32);
                g as u32
            })
            .collect();
        let meets = sets
            .iter()
            .map(|&a| {
                (0..sets.len() as u32)
                    .filter(|&b| sets_meet(a, sets[b as usize], info))
                    .collect()
            })
            .collect();
        Partners {
            group_of,
            members,
            meets,
        }
    }

    /// The anchors `j > i` that anchor `i` must be checked against, ascending, into `out`.
    pub(super) fn of(&self, i: usize, out: &mut Vec<usize>) {
        out.clear();
        let groups = &self.meets[self.group_of[i] as usize];
        // The tail of each met group after `i`; merged by always taking the smallest head.
        let mut tails: Vec<&[u32]> = groups
            .iter()
            .map(|&g| {
                let list = &self.members[g as usize];
                &list[list.partition_point(|&j| j as usize <= i)..]
            })
            .filter(|tail| !tail.is_empty())
            .collect();
        if let [only] = tails[..] {
            out.extend(only.iter().map(|&j| j as usize));
            return;
        }
        while let Some((k, &j)) = tails
            .iter()
            .enumerate()
            .filter_map(|(k, tail)| tail.first().map(|j| (k, j)))
            .min_by_key(|&(_, &j)| j)
        {
            out.push(j as usize);
            tails[k] = &tails[k][1..];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::attrs::{AnchorAttr, AttrSet};
    use super::*;

    fn set(attrs: &[AnchorAttr]) -> AttrSet {
        AttrSet::of(attrs)
    }

    fn info(refreshable: bool) -> GraphInfo {
        GraphInfo {
            root_static: true,
            feature_map_refreshable: refreshable,
            user_input_nopadding_continuous_output: false,
            physical_memory_refreshable: false,
        }
    }

    /// The partners are exactly the later anchors whose sets meet, in index order.
    #[test]
    fn partners_are_the_later_anchors_whose_sets_meet_in_order() {
        use AnchorAttr::*;
        let pool = [
            set(&[NormalInput]),
            set(&[NormalOutput]),
            set(&[UserMemoryOutput]),
            set(&[ImmutableAddressOutput]),
            set(&[UserMemoryInput]),
            set(&[ContinuousInput]),
            set(&[NormalInput, UnsupportedAddressRefreshInput]),
            set(&[ReferenceOutput]),
        ];
        let mut state = 0x9e37_79b9_u64;
        let mut met = 0;
        for (len, refreshable) in [
            (0usize, false),
            (1, true),
            (2, false),
            (7, true),
            (40, false),
            (40, true),
        ] {
            let types: Vec<AttrSet> = (0..len)
                .map(|_| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    pool[(state >> 33) as usize % pool.len()]
                })
                .collect();
            let partners = Partners::new(&types, info(refreshable));
            let mut got = Vec::new();
            for i in 0..len {
                partners.of(i, &mut got);
                let want: Vec<usize> = (i + 1..len)
                    .filter(|&j| sets_meet(types[i], types[j], info(refreshable)))
                    .collect();
                assert_eq!(got, want, "anchor {i} of {types:?}");
                met += want.len();
            }
        }
        assert!(met > 20, "the sets must meet somewhere: {met} pairs");
    }

    /// Two inert anchors never meet.
    #[test]
    fn inert_pairs_never_meet() {
        use AnchorAttr::*;
        for refreshable in [false, true] {
            let i = info(refreshable);
            assert!(!sets_meet(set(&[NormalInput]), set(&[NormalOutput]), i));
            assert!(!sets_meet(set(&[ReferenceOutput]), set(&[NormalInput]), i));
            assert!(!sets_meet(set(&[]), set(&[]), i));
        }
    }

    /// Two unrefreshable inputs meet only under the checker's conditions; an always pair
    /// meets in any graph.
    #[test]
    fn dormant_checkers_do_not_make_sets_meet() {
        use AnchorAttr::*;
        let unrefresh = set(&[UnsupportedAddressRefreshInput]);
        assert!(!sets_meet(unrefresh, unrefresh, info(false)));
        assert!(sets_meet(unrefresh, unrefresh, info(true)));
        let user_in = set(&[UserMemoryInput]);
        assert!(sets_meet(user_in, unrefresh, info(false)));
    }
}
