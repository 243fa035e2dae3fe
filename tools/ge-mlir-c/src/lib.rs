//! `libge_mlir_c.so`: ge-mlir as a component of other MLIR toolchains.
//!
//! One shared library, two uses:
//! * a pass plugin for stock `mlir-opt` (`--load-pass-plugin`): [`mlirGetPassPluginInfo`]
//!   registers every pass and pipeline alias of `ge_mlir::pipeline` with MLIR's pass
//!   registry, options included;
//! * the C API of `include/ge-mlir-c/GeMlir.h` ([`capi`]) for C, C++ or Python hosts.
//!
//! The library links the one shared `libMLIR.so` / `libLLVM.so` of the host process and
//! takes only MLIR's C API (which Debian's libMLIR.so does not export) from the static
//! `libMLIRCAPI*.a` archives; see build.rs for how, and why two copies of MLIR must not
//! meet in one process.

// The exported names follow MLIR's C API (`mlirGetPassPluginInfo`, `geMlirCreatePass`).
#![allow(non_snake_case)]

pub mod capi;
mod plugin;

use std::ffi::c_char;

/// `mlir::PassPluginLibraryInfo` (mlir/Tools/Plugins/PassPlugin.h), field for field.
#[repr(C)]
pub struct PassPluginLibraryInfo {
    pub api_version: u32,
    pub plugin_name: *const c_char,
    pub plugin_version: *const c_char,
    pub register_pass_registry_callbacks: unsafe extern "C" fn(),
}

extern "C" {
    fn geMlirPluginRegisterAll();
    fn geMlirPluginLlvmVersion() -> *const c_char;
    fn geMlirPluginApiVersion() -> u32;
}

/// The entry point `mlir-opt --load-pass-plugin` looks up. Defined on the Rust side because
/// a cdylib exports only its Rust `#[no_mangle]` functions; the work is in plugin.cpp.
#[no_mangle]
pub extern "C" fn mlirGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        // SAFETY: both return constants.
        api_version: unsafe { geMlirPluginApiVersion() },
        plugin_name: c"ge-mlir".as_ptr(),
        plugin_version: unsafe { geMlirPluginLlvmVersion() },
        register_pass_registry_callbacks: geMlirPluginRegisterAll,
    }
}
