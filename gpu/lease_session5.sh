#!/usr/bin/env bash
# Issue 26, fifth round (C fast paths of x.dim() / numel() / shape / stride() / is_contiguous() / device): one lease of consecutive `run` calls, each one step below.  `run`
# sends the main checkout, so this round's tree travels as an ignored copy beside it:
#   .hc_gpu/       this branch's torchproxy/, bench/, gpu/, kernels/, setup.py, pyproject.toml
#                  (the AFTER tree; the step runs with it as the working directory)
#   .hc_gpu_base/  the same with this round's torchproxy/ commits reversed
#                  (gpu/make_host_cost_baseline.sh; the BASELINE tree: this round's start, c701b99)
#   .devwheels/p00..p03, tl1, tl2: wheel pieces, one or two per call (64 MiB a transfer)
# Calls, from the main checkout's root:
#   1-3  bash gpu/run_host_cost.sh stage                       (carry .devwheels/p00, p01, p02)
#   4    cd .hc_gpu && bash gpu/lease_session5.sh launch       (+ p03, .hc_gpu, .hc_gpu_base)
#   5    cd .hc_gpu && bash gpu/lease_session5.sh hostcost     (+ tl1, .hc_gpu, .hc_gpu_base)
#   6    cd .hc_gpu && bash gpu/lease_session5.sh tvmffi       (+ tl2, .hc_gpu, .hc_gpu_base)
#   7    cd .hc_gpu && bash gpu/lease_session5.sh launch >/dev/null 2>&1;
#        bash gpu/lease_session5.sh unscoped                     (.hc_gpu, .hc_gpu_base)
# Each step's log comes back as $OUT/host_cost_log.txt (gpu/run_host_cost.sh writes it);
# gpu/summarize_host_cost.py turns the logs into docs/results/gpu-host-cost-h100-session5.txt.
# the steps themselves (the same in rounds four to six): gpu/lease_steps.sh
exec bash "$(dirname "$0")/lease_steps.sh" "$@"
