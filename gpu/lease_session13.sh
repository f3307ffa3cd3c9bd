#!/usr/bin/env bash
# GPU round thirteen (session 38, helper gpu13): CUDA randint/randperm's host cost (1.37x and
# 1.56x of 0d4859f in round twelve) profiled and fixed; the CUDA branches of bernoulli_,
# exponential_, cauchy_, log_normal_, geometric_, torch.bernoulli now drawing through _sample
# (_draws) checked; ops on pinned tensors against torch 2.11.  One H100 lease.  `run` sends
# the main checkout, so the trees travel as an ignored folder beside it (/.hc_gpu13/ in its
# .git/info/exclude):
#   .hc_gpu13/AFTER/   git archive of wt-gpu13 (torchproxy/, gpu/, bench/, setup.py, pyproject.toml)
#   .hc_gpu13/MAIN/    git archive 54da408 (main at this round's start; round twelve's fix)
#   .hc_gpu13/BEFORE/  git archive 0d4859f (main before session 38)
#   .devwheels/        p00..p02 the slimmed paddlepaddle-gpu 2.6.2 wheel, p03 its small wheels
# Calls, from the main checkout's root:
#   1-3  mkdir -p /tmp/dw && cp -n .devwheels/p0N/* /tmp/dw/       (carry .devwheels/p00, p01, p02)
#   4    cd .hc_gpu13/AFTER && bash gpu/lease_session13.sh checks   (carry .devwheels/p03, .hc_gpu13)
#   5    cd .hc_gpu13/AFTER && ROUNDS=3 bash gpu/lease_session13.sh measure       (carry .hc_gpu13)
#   second lease: calls 1-3 again, then
#   6    cd .hc_gpu13/AFTER && ROUNDS=4 bash gpu/lease_session13.sh round2 (carry .devwheels/p03, .hc_gpu13)
#   third lease (AFTER = the pinned cpu()/numpy() fix): calls 1-3 again, then
#   7    cd .hc_gpu13/AFTER && bash gpu/lease_session13.sh round3  (carry .devwheels/p03, .hc_gpu13)
# checks: install the wheels into /tmp/site, build each tree's C extensions, the Paddle probe,
#   gpu/rng_profile.py on BEFORE, MAIN and AFTER (randint, randperm and the samplers),
#   gpu/rng_cuda_check.py on AFTER and MAIN, gpu/pinned_check.py (torch 2.11, then the facade).
# measure: gpu/rng_host_cost.py on BEFORE, MAIN and AFTER alternating, ROUNDS processes each, and
#   the BEFORE/AFTER and MAIN/AFTER tables.
# round2: gpu/pinned_check.py with a fresh pinned x per statement (torch, Paddle alone, the
#   facade), then gpu/rng_host_cost.py --only the changed cases, ROUNDS processes per tree.
# docs/results/gpu-host-cost-h100-session13.txt's header says what ran; the logs and JSONs are
# in docs/results/gpu-host-cost-h100-session13/.
set -uo pipefail
step=${1:?step}
export OUT=${OUT:-/tmp/host_cost_out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
TREES="BEFORE MAIN AFTER"
site() {
  mkdir -p /tmp/dw
  for d in ../../.devwheels/p*; do [ -d "$d" ] && cp -n "$d"/* /tmp/dw/; done
  . gpu/paddle_site.sh
  install_paddle_site || return 1
  export PYTHONPATH=/tmp/site
}
build_trees() {  # each tree's C extensions, built in place
  for t in $TREES; do
    (cd ../$t && python3 setup.py build_ext --inplace -q >/tmp/build_$t.log 2>&1) || tail -5 /tmp/build_$t.log
    echo "$t: $(cat ../$t/TREE), C extensions: $(ls ../$t/torchproxy/*.so | wc -l)"
  done
}
checks() {
  site || return 1
  echo "== $(date -u +%FT%TZ) $(nvidia-smi -L)"
  build_trees
  python3 - <<'PY'
import numpy as np, paddle
x = paddle.to_tensor(np.arange(4, dtype="float32"), place=paddle.CUDAPlace(0))
r = paddle.rand([4096]).numpy()
print("Paddle probe: copy round trip", x.numpy().tolist(), "| x * 3:", (x * 3).numpy().tolist(),
      f"| paddle.rand([4096]) on cuda: min {r.min():.4g} max {r.max():.4g} std {r.std():.4g}")
PY
  echo "== profile (cProfile, 300 calls each)"
  for t in $TREES; do
    TORCHPROXY_TREE=$(cd ../$t && pwd) timeout 150 python3 gpu/rng_profile.py 300 \
      "torch.randint(0, 10, (1024,), device='cuda')" "torch.randperm(1000, device='cuda')" \
      "x.bernoulli_(0.5)" "torch.bernoulli(p)" "x.exponential_()" "x.cauchy_()" \
      "x.log_normal_()" "x.geometric_(0.3)" 2>&1 | grep -v "^W11" | grep -v "^$" \
      > "$OUT/profile_$t.txt"
    sed -n '/== summary/,$p' "$OUT/profile_$t.txt"
  done
  for t in AFTER MAIN; do
    echo "== gpu/rng_cuda_check.py on $t"
    TORCHPROXY_TREE=$(cd ../$t && pwd) timeout 150 python3 gpu/rng_cuda_check.py --device cuda \
      2>&1 | grep -v "^W11" | tee "$OUT/cuda_check_$t.txt" | grep -v "^PASS"
    echo "(PASS lines: $(grep -c ^PASS "$OUT/cuda_check_$t.txt"); the whole output: cuda_check_$t.txt)"
  done
  echo "== gpu/pinned_check.py: torch $(python3 -c 'import torch; print(torch.__version__)'), then the facade (AFTER)"
  timeout 100 python3 gpu/pinned_check.py torch "$OUT/pinned_torch.json" 2>&1 | grep -v "^W11"
  TORCHPROXY_TREE=$(cd ../AFTER && pwd) timeout 100 python3 gpu/pinned_check.py facade \
    "$OUT/pinned_facade.json" --against "$OUT/pinned_torch.json" 2>&1 | grep -v "^W11"
}
measure() {
  site || return 1
  echo "== $(date -u +%FT%TZ) $(nvidia-smi -L)"
  mkdir -p "$OUT/json"
  for i in $(seq 1 "${ROUNDS:-3}"); do
    for t in $TREES; do
      echo "== round $i: $t gpu/rng_host_cost.py measure"
      TORCHPROXY_TREE=$(cd ../$t && pwd) timeout 150 python3 gpu/rng_host_cost.py measure \
        "$OUT/json/${t}_$i.json" --device cuda -n "${N:-400}" -r "${R:-5}" 2>&1 | grep -v "^W11"
    done
  done
  echo "== table BEFORE AFTER"
  python3 gpu/rng_host_cost.py table "$OUT"/json/*.json --pair BEFORE AFTER
  echo "== table MAIN AFTER"
  python3 gpu/rng_host_cost.py table "$OUT"/json/*.json --pair MAIN AFTER
}
round2() {
  # second lease: ops on pinned tensors with a fresh x per statement (torch 2.11, Paddle alone,
  # the facade), then a focused host-cost run: the cases this round changed, more processes
  site || return 1
  echo "== $(date -u +%FT%TZ) $(nvidia-smi -L)"
  build_trees
  echo "== gpu/pinned_check.py: torch $(python3 -c 'import torch; print(torch.__version__)'), Paddle alone, the facade (AFTER)"
  timeout 100 python3 gpu/pinned_check.py torch "$OUT/pinned_torch.json" 2>&1 | grep -v "^W11"
  timeout 100 python3 gpu/pinned_check.py paddle 2>&1 | grep -v "^W11"
  TORCHPROXY_TREE=$(cd ../AFTER && pwd) timeout 100 python3 gpu/pinned_check.py facade \
    "$OUT/pinned_facade.json" --against "$OUT/pinned_torch.json" 2>&1 | grep -v "^W11"
  mkdir -p "$OUT/json2"
  for i in $(seq 1 "${ROUNDS:-4}"); do
    for t in $TREES; do
      echo "== round $i: $t gpu/rng_host_cost.py measure --only ..."
      TORCHPROXY_TREE=$(cd ../$t && pwd) timeout 150 python3 gpu/rng_host_cost.py measure \
        "$OUT/json2/${t}_$i.json" --device cuda -n "${N:-400}" -r "${R:-5}" --only randn randint \
        randperm bernoulli exponential_ cauchy_ log_normal_ geometric_ 2>&1 | grep -v "^W11" | tail -2
    done
  done
  echo "== table BEFORE AFTER"
  python3 gpu/rng_host_cost.py table "$OUT"/json2/*.json --pair BEFORE AFTER | sed '/^what each/,$d'
  echo "== table MAIN AFTER"
  python3 gpu/rng_host_cost.py table "$OUT"/json2/*.json --pair MAIN AFTER | sed '/^what each/,$d'
}
round3() {
  # third lease: the pinned check again on the tree with the cpu()/numpy() fix, and how much a
  # single Paddle op's host cost varies between processes (with CUDA_MODULE_LOADING either way)
  site || return 1
  echo "== $(date -u +%FT%TZ) $(nvidia-smi -L)"
  (cd ../AFTER && python3 setup.py build_ext --inplace -q >/tmp/build_AFTER.log 2>&1) || tail -5 /tmp/build_AFTER.log
  echo "AFTER: $(cat ../AFTER/TREE), C extensions: $(ls ../AFTER/torchproxy/*.so | wc -l)"
  echo "== gpu/pinned_check.py: torch $(python3 -c 'import torch; print(torch.__version__)'), then the facade (AFTER)"
  timeout 100 python3 gpu/pinned_check.py torch "$OUT/pinned_torch.json" 2>&1 | grep -v "^W11"
  TORCHPROXY_TREE=$(cd ../AFTER && pwd) timeout 100 python3 gpu/pinned_check.py facade \
    "$OUT/pinned_facade.json" --against "$OUT/pinned_torch.json" 2>&1 | grep -v "^W11"
  echo "== gpu/paddle_launch_cost.py: CPU us per call, best of 5 x 400, one line per process"
  for env in default EAGER LAZY; do
    for k in 1 2 3; do
      if [ $env = default ]; then timeout 60 python3 gpu/paddle_launch_cost.py "$env/$k" 2>&1 | grep -v "^W11"
      else CUDA_MODULE_LOADING=$env timeout 60 python3 gpu/paddle_launch_cost.py "$env/$k" 2>&1 | grep -v "^W11"; fi
    done
  done
}
{
  case "$step" in
    checks) checks ;;
    measure) measure ;;
    round2) round2 ;;
    round3) round3 ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee -a "$OUT/log_$step.txt"
# at most 8 files come back from $OUT: everything but the log in one archive
(cd "$OUT" && files=$(ls | grep -v "^log_") && [ -n "$files" ] \
  && tar czf "files_$step.tgz" $files && rm -rf $files)
