#!/usr/bin/env bash
# GPU host cost, round ten (issue 26 is closed; the brief's "host speed on the GPU path"): main's
# ded0f79 (the Paddle tensor API capsule in one header, torchproxy/_tensor_api.h, not run on a GPU
# before) re-verified on an H100, and this branch's changes measured against it: torch.empty_like's
# hot path passes no Place (paddle_shims.EMPTY_LIKE_OWN_PLACE) and the DLPack exchange table reads
# the stream cache's dict in C (_dlpack_exchange.c).  One lease of consecutive `run` calls, each
# one step below.  `run` sends the main checkout, so this round's trees travel as ignored copies
# beside it (/.hc_gpu/, /.hc_gpu_base/ and /.devwheels/ in its .git/info/exclude):
#   .hc_gpu/       git archive of this branch: torchproxy/, bench/, gpu/, kernels/, setup.py,
#                  pyproject.toml (the AFTER tree; the steps run with it as the working directory)
#   .hc_gpu_base/  git archive ded0f79 (main, the tree being re-verified): the same folders, so
#                  its own gpu/ checks run inside it (the BASELINE tree)
#   .devwheels/    as in round nine (gpu/lease_session9.sh): p00..p02 the slimmed paddlepaddle-gpu
#                  2.6.2 wheel, p03 FlashInfer's port and small wheels, tl1/tl2 TileLang's
# Calls, from the main checkout's root:
#   1-3  bash gpu/run_host_cost.sh stage                  (carry .devwheels/p00, p01, p02)
#   4    cd .hc_gpu && bash gpu/lease_session10.sh hostcost && bash gpu/lease_session10.sh checks-base
#                                                          (+ p03, .hc_gpu, .hc_gpu_base)
#   5    cd .hc_gpu && ROUNDS=3 bash gpu/lease_session10.sh launch && bash gpu/lease_session10.sh unscoped
#                                                          (+ tl1, .hc_gpu, .hc_gpu_base)
#   6    cd .hc_gpu && bash gpu/lease_session10.sh tvmffi  (+ tl2, .hc_gpu, .hc_gpu_base)
#   7    call 5 again, then bash gpu/lease_session10.sh flashinfer twice and this tree's
#        facade_cuda_check.py on both trees                (.hc_gpu, .hc_gpu_base)
#   then, on a fresh machine after each fix the checks called for: calls 1-3 again and
#   8    cd .hc_gpu && bash gpu/lease_session10.sh recheck (+ p03, .hc_gpu, .hc_gpu_base)
# (as run: docs/results/gpu-host-cost-h100-session10.txt's header says which tree each log had)
# Each step's log comes back as $OUT/host_cost_log.txt; gpu/summarize_host_cost.py turns the logs
# into docs/results/gpu-host-cost-h100-session10.txt.  The steps: gpu/lease_steps.sh
# (checks-base and flashinfer added this round).
exec bash "$(dirname "$0")/lease_steps.sh" "$@"
