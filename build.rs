//! Generates the `.ge` parser from `grammar/ascend.lalrpop`, and compiles the one C++
//! extension of MLIR's C API (`src/ir/capi_ext.cpp`) against the MLIR mlir-sys links, and
//! generates the ONNX protobuf types (`src/onnx/proto/onnx.proto3`) with prost.
fn main() {
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .emit_rerun_directives(true)
        .process()
        .expect("lalrpop grammar must compile");
    capi_ext();
    mimalloc_defaults();
    onnx_schema();
}

/// `src/ir/capi_ext.cpp`, with the flags `llvm-config --cxxflags` gives (LLVM is built
/// without RTTI and exceptions; the ABI macros must match).
fn capi_ext() {
    let prefix = std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    println!("cargo:rerun-if-changed=src/ir/capi_ext.cpp");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .file("src/ir/capi_ext.cpp")
        .include(format!("{prefix}/include"))
        .flag_if_supported("-std=c++17")
        .flag_if_supported("-fno-rtti")
        .flag_if_supported("-fno-exceptions")
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_FORMAT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .warnings(false);
    build.compile("ge_capi_ext");
}

/// `tools/ge-opt/allocator.c`, against the header of the mimalloc that `libmimalloc-sys`
/// builds (it exports its include directory to direct dependents as
/// `DEP_MIMALLOC_INCLUDE_DIR`), so option names resolve to that build's numbers.
fn mimalloc_defaults() {
    println!("cargo:rerun-if-changed=tools/ge-opt/allocator.c");
    let include = std::env::var("DEP_MIMALLOC_INCLUDE_DIR")
        .expect("libmimalloc-sys exports its include directory");
    cc::Build::new()
        .file("tools/ge-opt/allocator.c")
        .include(include)
        .compile("ge_mimalloc_defaults");
}

/// The ONNX schema as prost types (`OUT_DIR/onnx.rs`, included by `src/onnx/proto.rs`).
/// `protox` parses the `.proto` in Rust, so no system `protoc` is needed.
fn onnx_schema() {
    let proto = "src/onnx/proto/onnx.proto3";
    println!("cargo:rerun-if-changed={proto}");
    let descriptors =
        protox::compile([proto], ["src/onnx/proto"]).expect("the ONNX schema must parse");
    prost_build::Config::new()
        .compile_fds(descriptors)
        .expect("prost must generate the ONNX types");
}
