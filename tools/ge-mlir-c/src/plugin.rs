//! The registry, as the C++ side of the library (`src/plugin.cpp`) reads it: one
//! descriptor per pass and per alias, and the calls that resolve option text and add a
//! resolved pass to an MLIR op pass manager.
//!
//! The descriptors are built once per process from `ge_mlir::pipeline`'s tables, so a pass
//! added there is in `mlir-opt` and in the C API without any change here.

use ge_mlir::pipeline::{
    aliases::ALIASES, options::parse_assignments, OptionKind, PassOptions, PassStatistics,
    Pipeline, Step, PASSES,
};
use melior::pass::OperationPassManager;
use mlir_sys::{MlirOpPassManager, MlirStringCallback, MlirStringRef};
use std::ffi::{c_char, c_void, CString};
use std::sync::OnceLock;

/// What `mlir-opt --help` adds to a pass's description where the pass relies on something
/// only `ge-opt` provides. Keyed by flag (pass or alias).
const GE_OPT_ONLY: &[(&str, &str)] = &[
    (
        "lower-to-tasks",
        "[in mlir-opt: the output uses the ascend_task dialect, which ge-opt loads itself; \
         give mlir-opt one --irdl-file holding both dialects/ascend.irdl.mlir and \
         dialects/ascend_task.irdl.mlir]",
    ),
    (
        "verify-tasks",
        "[in mlir-opt: needs the ascend_task dialect, see lower-to-tasks]",
    ),
    (
        "ge-compile-and-lower",
        "[in mlir-opt: see lower-to-tasks for the ascend_task dialect]",
    ),
    (
        "stream-alloc",
        "[the --stream-alloc-<option>=<value> shorthands are ge-opt flags; in mlir-opt write \
         stream-alloc{<option>=<value>}]",
    ),
];

/// Every pass and alias reads `.ge` graphs only through ge-opt's importer: stock mlir-opt
/// reads MLIR. Said once per entry.
const IMPORTER_NOTE: &str = "[.ge input: ge-opt only (its importer); mlir-opt reads the \
                             MLIR that `ge-opt in.ge` prints or the C API's geMlirImportGe \
                             builds]";

/// Mirrors `GeOptionDesc` in plugin.cpp.
#[repr(C)]
pub struct OptionDescriptor {
    name: *const c_char,
    kind: u32,
    default_value: *const c_char,
    help: *const c_char,
}

/// Mirrors `GePassDesc` in plugin.cpp.
#[repr(C)]
pub struct PassDescriptor {
    index: usize,
    argument: *const c_char,
    name: *const c_char,
    description: *const c_char,
    options: *const OptionDescriptor,
    option_count: usize,
}

/// Mirrors `GeAliasDesc` in plugin.cpp.
#[repr(C)]
pub struct AliasDescriptor {
    argument: *const c_char,
    description: *const c_char,
}

/// The descriptors and the strings they point into (kept alive for the process).
struct Registry {
    passes: Vec<PassDescriptor>,
    aliases: Vec<AliasDescriptor>,
    _options: Vec<Vec<OptionDescriptor>>,
    _strings: Vec<CString>,
}

// SAFETY: the raw pointers point into `_strings` / `_options`, which are immutable and live
// as long as the registry (the whole process, in a `OnceLock`).
unsafe impl Send for Registry {}
unsafe impl Sync for Registry {}

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(build_registry)
}

/// The `--help` description of `flag`: the registry's, plus the notes of `GE_OPT_ONLY`.
pub fn help_description(flag: &str, description: &str) -> String {
    let mut text = description.to_owned();
    if let Some((_, note)) = GE_OPT_ONLY.iter().find(|(name, _)| *name == flag) {
        text.push(' ');
        text.push_str(note);
    }
    text.push(' ');
    text.push_str(IMPORTER_NOTE);
    text
}

fn build_registry() -> Registry {
    let mut strings = Vec::new();
    let mut keep = |text: &str| {
        let owned = CString::new(text.replace('\0', " ")).unwrap_or_default();
        let pointer = owned.as_ptr();
        strings.push(owned);
        pointer
    };
    let mut option_lists = Vec::new();
    let mut passes = Vec::new();
    for (index, info) in PASSES.iter().enumerate() {
        let options: Vec<OptionDescriptor> = info
            .options
            .iter()
            .map(|spec| OptionDescriptor {
                name: keep(spec.name),
                kind: match spec.kind {
                    OptionKind::Bool => 0,
                    OptionKind::Int => 1,
                    OptionKind::UInt => 2,
                    OptionKind::String => 3,
                },
                default_value: keep(spec.default),
                help: keep(spec.help),
            })
            .collect();
        passes.push(PassDescriptor {
            index,
            argument: keep(info.flag),
            name: keep(&info.display_name()),
            description: keep(&help_description(info.flag, info.description)),
            options: options.as_ptr(),
            option_count: options.len(),
        });
        // Moving the Vec moves its header only; the heap buffer the pointer names stays.
        option_lists.push(options);
    }
    let aliases = ALIASES
        .iter()
        .map(|alias| AliasDescriptor {
            argument: keep(alias.flag),
            description: keep(&help_description(alias.flag, alias.description)),
        })
        .collect();
    Registry {
        passes,
        aliases,
        _options: option_lists,
        _strings: strings,
    }
}

/// Reads a C API string.
///
/// # Safety
/// `text` must point to `length` readable bytes (or have length 0).
pub(crate) unsafe fn read_string(text: MlirStringRef) -> String {
    if text.length == 0 || text.data.is_null() {
        return String::new();
    }
    // SAFETY: guaranteed by the caller.
    let bytes = unsafe { std::slice::from_raw_parts(text.data as *const u8, text.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// Hands `message` to a C API string callback.
pub(crate) fn report(callback: MlirStringCallback, user_data: *mut c_void, message: &str) {
    if let Some(callback) = callback {
        let text = MlirStringRef {
            data: message.as_ptr() as *const c_char,
            length: message.len(),
        };
        // SAFETY: the callback receives a string valid for the duration of the call, as the
        // C API's callbacks do.
        unsafe { callback(text, user_data) }
    }
}

/// Resolves `options` (MLIR option syntax: `k=v k2=v2`) for registry row `index`.
pub fn resolve(index: usize, options: &str) -> Result<Pipeline, String> {
    let info = PASSES
        .get(index)
        .ok_or_else(|| format!("no pass at registry row {index}"))?;
    let assignments =
        parse_assignments(options).map_err(|error| format!("{}: {error}", info.flag))?;
    let resolved = PassOptions::resolve(info, &assignments)?;
    Ok(Pipeline::from_steps(vec![Step::Ours(resolved)]))
}

/// Writes assignments back as option text that `parse_assignments` (and MLIR) read
/// again: values with separators or quotes inside are braced or quoted.
fn assignments_text(assignments: &[(String, Option<String>)]) -> String {
    assignments
        .iter()
        .map(|(name, value)| match value {
            None => name.clone(),
            Some(value) if value.is_empty() => format!("{name}=\"\""),
            Some(value) if value.contains([',', ' ', '\t', '\n', '{', '}', '"']) => {
                if value.starts_with('{') || value.contains('"') {
                    format!("{name}={value}")
                } else {
                    format!("{name}=\"{value}\"")
                }
            }
            Some(value) => format!("{name}={value}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The passes of alias `alias` for `options`: (registry row, that pass's option text).
pub fn expand_alias(alias: usize, options: &str) -> Result<Vec<(usize, String)>, String> {
    let alias = ALIASES
        .get(alias)
        .ok_or_else(|| format!("no alias at row {alias}"))?;
    let assignments =
        parse_assignments(options).map_err(|error| format!("{}: {error}", alias.flag))?;
    alias
        .expand(&assignments)?
        .into_iter()
        .map(|(info, own)| {
            let row = PASSES
                .iter()
                .position(|row| std::ptr::eq(row, info))
                .ok_or_else(|| format!("alias '{}' names a pass outside the table", alias.flag))?;
            Ok((row, assignments_text(&own)))
        })
        .collect()
}

/// The counters of every pass instance the plugin ran in this process, in run order.
fn statistics() -> &'static PassStatistics {
    static STATISTICS: OnceLock<PassStatistics> = OnceLock::new();
    STATISTICS.get_or_init(PassStatistics::default)
}

/// Prints ge-opt's statistics report of the passes run so far to stderr (nothing when no
/// pass counted anything). plugin.cpp calls it at exit when `--mlir-pass-statistics` was
/// given: MLIR's own report stays empty with Debian's MLIR (built without LLVM statistics).
#[no_mangle]
pub extern "C" fn geMlirPluginPrintStatistics() {
    let report = statistics().render();
    if !report.is_empty() {
        eprint!("{report}");
    }
}

#[no_mangle]
pub extern "C" fn geMlirPluginPassCount() -> usize {
    registry().passes.len()
}

#[no_mangle]
pub extern "C" fn geMlirPluginPass(index: usize) -> *const PassDescriptor {
    registry()
        .passes
        .get(index)
        .map_or(std::ptr::null(), |desc| desc as *const _)
}

#[no_mangle]
pub extern "C" fn geMlirPluginAliasCount() -> usize {
    registry().aliases.len()
}

#[no_mangle]
pub extern "C" fn geMlirPluginAlias(index: usize) -> *const AliasDescriptor {
    registry()
        .aliases
        .get(index)
        .map_or(std::ptr::null(), |desc| desc as *const _)
}

/// A `Box<Pipeline>` for the pass, or null with the reason through `error`.
///
/// # Safety
/// `options` must be a valid string reference; `error` a valid callback or null.
#[no_mangle]
pub unsafe extern "C" fn geMlirPluginResolve(
    index: usize,
    options: MlirStringRef,
    error: MlirStringCallback,
    user_data: *mut c_void,
) -> *mut c_void {
    // SAFETY: guaranteed by the caller.
    let options = unsafe { read_string(options) };
    match resolve(index, &options) {
        Ok(pipeline) => Box::into_raw(Box::new(pipeline)) as *mut c_void,
        Err(message) => {
            report(error, user_data, &message);
            std::ptr::null_mut()
        }
    }
}

/// # Safety
/// `handle` must come from `geMlirPluginResolve` or this function, and not be freed.
#[no_mangle]
pub unsafe extern "C" fn geMlirPluginClone(handle: *const c_void) -> *mut c_void {
    // SAFETY: guaranteed by the caller.
    let pipeline = unsafe { &*(handle as *const Pipeline) };
    Box::into_raw(Box::new(pipeline.clone())) as *mut c_void
}

/// # Safety
/// `handle` must come from `geMlirPluginResolve` / `geMlirPluginClone`, freed once.
#[no_mangle]
pub unsafe extern "C" fn geMlirPluginFree(handle: *mut c_void) {
    // SAFETY: guaranteed by the caller.
    drop(unsafe { Box::from_raw(handle as *mut Pipeline) });
}

/// Adds the resolved pass of `handle` to `manager` (built fresh, as ge-opt builds it).
///
/// # Safety
/// `handle` must be live; `manager` a live op pass manager.
#[no_mangle]
pub unsafe extern "C" fn geMlirPluginAddPasses(
    handle: *const c_void,
    manager: MlirOpPassManager,
    error: MlirStringCallback,
    user_data: *mut c_void,
) -> bool {
    // SAFETY: guaranteed by the caller.
    let pipeline = unsafe { &*(handle as *const Pipeline) };
    // SAFETY: a live op pass manager, borrowed for the call.
    let manager = unsafe { OperationPassManager::from_raw(manager) };
    match pipeline.add_to_operation_pass_manager(manager, statistics()) {
        Ok(()) => true,
        Err(message) => {
            report(error, user_data, &message);
            false
        }
    }
}

/// # Safety
/// `options` must be a valid string reference; `emit` a valid function; `error` a valid
/// callback or null.
#[no_mangle]
pub unsafe extern "C" fn geMlirPluginExpandAlias(
    alias: usize,
    options: MlirStringRef,
    emit: unsafe extern "C" fn(usize, MlirStringRef, *mut c_void),
    emit_data: *mut c_void,
    error: MlirStringCallback,
    user_data: *mut c_void,
) -> bool {
    // SAFETY: guaranteed by the caller.
    let options = unsafe { read_string(options) };
    match expand_alias(alias, &options) {
        Ok(passes) => {
            for (row, text) in passes {
                let text_ref = MlirStringRef {
                    data: text.as_ptr() as *const c_char,
                    length: text.len(),
                };
                // SAFETY: `text` outlives the call.
                unsafe { emit(row, text_ref, emit_data) };
            }
            true
        }
        Err(message) => {
            report(error, user_data, &message);
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pass_and_alias_has_a_descriptor() {
        assert_eq!(geMlirPluginPassCount(), PASSES.len());
        assert_eq!(geMlirPluginAliasCount(), ALIASES.len());
        for (index, info) in PASSES.iter().enumerate() {
            let desc = unsafe { &*geMlirPluginPass(index) };
            assert_eq!(desc.index, index);
            assert_eq!(desc.option_count, info.options.len());
            let argument = unsafe { std::ffi::CStr::from_ptr(desc.argument) };
            assert_eq!(argument.to_str().unwrap(), info.flag);
        }
        assert!(geMlirPluginPass(PASSES.len()).is_null());
    }

    #[test]
    fn option_text_resolves_like_ge_opt() {
        let row = PASSES
            .iter()
            .position(|info| info.flag == "stream-alloc")
            .unwrap();
        let pipeline = resolve(row, "max-task-normal=64").unwrap();
        let Step::Ours(options) = &pipeline.steps()[0] else {
            panic!("expected our pass")
        };
        assert_eq!(options.int("max-task-normal"), Ok(64));
        let error = resolve(row, "no-such-option=1").unwrap_err();
        assert!(error.contains("no-such-option"), "{error}");
    }

    #[test]
    fn alias_options_go_to_the_passes_that_declare_them() {
        let alias = ALIASES
            .iter()
            .position(|alias| alias.flag == "ge-compile")
            .unwrap();
        let passes = expand_alias(alias, "single-stream=true").unwrap();
        assert_eq!(passes.len(), ALIASES[alias].passes.len());
        let stream = passes
            .iter()
            .find(|(row, _)| PASSES[*row].flag == "stream-alloc")
            .unwrap();
        assert_eq!(stream.1, "single-stream=true");
        assert!(expand_alias(alias, "bogus=1").is_err());
    }

    #[test]
    fn option_text_round_trips() {
        let assignments = vec![
            ("a".to_owned(), Some("x y".to_owned())),
            ("b".to_owned(), Some("{p,q}".to_owned())),
            ("c".to_owned(), None),
            ("d".to_owned(), Some(String::new())),
        ];
        let text = assignments_text(&assignments);
        assert_eq!(parse_assignments(&text).unwrap(), assignments);
    }
}
