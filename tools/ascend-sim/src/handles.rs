//! Opaque handles: what the C side holds for a stream, an event, a tensor descriptor, ...
//!
//! A handle is a number, never a pointer into our memory: the top byte says what kind of
//! object it names and the rest is a counter that is never reused, so a destroyed or
//! foreign handle is found out by a map lookup instead of being dereferenced.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::errors::{SimError, SimResult, INVALID_PARAM, RT_INVALID_HANDLE};

pub type Id = u64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Stream = 0x51,
    Event = 0x52,
    Notify = 0x53,
    Label = 0x54,
    LabelList = 0x55,
    Model = 0x56,
    TensorDesc = 0x57,
    DataBuffer = 0x58,
    OpAttr = 0x59,
    Comm = 0x5a,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Stream => "stream",
            Kind::Event => "event",
            Kind::Notify => "notify",
            Kind::Label => "label",
            Kind::LabelList => "label list",
            Kind::Model => "model RI",
            Kind::TensorDesc => "tensor desc",
            Kind::DataBuffer => "data buffer",
            Kind::OpAttr => "op attr",
            Kind::Comm => "HCCL communicator",
        }
    }

    fn from_tag(tag: u8) -> Option<Kind> {
        Some(match tag {
            0x51 => Kind::Stream,
            0x52 => Kind::Event,
            0x53 => Kind::Notify,
            0x54 => Kind::Label,
            0x55 => Kind::LabelList,
            0x56 => Kind::Model,
            0x57 => Kind::TensorDesc,
            0x58 => Kind::DataBuffer,
            0x59 => Kind::OpAttr,
            0x5a => Kind::Comm,
            _ => return None,
        })
    }
}

/// Keys are unique counters: hashing them again is wasted work.
#[derive(Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        // Spread the counter's low bits over the table (Fibonacci hashing).
        self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

pub type IdMap<T> = HashMap<Id, T, BuildHasherDefault<IdHasher>>;

/// Hands out handles of every kind from one counter.
#[derive(Debug, Default)]
pub struct HandleCounter(u64);

impl HandleCounter {
    pub fn next(&mut self, kind: Kind) -> Id {
        self.0 += 1;
        ((kind as u64) << 56) | self.0
    }
}

/// The kind a handle claims to be (by its tag), for messages about a wrong kind.
pub fn kind_of(h: Id) -> Option<Kind> {
    Kind::from_tag((h >> 56) as u8)
}

/// Looks `h` up in `map`, which holds objects of `kind`; `what` names the parameter.
pub fn get<'a, T>(map: &'a IdMap<T>, h: Id, kind: Kind, what: &str) -> SimResult<&'a T> {
    match map.get(&h) {
        Some(v) => Ok(v),
        None => Err(bad_handle(h, kind, what)),
    }
}

pub fn get_mut<'a, T>(
    map: &'a mut IdMap<T>,
    h: Id,
    kind: Kind,
    what: &str,
) -> SimResult<&'a mut T> {
    match map.get_mut(&h) {
        Some(v) => Ok(v),
        None => Err(bad_handle(h, kind, what)),
    }
}

pub fn bad_handle(h: Id, kind: Kind, what: &str) -> SimError {
    if h == 0 {
        return SimError::new(
            INVALID_PARAM,
            format!("{what}: the {} is NULL", kind.name()),
        );
    }
    let msg = match kind_of(h) {
        Some(k) if k == kind => format!("{what}: {} handle {h:#x} was destroyed", kind.name()),
        Some(k) => format!(
            "{what}: handle {h:#x} is a {}, not a {}",
            k.name(),
            kind.name()
        ),
        None => format!("{what}: {h:#x} is not a {} handle", kind.name()),
    };
    SimError::new(RT_INVALID_HANDLE, msg)
}
