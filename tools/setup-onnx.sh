#!/usr/bin/env bash
# Installs the Python `onnx` package into a virtual environment (default: target/onnx-venv,
# or $ONNX_VENV), idempotent and quick when done. The ONNX tests use it to *make* their
# models at test time (test/Onnx/make_models.py, tools/onnx-node-tests.py); nothing is
# downloaded while tests run. Prints the venv's python on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${ONNX_VENV:-$PWD/target/onnx-venv}"
onnx_version="${ONNX_VERSION:-1.23.2}"

if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
fi
if ! "$venv/bin/python" -c 'import onnx, numpy' 2>/dev/null; then
  echo "setup-onnx: creating $venv with onnx $onnx_version" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "onnx==$onnx_version" numpy >&2
fi
"$venv/bin/python" -c 'import onnx; print("setup-onnx: onnx", onnx.__version__, file=__import__("sys").stderr)'
echo "$venv/bin/python"
