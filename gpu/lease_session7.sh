#!/usr/bin/env bash
# Issue 26, seventh round (the DLPack C exchange table for Paddle 2.6 tensors handed to tvm-ffi:
# torchproxy._cdlpack; FlashInfer's and TileLang's per-call stream wrappers dropped where tvm-ffi
# uses it): one lease of consecutive `run` calls, each one step below.  `run` sends the main
# checkout, so this round's tree travels as an ignored copy beside it:
#   .hc_gpu/       this branch's torchproxy/, bench/, gpu/, kernels/, setup.py, pyproject.toml
#                  (the AFTER tree; the step runs with it as the working directory)
#   .hc_gpu_base/  the same with main's HEAD at this round's start
#                  (git archive 00c498b: torchproxy/, setup.py, pyproject.toml)
#   .devwheels/p00..p03, tl1, tl2: wheel pieces, one or two per call (64 MiB a transfer)
# Calls, from the main checkout's root:
#   1-3  bash gpu/run_host_cost.sh stage                       (carry .devwheels/p00, p01, p02)
#   4    cd .hc_gpu && bash gpu/lease_session7.sh hostcost     (+ p03, .hc_gpu, .hc_gpu_base)
#   5    cd .hc_gpu && ROUNDS=2 bash gpu/lease_session7.sh launch   (+ tl1, .hc_gpu, .hc_gpu_base)
#   6    cd .hc_gpu && bash gpu/lease_session7.sh tvmffi       (+ tl2, .hc_gpu, .hc_gpu_base)
#   7    cd .hc_gpu && bash gpu/lease_session7.sh unscoped     (.hc_gpu, .hc_gpu_base)
# (the tvm-ffi paths are this round's; the Triton launch rounds only check nothing moved)
# Each step's log comes back as $OUT/host_cost_log.txt (gpu/run_host_cost.sh writes it);
# gpu/summarize_host_cost.py turns the logs into docs/results/gpu-host-cost-h100-session7.txt.
# the steps themselves (the same in rounds four to seven): gpu/lease_steps.sh
exec bash "$(dirname "$0")/lease_steps.sh" "$@"
