//! Warnings and remarks from Rust passes.
//!
//! The MLIR C API can emit only errors (`mlirEmitError`); `mlir::emitWarning` /
//! `emitRemark` and `InFlightDiagnostic::attachNote` are C++ only (LLVM 22's
//! `mlir-c/Diagnostics.h` has nothing else, and calling the mangled C++ symbols would
//! depend on the C++ ABI of `Twine` and `InFlightDiagnostic`). Rather than turning warnings
//! into errors, or adding a C++ shim to the build, passes report warnings, remarks and
//! their notes here, and whoever owns the context (the `ge-opt` driver) attaches a
//! [`DiagnosticSink`] that receives them next to MLIR's own diagnostics, in emission order.
//! The driver renders them exactly like MLIR diagnostics and `--verify-diagnostics`
//! matches them (`expected-warning`, `expected-note`, `expected-remark`).
//!
//! Without a sink (a pass run from a library user, a unit test) the diagnostic is printed to
//! stderr as `<location>: warning: <message>`, so nothing is lost silently.

use melior::ir::Location;
use std::sync::{Arc, Mutex, MutexGuard};

/// The severities the C API cannot emit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtraSeverity {
    Warning,
    Remark,
}

/// One note attached to a diagnostic (`note:` lines after it).
#[derive(Clone, Copy, Debug)]
pub struct Note<'c, 'm> {
    pub location: Location<'c>,
    pub message: &'m str,
}

/// Receives the diagnostics of one context: severity, location, message, notes.
pub type DiagnosticSink =
    dyn for<'c, 'm> Fn(ExtraSeverity, Location<'c>, &'m str, &[Note<'c, 'm>]) + Send + Sync;

struct Registration {
    context: usize,
    id: u64,
    sink: Arc<DiagnosticSink>,
}

#[derive(Default)]
struct Registry {
    next_id: u64,
    sinks: Vec<Registration>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    next_id: 0,
    sinks: Vec::new(),
});

fn registry() -> MutexGuard<'static, Registry> {
    // A poisoned lock only means a sink panicked; the list itself is intact.
    REGISTRY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The address of the context a location belongs to: the registry key.
fn context_key(location: Location) -> usize {
    // SAFETY: `mlirLocationGetContext` only reads the live location.
    unsafe { mlir_sys::mlirLocationGetContext(location.to_raw()).ptr as usize }
}

/// Keeps a sink attached; detaches it when dropped. Drop it before the context.
pub struct SinkGuard {
    id: u64,
}

impl Drop for SinkGuard {
    fn drop(&mut self) {
        registry().sinks.retain(|r| r.id != self.id);
    }
}

/// Attaches `sink` to the context of `location` (any location of that context, e.g.
/// `Location::unknown(&context)`). The most recently attached sink of a context wins.
pub fn attach_sink(location: Location, sink: Arc<DiagnosticSink>) -> SinkGuard {
    let mut registry = registry();
    registry.next_id += 1;
    let id = registry.next_id;
    registry.sinks.push(Registration {
        context: context_key(location),
        id,
        sink,
    });
    SinkGuard { id }
}

/// Emits a warning at `location` with `notes`.
pub fn emit_warning(location: Location, message: &str, notes: &[Note]) {
    emit(ExtraSeverity::Warning, location, message, notes);
}

/// Emits a remark at `location` with `notes`.
pub fn emit_remark(location: Location, message: &str, notes: &[Note]) {
    emit(ExtraSeverity::Remark, location, message, notes);
}

fn emit(severity: ExtraSeverity, location: Location, message: &str, notes: &[Note]) {
    let key = context_key(location);
    // Clone the sink out of the lock: a sink may take its own locks.
    let sink = registry()
        .sinks
        .iter()
        .rev()
        .find(|r| r.context == key)
        .map(|r| r.sink.clone());
    match sink {
        Some(sink) => sink(severity, location, message, notes),
        None => {
            let kind = match severity {
                ExtraSeverity::Warning => "warning",
                ExtraSeverity::Remark => "remark",
            };
            let mut text = format!("{location}: {kind}: {message}\n");
            for note in notes {
                text.push_str(&format!("{}: note: {}\n", note.location, note.message));
            }
            eprint!("{text}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use melior::Context;

    #[test]
    fn sinks_receive_per_context_and_detach_on_drop() {
        let a = Context::new();
        let b = Context::new();
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let log = seen.clone();
        let guard = attach_sink(
            Location::unknown(&a),
            Arc::new(move |severity, _location, message, notes| {
                let notes: Vec<&str> = notes.iter().map(|n| n.message).collect();
                log.lock()
                    .unwrap()
                    .push(format!("{severity:?} {message} {notes:?}"));
            }),
        );
        let here = Location::new(&a, "f.mlir", 3, 4);
        emit_warning(
            here,
            "w1",
            &[Note {
                location: here,
                message: "n1",
            }],
        );
        emit_remark(here, "r1", &[]);
        // Another context has no sink: printed to stderr, not delivered here.
        emit_warning(Location::unknown(&b), "other", &[]);
        drop(guard);
        emit_warning(here, "after drop", &[]);
        assert_eq!(
            *seen.lock().unwrap(),
            vec![
                "Warning w1 [\"n1\"]".to_string(),
                "Remark r1 []".to_string()
            ]
        );
    }
}
