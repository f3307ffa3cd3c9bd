#!/usr/bin/env bash
# The steps of an issue 26 host-cost lease (rounds four to eight ran these, unchanged), run from
# the AFTER tree's root (.hc_gpu) on the GPU machine: launch | hostcost | unscoped | tvmffi |
# tvmffi-only.
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
  *) echo "unknown step $step"; exit 2 ;;
esac
