#!/usr/bin/env bash
# CI for tests/tilelang: two clean venvs, one per TileLang distribution (both install the
# package `tilelang`, so they cannot share one), then the TileLang tests in each.
#   tilelang-paddle 0.1.13 (Paddle's fork)  -> /opt/venv-tlp
#   tilelang 0.1.15 (upstream), --no-deps   -> /opt/venv-tlu  (its `torch` requirement skipped:
#                                              torch 2.13.0+cpu is installed explicitly as the oracle)
# Both pin apache-tvm-ffi==0.1.12: both TileLangs require >=0.1.11,<0.1.13.
# Measured on 2 shared CPU cores: venvs 70 s + 90 s (warm pip cache), tests ~90 s + ~60 s.
# Usage (project root): bash tests/tilelang/ci_venvs.sh [venv-root]   (default /opt)
set -euo pipefail
ROOT=${1:-/opt}
COMMON=(paddlepaddle==3.3.1 numpy pytest torch==2.13.0 apache-tvm-ffi==0.1.12
        cloudpickle ml-dtypes psutil tqdm typing-extensions "z3-solver>=4.13.0,<4.15.5")
mk() {  # mk <venv> <tilelang requirement>
  [ -x "$1/bin/python" ] || python3 -m venv "$1"
  "$1/bin/pip" install -q "${COMMON[@]}"
  "$1/bin/pip" install -q --no-deps "$2"
}
mk "$ROOT/venv-tlp" tilelang-paddle==0.1.13
mk "$ROOT/venv-tlu" tilelang==0.1.15
rc=0
for v in venv-tlp venv-tlu; do
  echo "== tests/tilelang with $v"
  "$ROOT/$v/bin/python" -m pytest -q tests/tilelang || rc=1
done
exit $rc
