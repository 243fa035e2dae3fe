//! Builds `libge_mlir_c.so` so that it shares the host's one MLIR.
//!
//! Debian's `libMLIR.so` (which `mlir-opt-22` links) holds MLIR's C++ code but not its C
//! API, which ships only as static `libMLIRCAPI*.a` archives. mlir-sys links every static
//! `libMLIR*.a` into the crates that use it. Linked as they come, the plugin would carry a
//! second copy of MLIR (its own pass registry, dialect registry, type ids and command-line
//! options) beside the one of `mlir-opt`: the passes it registers would land in the wrong
//! registry, and `isa<>` across the two copies would fail.
//!
//! So this crate links `libMLIR.so` and `libLLVM.so` as its own native libraries, which
//! rustc puts on the linker command line *before* the Rust crates and their bundled
//! archives: every MLIR/LLVM symbol those shared libraries define is taken from them, and
//! only what they lack (the C API functions, from the libMLIRCAPI*.a members mlir-sys
//! bundled) is copied into the plugin. rustc links with `--as-needed`, which keeps a shared
//! library only if a symbol is undefined when the linker reaches it: `plugin.cpp` (the
//! archive just before) uses both MLIR and LLVM, so both stay. `test/Plugin/one-mlir.test`
//! checks the result.
fn main() {
    let prefix = std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    println!("cargo:rerun-if-changed=src/plugin.cpp");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    // The same flags as the root crate's build.rs (`llvm-config --cxxflags`: no RTTI, no
    // exceptions, the ABI macros).
    cc::Build::new()
        .cpp(true)
        .file("src/plugin.cpp")
        .include(format!("{prefix}/include"))
        .flag_if_supported("-std=c++17")
        .flag_if_supported("-fno-rtti")
        .flag_if_supported("-fno-exceptions")
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_FORMAT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .warnings(false)
        .compile("ge_mlir_c_plugin");
    println!("cargo:rustc-link-search=native={prefix}/lib");
    println!("cargo:rustc-link-lib=dylib=MLIR");
    println!("cargo:rustc-link-lib=dylib=LLVM");
    // A C program loading the library (and this crate's test binary) finds libMLIR.so.22.1
    // without LD_LIBRARY_PATH.
    println!("cargo:rustc-link-arg=-Wl,-rpath,{prefix}/lib");
}
