//! One shared copy of each distinct GE type and engine name, per model build.
//!
//! A graph names a few dozen distinct op types and engines over up to a million nodes, and
//! every pass builds a fresh model. So a node holds an [`Interned`] handle (one pointer and
//! a length, like a `&str`) to the copy shared by all nodes of that name, not a heap block
//! of its own: a million small allocations, written afresh per pass, would be most of a
//! node's heap traffic.
//!
//! The copies belong to the models that hold them (reference counted), not to the process:
//! when the last model naming a type is dropped, its text is freed. A long-lived host fed
//! graphs with ever new `type` attributes therefore does not grow, unlike a process-wide
//! table of leaked strings.
//!
//! An [`Interner`] finds the copy of text that stays put for the whole build — MLIR's
//! uniqued strings and the static op table — by its address and length, so the per-op path
//! hashes two words, not the text; other text is found by its contents.

use super::fast_hash::FastMap;
use std::borrow::Borrow;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::Arc;

/// A shared, immutable name (a GE op type or engine). Cheap to clone (a reference count);
/// reads, compares and prints as its text, so `node.ty == "Identity"` works.
///
/// Make one with an [`Interner`] when many nodes share the name (model builders), or with
/// `From<&str>` for the odd inserted node (one small block, freed with the node).
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Interned(Arc<str>);

impl Interned {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `a` and `b` are the same shared copy (not merely equal text).
    pub fn same_copy(a: &Interned, b: &Interned) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    /// A handle that does not keep the text alive: tests use it to check that a dropped
    /// model frees its names.
    pub fn downgrade(&self) -> std::sync::Weak<str> {
        Arc::downgrade(&self.0)
    }
}

impl Deref for Interned {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Interned {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Interned {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Interned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Interned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl PartialEq<str> for Interned {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Interned {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Interned> for str {
    fn eq(&self, other: &Interned) -> bool {
        *self == *other.0
    }
}

impl PartialEq<Interned> for &str {
    fn eq(&self, other: &Interned) -> bool {
        **self == *other.0
    }
}

impl From<&str> for Interned {
    fn from(text: &str) -> Interned {
        Interned(Arc::from(text))
    }
}

impl From<String> for Interned {
    fn from(text: String) -> Interned {
        Interned(Arc::from(text))
    }
}

impl From<Arc<str>> for Interned {
    fn from(text: Arc<str>) -> Interned {
        Interned(text)
    }
}

/// Hands out one [`Interned`] copy per distinct text, for one model build.
///
/// `'t` is the life of the text found by address ([`Interner::of_fixed`]): the borrow
/// checker keeps that text alive and unchanged for as long as the interner, so an address
/// can never come to mean other text. Dropping the interner keeps the copies it handed out
/// (the nodes own them).
#[derive(Default)]
pub struct Interner<'t> {
    /// By the address and length of text that stays put: no hashing of the text per op.
    by_address: FastMap<(usize, usize), Interned>,
    by_text: FastMap<Box<str>, Interned>,
    fixed: PhantomData<&'t str>,
}

impl<'t> Interner<'t> {
    /// The shared copy of `text`, found by its address (text that lives as long as the
    /// interner: an MLIR uniqued string, the static op table).
    pub fn of_fixed(&mut self, text: &'t str) -> Interned {
        let key = (text.as_ptr() as usize, text.len());
        if let Some(s) = self.by_address.get(&key) {
            return s.clone();
        }
        let s = self.of_text(text);
        self.by_address.insert(key, s.clone());
        s
    }

    /// The shared copy of `text`, found by its contents (text built for the lookup).
    pub fn of_text(&mut self, text: &str) -> Interned {
        if let Some(s) = self.by_text.get(text) {
            return s.clone();
        }
        let s = Interned::from(text);
        self.by_text.insert(text.into(), s.clone());
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_text_same_copy_by_address_and_by_text() {
        let table: &'static str = "HcomAllReduce";
        // The same text at another address (a copy the table does not own).
        let elsewhere = String::from(table);
        let mut names = Interner::default();
        let a = names.of_fixed(table);
        let b = names.of_fixed(table);
        let c = names.of_text(&elsewhere);
        let d = names.of_fixed(&elsewhere);
        assert!(Interned::same_copy(&a, &b), "same address, same copy");
        assert!(
            Interned::same_copy(&a, &c),
            "same text by contents, same copy"
        );
        assert!(
            Interned::same_copy(&a, &d),
            "same text at a new address, same copy"
        );
        assert_eq!(a, "HcomAllReduce");
        assert_eq!(a.to_string(), "HcomAllReduce");
        assert_eq!(format!("{a:?}"), "\"HcomAllReduce\"");
    }

    #[test]
    fn distinct_texts_distinct_copies() {
        let mut names = Interner::default();
        let text = "IdentityN";
        // A prefix of the same text: same address, another length.
        let a = names.of_fixed(&text[..8]);
        let b = names.of_fixed(text);
        let c = names.of_text("Identity");
        assert_eq!(a, "Identity");
        assert_eq!(b, "IdentityN");
        assert!(!Interned::same_copy(&a, &b));
        assert_ne!(a, b);
        assert!(Interned::same_copy(&a, &c));
    }

    #[test]
    fn copies_live_as_long_as_their_holders() {
        let mut names = Interner::default();
        let held = names.of_text("RandomType7");
        let weak = held.downgrade();
        drop(names);
        assert_eq!(
            weak.upgrade().as_deref(),
            Some("RandomType7"),
            "the holder keeps it"
        );
        drop(held);
        assert!(weak.upgrade().is_none(), "freed with its last holder");
    }
}
