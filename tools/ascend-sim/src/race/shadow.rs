//! Shadow memory: for every byte range of device memory, its last writer and the latest
//! reader of each stream since that write. Kept as an interval map (start -> segment), so
//! a whole tensor written by one task is one entry however large it is, and a model with
//! 100k tasks costs about one entry per live tensor.

use std::collections::BTreeMap;

use smallvec::SmallVec;

use super::clock::VClock;

/// One task's access: its stream index, its clock on that stream, and its task record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    pub stream: u32,
    pub clock: u32,
    pub task: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Segment {
    end: u64,
    /// `None`: never written since it was allocated.
    writer: Option<Access>,
    /// The latest read of each stream since the last write (a later read of a stream
    /// implies its earlier ones, by stream order).
    readers: SmallVec<[Access; 2]>,
}

/// An unordered pair (or a read of unwritten bytes) found by an access.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conflict {
    ReadAfterWrite { earlier: Access, lo: u64, hi: u64 },
    WriteAfterRead { earlier: Access, lo: u64, hi: u64 },
    WriteAfterWrite { earlier: Access, lo: u64, hi: u64 },
    Uninitialised { lo: u64, hi: u64 },
}

#[derive(Debug, Default)]
pub struct Shadow {
    segs: BTreeMap<u64, Segment>,
}

impl Shadow {
    /// A fresh allocation: its bytes are unwritten.
    pub fn allocate(&mut self, base: u64, len: u64) {
        if len == 0 {
            return;
        }
        self.remove(base, base + len);
        self.segs.insert(
            base,
            Segment {
                end: base + len,
                writer: None,
                readers: SmallVec::new(),
            },
        );
    }

    /// Forgets `[lo, hi)` (a free).
    pub fn remove(&mut self, lo: u64, hi: u64) {
        self.split(lo);
        self.split(hi);
        let keys: Vec<u64> = self.segs.range(lo..hi).map(|(&k, _)| k).collect();
        for k in keys {
            self.segs.remove(&k);
        }
    }

    /// Whether any byte of `[lo, hi)` is tracked.
    pub fn covers_any(&self, lo: u64, hi: u64) -> bool {
        self.segs
            .range(..hi)
            .next_back()
            .is_some_and(|(_, s)| s.end > lo)
    }

    pub fn segments(&self) -> usize {
        self.segs.len()
    }

    /// Makes `at` a segment boundary.
    fn split(&mut self, at: u64) {
        let Some((&start, seg)) = self.segs.range(..at).next_back() else {
            return;
        };
        if seg.end > at {
            let mut tail = seg.clone();
            let seg = self.segs.get_mut(&start).expect("found above");
            tail.end = seg.end;
            seg.end = at;
            self.segs.insert(at, tail);
        }
    }

    /// A read of `[lo, hi)` by `acc`, whose stream's clock is `vc`.
    pub fn read(&mut self, lo: u64, hi: u64, acc: Access, vc: &VClock, out: &mut Vec<Conflict>) {
        if hi <= lo {
            return;
        }
        self.split(lo);
        self.split(hi);
        for (&start, seg) in self.segs.range_mut(lo..hi) {
            match seg.writer {
                None => out.push(Conflict::Uninitialised {
                    lo: start,
                    hi: seg.end,
                }),
                Some(w) if w.stream != acc.stream && !vc.knows(w.stream, w.clock) => {
                    out.push(Conflict::ReadAfterWrite {
                        earlier: w,
                        lo: start,
                        hi: seg.end,
                    })
                }
                Some(_) => {}
            }
            match seg.readers.iter_mut().find(|r| r.stream == acc.stream) {
                Some(r) => *r = acc,
                None => seg.readers.push(acc),
            }
        }
        self.merge_around(lo, hi);
    }

    /// A write of `[lo, hi)` by `acc`.
    pub fn write(&mut self, lo: u64, hi: u64, acc: Access, vc: &VClock, out: &mut Vec<Conflict>) {
        if hi <= lo {
            return;
        }
        self.split(lo);
        self.split(hi);
        let mut keys = Vec::new();
        for (&start, seg) in self.segs.range(lo..hi) {
            keys.push(start);
            if let Some(w) = seg.writer {
                if w.stream != acc.stream && !vc.knows(w.stream, w.clock) {
                    out.push(Conflict::WriteAfterWrite {
                        earlier: w,
                        lo: start,
                        hi: seg.end,
                    });
                }
            }
            for r in &seg.readers {
                if r.stream != acc.stream && !vc.knows(r.stream, r.clock) {
                    out.push(Conflict::WriteAfterRead {
                        earlier: *r,
                        lo: start,
                        hi: seg.end,
                    });
                }
            }
        }
        // Only tracked bytes become written: an access outside every allocation is the
        // memory model's error, not shadow state.
        let mut covered = Vec::new();
        for k in keys {
            if let Some(s) = self.segs.remove(&k) {
                covered.push((k, s.end));
            }
        }
        for (a, b) in merge_ranges(covered) {
            self.segs.insert(
                a,
                Segment {
                    end: b,
                    writer: Some(acc),
                    readers: SmallVec::new(),
                },
            );
        }
        self.merge_around(lo, hi);
    }

    /// Joins equal neighbours at the edges of `[lo, hi)`, keeping the map small.
    fn merge_around(&mut self, lo: u64, hi: u64) {
        for at in [lo, hi] {
            let Some((&a, left)) = self.segs.range(..at).next_back() else {
                continue;
            };
            if left.end != at {
                continue;
            }
            let Some(right) = self.segs.get(&at) else {
                continue;
            };
            if left.writer == right.writer && left.readers == right.readers {
                let end = right.end;
                self.segs.remove(&at);
                self.segs.get_mut(&a).expect("found above").end = end;
            }
        }
    }
}

fn merge_ranges(mut r: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    r.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (a, b) in r {
        match out.last_mut() {
            Some(last) if last.1 == a => last.1 = b,
            _ => out.push((a, b)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(stream: u32, clock: u32) -> Access {
        Access {
            stream,
            clock,
            task: 0,
        }
    }

    #[test]
    fn unordered_pairs_are_found_and_ordered_ones_are_not() {
        let mut sh = Shadow::default();
        sh.allocate(0, 1024);
        let mut out = Vec::new();
        let mut vc1 = VClock::default();
        vc1.set(1, 1);
        sh.write(0, 512, acc(1, 1), &vc1, &mut out);
        assert!(out.is_empty());
        // Stream 2 reads without knowing stream 1's write: RAW; the tail is unwritten.
        let mut vc2 = VClock::default();
        vc2.set(2, 1);
        sh.read(256, 768, acc(2, 1), &vc2, &mut out);
        assert_eq!(
            out,
            vec![
                Conflict::ReadAfterWrite {
                    earlier: acc(1, 1),
                    lo: 256,
                    hi: 512
                },
                Conflict::Uninitialised { lo: 512, hi: 768 }
            ]
        );
        out.clear();
        // After a join it is ordered.
        vc2.join(&vc1);
        vc2.set(2, 2);
        sh.read(0, 512, acc(2, 2), &vc2, &mut out);
        assert!(out.is_empty());
        // Stream 1 overwrites without knowing stream 2's reads: WAR.
        vc1.set(1, 2);
        sh.write(0, 128, acc(1, 2), &vc1, &mut out);
        assert_eq!(
            out,
            vec![Conflict::WriteAfterRead {
                earlier: acc(2, 2),
                lo: 0,
                hi: 128
            }]
        );
        out.clear();
        // Stream 3 writes without any knowledge: WAW with stream 1.
        let mut vc3 = VClock::default();
        vc3.set(3, 1);
        vc3.set(2, 2);
        sh.write(0, 64, acc(3, 1), &vc3, &mut out);
        assert_eq!(
            out,
            vec![Conflict::WriteAfterWrite {
                earlier: acc(1, 2),
                lo: 0,
                hi: 64
            }]
        );
    }

    #[test]
    fn repeated_whole_tensor_writes_stay_one_segment() {
        let mut sh = Shadow::default();
        sh.allocate(0, 1 << 20);
        let mut out = Vec::new();
        let mut vc = VClock::default();
        for i in 1..1000u32 {
            vc.set(1, i);
            let lo = u64::from(i % 16) * 4096;
            sh.write(lo, lo + 4096, acc(1, i), &vc, &mut out);
            sh.read(lo, lo + 4096, acc(1, i), &vc, &mut out);
        }
        assert!(out
            .iter()
            .all(|c| !matches!(c, Conflict::ReadAfterWrite { .. })));
        assert!(sh.segments() <= 18, "{}", sh.segments());
        sh.remove(0, 1 << 20);
        assert_eq!(sh.segments(), 0);
        assert!(!sh.covers_any(0, 10));
    }
}
