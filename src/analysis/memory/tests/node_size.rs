//! A model holds one [`Node`] per op and every memory pass builds a model, so at a million
//! ops each byte of a node is a megabyte of fresh pages per pass: its size only shrinks.

use crate::analysis::memory::model::Node;

/// The size of a node when the type became a shared [`Interned`] handle (it was a leaked
/// `&'static str` before, of the same size).
///
/// [`Interned`]: crate::analysis::interner::Interned
const NODE_BYTES: usize = 208;

#[test]
fn a_node_does_not_grow() {
    let size = std::mem::size_of::<Node>();
    assert!(
        size <= NODE_BYTES,
        "memory model Node grew to {size} bytes (was {NODE_BYTES})"
    );
}
