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
# the steps themselves (the same in rounds four to six): gpu/lease_steps.sh
exec bash "$(dirname "$0")/lease_steps.sh" "$@"
