#!/usr/bin/env bash
# Issue 26 (host cost on the GPU path), on the lent GPU machine, from the project root:
#
#   bash gpu/run_host_cost.sh stage    # copy the wheel pieces that came with this call to /tmp/dw
#   bash gpu/run_host_cost.sh run      # stage, install, then before/after benchmarks -> $OUT
#   bash gpu/run_host_cost.sh probe    # stage, install, bench/fresh_output.py only
#   bash gpu/run_host_cost.sh launch   # stage, install, the Triton launch rounds only
#   bash gpu/run_host_cost.sh hostcost # stage, install, host_cost.py rounds + correctness checks
#   bash gpu/run_host_cost.sh flashinfer  # stage, install, gpu/flashinfer_check.py
#   bash gpu/run_host_cost.sh tilelang # stage, install (+ .devwheels/tl* into /tmp/site-tl),
#                                      # gpu/ffi_host_cost.py tilelang, BASELINE and AFTER, twice
#   bash gpu/run_host_cost.sh tvmffi   # flashinfer, then tilelang
#   bash gpu/run_host_cost.sh all      # launch rounds, hostcost + checks, flashinfer (both
#                                      # trees), tilelang: one call (ROUNDS=3 fits 10 minutes)
# (launch, hostcost and flashinfer split one run over calls of at most 10 minutes each;
#  ROUNDS=n sets the Triton launch rounds, 4 by default)
#
# Wheels: .devwheels/p00..p02 (ignored, carried one per call; 64 MiB a transfer): the
# paddlepaddle-gpu 2.6.2 wheel slimmed by gpu/slim_paddle_wheel.py (cubin payloads of fat
# binaries with no sm_90 code zeroed: they never load on sm_90) in 52 MiB parts, plus astor,
# decorator, opt-einsum 3.3.0 and apache-tvm-ffi 0.1.14.post1 (cp312).
# Baseline: .hc_base/ (ignored, carried with the last piece) = this tree with issue 26's changes
# to torchproxy/ reversed (gpu/make_host_cost_baseline.sh); the same bench script measures both
# trees (TORCHPROXY_TREE), alternating, three rounds, on this one machine.
set -uo pipefail
mode=${1:-run}
mkdir -p /tmp/dw
for d in .devwheels/p*; do
  [ -d "$d" ] && cp -n "$d"/* /tmp/dw/
done
# TileLang's wheels (tilelang 0.1.15 and its tvm-ffi 0.1.12, z3-solver, ...) in their own site
mkdir -p /tmp/dwtl
for d in .devwheels/tl*; do
  [ -d "$d" ] && cp -n "$d"/* /tmp/dwtl/
done
echo "== tree: $(git rev-parse --short HEAD 2>/dev/null) $(git branch --show-current 2>/dev/null) $PWD"
ls -la /tmp/dw /tmp/dwtl
[ "$mode" = stage ] && exit 0

OUT=${OUT:-/tmp/host_cost_out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/host_cost_log.txt") 2>&1
export PYTHONUNBUFFERED=1
echo "== $(date -u +%FT%TZ) $(nvidia-smi -L)"
. "$(dirname "$0")/paddle_site.sh"
install_paddle_site || exit 1
export PYTHONPATH=/tmp/site
python3 - <<'EOF'
import sys, numpy as np, paddle, torch, triton, tvm_ffi
print("versions:", "python", sys.version.split()[0], "paddle", paddle.__version__, "torch",
      torch.__version__, "triton", triton.__version__, "tvm_ffi", tvm_ffi.__version__,
      "gpu", torch.cuda.get_device_name(0))
x = paddle.to_tensor(np.arange(4, dtype="float32"), place=paddle.CUDAPlace(0))
print("slimmed Paddle: copy round trip", x.numpy().tolist(), "| x * 3 (Paddle's own kernel; "
      "zeros on sm_90 with any 2.6.2 wheel):", (x * 3).numpy().tolist(),
      "| empty", paddle.empty([4]).place)
EOF
echo "== build the C dispatcher in both trees"
python3 setup.py build_ext --inplace -q >/tmp/build_new.log 2>&1 || tail -5 /tmp/build_new.log
(cd .hc_base && python3 setup.py build_ext --inplace -q >/tmp/build_base.log 2>&1) || tail -5 /tmp/build_base.log
echo "baseline tree: $(cat .hc_base/BASELINE 2>/dev/null)"
if [ "$mode" = probe ]; then  # the fresh-output probe alone (bench/fresh_output.py), twice
  for i in 1 2; do echo "== probe $i: bench/fresh_output.py"; timeout 240 python3 bench/fresh_output.py; done
  echo "== done $(date -u +%FT%TZ)"; exit 0
fi

run_flashinfer() {
  mkdir -p /tmp/fi_base /tmp/fi_after
  echo "== SECTION: gpu/flashinfer_check.py, BASELINE tree"
  PYTHONPATH=/tmp/site:$PWD/.hc_base:. OUT=/tmp/fi_base timeout 300 python3 gpu/flashinfer_check.py \
    2>&1 | grep -E "^== |timing|stream:|OK|FAIL|MISMATCH|rror" | grep -v "^W11"
  echo "== END SECTION"
  echo "== SECTION: gpu/flashinfer_check.py, AFTER tree"
  PYTHONPATH=/tmp/site:. OUT=/tmp/fi_after timeout 300 python3 gpu/flashinfer_check.py \
    2>&1 | grep -E "^== |timing|stream:|OK|FAIL|MISMATCH|rror" | grep -v "^W11"
  echo "== END SECTION"
}
run_tilelang() {
  if [ ! -f /tmp/site-tl/.installed ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site-tl /tmp/dwtl/*.whl \
      && touch /tmp/site-tl/.installed || { echo "tilelang install failed"; return 1; }
  fi
  export TILELANG_CACHE_DIR=/tmp/tlcache
  for i in 1 2; do
    for tree in BASELINE AFTER; do
      d=/tmp/tl/${tree}_$i; mkdir -p "$d"; tp=$PWD; [ $tree = BASELINE ] && tp=$PWD/.hc_base:$PWD
      echo "== tilelang $tree round $i"
      PYTHONPATH=/tmp/site-tl:/tmp/site:$tp timeout 300 python3 gpu/ffi_host_cost.py tilelang \
        "$d/ffi_tilelang.json" > "$d/log.txt" 2>&1; echo "rc=$?"; grep -E "Error|ERROR" "$d/log.txt" | head -5
    done
  done
  echo "== tilelang-torch"
  PYTHONPATH=/tmp/site-tl:/tmp/site:$PWD timeout 240 python3 gpu/ffi_host_cost.py tilelang-torch \
    /tmp/tl/ffi_tilelang-torch.json > /tmp/tl/torch_log.txt 2>&1; echo "rc=$?"
  for d in /tmp/tl/BASELINE_* /tmp/tl/AFTER_*; do
    cp /tmp/tl/ffi_tilelang-torch.json "$d/" 2>/dev/null
    echo "== SECTION: TileLang kernels through tvm-ffi, $(basename "$d") (gpu/ffi_host_cost.py summary)"
    python3 gpu/ffi_host_cost.py summary "$d" 2>&1
    echo "== END SECTION"
  done
  (cd /tmp/tl && tar czf "$OUT/tilelang_json.tgz" $(find . -name "*.json"))
}
if [ "$mode" = flashinfer ]; then
  run_flashinfer; echo "== done $(date -u +%FT%TZ)"; exit 0
fi
if [ "$mode" = tilelang ]; then
  run_tilelang; echo "== done $(date -u +%FT%TZ)"; exit 0
fi
if [ "$mode" = tvmffi ]; then  # flashinfer, then tilelang
  run_flashinfer; run_tilelang; echo "== done $(date -u +%FT%TZ)"; exit 0
fi
if [ "$mode" != hostcost ]; then
for i in $(seq 1 "${ROUNDS:-4}"); do
  echo "== round $i: BASELINE (issue 26 changes reversed) bench/triton_launch.py"
  TORCHPROXY_TREE=$PWD/.hc_base timeout 240 python3 bench/triton_launch.py
  echo "== round $i: AFTER bench/triton_launch.py"
  timeout 240 python3 bench/triton_launch.py
done
fi
[ "$mode" = launch ] && { echo "== done $(date -u +%FT%TZ)"; exit 0; }
if [ "$mode" = all ]; then  # the tvm-ffi paths first: they compile with nvcc on first use
  run_flashinfer
  run_tilelang
fi
if [ "$mode" = run ]; then
# an experiment, not a setting to ship: is Paddle's stream-safe allocator (events recorded when
# an output used on a stream is freed) what a freshly allocated output costs?
for i in 1 2; do
  echo "== round $i: AFTER_NO_STREAM_SAFE_ALLOCATOR (FLAGS_use_stream_safe_cuda_allocator=0)"
  FLAGS_use_stream_safe_cuda_allocator=0 timeout 240 python3 bench/triton_launch.py
done

fi
# the baseline with --gpu too: the wrapper rows (x.device, empty, empty_like on GPU tensors)
# before/after on this machine (host_cost.py leaves out the rows an older tree lacks)
for i in 1 2; do
  echo "== BASELINE bench/host_cost.py --gpu (round $i)"
  TORCHPROXY_TREE=$PWD/.hc_base timeout 240 python3 bench/host_cost.py --gpu -n 10000
  echo "== AFTER bench/host_cost.py --gpu (round $i)"
  timeout 240 python3 bench/host_cost.py --gpu -n 10000
done

echo "== correctness, AFTER tree: gpu/triton_check.py"
mkdir -p /tmp/tc
PYTHONPATH=/tmp/site:. OUT=/tmp/tc timeout 300 python3 gpu/triton_check.py >/tmp/tc/stdout.txt 2>&1
echo "triton_check rc=$?"; grep -E "^== |^   (ok|FAIL)|ALL OK|FAILED" /tmp/tc/stdout.txt | head -60
cp /tmp/tc/triton_check.json "$OUT/" 2>/dev/null
echo "== correctness, AFTER tree: gpu/facade_cuda_check.py"
PYTHONPATH=/tmp/site:. OUT=/tmp/tc timeout 200 python3 gpu/facade_cuda_check.py
echo "facade_cuda_check rc=$?"
cp /tmp/tc/facade_cuda.json "$OUT/" 2>/dev/null
echo "== done $(date -u +%FT%TZ)"
