//! The one symmetric 14 x 14 table of the layout pass (notes B.19): for every pair of anchor
//! attributes, whether two anchors of one symbol carrying them never conflict, always
//! conflict, are decided by a registered checker, or have no rule (no conflict).
//!
//! GE keeps three structures (the never set, the always set, the checker registry, with
//! `REGISTER_FUNC` writing both `[a][b]` and `[b][a]`) and consults them in that order; here
//! they are one table, built by the same registrations in the same precedence (a later
//! class overrides an earlier one: checkers, then always, then never), and a unit test
//! checks that no registration is shadowed.

use super::attrs::{AnchorAttr, ATTR_COUNT};

/// Declares [`Checker`] from one list of `Variant => "spec name"` rows: the enum, the
/// list of all checkers and the names cannot drift apart.
macro_rules! checkers {
    ($($variant:ident => $name:literal,)*) => {
        /// GE's 22 checker functions, one per file of `checker/funcs/`, named as the spec
        /// names them ([`Checker::name`]).
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum Checker {
            $($variant,)*
        }

        impl Checker {
            /// All checkers, in the spec's order.
            pub const ALL: &'static [Checker] = &[$(Checker::$variant,)*];

            /// The spec's name (GE's file name in `checker/funcs/`, typos included).
            pub fn name(self) -> &'static str {
                match self {
                    $(Checker::$variant => $name,)*
                }
            }
        }
    };
}

checkers! {
    ContinuousInputAndContinuousInput => "continuous_input_and_continuous_input",
    ContinuousOutputAndContinuousInput => "continuous_output_and_continuous_input",
    ContinuousOutAndContinuousOut => "continuous_out_and_continuous_out",
    ContinuousInOutAndRtsSpecialMemInOut => "continuous_in_out_and_rts_special_mem_in_out",
    UserInAndContinuousInOut => "user_in_and_continuous_in_out_checker",
    UserInAndUnrefreshOut => "user_in_and_unrefresh_out_checker",
    UserInAndRtsSpecialOut => "user_in_and_rts_special_out_checker",
    UserOutAndUnrefreshOut => "user_out_and_unrefresh_out_checker",
    UserOutAndUnrefreshIn => "user_out_and_unrefresh_in_checker",
    UserOutAndImmutableOut => "user_out_and_immutable_out_checker",
    UserOutAndContinuousInput => "user_out_and_continuous_input",
    ImmutableOutAndRtsSpecialOut => "immutable_out_and_rts_specail_out_checker",
    ImmutableOutAndNopaddingContinuousIn => "immutable_out_and_nopadding_continuous_in_checker",
    ImmutableOutAndContinuousOut => "immutable_out_and_continuous_out_checker",
    NopaddingContinuousInputAndNopaddingContinuousInput => "nopadding_continuous_input_and_nopadding_continuous_input",
    NopaddingContinuousInputAndNopaddingContinuousOut => "nopadding_continuous_input_and_nopadding_continuous_out",
    NopaddingContinuousOutAndNopaddingContinuousOut => "nopadding_continuous_out_and_nopadding_continuous_out",
    RtsSpecialInAndRtsSpecialIn => "rts_special_in_and_rts_special_in_checker",
    RtsSpecialInAndRtsSpecialOut => "rts_special_in_and_rts_special_out_checker",
    RtsSpecialOutAndRtsSpecialOut => "rts_special_out_and_rts_special_out_checker",
    UnrefreshIn => "unrefresh_in_checker",
    UnrefreshOut => "unrefresh_out_checker",
}

/// How a pair of attributes is decided.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PairRule {
    /// Never a conflict (GE's absolute no-conflict set, and anything with REFERENCE_OUTPUT).
    Never,
    /// Always a conflict, resolved by GE's fixed rule (isolate an input).
    Always,
    /// Decided by a checker; `per_symbol`: called once per symbol (GE `CallAsSymbol`), not
    /// once per anchor pair.
    Check { checker: Checker, per_symbol: bool },
    /// No rule registered: no conflict.
    Unregistered,
}

/// The table, indexed `[a as usize][b as usize]`; symmetric.
pub static TABLE: [[PairRule; ATTR_COUNT]; ATTR_COUNT] = build();

/// The rule for a pair of attributes.
pub fn rule(a: AnchorAttr, b: AnchorAttr) -> PairRule {
    TABLE[a as usize][b as usize]
}

const fn set(
    t: &mut [[PairRule; ATTR_COUNT]; ATTR_COUNT],
    a: AnchorAttr,
    b: AnchorAttr,
    r: PairRule,
) {
    t[a as usize][b as usize] = r;
    t[b as usize][a as usize] = r;
}

const fn check(
    t: &mut [[PairRule; ATTR_COUNT]; ATTR_COUNT],
    a: AnchorAttr,
    b: AnchorAttr,
    checker: Checker,
) {
    set(
        t,
        a,
        b,
        PairRule::Check {
            checker,
            per_symbol: false,
        },
    );
}

const fn check_per_symbol(
    t: &mut [[PairRule; ATTR_COUNT]; ATTR_COUNT],
    a: AnchorAttr,
    b: AnchorAttr,
    checker: Checker,
) {
    set(
        t,
        a,
        b,
        PairRule::Check {
            checker,
            per_symbol: true,
        },
    );
}

/// The registrations of GE's 22 checker files, then its absolute conflict set, then its
/// absolute no-conflict set (and REFERENCE_OUTPUT with anything).
const fn build() -> [[PairRule; ATTR_COUNT]; ATTR_COUNT] {
    use AnchorAttr::*;
    use Checker as C;
    let mut t = [[PairRule::Unregistered; ATTR_COUNT]; ATTR_COUNT];

    // unrefresh_in_checker
    let unrefresh_in_peers = [
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
    ];
    let mut i = 0;
    while i < unrefresh_in_peers.len() {
        check(
            &mut t,
            UnsupportedAddressRefreshInput,
            unrefresh_in_peers[i],
            C::UnrefreshIn,
        );
        i += 1;
    }
    // unrefresh_out_checker (GE lists no UNREFRESH_INPUT here: that pair is the input's)
    let unrefresh_out_peers = [
        ImmutableAddressOutput,
        UnsupportedAddressRefreshOutput,
        ContinuousInput,
        ContinuousOutput,
        NopaddingContinuousInput,
        NopaddingContinuousOutput,
        RtsSpecialTypeOutput,
        RtsSpecialTypeInput,
        NormalInput,
        NormalOutput,
    ];
    let mut i = 0;
    while i < unrefresh_out_peers.len() {
        check(
            &mut t,
            UnsupportedAddressRefreshOutput,
            unrefresh_out_peers[i],
            C::UnrefreshOut,
        );
        i += 1;
    }
    check(
        &mut t,
        UserMemoryOutput,
        UnsupportedAddressRefreshOutput,
        C::UserOutAndUnrefreshOut,
    );
    check(
        &mut t,
        UserMemoryInput,
        RtsSpecialTypeOutput,
        C::UserInAndRtsSpecialOut,
    );
    check(
        &mut t,
        UserMemoryInput,
        ContinuousOutput,
        C::UserInAndContinuousInOut,
    );
    check(
        &mut t,
        UserMemoryInput,
        NopaddingContinuousOutput,
        C::UserInAndContinuousInOut,
    );
    check(
        &mut t,
        UserMemoryInput,
        ContinuousInput,
        C::UserInAndContinuousInOut,
    );
    check(
        &mut t,
        UserMemoryInput,
        NopaddingContinuousInput,
        C::UserInAndContinuousInOut,
    );
    check(
        &mut t,
        UserMemoryInput,
        UnsupportedAddressRefreshOutput,
        C::UserInAndUnrefreshOut,
    );
    check(
        &mut t,
        UserMemoryOutput,
        ContinuousInput,
        C::UserOutAndContinuousInput,
    );
    check(
        &mut t,
        UserMemoryOutput,
        NopaddingContinuousInput,
        C::UserOutAndContinuousInput,
    );
    check(
        &mut t,
        UserMemoryOutput,
        UnsupportedAddressRefreshInput,
        C::UserOutAndUnrefreshIn,
    );
    check(
        &mut t,
        UserMemoryOutput,
        ImmutableAddressOutput,
        C::UserOutAndImmutableOut,
    );
    check(
        &mut t,
        ImmutableAddressOutput,
        ContinuousOutput,
        C::ImmutableOutAndContinuousOut,
    );
    check(
        &mut t,
        ImmutableAddressOutput,
        NopaddingContinuousOutput,
        C::ImmutableOutAndContinuousOut,
    );
    check(
        &mut t,
        ImmutableAddressOutput,
        NopaddingContinuousInput,
        C::ImmutableOutAndNopaddingContinuousIn,
    );
    check(
        &mut t,
        ImmutableAddressOutput,
        RtsSpecialTypeOutput,
        C::ImmutableOutAndRtsSpecialOut,
    );
    check_per_symbol(
        &mut t,
        ContinuousInput,
        ContinuousInput,
        C::ContinuousInputAndContinuousInput,
    );
    check_per_symbol(
        &mut t,
        ContinuousInput,
        NopaddingContinuousInput,
        C::ContinuousInputAndContinuousInput,
    );
    check(
        &mut t,
        ContinuousInput,
        ContinuousOutput,
        C::ContinuousOutputAndContinuousInput,
    );
    check_per_symbol(
        &mut t,
        ContinuousOutput,
        ContinuousOutput,
        C::ContinuousOutAndContinuousOut,
    );
    check_per_symbol(
        &mut t,
        ContinuousOutput,
        NopaddingContinuousOutput,
        C::ContinuousOutAndContinuousOut,
    );
    check_per_symbol(
        &mut t,
        NopaddingContinuousInput,
        NopaddingContinuousInput,
        C::NopaddingContinuousInputAndNopaddingContinuousInput,
    );
    check(
        &mut t,
        NopaddingContinuousInput,
        NopaddingContinuousOutput,
        C::NopaddingContinuousInputAndNopaddingContinuousOut,
    );
    check_per_symbol(
        &mut t,
        NopaddingContinuousOutput,
        NopaddingContinuousOutput,
        C::NopaddingContinuousOutAndNopaddingContinuousOut,
    );
    let continuous = [
        ContinuousInput,
        ContinuousOutput,
        NopaddingContinuousInput,
        NopaddingContinuousOutput,
    ];
    let mut i = 0;
    while i < continuous.len() {
        check(
            &mut t,
            continuous[i],
            RtsSpecialTypeInput,
            C::ContinuousInOutAndRtsSpecialMemInOut,
        );
        check(
            &mut t,
            continuous[i],
            RtsSpecialTypeOutput,
            C::ContinuousInOutAndRtsSpecialMemInOut,
        );
        i += 1;
    }
    check(
        &mut t,
        RtsSpecialTypeInput,
        RtsSpecialTypeInput,
        C::RtsSpecialInAndRtsSpecialIn,
    );
    check(
        &mut t,
        RtsSpecialTypeInput,
        RtsSpecialTypeOutput,
        C::RtsSpecialInAndRtsSpecialOut,
    );
    check(
        &mut t,
        RtsSpecialTypeOutput,
        RtsSpecialTypeOutput,
        C::RtsSpecialOutAndRtsSpecialOut,
    );

    // Absolute conflicts (GE RegAllAbsoluteConflict).
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
    let mut i = 0;
    while i < always.len() {
        set(&mut t, always[i].0, always[i].1, PairRule::Always);
        i += 1;
    }

    // Never a conflict (GE RegAllAbsoluteNoConflict, kNoConflictTypes).
    set(&mut t, RtsSpecialTypeInput, NormalOutput, PairRule::Never);
    set(&mut t, UserMemoryOutput, UserMemoryOutput, PairRule::Never);
    set(&mut t, UserMemoryInput, UserMemoryOutput, PairRule::Never);
    let mut i = 0;
    while i < ATTR_COUNT {
        set(&mut t, ReferenceOutput, AnchorAttr::ALL[i], PairRule::Never);
        i += 1;
    }
    t
}

/// The always-conflict pairs (each once), for tests and documentation.
pub fn always_pairs() -> Vec<(AnchorAttr, AnchorAttr)> {
    pairs_where(|r| r == PairRule::Always)
}

/// The never-conflict pairs (each once).
pub fn never_pairs() -> Vec<(AnchorAttr, AnchorAttr)> {
    pairs_where(|r| r == PairRule::Never)
}

/// Every unordered pair whose rule satisfies `f`, `a <= b`.
pub fn pairs_where(f: impl Fn(PairRule) -> bool) -> Vec<(AnchorAttr, AnchorAttr)> {
    let mut out = Vec::new();
    for (i, &a) in AnchorAttr::ALL.iter().enumerate() {
        for &b in &AnchorAttr::ALL[i..] {
            if f(rule(a, b)) {
                out.push((a, b));
            }
        }
    }
    out
}
