#!/usr/bin/env bash
# What tests/flashinfer needs on a CPU machine with nvcc (CUDA 13):
#   bash tests/flashinfer/setup_env.sh headers   # only the CUDA extras (~30 s: 420 MB cuBLAS
#                                                #   wheel downloaded, only its headers kept)
#   bash tests/flashinfer/setup_env.sh           # + a venv with Paddle 3.3.1 and the FlashInfer
#                                                #   Paddle port, no torch (~2 min)
# CUDA extras: FlashInfer's kernels include <cublasLt.h> and <curand_kernel.h>, which a toolkit
# assembled from pip nvidia-* packages may lack, and link -lcuda, which only a GPU driver (or a
# stub) provides.  Tests find them through TORCHPROXY_CUDA_EXTRA (default /opt/cuda-extra).
# In an existing environment instead of the venv:
#   pip install --no-deps flashinfer-python-paddle==0.4.1.1 apache-tvm-ffi==0.1.14.post1 \
#       typing-extensions filelock jinja2 markupsafe requests urllib3 charset-normalizer idna certifi packaging
set -euo pipefail
EXTRA=${TORCHPROXY_CUDA_EXTRA:-/opt/cuda-extra}
if [ ! -f "$EXTRA/stubs/libcuda.so" ] || [ ! -f "$EXTRA/nvidia/cu13/include/cublasLt.h" ]; then
  tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps nvidia-cublas==13.0.2.14 nvidia-curand==10.4.0.35 -d "$tmp"
  mkdir -p "$EXTRA/stubs"
  for w in "$tmp"/*.whl; do unzip -q -o "$w" 'nvidia/*/include/*' -d "$EXTRA"; done
  rm -rf "$tmp"
  # an empty library with the driver's soname: enough to link, never loaded here
  echo "" | gcc -shared -x c - -Wl,-soname,libcuda.so.1 -o "$EXTRA/stubs/libcuda.so"
fi
echo "ok: CUDA headers and libcuda stub in $EXTRA"
[ "${1:-}" = "headers" ] && exit 0
VENV=${VENV:-/opt/venv-fip}
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q paddlepaddle==3.3.1 numpy pytest
"$VENV/bin/pip" install -q --no-deps flashinfer-python-paddle==0.4.1.1 apache-tvm-ffi==0.1.14.post1 \
    typing-extensions filelock jinja2 markupsafe requests urllib3 charset-normalizer idna certifi packaging
echo "ok: $VENV  (then: $VENV/bin/python -m pytest tests/flashinfer)"
