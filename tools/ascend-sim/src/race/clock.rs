//! Vector clocks over dense stream indices (index 0 is the host), as in ThreadSanitizer:
//! a task's access is the epoch `(stream, clock)`, and it happens before whatever later
//! holds a clock whose component for that stream is at least `clock`.

/// A vector clock; components past the end are 0 (streams created later).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VClock(Vec<u32>);

impl VClock {
    pub fn get(&self, i: u32) -> u32 {
        self.0.get(i as usize).copied().unwrap_or(0)
    }

    pub fn set(&mut self, i: u32, v: u32) {
        let i = i as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        self.0[i] = v;
    }

    /// Advances component `i` (a new task of stream `i`) and returns its new value.
    pub fn tick(&mut self, i: u32) -> u32 {
        let v = self.get(i) + 1;
        self.set(i, v);
        v
    }

    /// Pointwise maximum: everything `other` knows, this now knows.
    pub fn join(&mut self, other: &VClock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a = (*a).max(*b);
        }
    }

    /// Whether the access `(stream, clock)` happens before the holder of this clock.
    pub fn knows(&self, stream: u32, clock: u32) -> bool {
        self.get(stream) >= clock
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_tick_and_knows() {
        let mut a = VClock::default();
        let mut b = VClock::default();
        assert_eq!(a.tick(1), 1);
        assert_eq!(a.tick(1), 2);
        b.tick(3);
        assert!(!b.knows(1, 1), "b never synchronised with stream 1");
        b.join(&a);
        assert!(b.knows(1, 2) && b.knows(1, 1) && !b.knows(1, 3));
        assert!(b.knows(3, 1));
        assert!(!a.knows(3, 1), "join is one-way");
        assert_eq!(a.get(100), 0);
    }
}
