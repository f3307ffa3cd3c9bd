#!/usr/bin/env bash
# The steps of an issue 26 host-cost lease (rounds four to eight ran these, unchanged), run from
# the AFTER tree's root (.hc_gpu) on the GPU machine: launch | hostcost | unscoped | tvmffi |
# tvmffi-only | flashinfer | checks-base | recheck (the last three added in round ten).
# Each round's gpu/lease_sessionN.sh says which `run` calls made up its lease and passes its
# step here.
set -uo pipefail
step=${1:?step}
# run_host_cost.sh reads .devwheels/ and .hc_base/ in the working directory
ln -sfn ../.devwheels .devwheels
ln -sfn ../.hc_gpu_base .hc_base
export OUT=${OUT:-/tmp/host_cost_out}

# unscoped Paddle code with the proxy enabled for another library (aim <= 1.3x), both trees,
# on this machine's CPU (Paddle GPU 2.6.2, Python 3.12): unscoped ROUNDS [last]
unscoped() {
  export PYTHONPATH=/tmp/site
  mkdir -p .hc_base/bench && cp bench/unscoped_paddle.py .hc_base/bench/  # the same script
  for i in $(seq 1 "$1"); do
    for tree in BASELINE AFTER; do
      d=$PWD; [ $tree = BASELINE ] && d=$PWD/.hc_base
      suffix=""; [ "${2:-}" = last ] && suffix=" (last call, round $i)"
      echo "== SECTION: bench/unscoped_paddle.py, $tree tree$suffix"
      (cd "$d" && timeout 100 python3 bench/unscoped_paddle.py 2>&1 | grep -v "^W11")
      echo "== END SECTION"
    done
  done 2>&1 | tee -a "$OUT/host_cost_log.txt"
}
# the BASELINE tree's correctness checks, each run from inside that tree (the scripts put their
# own checkout first on sys.path): its own gpu/triton_check.py and gpu/facade_cuda_check.py (the
# tree under re-verification, with its own checks), then this tree's facade_cuda_check.py
# (checks added since apply to any tree) against it; each as a SECTION of the log
checks_base() {
  (. gpu/paddle_site.sh; mkdir -p /tmp/dw; for d in .devwheels/p*; do [ -d "$d" ] && cp -n "$d"/* /tmp/dw/; done
   install_paddle_site) || return 1
  export PYTHONPATH=/tmp/site:. PYTHONUNBUFFERED=1
  mkdir -p "$OUT" /tmp/tcb /tmp/fcb /tmp/fcn
  cp gpu/facade_cuda_check.py .hc_base/gpu/facade_cuda_check_after.py
  (cd .hc_base && python3 setup.py build_ext --inplace -q >/tmp/build_base.log 2>&1) || tail -5 /tmp/build_base.log
  {
    echo "== SECTION: gpu/triton_check.py, BASELINE tree's own ($(cat .hc_base/BASELINE 2>/dev/null))"
    (cd .hc_base && OUT=/tmp/tcb timeout 300 python3 gpu/triton_check.py >/tmp/tcb/stdout.txt 2>&1
     echo "triton_check rc=$?")
    grep -E "^== |^   (ok|FAIL)|ALL OK|FAILED" /tmp/tcb/stdout.txt | head -60
    echo "== END SECTION"
    echo "== SECTION: gpu/facade_cuda_check.py, BASELINE tree's own"
    (cd .hc_base && OUT=/tmp/fcb timeout 200 python3 gpu/facade_cuda_check.py 2>&1 | grep -v "^W11"
     echo "facade_cuda_check rc=${PIPESTATUS[0]}")
    echo "== END SECTION"
    echo "== SECTION: gpu/facade_cuda_check.py of the AFTER tree, run on the BASELINE tree"
    (cd .hc_base && OUT=/tmp/fcn timeout 200 python3 gpu/facade_cuda_check_after.py 2>&1 | grep -v "^W11"
     echo "facade_cuda_check rc=${PIPESTATUS[0]}")
    echo "== END SECTION"
  } 2>&1 | tee -a "$OUT/host_cost_log.txt"
  cp /tmp/tcb/triton_check.json "$OUT/triton_check_base.json" 2>/dev/null
  cp /tmp/fcb/facade_cuda.json "$OUT/facade_cuda_base.json" 2>/dev/null
  echo "== done $(date -u +%FT%TZ)" | tee -a "$OUT/host_cost_log.txt"
}
# this tree's facade_cuda_check.py on this tree and on the BASELINE tree, then one more
# bench/host_cost.py --gpu round per tree (round ten's second machine, after a fix found by the
# first)
recheck() {
  (. gpu/paddle_site.sh; mkdir -p /tmp/dw; for d in .devwheels/p*; do [ -d "$d" ] && cp -n "$d"/* /tmp/dw/; done
   install_paddle_site) || return 1
  export PYTHONPATH=/tmp/site:. PYTHONUNBUFFERED=1
  mkdir -p "$OUT" /tmp/tc /tmp/fcn
  python3 setup.py build_ext --inplace -q >/tmp/build_new.log 2>&1 || tail -5 /tmp/build_new.log
  (cd .hc_base && python3 setup.py build_ext --inplace -q >/tmp/build_base.log 2>&1) || tail -5 /tmp/build_base.log
  cp gpu/facade_cuda_check.py .hc_base/gpu/facade_cuda_check_after.py
  {
    echo "== SECTION: gpu/facade_cuda_check.py, AFTER tree ($(cat AFTER 2>/dev/null))"
    OUT=/tmp/tc timeout 200 python3 gpu/facade_cuda_check.py 2>&1 | grep -v "^W11"
    echo "facade_cuda_check rc=${PIPESTATUS[0]}"
    echo "== END SECTION"
    echo "== SECTION: gpu/facade_cuda_check.py of the AFTER tree, run on the BASELINE tree"
    (cd .hc_base && OUT=/tmp/fcn timeout 200 python3 gpu/facade_cuda_check_after.py 2>&1 | grep -v "^W11"
     echo "facade_cuda_check rc=${PIPESTATUS[0]}")
    echo "== END SECTION"
    echo "== BASELINE bench/host_cost.py --gpu (round 3)"
    TORCHPROXY_TREE=$PWD/.hc_base timeout 240 python3 bench/host_cost.py --gpu -n 10000
    echo "== AFTER bench/host_cost.py --gpu (round 3)"
    timeout 240 python3 bench/host_cost.py --gpu -n 10000
  } 2>&1 | tee -a "$OUT/host_cost_log.txt"
  cp /tmp/tc/facade_cuda.json "$OUT/" 2>/dev/null
  cp /tmp/fcn/facade_cuda.json "$OUT/facade_cuda_after_on_base.json" 2>/dev/null
  echo "== done $(date -u +%FT%TZ)" | tee -a "$OUT/host_cost_log.txt"
}
case "$step" in
  launch) ROUNDS=${ROUNDS:-3} bash gpu/run_host_cost.sh launch ;;
  hostcost)
    bash gpu/run_host_cost.sh hostcost
    unscoped 1 ;;
  unscoped) unscoped 2 last ;;
  tvmffi)
    bash gpu/run_host_cost.sh tvmffi
    bash gpu/run_host_cost.sh probe ;;
  tvmffi-only) bash gpu/run_host_cost.sh tvmffi ;;  # FlashInfer and TileLang, both trees
  flashinfer) bash gpu/run_host_cost.sh flashinfer ;;  # FlashInfer's check + timing, both trees
  checks-base) checks_base ;;
  recheck) recheck ;;
  *) echo "unknown step $step"; exit 2 ;;
esac
