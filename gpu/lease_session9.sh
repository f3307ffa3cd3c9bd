#!/usr/bin/env bash
# Issue 26, ninth round (unscoped Paddle code: no class __getattr__ on paddle.Tensor, x.dim() / x.ndim / is_contiguous() answered in C for every caller; data_ptr() fast path through the C++ API). Same steps as round eight (x.dtype and x.device through Paddle's exported C++
# tensor API: torchproxy._cptensor, torchproxy/_paddle_tensor.c): one lease of consecutive `run`
# calls, each one step below.  `run` sends the main checkout, so this round's tree travels as an
# ignored copy beside it (/.hc_gpu/, /.hc_gpu_base/ and /.devwheels/ in its .git/info/exclude):
#   .hc_gpu/       this branch's torchproxy/, bench/, gpu/, kernels/, setup.py, pyproject.toml
#                  (the AFTER tree; the step runs with it as the working directory)
#   .hc_gpu_base/  git archive 584c84a (main's HEAD at this round's start): torchproxy/,
#                  setup.py, pyproject.toml (the BASELINE tree)
#   .devwheels/p00..p02: the slimmed paddlepaddle-gpu 2.6.2 wheel (gpu/slim_paddle_wheel.py,
#                  153 MiB) in 52 MiB parts; p03: FlashInfer's port 0.4.1.1, apache-tvm-ffi
#                  0.1.14.post1 and small wheels; tl1: tilelang 0.1.15 (+ ml-dtypes, psutil, tqdm,
#                  cloudpickle); tl2: z3-solver 4.15.4.0, apache-tvm-ffi 0.1.12
# Calls, from the main checkout's root:
#   1-3  bash gpu/run_host_cost.sh stage                 (carry .devwheels/p00, p01, p02)
#   4    cd .hc_gpu && bash gpu/lease_session8.sh hostcost     (+ p03, .hc_gpu, .hc_gpu_base)
#   5    cd .hc_gpu && ROUNDS=3 bash gpu/lease_session8.sh launch   (+ tl1, .hc_gpu, .hc_gpu_base)
#   6    cd .hc_gpu && bash gpu/lease_session8.sh tvmffi       (+ tl2, .hc_gpu, .hc_gpu_base)
#   7    cd .hc_gpu && bash gpu/lease_session8.sh unscoped     (.hc_gpu, .hc_gpu_base)
# Each step's log comes back as $OUT/host_cost_log.txt (gpu/run_host_cost.sh writes it);
# gpu/summarize_host_cost.py turns the logs into docs/results/gpu-host-cost-h100-session8.txt.
# the steps themselves (the same in rounds four to eight): gpu/lease_steps.sh
exec bash "$(dirname "$0")/lease_steps.sh" "$@"
