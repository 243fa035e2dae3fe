//! The 14 anchor attributes of the layout pass (notes B.19, GE `AnchorAttribute`) and the
//! rules that mark them (GE `MarkInTypes` / `MarkOutTypes`).

use std::fmt;

/// One memory constraint of an anchor, in GE's enum order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[repr(u8)]
pub enum AnchorAttr {
    /// Output of a Data-like node of the graph being checked: the user's input buffer.
    UserMemoryInput = 0,
    /// Input of that graph's NetOutput: the user's output buffer.
    UserMemoryOutput,
    /// Output of a Const-like or Variable node: an address that never moves.
    ImmutableAddressOutput,
    /// Output of a node that cannot refresh its IO addresses.
    UnsupportedAddressRefreshOutput,
    /// Input of a node that cannot refresh its IO addresses.
    UnsupportedAddressRefreshInput,
    /// Input of a `continuous_input` node (with more than one input).
    ContinuousInput,
    /// Output of a `continuous_output` node (with more than one output).
    ContinuousOutput,
    /// Input of a `_no_padding_continuous_input` node (with more than one input).
    NopaddingContinuousInput,
    /// Output of a `_no_padding_continuous_output` node (with more than one output).
    NopaddingContinuousOutput,
    /// Input whose `_input_memory_type` is special (P2P, TS, ...).
    RtsSpecialTypeInput,
    /// Output whose `_output_memory_type` is special.
    RtsSpecialTypeOutput,
    /// Output that shares an input's or a variable's memory: never in conflict.
    ReferenceOutput,
    /// An input with none of the above.
    NormalInput,
    /// An output with none of the above.
    NormalOutput,
}

/// Number of anchor attributes.
pub const ATTR_COUNT: usize = 14;

impl AnchorAttr {
    /// All attributes, in enum order.
    pub const ALL: [AnchorAttr; ATTR_COUNT] = [
        AnchorAttr::UserMemoryInput,
        AnchorAttr::UserMemoryOutput,
        AnchorAttr::ImmutableAddressOutput,
        AnchorAttr::UnsupportedAddressRefreshOutput,
        AnchorAttr::UnsupportedAddressRefreshInput,
        AnchorAttr::ContinuousInput,
        AnchorAttr::ContinuousOutput,
        AnchorAttr::NopaddingContinuousInput,
        AnchorAttr::NopaddingContinuousOutput,
        AnchorAttr::RtsSpecialTypeInput,
        AnchorAttr::RtsSpecialTypeOutput,
        AnchorAttr::ReferenceOutput,
        AnchorAttr::NormalInput,
        AnchorAttr::NormalOutput,
    ];

    /// The order GE pushes the attributes of one anchor into its type vector (inputs:
    /// user output, unrefreshable, no-padding, continuous, RTS special, else normal;
    /// outputs: user input, immutable, unrefreshable, no-padding, continuous, reference,
    /// RTS special, else normal). Pairs are checked in this order.
    pub const MARK_ORDER: [AnchorAttr; ATTR_COUNT] = [
        AnchorAttr::UserMemoryOutput,
        AnchorAttr::UnsupportedAddressRefreshInput,
        AnchorAttr::NopaddingContinuousInput,
        AnchorAttr::ContinuousInput,
        AnchorAttr::RtsSpecialTypeInput,
        AnchorAttr::NormalInput,
        AnchorAttr::UserMemoryInput,
        AnchorAttr::ImmutableAddressOutput,
        AnchorAttr::UnsupportedAddressRefreshOutput,
        AnchorAttr::NopaddingContinuousOutput,
        AnchorAttr::ContinuousOutput,
        AnchorAttr::ReferenceOutput,
        AnchorAttr::RtsSpecialTypeOutput,
        AnchorAttr::NormalOutput,
    ];

    /// GE's name (`ANCHOR_ATTR_` dropped), used in reasons and remarks.
    pub fn name(self) -> &'static str {
        use AnchorAttr::*;
        match self {
            UserMemoryInput => "USER_MEMORY_INPUT",
            UserMemoryOutput => "USER_MEMORY_OUTPUT",
            ImmutableAddressOutput => "IMMUTABLE_ADDRESS_OUTPUT",
            UnsupportedAddressRefreshOutput => "UNSUPPORTED_ADDRESS_REFRESH_OPERATOR_OUTPUT",
            UnsupportedAddressRefreshInput => "UNSUPPORTED_ADDRESS_REFRESH_OPERATOR_INPUT",
            ContinuousInput => "CONTINUOUS_INPUT",
            ContinuousOutput => "CONTINUOUS_OUTPUT",
            NopaddingContinuousInput => "NOPADDING_CONTINUOUS_INPUT",
            NopaddingContinuousOutput => "NOPADDING_CONTINUOUS_OUTPUT",
            RtsSpecialTypeInput => "RTS_SPECIAL_TYPE_INPUT",
            RtsSpecialTypeOutput => "RTS_SPECIAL_TYPE_OUTPUT",
            ReferenceOutput => "REFERENCE_OUTPUT",
            NormalInput => "NORMAL_INPUT",
            NormalOutput => "NORMAL_OUTPUT",
        }
    }

    /// Whether the attribute is ever marked on an input anchor.
    pub fn on_input(self) -> bool {
        use AnchorAttr::*;
        matches!(
            self,
            UserMemoryOutput
                | UnsupportedAddressRefreshInput
                | ContinuousInput
                | NopaddingContinuousInput
                | RtsSpecialTypeInput
                | NormalInput
        )
    }
}

impl fmt::Display for AnchorAttr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The attributes of one anchor: a bit set, iterated in [`AnchorAttr::MARK_ORDER`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct AttrSet(u16);

impl AttrSet {
    pub fn insert(&mut self, a: AnchorAttr) {
        self.0 |= 1 << a as u16;
    }

    pub fn contains(self, a: AnchorAttr) -> bool {
        self.0 & (1 << a as u16) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The attributes in GE's type-vector order.
    pub fn iter(self) -> impl Iterator<Item = AnchorAttr> {
        AnchorAttr::MARK_ORDER
            .into_iter()
            .filter(move |&a| self.contains(a))
    }

    /// Whether no pair with this anchor can ever conflict: only normal and reference
    /// attributes (normal x normal has no rule, reference never conflicts).
    pub fn is_inert(self) -> bool {
        let inert = (1 << AnchorAttr::NormalInput as u16)
            | (1 << AnchorAttr::NormalOutput as u16)
            | (1 << AnchorAttr::ReferenceOutput as u16);
        self.0 & !inert == 0
    }

    pub fn of(attrs: &[AnchorAttr]) -> AttrSet {
        let mut s = AttrSet::default();
        for &a in attrs {
            s.insert(a);
        }
        s
    }
}

impl fmt::Display for AttrSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.iter().map(AnchorAttr::name).collect();
        write!(f, "[{}]", names.join(", "))
    }
}
