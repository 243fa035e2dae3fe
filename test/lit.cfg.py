# lit configuration of the ge-mlir test suite (LLVM 22's lit: /usr/bin/lit-22).
#
# Tests call tools by name: `ge-opt` (from $GE_OPT_BIN_DIR, else the cargo target dir's
# debug/ directory) and LLVM's `mlir-opt`, `FileCheck`, `not` (from /usr/lib/llvm-22/bin,
# or $LLVM_TOOLS_DIR). Both directories go first on PATH.
#
# Substitutions: %irdl = the dialect's IRDL file, for cross-checks with stock mlir-opt:
#   ge-opt %s | mlir-opt --irdl-file=%irdl

import os

import lit.formats

config.name = "ge-mlir"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".ge", ".test"]
config.excludes = ["Output", "Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))

repo_root = os.path.dirname(config.test_source_root)
target_dir = os.environ.get("CARGO_TARGET_DIR", os.path.join(repo_root, "target"))
ge_opt_dir = os.environ.get("GE_OPT_BIN_DIR", os.path.join(target_dir, "debug"))
llvm_tools_dir = os.environ.get("LLVM_TOOLS_DIR", "/usr/lib/llvm-22/bin")

for tool, directory in [("ge-opt", ge_opt_dir), ("mlir-opt", llvm_tools_dir),
                        ("FileCheck", llvm_tools_dir), ("not", llvm_tools_dir)]:
    if not os.access(os.path.join(directory, tool), os.X_OK):
        lit_config.fatal(f"{tool} not found in {directory} (build with test/run.sh, or set "
                         f"GE_OPT_BIN_DIR / LLVM_TOOLS_DIR)")

config.environment["PATH"] = os.pathsep.join(
    [ge_opt_dir, llvm_tools_dir, os.environ.get("PATH", "")])
# Keep tool output stable: no colours, no user-specific temp dir surprises.
config.environment["NO_COLOR"] = "1"
for name in ["TMPDIR", "TMP", "TEMP", "HOME"]:
    if name in os.environ:
        config.environment[name] = os.environ[name]

config.substitutions.append(
    ("%irdl", os.path.join(repo_root, "dialects", "ascend.irdl.mlir")))
