//! Per-node lists that most nodes never use.
//!
//! A `Vec<Vec<T>>` with an entry per node writes 24 bytes of fresh memory per node before
//! the first list is filled; on a million-op graph that is tens of megabytes of pages
//! touched for nothing (on a VM each first touch of a page is a host fault). Here a node
//! holds a slot number, 0 for "no list", in a zeroed table whose pages stay untouched
//! until a list is made, and only the lists in use are allocated.

/// A list per index, allocated only for the indices that get an entry.
#[derive(Clone, Debug, Default)]
pub(crate) struct SparseLists<T> {
    slot: Vec<u32>,
    /// `lists[0]` stays empty: what an index without a list reads.
    lists: Vec<Vec<T>>,
    /// Slots of released lists (emptied, their buffers kept), for reuse.
    free: Vec<u32>,
}

impl<T> SparseLists<T> {
    /// Empty lists for indices `0..len`.
    pub(crate) fn new(len: usize) -> Self {
        SparseLists {
            slot: vec![0; len],
            lists: vec![Vec::new()],
            free: Vec::new(),
        }
    }

    pub(crate) fn get(&self, i: usize) -> &[T] {
        &self.lists[self.slot[i] as usize]
    }

    fn slot_of(&mut self, i: usize) -> usize {
        let s = self.slot[i] as usize;
        if s != 0 {
            return s;
        }
        let s = match self.free.pop() {
            Some(s) => s as usize,
            None => {
                self.lists.push(Vec::new());
                self.lists.len() - 1
            }
        };
        self.slot[i] = u32::try_from(s).expect("fewer lists than u32::MAX");
        s
    }

    pub(crate) fn push(&mut self, i: usize, v: T) {
        let s = self.slot_of(i);
        self.lists[s].push(v);
    }

    /// Keeps the entries of `i`'s list that `keep` accepts.
    pub(crate) fn retain(&mut self, i: usize, keep: impl FnMut(&T) -> bool) {
        let s = self.slot[i] as usize;
        if s != 0 {
            self.lists[s].retain(keep);
        }
    }

    /// Takes `i`'s list out, leaving it empty.
    pub(crate) fn take(&mut self, i: usize) -> Vec<T> {
        match self.slot[i] as usize {
            0 => Vec::new(),
            s => std::mem::take(&mut self.lists[s]),
        }
    }

    /// Makes `list` `i`'s list (after a [`Self::take`]).
    pub(crate) fn put(&mut self, i: usize, list: Vec<T>) {
        if list.capacity() == 0 && self.slot[i] == 0 {
            return;
        }
        let s = self.slot_of(i);
        self.lists[s] = list;
    }

    /// Drops `i`'s list for good (a merged-away cluster, say): its slot and buffer serve
    /// the next index that needs one, so the lists in use stay about as many as the
    /// indices alive at a time, not one per index ever touched.
    pub(crate) fn release(&mut self, i: usize) {
        let s = std::mem::take(&mut self.slot[i]);
        if s != 0 {
            self.lists[s as usize].clear();
            self.free.push(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SparseLists;

    #[test]
    fn lists_are_made_on_first_push_and_slots_are_reused_after_release() {
        let mut l: SparseLists<u32> = SparseLists::new(4);
        assert!(l.get(2).is_empty());
        l.push(2, 7);
        l.push(2, 8);
        l.push(0, 1);
        assert_eq!(l.get(2), &[7, 8]);
        assert_eq!(l.get(0), &[1]);
        l.retain(2, |&v| v != 7);
        assert_eq!(l.get(2), &[8]);
        let taken = l.take(2);
        assert!(l.get(2).is_empty());
        l.put(2, taken);
        assert_eq!(l.get(2), &[8]);
        l.release(2);
        assert!(l.get(2).is_empty());
        l.push(3, 5);
        assert_eq!(l.get(3), &[5]);
        assert!(l.get(2).is_empty());
        // The released slot served index 3: no third list was made.
        assert_eq!(l.lists.len(), 3);
    }
}
