#!/usr/bin/env bash
# GPU round twelve (session 38): host cost of the facade's random-number calls on CUDA tensors,
# this branch (AFTER: torch_cpu_rng.py, the rewritten facade/random.py, nn.init, Linear's
# reset_parameters, F.dropout routing by place) against 0d4859f (BEFORE: main before session
# 38), on one H100 in one lease.  `run` sends the main checkout, so the trees travel as an
# ignored folder beside it (/.hc_gpu12/ in its .git/info/exclude):
#   .hc_gpu12/AFTER/   git archive of wt-gpu12 (torchproxy/, gpu/, bench/, setup.py, pyproject.toml)
#   .hc_gpu12/BEFORE/  git archive 0d4859f (the same paths)
#   .devwheels/        p00..p02 the slimmed paddlepaddle-gpu 2.6.2 wheel, p03 its small wheels
#                      (astor, decorator, opt-einsum; gpu/lease_session9.sh)
# Calls, from the main checkout's root:
#   1-3  mkdir -p /tmp/dw && cp -n .devwheels/p0N/* /tmp/dw/     (carry .devwheels/p00, p01, p02)
#   4    cd .hc_gpu12/AFTER && ROUNDS=3 bash gpu/lease_session12.sh measure
#                                                 (carry .devwheels/p03, .hc_gpu12)
#   then, on a fresh machine: calls 1-3 again and `bash .hc_gpu12/prof.sh` (gpu/rng_profile.py on
#   BEFORE and AFTER; the script is kept as docs/results/gpu-host-cost-h100-session12/prof.sh)
# docs/results/gpu-host-cost-h100-session12.txt's header says what ran.
# measure: install the wheels into /tmp/site, build each tree's C extensions, then
# gpu/rng_host_cost.py (this tree's script) on BEFORE and AFTER alternating, ROUNDS processes
# each, and its table; the log and the JSONs come back under $OUT.
set -uo pipefail
step=${1:?step}
export OUT=${OUT:-/tmp/host_cost_out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
HERE=$PWD
measure() {
  mkdir -p /tmp/dw
  for d in ../../.devwheels/p*; do [ -d "$d" ] && cp -n "$d"/* /tmp/dw/; done
  . gpu/paddle_site.sh
  install_paddle_site || return 1
  export PYTHONPATH=/tmp/site
  echo "== $(date -u +%FT%TZ) $(nvidia-smi -L)"
  for t in AFTER BEFORE; do
    (cd ../$t && python3 setup.py build_ext --inplace -q >/tmp/build_$t.log 2>&1) || tail -5 /tmp/build_$t.log
    echo "$t: $(cat ../$t/TREE), C extensions: $(ls ../$t/torchproxy/*.so | wc -l)"
  done
  python3 - <<'PY'
import numpy as np, paddle
x = paddle.to_tensor(np.arange(4, dtype="float32"), place=paddle.CUDAPlace(0))
print("slimmed Paddle: copy round trip", x.numpy().tolist(), "| x * 3 (Paddle's own kernel; "
      "zeros on sm_90 with any 2.6.2 wheel):", (x * 3).numpy().tolist())
PY
  mkdir -p "$OUT/json"
  for i in $(seq 1 "${ROUNDS:-3}"); do
    for t in BEFORE AFTER; do
      echo "== round $i: $t gpu/rng_host_cost.py measure"
      TORCHPROXY_TREE=$(cd ../$t && pwd) timeout 150 python3 gpu/rng_host_cost.py measure \
        "$OUT/json/${t}_$i.json" --device cuda -n "${N:-1000}" -r 7 2>&1 | grep -v "^W11"
    done
  done
  echo "== table"
  python3 gpu/rng_host_cost.py table "$OUT"/json/*.json
}
{
  case "$step" in
    measure) measure ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee -a "$OUT/host_cost_log.txt"
