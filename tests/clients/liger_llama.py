"""Liger-Kernel's ``apply_liger_kernel_to_llama()`` (release 0.7.0), unmodified, on the tiny
``LlamaForCausalLM`` of hf_transformers.py, Triton in its CPU interpreter; real torch vs the facade
in global mode, each side in its own process (whole_programs.py's children).

Each side loads the same initial weights (real torch's ``state_dict``), then on the same batches:
- the unpatched model: training loss, every parameter's gradient, STEPS AdamW steps (losses);
- ``apply_liger_kernel_to_llama(model=...)`` (RoPE, RMSNorm, SwiGLU and the fused linear
  cross-entropy kernels) on a fresh model from the same weights: the same.
Checked: on each side the patched run equals the unpatched one within Liger's own tolerances
(its convergence test's mini_llama3 fp32 row: loss rtol 2e-5 / atol 1e-8, parameters
rtol 1e-5 / atol 5e-3), and the facade's patched run equals real torch's patched run.

Liger-Kernel 0.8 requires transformers >= 5.0 (its monkey_patch refuses 4.57.1, the release
hf_transformers.py pins); 0.7.0 is the last that patches transformers 4.57.  Its wheel (pure
Python) is downloaded with pip into ``$TORCHPROXY_CLIENTS_CACHE`` the first time, pinned by
sha256, unpacked and put first on both children's path; nothing is committed or installed.

    python tests/clients/liger_llama.py
"""
from __future__ import annotations

import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hf_transformers as hf  # noqa: E402  (tiny Llama config, batches)
import whole_programs as wp  # noqa: E402  (child process plumbing)

VERSION = "0.7.0"
WHEEL = f"liger_kernel-{VERSION}-py3-none-any.whl"
SHA256 = "d2185d94362c069f508eb8aff5e7016c6669613265d5702733d674af4c616a56"
STEPS = 3
CHILD_TIMEOUT = 900
# Liger's test/convergence/fp32/test_mini_models.py, mini_llama3
LOSS_RTOL, LOSS_ATOL = 2e-5, 1e-8
PARAM_RTOL, PARAM_ATOL = 1e-5, 5e-3
CROSS_TOL = 1e-5  # facade vs real torch, both patched (hf_transformers' bound)


class SourcesMissing(Exception):
    pass


def sources() -> str:
    """The unpacked wheel's directory (downloaded and verified on first use)."""
    import hashlib
    import subprocess
    import zipfile
    import liger_suite
    cache = liger_suite.cache_dir()
    root = os.path.join(cache, f"liger_kernel-{VERSION}-wheel")
    if os.path.isfile(os.path.join(root, ".verified")):
        return root
    os.makedirs(cache, exist_ok=True)
    archive = os.path.join(cache, WHEEL)

    def digest():
        with open(archive, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    if not (os.path.isfile(archive) and digest() == SHA256):
        r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                            f"liger-kernel=={VERSION}", "-d", cache],
                           capture_output=True, text=True, timeout=300)
        if r.returncode or not os.path.isfile(archive):
            raise SourcesMissing(f"Liger-Kernel {VERSION}'s wheel could not be downloaded: "
                                 f"{(r.stderr or r.stdout).strip()[-300:]}")
    if digest() != SHA256:
        raise SourcesMissing(f"{archive} has sha256 {digest()}, not the pinned {SHA256}")
    with zipfile.ZipFile(archive) as z:
        names = [n for n in z.namelist() if ".." not in n.split("/") and not n.startswith("/")]
        z.extractall(root, members=names)
    with open(os.path.join(root, ".verified"), "w") as f:
        f.write(SHA256)
    return root


def _train(torch, model, data):
    x = torch.from_numpy(data[0])
    res = model(input_ids=x, labels=x)
    res.loss.backward()
    out = {"loss": res.loss.item(),
           "grads": {n: hf._flat(p.grad) for n, p in model.named_parameters()
                     if p.grad is not None}}
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)
    losses = []
    for i in range(STEPS):
        x = torch.from_numpy(data[i + 1])
        loss = model(input_ids=x, labels=x).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    out["losses"] = losses
    out["params"] = {n: hf._flat(p) for n, p in model.named_parameters()}
    return out


def run(torch, side, workdir):
    import transformers
    import liger_kernel
    assert liger_kernel.__file__.startswith(sources()), liger_kernel.__file__
    from liger_kernel.transformers import apply_liger_kernel_to_llama
    cfg = hf._config(transformers, "llama")
    path = os.path.join(workdir, "init.pt")
    if side == "torch":
        torch.manual_seed(0)
        torch.save(transformers.LlamaForCausalLM(cfg).state_dict(), path)

    def build():
        model = transformers.LlamaForCausalLM(cfg)
        model.load_state_dict(torch.load(path))
        return model.train()
    data = hf._batches(STEPS + 1, 2, 12, cfg.vocab_size)
    out = {"plain": _train(torch, build(), data)}
    patched = build()
    apply_liger_kernel_to_llama(model=patched)
    # what the patch put in place: Liger's forwards (bound on the instances, or the classes')
    kinds = sorted({f"{fn.__module__}.{fn.__qualname__}"
                    for fn in (getattr(m.forward, "__func__", m.forward) for m in patched.modules())
                    if fn.__module__.startswith("liger_kernel")})
    out["liger"] = dict(_train(torch, patched, data), modules=kinds)
    return out


def child(side, workdir):
    import faulthandler
    from torchproxy.integrations import triton_interpreter
    triton_interpreter.ensure_fixes()  # the same interpreter fixes on both sides
    if side == "facade":
        import paddle
        paddle.disable_signal_handler()
        import torchproxy
        torchproxy.enable(scope=None)
    faulthandler.enable()
    import torch
    assert ("torchproxy" in repr(torch)) == (side == "facade"), torch
    with open(os.path.join(workdir, f"{side}.json"), "w") as f:
        json.dump(run(torch, side, workdir), f)


def _run_side(side, workdir):
    import subprocess
    cmd = [sys.executable, os.path.abspath(__file__), "--child", side, workdir]
    env = dict(wp._child_env({}), TRITON_INTERPRET="1")
    env["PYTHONPATH"] = os.pathsep.join([sources(), env.get("PYTHONPATH", "")])
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=CHILD_TIMEOUT,
                           cwd=workdir)
    except subprocess.TimeoutExpired as e:
        raise wp.ChildFailed(f"liger llama: the {side} child ran past {CHILD_TIMEOUT} s\n"
                             f"{e.stderr!s:.3000}")
    out = os.path.join(workdir, f"{side}.json")
    if r.returncode or not os.path.isfile(out):
        tail = (r.stdout[-1500:] + "\n" + r.stderr[-4000:]).strip()
        raise wp.ChildFailed(f"liger llama: the {side} child failed "
                             f"({wp._describe_exit(r.returncode)}); output tail:\n{tail}")
    with open(out) as f:
        return json.load(f)


def _close(a, b, rtol, atol) -> float:
    """The largest excess of |a - b| over atol + rtol * |b| (<= 0: within tolerance)."""
    if len(a) != len(b):
        return float("inf")
    return max((abs(x - y) - (atol + rtol * abs(y)) for x, y in zip(a, b)), default=0.0)


def compare():
    with tempfile.TemporaryDirectory(prefix="liger-llama-") as workdir:
        sides = {s: _run_side(s, workdir) for s in ("torch", "facade")}
    rep = {}
    for s, r in sides.items():
        plain, lig = r["plain"], r["liger"]
        rep[s] = {
            "modules": lig["modules"],
            "loss": _close([lig["loss"]] + lig["losses"], [plain["loss"]] + plain["losses"],
                           LOSS_RTOL, LOSS_ATOL),
            "grads": max(_close(g, plain["grads"][n], PARAM_RTOL, PARAM_ATOL)
                         for n, g in lig["grads"].items()),
            "params": max(_close(p, plain["params"][n], PARAM_RTOL, PARAM_ATOL)
                          for n, p in lig["params"].items()),
        }
    t, f = sides["torch"]["liger"], sides["facade"]["liger"]
    rep["cross"] = {
        "loss": _close([f["loss"]] + f["losses"], [t["loss"]] + t["losses"], 0, CROSS_TOL),
        "grads": max(_close(g, t["grads"][n], 0, CROSS_TOL) for n, g in f["grads"].items()),
        "modules_equal": t["modules"] == f["modules"],
    }
    return rep


def failures(rep) -> list:
    bad = []
    for side in ("torch", "facade"):
        if not rep[side]["modules"]:
            bad.append(f"{side}: no Liger module after apply_liger_kernel_to_llama")
        for key in ("loss", "grads", "params"):
            if rep[side][key] > 0:
                bad.append(f"{side}: patched vs unpatched {key} over Liger's tolerance by "
                           f"{rep[side][key]:.3g}")
    for key in ("loss", "grads"):
        if rep["cross"][key] > 0:
            bad.append(f"facade vs torch (patched) {key} over {CROSS_TOL} by "
                       f"{rep['cross'][key]:.3g}")
    if not rep["cross"]["modules_equal"]:
        bad.append("different Liger modules on the two sides")
    return bad


def main(argv):
    if argv[:1] == ["--child"]:
        child(*argv[1:3])
        return 0
    try:
        rep = compare()
    except wp.ChildFailed as e:
        print(f"FAILED\n{e}")
        return 1
    bad = failures(rep)
    print(json.dumps(rep, indent=1))
    print("ok" if not bad else "; ".join(bad))
    return int(bool(bad))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
