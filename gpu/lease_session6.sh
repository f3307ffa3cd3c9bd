#!/usr/bin/env bash
# Issue 26, sixth round (data_ptr(), dtype ==, Size[i] in C; autograd.Function in one pass): one lease of consecutive `run` calls, each one step below.  `run`
# sends the main checkout, so this round's tree travels as an ignored copy beside it:
#   .hc_gpu/       this branch's torchproxy/, bench/, gpu/, kernels/, setup.py, pyproject.toml
#                  (the AFTER tree; the step runs with it as the working directory)
#   .hc_gpu_base/  the same with main's HEAD at this round's start
#                  (git archive 22d1d5a: torchproxy/, setup.py, pyproject.toml)
#   .devwheels/p00..p03, tl1, tl2: wheel pieces, one or two per call (64 MiB a transfer)
# Calls, from the main checkout's root:
#   1-3  bash gpu/run_host_cost.sh stage                       (carry .devwheels/p00, p01, p02)
#   4    cd .hc_gpu && bash gpu/lease_session6.sh launch       (+ p03, .hc_gpu, .hc_gpu_base)
#   5    cd .hc_gpu && bash gpu/lease_session6.sh hostcost     (+ tl1, .hc_gpu, .hc_gpu_base)
#   6    cd .hc_gpu && bash gpu/lease_session6.sh tvmffi       (+ tl2, .hc_gpu, .hc_gpu_base)
#   7    cd .hc_gpu && bash gpu/lease_session6.sh launch >/dev/null 2>&1;
#        bash gpu/lease_session6.sh unscoped                     (.hc_gpu, .hc_gpu_base)
# Each step's log comes back as $OUT/host_cost_log.txt (gpu/run_host_cost.sh writes it);
# gpu/summarize_host_cost.py turns the logs into docs/results/gpu-host-cost-h100-session6.txt.
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
case "$step" in
  launch) ROUNDS=${ROUNDS:-3} bash gpu/run_host_cost.sh launch ;;
  hostcost)
    bash gpu/run_host_cost.sh hostcost
    unscoped 1 ;;
  unscoped) unscoped 2 last ;;
  tvmffi)
    bash gpu/run_host_cost.sh tvmffi
    bash gpu/run_host_cost.sh probe ;;
  *) echo "unknown step $step"; exit 2 ;;
esac
