#!/usr/bin/env bash
# Set up what tests/flashinfer needs on a CPU machine with nvcc (CUDA 13) and Python 3.11:
# a venv with Paddle + the FlashInfer Paddle port (no torch), and the two CUDA header sets
# FlashInfer's kernels include (cuBLAS, cuRAND) plus a link-time libcuda stub.
# Time here: ~2 min (paddlepaddle download dominates; the cuBLAS wheel is 420 MB, only its
# headers are kept).  Then:  /opt/venv-fip/bin/python -m pytest tests/flashinfer
set -euo pipefail
VENV=${VENV:-/opt/venv-fip}
EXTRA=${TORCHPROXY_CUDA_EXTRA:-/opt/cuda-extra}
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q paddlepaddle==3.3.1 numpy pytest
"$VENV/bin/pip" install -q --no-deps flashinfer-python-paddle==0.4.1.1 apache-tvm-ffi==0.1.14.post1 \
    typing-extensions filelock jinja2 markupsafe requests urllib3 charset-normalizer idna certifi
tmp=$(mktemp -d)
pip download -q --no-deps nvidia-cublas==13.0.2.14 nvidia-curand==10.4.0.35 -d "$tmp"
mkdir -p "$EXTRA/stubs"
for w in "$tmp"/*.whl; do unzip -q -o "$w" 'nvidia/*/include/*' -d "$EXTRA"; done
rm -rf "$tmp"
# libcuda.so comes with a GPU driver; to link without one, an empty stub with its soname
echo "" | gcc -shared -x c - -Wl,-soname,libcuda.so.1 -o "$EXTRA/stubs/libcuda.so"
echo "ok: $VENV, headers and stub in $EXTRA"
