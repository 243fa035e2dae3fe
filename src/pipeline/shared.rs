//! Models handed from one pass to the next: MLIR's analysis-manager idea for our passes.
//!
//! Every pass turns the IR into a model before it decides (the frozen-model design), and
//! reading a 100k-op module costs a pass about as much as its decisions. Consecutive passes
//! that work on the same kind of model can skip that: a pass that leaves its model exactly
//! what reading the IR back would give *keeps* it, and the pass right after it *takes* it
//! instead of reading the IR. Each pass stays a pass of its own (registered, runnable
//! alone, with its own timing, statistics and IR dumps); alone, or after a step that is not
//! one of ours, it reads the IR as before.
//!
//! A [`ModelShare`] is what a pass instance knows of its neighbours, fixed when the
//! pipeline is built ([`super::Pipeline::add_to`]): its step number in a chain of
//! consecutive steps of ours, whether the step before it is one of ours (only then may it
//! take), and whether the step after it is (only then is keeping worth the memory). Upstream
//! passes and nested pipelines break a chain, since they can change the IR behind the
//! model's back. Between two of our passes MLIR runs only its verifier and instrumentation
//! (timing, IR printing), which leave the IR alone.
//!
//! One slot per chain holds at most one model, tagged with the step that kept it. Every
//! pass of a chain empties the slot of anything not kept by the step just before it before
//! it runs, and of anything it did not keep itself after it ran, so a model never skips a
//! pass (one that does not take part drops it), never survives into the next input of
//! `--split-input-file`, and a failed pass leaves nothing behind. A pass that takes a model
//! still checks it against the IR it finds (see the memory model's `reattach`), and reads
//! the IR when they differ.
//!
//! Slots are per thread: our passes run on the module, on the thread that runs the pass
//! manager, and the models are not `Send`. A pass run elsewhere finds nothing and reads the
//! IR.
//!
//! The same chains decide where MLIR verifies the IR (`--verify-each`): once, after the
//! last pass of a chain, instead of after each pass of it (`ModelShare::verify_at_chain_end`).
//! A pass of the chain that changed the IR tells MLIR it did not (it preserved all
//! analyses), so the verifier is skipped, and notes that the chain has unverified changes;
//! the chain's last pass then reports a change whatever it did, so MLIR verifies the
//! module and drops every analysis it holds. The passes in between are ours and use no MLIR
//! analysis; they only read what the passes before them wrote. A verification is a walk of
//! the whole module that asks MLIR's attribute uniquer for every op's discardable
//! attributes again, about a tenth of parsing the module each time. Upstream steps and
//! nested pipelines end a chain, so MLIR verifies before any of them runs.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// What one pass instance may take from the step before it and keep for the step after it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModelShare {
    /// The chain (0: none, the pass shares nothing).
    chain: u64,
    /// This pass's position in its chain.
    step: u32,
    /// The step before is one of ours: a model it kept may be taken.
    from_previous: bool,
    /// The step after is one of ours: a model kept now may be taken by it.
    to_next: bool,
}

/// A kept model and the step that kept it.
type KeptModel = (u32, Box<dyn Any>);

thread_local! {
    /// chain -> (the step that kept the model, the model).
    static SLOTS: RefCell<HashMap<u64, KeptModel>> = RefCell::new(HashMap::new());
    /// The chain whose passes so far changed the IR without MLIR verifying it (0: none).
    static UNVERIFIED: Cell<u64> = const { Cell::new(0) };
}

static NEXT_CHAIN: AtomicU64 = AtomicU64::new(1);

impl ModelShare {
    /// A pass that shares nothing (run alone, or from a unit test).
    pub const NONE: ModelShare = ModelShare {
        chain: 0,
        step: 0,
        from_previous: false,
        to_next: false,
    };

    /// A fresh chain id, one per run of consecutive steps of ours.
    pub(super) fn new_chain() -> u64 {
        NEXT_CHAIN.fetch_add(1, Ordering::Relaxed)
    }

    /// Step `step` of `chain`, with what its neighbours are.
    pub(super) fn link(chain: u64, step: u32, from_previous: bool, to_next: bool) -> Self {
        ModelShare {
            chain,
            step,
            from_previous,
            to_next,
        }
    }

    /// Whether the step after this one may take what this one keeps.
    pub fn feeds_next(&self) -> bool {
        self.chain != 0 && self.to_next
    }

    /// The model of type `T` the step just before kept, if any (the slot is emptied either
    /// way).
    pub fn take<T: 'static>(&self) -> Option<T> {
        if self.chain == 0 || !self.from_previous {
            return None;
        }
        let (step, model) = SLOTS.with(|slots| slots.borrow_mut().remove(&self.chain))?;
        if step + 1 != self.step {
            return None;
        }
        model.downcast::<T>().ok().map(|model| *model)
    }

    /// Keeps `model` for the next step, when there is one of ours (else it is dropped).
    pub fn keep<T: 'static>(&self, model: T) {
        if self.feeds_next() {
            SLOTS.with(|slots| {
                slots
                    .borrow_mut()
                    .insert(self.chain, (self.step, Box::new(model)))
            });
        }
    }

    /// After the pass succeeded: whether MLIR is to be told that it left the IR unchanged
    /// (and so skip its verification), given whether it did (`unchanged`). A pass followed
    /// by another of its chain defers the verification of what it changed; the chain's
    /// last pass has MLIR verify when any pass of the chain changed the IR. Unlinked
    /// passes, and chains of one, answer `unchanged`.
    pub(crate) fn verify_at_chain_end(&self, unchanged: bool) -> bool {
        if self.chain == 0 {
            return unchanged;
        }
        UNVERIFIED.with(|pending| {
            // Changes of a chain that stopped (a failed pass, the next input of
            // `--split-input-file`) are not this run's: the run starts at its first step.
            let mine = self.from_previous && pending.get() == self.chain;
            if self.to_next {
                pending.set(if mine || !unchanged { self.chain } else { 0 });
                true
            } else {
                pending.set(0);
                unchanged && !mine
            }
        })
    }

    /// Before the pass runs: only a model the step just before kept may stay.
    pub(crate) fn before_run(&self) {
        if self.chain == 0 {
            return;
        }
        let from_previous = self.from_previous;
        let step = self.step;
        let stale = SLOTS.with(|slots| {
            let mut slots = slots.borrow_mut();
            let keep = slots
                .get(&self.chain)
                .is_some_and(|(kept_by, _)| from_previous && kept_by + 1 == step);
            if keep {
                None
            } else {
                slots.remove(&self.chain)
            }
        });
        drop(stale);
    }

    /// After the pass ran: only what it kept itself may stay.
    pub(crate) fn after_run(&self) {
        if self.chain == 0 {
            return;
        }
        let step = self.step;
        let stale = SLOTS.with(|slots| {
            let mut slots = slots.borrow_mut();
            let own = slots
                .get(&self.chain)
                .is_some_and(|(kept_by, _)| *kept_by == step);
            if own {
                None
            } else {
                slots.remove(&self.chain)
            }
        });
        // Dropped outside the borrow: a model's drop never reenters the slots, but a big
        // one is best freed where a profile shows it.
        drop(stale);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(n: u32) -> Vec<ModelShare> {
        let id = ModelShare::new_chain();
        (0..n)
            .map(|i| ModelShare::link(id, i, i > 0, i + 1 < n))
            .collect()
    }

    fn run(share: &ModelShare, body: impl FnOnce(&ModelShare)) {
        share.before_run();
        body(share);
        share.after_run();
    }

    #[test]
    fn a_model_goes_to_the_next_step_only() {
        let steps = chain(3);
        run(&steps[0], |s| s.keep(7u32));
        run(&steps[1], |s| assert_eq!(s.take::<u32>(), Some(7)));
        // Step 1 kept nothing: step 2 finds nothing.
        run(&steps[2], |s| assert_eq!(s.take::<u32>(), None));
    }

    #[test]
    fn a_step_that_does_not_take_drops_the_model() {
        let steps = chain(3);
        run(&steps[0], |s| s.keep(7u32));
        run(&steps[1], |_| {});
        run(&steps[2], |s| assert_eq!(s.take::<u32>(), None));
    }

    #[test]
    fn nothing_survives_into_the_next_run_of_the_pipeline() {
        let steps = chain(3);
        run(&steps[0], |s| s.keep(1u32));
        run(&steps[1], |s| {
            s.take::<u32>();
            s.keep(2u32)
        });
        // The pipeline stops here (step 2 fails before taking); a second input follows.
        steps[2].before_run();
        steps[2].after_run();
        run(&steps[0], |_| {});
        run(&steps[1], |s| assert_eq!(s.take::<u32>(), None));
        // A model kept by the last step, or of another type, is never handed out.
        run(&steps[2], |s| s.keep(3u32));
        run(&steps[0], |s| s.keep(4u64));
        run(&steps[1], |s| assert_eq!(s.take::<u32>(), None));
    }

    /// Runs `steps` in order, each changing the IR or not; what each tells MLIR.
    fn verification(steps: &[ModelShare], changes: &[bool]) -> Vec<bool> {
        steps
            .iter()
            .zip(changes)
            .map(|(step, &changed)| step.verify_at_chain_end(!changed))
            .collect()
    }

    #[test]
    fn the_chain_is_verified_once_after_its_last_pass() {
        let steps = chain(4);
        // A change in the middle: only the last pass has MLIR verify, though it changed
        // nothing itself (a checker).
        assert_eq!(
            verification(&steps, &[false, true, false, false]),
            [true, true, true, false]
        );
        // Nothing changed: nothing to verify.
        assert_eq!(
            verification(&steps, &[false, false, false, false]),
            [true, true, true, true]
        );
        // The last pass's own change is verified as any pass's.
        assert_eq!(
            verification(&steps, &[false, false, false, true]),
            [true, true, true, false]
        );
    }

    #[test]
    fn a_stopped_chain_leaves_nothing_to_verify_for_the_next_run() {
        let steps = chain(3);
        // Step 0 changed the IR, step 1 failed (it never asks): the next input starts over.
        assert_eq!(verification(&steps[..1], &[true]), [true]);
        assert_eq!(
            verification(&steps, &[false, false, false]),
            [true, true, true]
        );
        // Another chain's pending changes are not this one's.
        let other = chain(2);
        assert_eq!(verification(&other[..1], &[true]), [true]);
        assert_eq!(verification(&steps[1..], &[false, false]), [true, true]);
    }

    #[test]
    fn unlinked_passes_and_chains_of_one_verify_as_they_changed() {
        let alone = chain(1);
        assert_eq!(verification(&alone, &[true]), [false]);
        assert_eq!(verification(&alone, &[false]), [true]);
        assert!(!ModelShare::NONE.verify_at_chain_end(false));
        assert!(ModelShare::NONE.verify_at_chain_end(true));
    }

    #[test]
    fn unlinked_passes_share_nothing() {
        let alone = ModelShare::NONE;
        run(&alone, |s| s.keep(1u32));
        run(&alone, |s| assert_eq!(s.take::<u32>(), None));
        assert!(!alone.feeds_next());
    }
}
