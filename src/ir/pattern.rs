//! A safe pattern API: "a pass = analyses + patterns".
//!
//! ```ignore
//! let decisions: HashMap<OpKey, Decision> = analyse(&module);
//! let patterns = PatternSet::new(&context).add(OpPattern::new("ascend.identity", 1, |op, rw| {
//!     match decisions.get(&OpKey::of(op)) {
//!         Some(Decision::Remove) => bypass_and_erase(rw, op).is_ok(),
//!         _ => false, // no match: the driver tries the next pattern / op
//!     }
//! }));
//! apply_greedily(module.as_operation(), patterns, &GreedyConfig::default())?;
//! ```
//!
//! Callbacks are ordinary Rust closures. They may borrow the pass's local state (the
//! pattern set carries the borrow's lifetime `'p`), so a precomputed decision map can be
//! captured by reference, by `Rc`, or moved in. A callback gets the matched op and a
//! [`Rewriter`]; it returns `true` when it changed the IR (MLIR's `success()`).
//!
//! Memory: melior's `apply_patterns_and_fold_greedily` hands the frozen set to C and never
//! destroys it (the C API only borrows it), and `RewritePatternSet::freeze` forgets the
//! moved-from set: every apply leaks the patterns and their closures. Here the frozen set
//! is owned by [`FrozenPatternSet`] and destroyed on drop, which also drops every closure
//! (test `closures_are_dropped_after_every_apply`).
//!
//! Panics: a panic inside a callback must not unwind through MLIR's C++ frames. It is
//! caught, the callback reports "no match", every later callback of the set is skipped, and
//! the panic resumes once the driver has returned.

use super::rewriter::Rewriter;
use melior::{
    ir::{operation::OperationLike, OperationRef},
    Context, ContextRef, GreedyRewriteDriverConfig, GreedyRewriteStrictness,
    GreedySimplifyRegionLevel, RewriterBase, StringRef,
};
use mlir_sys::{
    mlirApplyPatternsAndFoldGreedilyWithOp, mlirFreezeRewritePattern,
    mlirFrozenRewritePatternSetDestroy, mlirOpRewritePatternCreate, mlirPatternRewriterAsBase,
    mlirRewritePatternSetAdd, mlirRewritePatternSetCreate, mlirRewritePatternSetDestroy,
    mlirWalkAndApplyPatterns, MlirContext, MlirFrozenRewritePatternSet, MlirLogicalResult,
    MlirOperation, MlirPatternRewriter, MlirRewritePattern, MlirRewritePatternCallbacks,
    MlirRewritePatternSet, MlirStringRef,
};
use std::{
    any::Any,
    cell::RefCell,
    ffi::c_void,
    fmt,
    marker::PhantomData,
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
    rc::Rc,
};

/// The callback type: matched op + rewriter -> "rewrote something".
type Callback<'c, 'p> =
    Box<dyn for<'r> FnMut(OperationRef<'c, 'r>, &Rewriter<'c, 'r>) -> bool + 'p>;

/// One pattern: a root op name, a benefit, and a callback.
pub struct OpPattern<'c, 'p> {
    root: String,
    benefit: u16,
    generated: Vec<String>,
    callback: Callback<'c, 'p>,
}

impl<'c, 'p> OpPattern<'c, 'p> {
    /// A pattern on ops named `root` (`"ascend.identity"`). Higher `benefit` is tried first.
    pub fn new<F>(root: &str, benefit: u16, callback: F) -> Self
    where
        F: for<'r> FnMut(OperationRef<'c, 'r>, &Rewriter<'c, 'r>) -> bool + 'p,
    {
        Self {
            root: root.to_string(),
            benefit,
            generated: Vec::new(),
            callback: Box::new(callback),
        }
    }

    /// Declares the ops the callback may create (MLIR uses it for pattern ordering).
    pub fn generates(mut self, op_names: &[&str]) -> Self {
        self.generated = op_names.iter().map(|s| s.to_string()).collect();
        self
    }
}

/// The first panic raised by a callback of a set (shared by the set and its trampolines).
#[derive(Default)]
struct PanicSlot(RefCell<Option<Box<dyn Any + Send>>>);

/// What MLIR's pattern owns as `userData`.
struct Trampoline<'c, 'p> {
    /// `RefCell` turns a re-entrant call of the same closure into a reported failure
    /// instead of two live `&mut` to it.
    callback: RefCell<Callback<'c, 'p>>,
    panic: Rc<PanicSlot>,
    /// The set belongs to a host (see [`PatternSet::borrow_raw`]): no Rust caller resumes
    /// a panic after the driver, so it is reported as an error at the matched op.
    report_panics: bool,
}

fn logical(success: bool) -> MlirLogicalResult {
    MlirLogicalResult {
        value: i8::from(success),
    }
}

/// Runs one callback invocation; implemented by `Trampoline` so the `extern "C"` entry
/// points can be generic over a type (lifetime-only generics would be late-bound).
trait Dispatch {
    /// # Safety
    /// `op` and `rewriter` must be the live op and pattern rewriter of the current call.
    unsafe fn dispatch(&self, op: MlirOperation, rewriter: MlirPatternRewriter) -> bool;
}

impl<'c, 'p> Dispatch for Trampoline<'c, 'p> {
    unsafe fn dispatch(&self, op: MlirOperation, rewriter: MlirPatternRewriter) -> bool {
        if self.panic.0.borrow().is_some() {
            return false;
        }
        let Ok(mut callback) = self.callback.try_borrow_mut() else {
            *self.panic.0.borrow_mut() = Some(Box::new(
                "a pattern callback was re-entered (nested driver run on the same pattern set)",
            ));
            return false;
        };
        // SAFETY: the caller passes the live op and PatternRewriter of this call; the
        // OperationRef and Rewriter get a lifetime local to this call.
        let (op, rewriter) = unsafe {
            (
                OperationRef::from_raw(op),
                Rewriter::from_base(RewriterBase::from_raw(mlirPatternRewriterAsBase(rewriter))),
            )
        };
        match catch_unwind(AssertUnwindSafe(|| (callback)(op, &rewriter))) {
            Ok(success) => success,
            Err(payload) => {
                if self.report_panics {
                    let what = payload
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_default();
                    super::external_pass::emit_error(
                        op.location(),
                        &format!("internal error: a ge-mlir pattern panicked: {what}"),
                    );
                }
                *self.panic.0.borrow_mut() = Some(payload);
                false
            }
        }
    }
}

unsafe extern "C" fn destruct<T>(user_data: *mut c_void) {
    // SAFETY: `user_data` is the `Box<T>` leaked in `PatternSet::push`; MLIR calls
    // `destruct` exactly once, when it destroys the pattern.
    drop(unsafe { Box::from_raw(user_data as *mut T) });
}

unsafe extern "C" fn match_and_rewrite<T: Dispatch>(
    _pattern: MlirRewritePattern,
    op: MlirOperation,
    rewriter: MlirPatternRewriter,
    user_data: *mut c_void,
) -> MlirLogicalResult {
    // SAFETY: `user_data` is our live `T` (destroyed only with the pattern, which outlives
    // every driver run); only a shared reference is formed. The driver passes a live op and
    // rewriter for the duration of this call.
    let success = unsafe { (*(user_data as *const T)).dispatch(op, rewriter) };
    logical(success)
}

/// A set of patterns under construction.
pub struct PatternSet<'c, 'p> {
    raw: MlirRewritePatternSet,
    context: MlirContext,
    panic: Rc<PanicSlot>,
    /// A host's set ([`Self::borrow_raw`]): patterns are added to it, never freed here.
    borrowed: bool,
    _callbacks: PhantomData<(&'c Context, Callback<'c, 'p>)>,
}

impl<'c, 'p> PatternSet<'c, 'p> {
    pub fn new(context: &'c Context) -> Self {
        // SAFETY: `context` is live for 'c.
        Self::in_context(unsafe { ContextRef::from_raw(context.to_raw()) })
    }

    /// [`Self::new`] from the `ContextRef` a pass or an op hands out.
    pub fn in_context(context: ContextRef<'c>) -> Self {
        // SAFETY: the reference is used only for the raw handle, within this call.
        let context = unsafe { context.to_ref() };
        Self {
            // SAFETY: `context` is live; the set is destroyed in `Drop` or handed to
            // `mlirFreezeRewritePattern` in `freeze` (exactly one of the two).
            raw: unsafe { mlirRewritePatternSetCreate(context.to_raw()) },
            context: context.to_raw(),
            panic: Rc::default(),
            borrowed: false,
            _callbacks: PhantomData,
        }
    }

    /// A handle on a set another toolchain owns (`MlirRewritePatternSet` from
    /// `mlirRewritePatternSetCreate`), so `populate_*` functions can add our patterns to it.
    /// The host freezes, applies and destroys it; dropping the handle does nothing. A panic
    /// in a callback is reported as an error at the matched op (no Rust caller is there to
    /// resume it) and turns the set's later callbacks into no-matches.
    ///
    /// # Safety
    /// `raw` must be a live, unfrozen set of the live `context`, and must not be used by the
    /// host while the handle adds to it.
    pub unsafe fn borrow_raw(raw: MlirRewritePatternSet, context: MlirContext) -> Self {
        Self {
            raw,
            context,
            panic: Rc::default(),
            borrowed: true,
            _callbacks: PhantomData,
        }
    }

    /// The context the patterns are made in.
    pub fn context(&self) -> ContextRef<'c> {
        // SAFETY: the set was made in this live context, which outlives 'c.
        unsafe { ContextRef::from_raw(self.context) }
    }

    /// Adds a pattern (builder style). Named like the C++ `RewritePatternSet::add`.
    #[allow(clippy::should_implement_trait)]
    pub fn add(mut self, pattern: OpPattern<'c, 'p>) -> Self {
        self.push(pattern);
        self
    }

    /// Adds a pattern.
    pub fn push(&mut self, pattern: OpPattern<'c, 'p>) {
        let trampoline = Box::new(Trampoline {
            callback: RefCell::new(pattern.callback),
            panic: self.panic.clone(),
            report_panics: self.borrowed,
        });
        let callbacks = MlirRewritePatternCallbacks {
            construct: None,
            destruct: Some(destruct::<Trampoline<'c, 'p>>),
            matchAndRewrite: Some(match_and_rewrite::<Trampoline<'c, 'p>>),
        };
        let mut generated: Vec<MlirStringRef> = pattern
            .generated
            .iter()
            .map(|name| StringRef::new(name).to_raw())
            .collect();
        // SAFETY: the context and set are live; MLIR copies the root and generated names
        // into the context; ownership of the trampoline passes to the pattern (freed by
        // `destruct`) and ownership of the pattern passes to the set.
        unsafe {
            let raw_pattern = mlirOpRewritePatternCreate(
                StringRef::new(&pattern.root).to_raw(),
                u32::from(pattern.benefit),
                self.context,
                callbacks,
                Box::into_raw(trampoline) as *mut c_void,
                generated.len(),
                generated.as_mut_ptr(),
            );
            mlirRewritePatternSetAdd(self.raw, raw_pattern);
        }
    }

    /// Freezes the set so drivers can run it (as many times as wanted).
    ///
    /// # Panics
    /// On a host's set ([`Self::borrow_raw`]): the host freezes it.
    pub fn freeze(mut self) -> FrozenPatternSet<'c, 'p> {
        assert!(!self.borrowed, "a host's pattern set is frozen by the host");
        let raw = std::mem::replace(
            &mut self.raw,
            MlirRewritePatternSet {
                ptr: std::ptr::null_mut(),
            },
        );
        // SAFETY: `raw` is live and now owned here only (`self.raw` is null, so our `Drop`
        // skips it). Freezing moves the patterns into a new frozen set and leaves a valid,
        // empty, still heap-allocated shell, which we destroy (the C API leaks it).
        let frozen = unsafe {
            let frozen = mlirFreezeRewritePattern(raw);
            mlirRewritePatternSetDestroy(raw);
            frozen
        };
        FrozenPatternSet {
            raw: frozen,
            panic: self.panic.clone(),
            _callbacks: PhantomData,
        }
    }
}

impl Drop for PatternSet<'_, '_> {
    fn drop(&mut self) {
        if self.raw.ptr.is_null() || self.borrowed {
            return; // frozen (the frozen set owns the patterns) or the host's
        }
        // SAFETY: not frozen, so we still own the set; destroying it destroys the patterns.
        unsafe { mlirRewritePatternSetDestroy(self.raw) }
    }
}

/// A frozen pattern set, owned: dropping it destroys the patterns and their closures.
pub struct FrozenPatternSet<'c, 'p> {
    raw: MlirFrozenRewritePatternSet,
    panic: Rc<PanicSlot>,
    _callbacks: PhantomData<Callback<'c, 'p>>,
}

impl<'c> FrozenPatternSet<'c, '_> {
    /// Runs the greedy driver (to a fixpoint, or until `config`'s limits) on the regions of
    /// `op` (e.g. the module op: every function). `Err` when it did not converge.
    pub fn apply_greedily(
        &self,
        op: OperationRef<'c, '_>,
        config: &GreedyConfig,
    ) -> Result<(), PatternError> {
        let melior_config = config.to_melior();
        // SAFETY: `op`, the frozen set and the config are live for the call; the C API
        // borrows the set (does not take ownership).
        let result = unsafe {
            mlirApplyPatternsAndFoldGreedilyWithOp(op.to_raw(), self.raw, melior_config.to_raw())
        };
        self.resume_panic();
        if result.value != 0 {
            Ok(())
        } else {
            Err(PatternError::NotConverged)
        }
    }

    /// Runs the walk driver: one post-order sweep over the ops nested in `op`, no fixpoint,
    /// no folding. A callback may erase only the op it matched.
    pub fn walk_and_apply(&self, op: OperationRef<'c, '_>) {
        // SAFETY: `op` and the frozen set are live; the C API borrows the set.
        unsafe { mlirWalkAndApplyPatterns(op.to_raw(), self.raw) };
        self.resume_panic();
    }

    fn resume_panic(&self) {
        let payload = self.panic.0.borrow_mut().take();
        if let Some(payload) = payload {
            resume_unwind(payload);
        }
    }
}

impl Drop for FrozenPatternSet<'_, '_> {
    fn drop(&mut self) {
        // SAFETY: we own the frozen set; destroying it destroys the patterns, whose
        // `destruct` callbacks drop the trampolines and closures.
        unsafe { mlirFrozenRewritePatternSetDestroy(self.raw) }
    }
}

/// Freezes `patterns`, runs the greedy driver on `op`, and frees the patterns.
pub fn apply_greedily<'c>(
    op: OperationRef<'c, '_>,
    patterns: PatternSet<'c, '_>,
    config: &GreedyConfig,
) -> Result<(), PatternError> {
    patterns.freeze().apply_greedily(op, config)
}

/// Freezes `patterns`, runs the walk driver on `op`, and frees the patterns.
pub fn walk_and_apply<'c>(op: OperationRef<'c, '_>, patterns: PatternSet<'c, '_>) {
    patterns.freeze().walk_and_apply(op)
}

/// Greedy driver settings. The defaults differ from MLIR's on purpose: top-down traversal
/// (program order, so rewrites happen in GE's node order) and no region simplification (a
/// GE graph's structure is not ours to simplify).
#[derive(Clone, Debug)]
pub struct GreedyConfig {
    /// Iterations over the whole worklist; `None` = MLIR's default (10); -1 = no limit.
    pub max_iterations: Option<i64>,
    /// Rewrites per iteration; `None` = no limit.
    pub max_rewrites: Option<i64>,
    pub top_down: bool,
    pub fold: bool,
    pub cse_constants: bool,
    pub region_simplification: GreedySimplifyRegionLevel,
    pub strictness: GreedyRewriteStrictness,
}

impl Default for GreedyConfig {
    fn default() -> Self {
        Self {
            max_iterations: None,
            max_rewrites: None,
            top_down: true,
            fold: true,
            cse_constants: true,
            region_simplification: GreedySimplifyRegionLevel::Disabled,
            strictness: GreedyRewriteStrictness::AnyOp,
        }
    }
}

impl GreedyConfig {
    fn to_melior(&self) -> GreedyRewriteDriverConfig {
        let config = GreedyRewriteDriverConfig::new();
        if let Some(n) = self.max_iterations {
            config.set_max_iterations(n);
        }
        if let Some(n) = self.max_rewrites {
            config.set_max_num_rewrites(n);
        }
        config.set_use_top_down_traversal(self.top_down);
        config.enable_folding(self.fold);
        config.enable_constant_cse(self.cse_constants);
        config.set_region_simplification_level(self.region_simplification);
        config.set_strictness(self.strictness);
        config
    }
}

/// Why a driver run failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatternError {
    /// The greedy driver hit its iteration or rewrite limit before reaching a fixpoint.
    NotConverged,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatternError::NotConverged => {
                write!(f, "the greedy rewrite driver did not converge")
            }
        }
    }
}

impl std::error::Error for PatternError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        dialect::new_context,
        ir::{
            insert::bypass_and_erase,
            ops::{node_name, set_str_attr, str_attr, OpKey},
            test_util::{func, op, parse, summary},
        },
    };
    use melior::ir::operation::OperationLike;
    use std::{cell::Cell, collections::HashMap};

    const CHAIN: &str = r#"
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %i1:2 = "ascend.identity"(%x#0) {name = "i1"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %i2:2 = "ascend.identity"(%i1#0) {name = "i2"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %a:2 = "ascend.add"(%i2#0, %x#0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}
"#;

    #[test]
    fn greedy_patterns_use_a_precomputed_decision_map() {
        let context = new_context();
        let module = parse(&context, CHAIN);
        // "Analysis": remove i2 only.
        let decisions: HashMap<OpKey, bool> = HashMap::from([
            (OpKey::of(op(&module, "i1")), false),
            (OpKey::of(op(&module, "i2")), true),
        ]);
        let seen = Cell::new(0);
        let patterns =
            PatternSet::new(&context).add(OpPattern::new("ascend.identity", 1, |op, rw| {
                seen.set(seen.get() + 1);
                decisions.get(&OpKey::of(op)) == Some(&true) && bypass_and_erase(rw, op).is_ok()
            }));
        apply_greedily(module.as_operation(), patterns, &GreedyConfig::default()).unwrap();
        assert!(seen.get() >= 2);
        assert_eq!(
            summary(func(&module, "main")),
            "x = data(%arg0)\ni1 = identity(x)\na = add(i1, x)\nreturn(a)"
        );
        assert!(module.as_operation().verify());
    }

    #[test]
    fn walk_driver_visits_every_matching_op_once() {
        let context = new_context();
        let module = parse(&context, CHAIN);
        let mut visited = Vec::new();
        let patterns =
            PatternSet::new(&context).add(OpPattern::new("ascend.identity", 1, |op, rw| {
                visited.push(node_name(op).unwrap().to_string());
                set_str_attr(rw, op, "_stream_label", "s1");
                true
            }));
        walk_and_apply(module.as_operation(), patterns);
        assert_eq!(visited, ["i1", "i2"]);
        assert_eq!(str_attr(op(&module, "i2"), "_stream_label"), Some("s1"));
        assert_eq!(str_attr(op(&module, "a"), "_stream_label"), None);
    }

    #[test]
    fn higher_benefit_runs_first_and_a_frozen_set_is_reusable() {
        let context = new_context();
        let module = parse(&context, CHAIN);
        let order = std::cell::RefCell::new(Vec::new());
        let frozen = PatternSet::new(&context)
            .add(OpPattern::new("ascend.add", 1, |_, _| {
                order.borrow_mut().push("low");
                false
            }))
            .add(OpPattern::new("ascend.add", 5, |_, _| {
                order.borrow_mut().push("high");
                false
            }))
            .freeze();
        frozen.walk_and_apply(module.as_operation());
        frozen.walk_and_apply(module.as_operation());
        assert_eq!(*order.borrow(), ["high", "low", "high", "low"]);
    }

    /// Counts drops of the value each closure owns.
    struct DropCounter<'a>(&'a Cell<usize>);
    impl Drop for DropCounter<'_> {
        fn drop(&mut self) {
            self.0.set(self.0.get() + 1);
        }
    }

    #[test]
    fn closures_are_dropped_after_every_apply() {
        // melior's helpers leak the frozen set and so every closure; ours must free them.
        let context = new_context();
        let module = parse(&context, CHAIN);
        let dropped = Cell::new(0);
        const RUNS: usize = 300;
        for run in 0..RUNS {
            let guard = DropCounter(&dropped);
            let patterns =
                PatternSet::new(&context).add(OpPattern::new("ascend.add", 1, move |_, _| {
                    let _keep = &guard;
                    false
                }));
            if run % 2 == 0 {
                apply_greedily(module.as_operation(), patterns, &GreedyConfig::default()).unwrap();
            } else {
                walk_and_apply(module.as_operation(), patterns);
            }
            assert_eq!(
                dropped.get(),
                run + 1,
                "closures of run {run} are freed right away"
            );
        }
        // The Rust-side bookkeeping is freed too.
        let set = PatternSet::new(&context).add(OpPattern::new("ascend.add", 1, |_, _| false));
        let slot = Rc::downgrade(&set.panic);
        walk_and_apply(module.as_operation(), set);
        assert!(slot.upgrade().is_none(), "panic slot leaked");
        // A set dropped without freezing frees its closures too.
        let guard = DropCounter(&dropped);
        drop(
            PatternSet::new(&context).add(OpPattern::new("ascend.add", 1, move |_, _| {
                let _keep = &guard;
                false
            })),
        );
        assert_eq!(dropped.get(), RUNS + 1);
    }

    /// Resident set size in bytes (Linux).
    fn rss() -> usize {
        let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
        statm
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<usize>().ok())
            .unwrap_or(0)
            * 4096
    }

    /// Memory comparison with melior's helpers (run: `cargo test --lib pattern_memory_bench
    /// -- --ignored --nocapture`, alone so other tests do not move the RSS).
    #[test]
    #[ignore]
    fn pattern_memory_bench() {
        let context = new_context();
        let module = parse(&context, CHAIN);
        const RUNS: usize = 20_000;
        let pattern = || OpPattern::new("ascend.add", 1, |_, _| false);
        // Warm up allocator pools and MLIR's uniquing tables.
        for _ in 0..1000 {
            apply_greedily(
                module.as_operation(),
                PatternSet::new(&context).add(pattern()),
                &GreedyConfig::default(),
            )
            .unwrap();
        }
        let before = rss();
        for _ in 0..RUNS {
            apply_greedily(
                module.as_operation(),
                PatternSet::new(&context).add(pattern()),
                &GreedyConfig::default(),
            )
            .unwrap();
        }
        let ours = rss().saturating_sub(before);
        let before = rss();
        for _ in 0..RUNS {
            let set = melior::RewritePatternSet::new(&context);
            set.add(melior::create_op_rewrite_pattern(
                "ascend.add",
                1,
                &context,
                |_, _, _| false,
                &[],
            ));
            melior::apply_patterns_and_fold_greedily(
                &module,
                set.freeze(),
                &melior::GreedyRewriteDriverConfig::new(),
            )
            .unwrap();
        }
        let theirs = rss().saturating_sub(before);
        println!(
            "{RUNS} applies: ours grew RSS by {} KB ({} B/apply), melior's helpers by {} KB ({} B/apply)",
            ours / 1024,
            ours / RUNS,
            theirs / 1024,
            theirs / RUNS
        );
        assert!(
            ours * 4 < theirs.max(1),
            "ours {ours} B vs melior {theirs} B"
        );
    }

    #[test]
    fn greedy_config_is_honoured() {
        let context = new_context();
        let module = parse(&context, CHAIN);
        // A pattern that claims a change every time never converges.
        let calls = |max: i64| {
            let count = Cell::new(0);
            let patterns =
                PatternSet::new(&context).add(OpPattern::new("ascend.add", 1, |_, _| {
                    count.set(count.get() + 1);
                    true
                }));
            let config = GreedyConfig {
                max_iterations: Some(max),
                ..GreedyConfig::default()
            };
            let result = apply_greedily(module.as_operation(), patterns, &config);
            (result, count.get())
        };
        let (result_2, calls_2) = calls(2);
        let (result_6, calls_6) = calls(6);
        assert_eq!(result_2, Err(PatternError::NotConverged));
        assert_eq!(result_6, Err(PatternError::NotConverged));
        assert!(
            calls_2 < calls_6,
            "max_iterations reaches MLIR: {calls_2} vs {calls_6}"
        );
    }

    #[test]
    fn a_panicking_callback_resumes_after_the_driver() {
        let context = new_context();
        let module = parse(&context, CHAIN);
        let calls = Cell::new(0);
        let patterns =
            PatternSet::new(&context).add(OpPattern::new("ascend.identity", 1, |_, _| {
                calls.set(calls.get() + 1);
                panic!("pattern bug");
            }));
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
            walk_and_apply(module.as_operation(), patterns);
        }));
        let payload = result.expect_err("the panic reaches the caller");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"pattern bug"));
        assert_eq!(
            calls.get(),
            1,
            "later callbacks of a poisoned set are skipped"
        );
        assert!(module.as_operation().verify());
    }
}
