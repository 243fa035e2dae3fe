//! The layout pass's 14 x 14 table (B.19): symmetric, every pair classified once, and every
//! registration of the notes present with its checker (so none is shadowed).

use crate::analysis::memory::layout::attrs::{AnchorAttr, AttrSet, ATTR_COUNT};
use crate::analysis::memory::layout::table::{
    always_pairs, never_pairs, pairs_where, rule, Checker, PairRule, TABLE,
};
use AnchorAttr::*;

#[test]
fn the_table_is_symmetric() {
    for a in AnchorAttr::ALL {
        for b in AnchorAttr::ALL {
            assert_eq!(rule(a, b), rule(b, a), "{a} x {b}");
        }
    }
    assert_eq!(TABLE.len(), ATTR_COUNT);
}

#[test]
fn every_pair_is_classified_exactly_once() {
    let never = never_pairs().len();
    let always = always_pairs().len();
    let checked = pairs_where(|r| matches!(r, PairRule::Check { .. })).len();
    let unregistered = pairs_where(|r| r == PairRule::Unregistered).len();
    assert_eq!(
        never + always + checked + unregistered,
        ATTR_COUNT * (ATTR_COUNT + 1) / 2
    );
    assert_eq!(always, 10, "GE's absolute conflict set");
    assert_eq!(
        never,
        3 + ATTR_COUNT,
        "three pairs plus REFERENCE_OUTPUT with anything"
    );
    assert_eq!(checked, 55, "the registrations of the 22 checker files");
}

#[test]
fn the_always_and_never_pairs_are_the_notes() {
    let always = [
        (UserMemoryInput, UnsupportedAddressRefreshInput),
        (UserMemoryInput, RtsSpecialTypeInput),
        (UserMemoryOutput, RtsSpecialTypeInput),
        (UserMemoryOutput, RtsSpecialTypeOutput),
        (UserMemoryOutput, ContinuousOutput),
        (UserMemoryOutput, NopaddingContinuousOutput),
        (ImmutableAddressOutput, RtsSpecialTypeInput),
        (ImmutableAddressOutput, ContinuousInput),
        (ContinuousInput, NopaddingContinuousOutput),
        (ContinuousOutput, NopaddingContinuousInput),
    ];
    for (a, b) in always {
        assert_eq!(rule(a, b), PairRule::Always, "{a} x {b}");
    }
    for (a, b) in [
        (RtsSpecialTypeInput, NormalOutput),
        (UserMemoryOutput, UserMemoryOutput),
        (UserMemoryInput, UserMemoryOutput),
    ] {
        assert_eq!(rule(a, b), PairRule::Never, "{a} x {b}");
    }
    for x in AnchorAttr::ALL {
        assert_eq!(rule(ReferenceOutput, x), PairRule::Never, "REFERENCE x {x}");
    }
}

fn checker_of(a: AnchorAttr, b: AnchorAttr) -> Option<(Checker, bool)> {
    match rule(a, b) {
        PairRule::Check {
            checker,
            per_symbol,
        } => Some((checker, per_symbol)),
        _ => None,
    }
}

#[test]
fn every_registration_of_the_notes_maps_to_its_checker() {
    use Checker as C;
    let mut expected: Vec<(AnchorAttr, AnchorAttr, Checker, bool)> = Vec::new();
    for x in [
        ImmutableAddressOutput,
        UnsupportedAddressRefreshInput,
        UnsupportedAddressRefreshOutput,
        ContinuousInput,
        ContinuousOutput,
        NopaddingContinuousInput,
        NopaddingContinuousOutput,
        RtsSpecialTypeInput,
        RtsSpecialTypeOutput,
        NormalInput,
        NormalOutput,
    ] {
        expected.push((UnsupportedAddressRefreshInput, x, C::UnrefreshIn, false));
    }
    for x in [
        ImmutableAddressOutput,
        UnsupportedAddressRefreshOutput,
        ContinuousInput,
        ContinuousOutput,
        NopaddingContinuousInput,
        NopaddingContinuousOutput,
        RtsSpecialTypeInput,
        RtsSpecialTypeOutput,
        NormalInput,
        NormalOutput,
    ] {
        expected.push((UnsupportedAddressRefreshOutput, x, C::UnrefreshOut, false));
    }
    expected.extend([
        (
            UserMemoryOutput,
            UnsupportedAddressRefreshOutput,
            C::UserOutAndUnrefreshOut,
            false,
        ),
        (
            UserMemoryInput,
            RtsSpecialTypeOutput,
            C::UserInAndRtsSpecialOut,
            false,
        ),
        (
            UserMemoryInput,
            ContinuousOutput,
            C::UserInAndContinuousInOut,
            false,
        ),
        (
            UserMemoryInput,
            NopaddingContinuousOutput,
            C::UserInAndContinuousInOut,
            false,
        ),
        (
            UserMemoryInput,
            ContinuousInput,
            C::UserInAndContinuousInOut,
            false,
        ),
        (
            UserMemoryInput,
            NopaddingContinuousInput,
            C::UserInAndContinuousInOut,
            false,
        ),
        (
            UserMemoryInput,
            UnsupportedAddressRefreshOutput,
            C::UserInAndUnrefreshOut,
            false,
        ),
        (
            UserMemoryOutput,
            ContinuousInput,
            C::UserOutAndContinuousInput,
            false,
        ),
        (
            UserMemoryOutput,
            NopaddingContinuousInput,
            C::UserOutAndContinuousInput,
            false,
        ),
        (
            UserMemoryOutput,
            UnsupportedAddressRefreshInput,
            C::UserOutAndUnrefreshIn,
            false,
        ),
        (
            UserMemoryOutput,
            ImmutableAddressOutput,
            C::UserOutAndImmutableOut,
            false,
        ),
        (
            ImmutableAddressOutput,
            ContinuousOutput,
            C::ImmutableOutAndContinuousOut,
            false,
        ),
        (
            ImmutableAddressOutput,
            NopaddingContinuousOutput,
            C::ImmutableOutAndContinuousOut,
            false,
        ),
        (
            ImmutableAddressOutput,
            NopaddingContinuousInput,
            C::ImmutableOutAndNopaddingContinuousIn,
            false,
        ),
        (
            ImmutableAddressOutput,
            RtsSpecialTypeOutput,
            C::ImmutableOutAndRtsSpecialOut,
            false,
        ),
        (
            ContinuousInput,
            ContinuousInput,
            C::ContinuousInputAndContinuousInput,
            true,
        ),
        (
            ContinuousInput,
            NopaddingContinuousInput,
            C::ContinuousInputAndContinuousInput,
            true,
        ),
        (
            ContinuousInput,
            ContinuousOutput,
            C::ContinuousOutputAndContinuousInput,
            false,
        ),
        (
            ContinuousOutput,
            ContinuousOutput,
            C::ContinuousOutAndContinuousOut,
            true,
        ),
        (
            ContinuousOutput,
            NopaddingContinuousOutput,
            C::ContinuousOutAndContinuousOut,
            true,
        ),
        (
            NopaddingContinuousInput,
            NopaddingContinuousInput,
            C::NopaddingContinuousInputAndNopaddingContinuousInput,
            true,
        ),
        (
            NopaddingContinuousInput,
            NopaddingContinuousOutput,
            C::NopaddingContinuousInputAndNopaddingContinuousOut,
            false,
        ),
        (
            NopaddingContinuousOutput,
            NopaddingContinuousOutput,
            C::NopaddingContinuousOutAndNopaddingContinuousOut,
            true,
        ),
        (
            RtsSpecialTypeInput,
            RtsSpecialTypeInput,
            C::RtsSpecialInAndRtsSpecialIn,
            false,
        ),
        (
            RtsSpecialTypeInput,
            RtsSpecialTypeOutput,
            C::RtsSpecialInAndRtsSpecialOut,
            false,
        ),
        (
            RtsSpecialTypeOutput,
            RtsSpecialTypeOutput,
            C::RtsSpecialOutAndRtsSpecialOut,
            false,
        ),
    ]);
    for c in [
        ContinuousInput,
        ContinuousOutput,
        NopaddingContinuousInput,
        NopaddingContinuousOutput,
    ] {
        for r in [RtsSpecialTypeInput, RtsSpecialTypeOutput] {
            expected.push((c, r, C::ContinuousInOutAndRtsSpecialMemInOut, false));
        }
    }
    assert_eq!(expected.len(), 55);
    for &(a, b, c, per_symbol) in &expected {
        assert_eq!(checker_of(a, b), Some((c, per_symbol)), "{a} x {b}");
    }
    // every checker is registered somewhere, and the names are the spec's (unique)
    for &c in Checker::ALL {
        assert!(expected.iter().any(|e| e.2 == c), "{c:?} never registered");
    }
    let mut names: Vec<&str> = Checker::ALL.iter().map(|c| c.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 22);
}

#[test]
fn attribute_sets_iterate_in_ge_mark_order_and_know_inert_anchors() {
    let s = AttrSet::of(&[ContinuousInput, UserMemoryOutput, RtsSpecialTypeInput]);
    let order: Vec<AnchorAttr> = s.iter().collect();
    assert_eq!(
        order,
        [UserMemoryOutput, ContinuousInput, RtsSpecialTypeInput]
    );
    assert!(AttrSet::of(&[NormalInput]).is_inert());
    assert!(AttrSet::of(&[ReferenceOutput]).is_inert());
    assert!(!AttrSet::of(&[ReferenceOutput, ContinuousOutput]).is_inert());
    // an inert pair has no rule that can fire
    for x in [NormalInput, NormalOutput, ReferenceOutput] {
        for y in [NormalInput, NormalOutput, ReferenceOutput] {
            assert!(
                matches!(rule(x, y), PairRule::Never | PairRule::Unregistered),
                "{x} x {y}"
            );
        }
    }
    for a in AnchorAttr::ALL {
        assert_eq!(
            a.on_input(),
            AnchorAttr::MARK_ORDER[..6].contains(&a),
            "{a}"
        );
    }
}
