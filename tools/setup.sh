#!/usr/bin/env bash
# Installs what ge-mlir needs on Debian 12 (run as root; idempotent and quick when done):
# LLVM/MLIR 22 from Debian's packages (libraries to link, mlir-opt/FileCheck/not/lit to test),
# mold (fast linking of the ~200 MB MLIR-linked binaries), GNU time (benchmarks) and g++
# (build.rs compiles one C++ extension of the MLIR C API, src/ir/capi_ext.cpp, and
# tools/ge-mlir-c its plugin entry; its gcc is the `cc` test/Plugin builds a C program with).
set -euo pipefail

packages=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libclang-22-dev
          libpolly-22-dev libzstd-dev mold time g++)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

command -v cargo >/dev/null || { echo "setup: cargo (Rust) is required" >&2; exit 1; }
test -x /usr/lib/llvm-22/bin/mlir-opt || { echo "setup: mlir-opt 22 missing after install" >&2; exit 1; }
command -v lit-22 >/dev/null || { echo "setup: lit-22 missing after install" >&2; exit 1; }
echo "setup: LLVM/MLIR 22, lit and mold are installed"
