#!/usr/bin/env bash
# GPU round eleven: main's 207ce7d (session 36's facade changes: float32 CPU sums with torch's
# accuracy, facade/_accurate_sum.py; the broadcastability check and exact-broadcast PyLayer in
# add/sub/mul/div; pin_memory= refused in the creation functions; paddle_shims.widen) re-verified
# on an H100, its host cost on CUDA tensors measured against the tree before those changes, and
# this branch's changes (pin_memory=True pinning as torch's CUDA build; the CUDA path of the
# accurate sums cheaper) checked and measured.  `run` sends the main checkout, so the trees
# travel as ignored copies beside it (/.hc_gpu/, /.hc_gpu_base/, /.devwheels/ are in its
# .git/info/exclude):
#   .hc_gpu/       git archive of this branch (torchproxy/, bench/, gpu/, kernels/, setup.py,
#                  pyproject.toml): AFTER, the working directory of every step
#   .hc_gpu/pre/   git archive 1d0587b (wt-gpu10's last commit = main's ded0f79 + round ten's
#                  changes, none of session 36's): BASELINE of the host-cost comparisons
#   .hc_gpu_base/  git archive 207ce7d (main): MAIN, the tree re-verified (its own checks) and
#                  the third column of the facade-op host cost
#   .devwheels/    p00..p02 the slimmed paddlepaddle-gpu 2.6.2 wheel, p03 FlashInfer's port and
#                  small wheels (gpu/lease_session9.sh)
# Calls, from the main checkout's root:
#   1-3  bash gpu/run_host_cost.sh stage                  (carry .devwheels/p00, p01, p02)
#   4    cd .hc_gpu && bash gpu/lease_session11.sh ops    (+ .devwheels/p03, .hc_gpu, .hc_gpu_base)
#   5    cd .hc_gpu && bash gpu/lease_session11.sh checks (.hc_gpu, .hc_gpu_base)
#   6    cd .hc_gpu && ROUNDS=3 bash gpu/lease_session11.sh launch   (.hc_gpu, .hc_gpu_base)
# As run (docs/results/gpu-host-cost-h100-session11.txt's header says which tree each log had):
# machine 1: calls 1-6 (its calls 5-6 ran without C builds, the carried .hc_gpu being replaced on
# every call: kept, not tabled; setup() now builds in /tmp/trees11 once per machine); machine 2:
# calls 1-3, 5, then `launch` and `ROUNDS=2 ... ops` in one call; machine 3: calls 1-3, 5, then
# `ROUNDS=3 ... ops`; machines 4-6: calls 1-3, then `pincheck` (+ .devwheels/p03, .hc_gpu,
# .hc_gpu_base; machines 5-6 with `ROUNDS=3 ... ops` after it in the same call)
# Each call's log comes back as $OUT/host_cost_log.txt; gpu/summarize_host_cost.py turns the logs
# into docs/results/gpu-host-cost-h100-session11.txt.
set -uo pipefail
step=${1:?step}
ln -sfn ../.devwheels .devwheels
ln -sfn ../.hc_gpu_base .hc_base
export OUT=${OUT:-/tmp/host_cost_out}
mkdir -p "$OUT"
LOG=$OUT/host_cost_log.txt
AFTER=$PWD MAIN=$PWD/.hc_base BASELINE=$PWD/pre
export PYTHONUNBUFFERED=1

setup() {  # the wheels staged by calls 1-3 (+ p03 here), installed once; the trees copied to
  # /tmp/trees11 and their C extensions built there once per machine (a carried folder is
  # replaced on every call, build outputs included: the first lease of this round ran its
  # checks and launches without them, log-machine1-*-no-c-build.txt)
  . gpu/paddle_site.sh
  mkdir -p /tmp/dw
  for d in .devwheels/p*; do [ -d "$d" ] && cp -n "$d"/* /tmp/dw/; done
  install_paddle_site || return 1
  export PYTHONPATH=/tmp/site
  local T=/tmp/trees11
  if [ ! -f $T/built ]; then
    rm -rf $T && mkdir -p $T && cp -r "$PWD" $T/AFTER && cp -rL ../.hc_gpu_base $T/MAIN
    for d in $T/AFTER $T/MAIN $T/AFTER/pre; do
      (cd "$d" && python3 setup.py build_ext --inplace -q >/tmp/build.log 2>&1) || tail -5 /tmp/build.log
    done
    touch $T/built
  fi
  cd $T/AFTER && ln -sfn ../MAIN .hc_base
  AFTER=$T/AFTER MAIN=$T/MAIN BASELINE=$T/AFTER/pre
  echo "C extensions: $(ls $T/AFTER/torchproxy/*.so $T/MAIN/torchproxy/*.so $T/AFTER/pre/torchproxy/*.so | wc -l) files (3 a tree)"
  echo "== $(date -u +%FT%TZ) $(nvidia-smi -L)"
  echo "trees: AFTER $(cat AFTER 2>/dev/null) | MAIN $(cat .hc_base/BASELINE 2>/dev/null) | BASELINE $(cat pre/BASELINE 2>/dev/null)"
  python3 - <<'EOF'
import sys, numpy as np, paddle, torch, triton
print("versions:", "python", sys.version.split()[0], "paddle", paddle.__version__, "torch",
      torch.__version__, "triton", triton.__version__, "gpu", torch.cuda.get_device_name(0))
x = paddle.to_tensor(np.arange(4, dtype="float32"), place=paddle.CUDAPlace(0))
print("slimmed Paddle: copy round trip", x.numpy().tolist(), "| x * 3 (Paddle's own kernel; "
      "zeros on sm_90 with any 2.6.2 wheel):", (x * 3).numpy().tolist())
EOF
}

ops() {  # bench/facade_ops_host.py --gpu, ROUNDS rounds, the three trees alternating
  for i in $(seq 1 "${ROUNDS:-3}"); do
    for tree in BASELINE MAIN AFTER; do
      echo "== facade-ops round $i: $tree"
      TORCHPROXY_TREE=${!tree} timeout 150 python3 bench/facade_ops_host.py --gpu -n 1000 -r 7 2>&1 \
        | grep -v "^W11"
    done
  done
}

checks() {  # correctness: Triton and facade checks on AFTER and MAIN, FlashInfer on both
  mkdir -p /tmp/tc /tmp/tcm /tmp/fca /tmp/fcm /tmp/fcn /tmp/fi_after /tmp/fi_main
  cp gpu/facade_cuda_check.py .hc_base/gpu/facade_cuda_check_after.py
  for t in AFTER MAIN; do
    d=${!t}; o=/tmp/tc; [ $t = MAIN ] && o=/tmp/tcm
    echo "== SECTION: gpu/triton_check.py, $t tree's own"
    (cd "$d" && PYTHONPATH=/tmp/site:. OUT=$o timeout 240 python3 gpu/triton_check.py >$o/stdout.txt 2>&1
     echo "triton_check rc=$?")
    grep -E "^== |^   (ok|FAIL)|ALL OK|FAILED" $o/stdout.txt | head -60
    echo "== END SECTION"
  done
  echo "== SECTION: gpu/facade_cuda_check.py, AFTER tree"
  PYTHONPATH=/tmp/site:. OUT=/tmp/fca timeout 200 python3 gpu/facade_cuda_check.py 2>&1 | grep -v "^W11"
  echo "facade_cuda_check rc=${PIPESTATUS[0]}"
  echo "== END SECTION"
  echo "== SECTION: gpu/facade_cuda_check.py, MAIN tree's own"
  (cd .hc_base && PYTHONPATH=/tmp/site:. OUT=/tmp/fcm timeout 200 python3 gpu/facade_cuda_check.py 2>&1 | grep -v "^W11"
   echo "facade_cuda_check rc=${PIPESTATUS[0]}")
  echo "== END SECTION"
  echo "== SECTION: gpu/facade_cuda_check.py of the AFTER tree, run on the MAIN tree"
  (cd .hc_base && PYTHONPATH=/tmp/site:. OUT=/tmp/fcn timeout 200 python3 gpu/facade_cuda_check_after.py 2>&1 | grep -v "^W11"
   echo "facade_cuda_check rc=${PIPESTATUS[0]}")
  echo "== END SECTION"
  for t in MAIN AFTER; do  # each tree's own script (it puts its own checkout first on sys.path)
    d=${!t}; o=/tmp/fi_after; [ $t = MAIN ] && o=/tmp/fi_main
    echo "== SECTION: gpu/flashinfer_check.py, $t tree's own"
    (cd "$d" && PYTHONPATH=/tmp/site OUT=$o timeout 240 python3 gpu/flashinfer_check.py 2>&1 \
      | grep -E "^== |timing|stream:|OK|FAIL|MISMATCH|rror" | grep -v "^W11")
    echo "== END SECTION"
  done
  cp /tmp/tc/triton_check.json "$OUT/triton_check.json" 2>/dev/null
  cp /tmp/tcm/triton_check.json "$OUT/triton_check_main.json" 2>/dev/null
  cp /tmp/fca/facade_cuda.json "$OUT/facade_cuda.json" 2>/dev/null
  cp /tmp/fcm/facade_cuda.json "$OUT/facade_cuda_main.json" 2>/dev/null
  cp /tmp/fcn/facade_cuda.json "$OUT/facade_cuda_after_on_main.json" 2>/dev/null
}

pincheck() {  # machine 4: this tree's facade check alone (after the copy_ fix it called for)
  mkdir -p /tmp/fca
  echo "== SECTION: gpu/facade_cuda_check.py, AFTER tree ($(cat AFTER))"
  PYTHONPATH=/tmp/site:. OUT=/tmp/fca timeout 200 python3 gpu/facade_cuda_check.py 2>&1 | grep -v "^W11"
  echo "facade_cuda_check rc=${PIPESTATUS[0]}"
  echo "== END SECTION"
  cp /tmp/fca/facade_cuda.json "$OUT/facade_cuda.json" 2>/dev/null
}

launch() {  # bench/triton_launch.py, BASELINE and AFTER alternating, then host_cost.py --gpu
  for i in $(seq 1 "${ROUNDS:-3}"); do
    for tree in BASELINE AFTER; do
      echo "== round $i: $tree bench/triton_launch.py"
      TORCHPROXY_TREE=${!tree} timeout 150 python3 bench/triton_launch.py 2>&1 | grep -v "^W11"
    done
  done
  for tree in BASELINE AFTER; do
    echo "== $tree bench/host_cost.py --gpu (round 1)"
    TORCHPROXY_TREE=${!tree} timeout 150 python3 bench/host_cost.py --gpu -n 10000 2>&1 | grep -v "^W11"
  done
}

{
  setup || exit 1
  case "$step" in
    ops) ops ;;
    checks) checks ;;
    pincheck) pincheck ;;
    launch) launch ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee -a "$LOG"
