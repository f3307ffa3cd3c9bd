#!/usr/bin/env bash
# Issue 24 on a lent 2-GPU machine: torch.distributed over NCCL on Paddle GPU tensors (facade)
# against real torch's NCCL, same script, same inputs (tests/distributed/scripts/nccl_collectives.py).
#
#   bash gpu/nccl_check.sh stage   # copy the wheel pieces that came with this call to /tmp/dw
#   bash gpu/nccl_check.sh run     # stage, install Paddle GPU 2.6.2, run both sides, compare
#
# The Paddle wheel travels in pieces (.devwheels/p00..p02, one per call: 64 MiB a transfer),
# as for gpu/run_host_cost.sh.  Paddle 2.6.2 loads libnccl.so.2 at run time; the machine's torch
# ships one (nvidia-nccl), which is put on LD_LIBRARY_PATH for the Paddle side.
set -uo pipefail
mode=${1:-run}
mkdir -p /tmp/dw
for d in .devwheels/p0[0-2]; do [ -d "$d" ] && cp -n "$d"/* /tmp/dw/; done
ls -la /tmp/dw
[ "$mode" = stage ] && exit 0
OUT=${OUT:-/tmp/nccl_out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/nccl_log.txt") 2>&1
echo "== $(date -u +%FT%TZ) $(nvidia-smi -L | tr '\n' ' ')"
. "$(dirname "$0")/paddle_site.sh"
install_paddle_site || exit 1
NCCL_LIB=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib'))" 2>/dev/null)
echo "torch's NCCL: ${NCCL_LIB:-none}"
python3 setup.py build_ext --inplace -q >/tmp/build.log 2>&1 || tail -5 /tmp/build.log
python3 - "$OUT" "$NCCL_LIB" <<'EOF'
import json, os, socket, subprocess, sys
out_dir, nccl_lib = sys.argv[1], sys.argv[2]
script = "tests/distributed/scripts/nccl_collectives.py"
boot = ("import runpy, sys, torchproxy; torchproxy.enable(scope={'__main__'}); "
        "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')")
def launch(facade):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
    procs = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2", LOCAL_RANK=str(rank),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), GLOG_minloglevel="2")
        if facade:
            env["PYTHONPATH"] = "/tmp/site:."
            env["LD_LIBRARY_PATH"] = nccl_lib + ":" + env.get("LD_LIBRARY_PATH", "")
            cmd = [sys.executable, "-c", boot, script]
        else:
            env.pop("PYTHONPATH", None)
            cmd = [sys.executable, script]
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    res = []
    for rank, p in enumerate(procs):
        try:
            o, e = p.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            for q in procs: q.kill()
            o, e = p.communicate()
            print(f"{'facade' if facade else 'torch'} rank {rank}: TIMEOUT\n{o[-2000:]}\n{e[-3000:]}")
            res.append(None); continue
        if p.returncode:
            print(f"{'facade' if facade else 'torch'} rank {rank}: exit {p.returncode}\n{o[-2000:]}\n{e[-4000:]}")
            res.append(None); continue
        res.append(json.loads(o.strip().splitlines()[-1]))
    return res
torch_res, facade_res = launch(False), launch(True)
json.dump({"torch": torch_res, "facade": facade_res}, open(os.path.join(out_dir, "nccl.json"), "w"), indent=1)
bad = 0
for rank, (t, f) in enumerate(zip(torch_res, facade_res)):
    if t is None or f is None:
        print(f"rank {rank}: a side failed (above)"); bad += 1; continue
    print(f"rank {rank}: facade paddle_kernel_probe (x * 3 by Paddle's own kernel) = {f['paddle_kernel_probe']}"
          f" (torch: {t['paddle_kernel_probe']})")
    for k in t:
        if k in ("paddle_kernel_probe",):
            continue
        same = t[k] == f.get(k) if not isinstance(t[k], dict) else (
            t[k]["v"] == f[k]["v"] and t[k]["dtype"] == f[k]["dtype"])
        if isinstance(t[k], list):
            same = [x["v"] for x in t[k]] == [x["v"] for x in f.get(k, [])]
        print(f"  {'OK  ' if same else 'DIFF'} {k}: torch {t[k] if not isinstance(t[k], dict) else t[k]['v']}"
              + ("" if same else f" | facade {f.get(k)}"))
        bad += not same
print("NCCL collectives:", "ALL OK" if not bad else f"{bad} differ or failed")
EOF
echo "== done $(date -u +%FT%TZ)"
