"""Hugging Face transformers (the installed, pinned release), unmodified, under the facade in
global mode (``torchproxy.enable(scope=None)``) against real torch: tiny ``GPT2LMHeadModel`` and
``LlamaForCausalLM`` (2 layers, small widths; configs built in code, nothing downloaded).

Each side runs in its own process (whole_programs.py's children: heap checks, one thread,
Paddle's default flags).  The real-torch child builds the model under ``torch.manual_seed(0)``
and saves its ``state_dict``; the facade child loads that file through the facade's
``torch.load`` + ``load_state_dict``.  Then both, on the same numpy batches:
- eval forward logits; the training loss (``labels=``) and every parameter's gradient;
- the same forward and backward under ``torch.autocast("cpu")`` (bfloat16);
- 5 ``torch.optim.AdamW`` steps (losses);
- greedy ``generate`` (token for token);
- a left-padded batch (attention_mask zeros; transformers builds the mask with nested
  ``torch.vmap``) under sdpa and eager attention: logits, loss, gradients; and greedy
  ``generate`` from left-padded prompts;
- the facade side runs under ``torchproxy.trace()``: no missing torch name may be touched
  (hf_scan.py lists the scan's missing names and why the models never reach them);
- ``save_pretrained`` (safetensors) -> ``from_pretrained``: each side reloads its own trained
  model (logits equal to the model it saved), and the facade loads the directory real torch
  wrote (logits compared with real torch's).

    python tests/clients/hf_transformers.py              # both models, summary
    python tests/clients/hf_transformers.py llama        # one
"""
from __future__ import annotations

import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import whole_programs as wp  # noqa: E402  (child process plumbing shared with whole programs)

VERSION = "4.57.1"  # the release ./dev installs into .venv
LOSS_TOL = 1e-5     # the issue's bound on each loss
VALUE_TOL = 1e-5    # logits and gradients (values of order 1)
# logits after the 5 AdamW steps (and the same weights read back by from_pretrained): the
# forward differs from torch's by ~1e-7 (Paddle's and torch's CPU kernels sum in other orders;
# torch alone is bit-identical across thread counts), and each Adam step divides by sqrt(v),
# so the weights drift apart a little more each step.  Measured 1.08e-5 for gpt2 on an AMD EPYC
# (2026-11-27; under 1e-5 on the Intel machine before), with every loss within 4.8e-7 of
# torch's, far inside the issue's bound (LOSS_TOL).
TRAINED_TOL = 3e-5
AUTOCAST_TOL = 1.6e-2  # under torch.autocast("cpu"): two bfloat16 ulps of values below 2
MODELS = ("gpt2", "llama")
STEPS = 5
CHILD_TIMEOUT = 600


def _config(transformers, model):
    if model == "gpt2":
        return transformers.GPT2Config(
            vocab_size=64, n_positions=32, n_embd=32, n_layer=2, n_head=4, resid_pdrop=0.0,
            embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=1, eos_token_id=2, pad_token_id=0)
    return transformers.LlamaConfig(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
        bos_token_id=1, eos_token_id=2, pad_token_id=0)


def _batches(n, batch, seq, vocab, seed=1234):
    """Arithmetic progressions mod vocab (learnable: the loss moves), tokens >= 3 (no
    special ids)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    start = rng.integers(3, vocab, (n * batch, 1))
    step = rng.integers(1, 4, (n * batch, 1))
    seq_ = 3 + (start + step * np.arange(seq)) % (vocab - 3)
    return seq_.astype(np.int64).reshape(n, batch, seq)


def _padded(np, batch, pad_id, n_pad=3):
    """``batch`` with its first row left-padded by ``n_pad`` pad tokens; (ids, attention_mask)."""
    ids, mask = batch.copy(), np.ones_like(batch)
    ids[0, :n_pad], mask[0, :n_pad] = pad_id, 0
    return ids, mask


def _flat(t):
    return t.detach().float().reshape(-1).tolist()


def run(torch, side, workdir, model_name):
    import numpy as np
    import transformers
    cls = {"gpt2": transformers.GPT2LMHeadModel, "llama": transformers.LlamaForCausalLM}[model_name]
    cfg = _config(transformers, model_name)
    path = os.path.join(workdir, "init.pt")
    if side == "torch":
        torch.manual_seed(0)
        model = cls(cfg)
        torch.save(model.state_dict(), path)
    else:
        model = cls(cfg)
        missing, unexpected = model.load_state_dict(torch.load(path))
        assert not missing and not unexpected, (missing, unexpected)
    out = {"version": f"{'torch ' + torch.__version__ if side == 'torch' else 'facade'}",
           "transformers": transformers.__version__,
           "attn_implementation": model.config._attn_implementation}
    data = _batches(STEPS + 1, 2, 12, cfg.vocab_size)

    model.eval()
    with torch.no_grad():
        out["logits"] = _flat(model(torch.from_numpy(data[0])).logits)

    # a left-padded batch: transformers materializes the 4-D attention mask with nested
    # torch.vmap (sdpa and eager attention alike); logits where attended, loss (pads labelled
    # -100) and gradients, under each attention implementation
    padded, mask = _padded(np, data[0], cfg.pad_token_id)
    padded, mask = torch.from_numpy(padded), torch.from_numpy(mask)
    attn = model.config._attn_implementation
    out["padded"] = {}
    for impl in ("sdpa", "eager"):
        model.config._attn_implementation = impl
        res = model(input_ids=padded, attention_mask=mask,
                    labels=padded.masked_fill(mask == 0, -100))
        res.loss.backward()
        out["padded"][impl] = {
            "logits": _flat(res.logits[mask.bool()]), "loss": res.loss.item(),
            "grads": {n: _flat(p.grad) for n, p in model.named_parameters() if p.grad is not None}}
        model.zero_grad(set_to_none=True)
    model.config._attn_implementation = attn

    # a forward and backward under CPU autocast (bfloat16 matmuls, float32 loss), then cleared
    model.train()
    x = torch.from_numpy(data[0])
    with torch.autocast("cpu"):
        res = model(input_ids=x, labels=x)
    res.loss.backward()
    out["autocast"] = {"logits": _flat(res.logits), "loss": res.loss.item(),
                       "dtypes": [str(t.dtype).split(".")[-1] for t in (res.logits, res.loss)],
                       "grads": {n: _flat(p.grad) for n, p in model.named_parameters()
                                 if p.grad is not None}}
    model.zero_grad(set_to_none=True)

    res = model(input_ids=x, labels=x)
    res.loss.backward()
    out["loss"] = res.loss.item()
    out["grads"] = {n: _flat(p.grad) for n, p in model.named_parameters() if p.grad is not None}

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

    model.eval()
    prompt = torch.from_numpy(np.array([[5, 7, 9, 11], [20, 21, 22, 23]], dtype=np.int64))
    with torch.no_grad():
        gen = model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=8,
                             do_sample=False)
        out["generated"] = gen.tolist()
        gen = model.generate(padded[:, :8], attention_mask=mask[:, :8], max_new_tokens=6,
                             do_sample=False)
        out["generated_padded"] = gen.tolist()
        probe = torch.from_numpy(data[0])
        out["trained_logits"] = _flat(model(probe).logits)

    # save_pretrained (safetensors on disk), read back through safetensors' torch loader
    # (transformers' own load_state_dict: safe_open(framework="pt").get_tensor) into a model
    # built from the config; the facade also reads the directory real torch wrote
    from transformers.modeling_utils import load_state_dict as hf_load
    saved = os.path.join(workdir, f"{side}_saved")
    model.save_pretrained(saved, safe_serialization=True)
    out["saved_files"] = sorted(os.listdir(saved))

    def reload(directory):
        fresh = cls(cfg)
        res = fresh.load_state_dict(hf_load(os.path.join(directory, "model.safetensors")),
                                    strict=False)
        fresh.tie_weights()
        fresh.eval()
        with torch.no_grad():
            return _flat(fresh(probe).logits), sorted(res.missing_keys), sorted(res.unexpected_keys)
    out["reloaded_logits"], out["reload_missing"], out["reload_unexpected"] = reload(saved)
    if side == "facade":
        out["loaded_torch_logits"] = reload(os.path.join(workdir, "torch_saved"))[0]
    # from_pretrained builds the model on torch's meta device first (init_empty_weights)
    try:
        pre = cls.from_pretrained(saved).eval()
        with torch.no_grad():
            out["from_pretrained_logits"] = _flat(pre(probe).logits)
    except Exception as e:  # reported, compared in the parent
        out["from_pretrained_error"] = f"{type(e).__name__}: {e}"[:500]
    return out


def child(model_name, side, workdir):
    import faulthandler
    if side == "facade":
        import paddle
        paddle.disable_signal_handler()
        import torchproxy
        torchproxy.enable(scope=None)
    faulthandler.enable()
    import torch
    assert ("torchproxy" in repr(torch)) == (side == "facade"), torch
    if side == "facade":
        # the missing torch names the run touched (a probe that catches the AttributeError
        # included): hf_scan.py's aim, none reached at run time
        with torchproxy.trace() as t:
            result = run(torch, side, workdir, model_name)
        result["trace_missing"] = {k: sorted(v)[:3] for k, v in t.missing.items()}
    else:
        result = run(torch, side, workdir, model_name)
    with open(os.path.join(workdir, f"{side}.json"), "w") as f:
        json.dump(result, f)


# ---------------------------------------------------------------- the parent

def _run_side(model_name, side, workdir):
    import subprocess
    cmd = [sys.executable, os.path.abspath(__file__), "--child", model_name, side, workdir]
    try:
        r = subprocess.run(cmd, env=wp._child_env({}), capture_output=True, text=True,
                           timeout=CHILD_TIMEOUT, cwd=workdir)
    except subprocess.TimeoutExpired as e:
        raise wp.ChildFailed(f"{model_name}: the {side} child ran past {CHILD_TIMEOUT} s\n"
                             f"{e.stderr!s:.3000}")
    out = os.path.join(workdir, f"{side}.json")
    if r.returncode or not os.path.isfile(out):
        tail = (r.stdout[-1500:] + "\n" + r.stderr[-4000:]).strip()
        raise wp.ChildFailed(f"{model_name}: the {side} child failed "
                             f"({wp._describe_exit(r.returncode)}); output tail:\n{tail}")
    with open(out) as f:
        return json.load(f)


def _max_diff(a, b):
    if len(a) != len(b):
        return float("inf")
    return max((abs(x - y) for x, y in zip(a, b)), default=0.0)


def compare(model_name):
    """Both sides; a report dict (raises wp.ChildFailed when a child fails)."""
    with tempfile.TemporaryDirectory(prefix=f"hf-{model_name}-") as workdir:
        real = _run_side(model_name, "torch", workdir)
        fac = _run_side(model_name, "facade", workdir)
    grads = {n: _max_diff(g, fac["grads"].get(n, [])) for n, g in real["grads"].items()}
    ra, fa = real["autocast"], fac["autocast"]
    return {
        "model": model_name, "transformers": real["transformers"],
        "autocast_dtypes": (ra["dtypes"], fa["dtypes"]),
        "autocast_logits_diff": _max_diff(ra["logits"], fa["logits"]),
        "autocast_loss_diff": abs(ra["loss"] - fa["loss"]),
        "autocast_grad_diff": max(_max_diff(g, fa["grads"].get(n, [])) for n, g in ra["grads"].items()),
        "attn": (real["attn_implementation"], fac["attn_implementation"]),
        "logits_diff": _max_diff(real["logits"], fac["logits"]),
        "loss": (real["loss"], fac["loss"]), "loss_diff": abs(real["loss"] - fac["loss"]),
        "grad_diff": max(grads.values()), "grad_names_equal": set(real["grads"]) == set(fac["grads"]),
        "torch_losses": real["losses"], "facade_losses": fac["losses"],
        "losses_diff": _max_diff(real["losses"], fac["losses"]),
        "generated": (real["generated"], fac["generated"]),
        "generated_padded": (real["generated_padded"], fac["generated_padded"]),
        **{f"padded_{impl}_{k}": v for impl in ("sdpa", "eager") for k, v in (
            ("logits_diff", _max_diff(real["padded"][impl]["logits"], fac["padded"][impl]["logits"])),
            ("loss_diff", abs(real["padded"][impl]["loss"] - fac["padded"][impl]["loss"])),
            ("grad_diff", max(_max_diff(g, fac["padded"][impl]["grads"].get(n, []))
                              for n, g in real["padded"][impl]["grads"].items())))},
        "trained_logits_diff": _max_diff(real["trained_logits"], fac["trained_logits"]),
        "saved_files": (real["saved_files"], fac["saved_files"]),
        "reload_self_diff": _max_diff(fac["trained_logits"], fac["reloaded_logits"]),
        "reload_keys": ((real["reload_missing"], real["reload_unexpected"]),
                        (fac["reload_missing"], fac["reload_unexpected"])),
        "from_pretrained_diff": (_max_diff(real["from_pretrained_logits"],
                                           fac["from_pretrained_logits"])
                                 if "from_pretrained_logits" in fac else float("inf")),
        "from_pretrained_error": fac.get("from_pretrained_error"),
        "reload_torch_dir_diff": _max_diff(real["trained_logits"], fac["loaded_torch_logits"]),
        "trace_missing": fac["trace_missing"],
    }


def failures(rep) -> list:
    bad = []
    if rep["attn"][0] != rep["attn"][1]:
        bad.append(f"attention implementation {rep['attn'][1]} (torch: {rep['attn'][0]})")
    for key, tol in (("logits_diff", VALUE_TOL), ("loss_diff", LOSS_TOL), ("grad_diff", VALUE_TOL),
                     ("losses_diff", LOSS_TOL), ("trained_logits_diff", TRAINED_TOL),
                     ("reload_self_diff", 0.0), ("reload_torch_dir_diff", VALUE_TOL),
                     *((f"padded_{impl}_{k}", tol) for impl in ("sdpa", "eager") for k, tol in (
                         ("logits_diff", VALUE_TOL), ("loss_diff", LOSS_TOL),
                         ("grad_diff", VALUE_TOL)))):
        if not rep[key] <= tol:
            bad.append(f"{key} {rep[key]:.3g} > {tol}")
    # under autocast: bfloat16 logits (values of order 1: a few bfloat16 ulps apart, torch's and
    # the facade's CPU kernels round at different points), float32 loss and gradients
    for key, tol in (("autocast_logits_diff", AUTOCAST_TOL), ("autocast_loss_diff", AUTOCAST_TOL),
                     ("autocast_grad_diff", AUTOCAST_TOL)):
        if not rep[key] <= tol:
            bad.append(f"{key} {rep[key]:.3g} > {tol}")
    if rep["autocast_dtypes"][0] != rep["autocast_dtypes"][1]:
        bad.append(f"autocast dtypes {rep['autocast_dtypes'][1]} (torch: {rep['autocast_dtypes'][0]})")
    if not rep["grad_names_equal"]:
        bad.append("gradients of different parameters")
    if rep["generated"][0] != rep["generated"][1]:
        bad.append(f"generate differs: torch {rep['generated'][0]} vs facade "
                   f"{rep['generated'][1]}")
    if rep["trace_missing"]:
        bad.append(f"the run touched missing torch names: {rep['trace_missing']}")
    if rep["generated_padded"][0] != rep["generated_padded"][1]:
        bad.append(f"generate on a left-padded batch differs: torch {rep['generated_padded'][0]}"
                   f" vs facade {rep['generated_padded'][1]}")
    if rep["reload_keys"][0] != rep["reload_keys"][1]:
        bad.append(f"reloading the saved state dict: (missing, unexpected) keys "
                   f"{rep['reload_keys'][1]} (torch: {rep['reload_keys'][0]})")
    if rep["saved_files"][0] != rep["saved_files"][1]:
        bad.append(f"save_pretrained wrote {rep['saved_files'][1]} (torch: "
                   f"{rep['saved_files'][0]})")
    return bad


def from_pretrained_failures(rep) -> list:
    """from_pretrained of the saved directory, against real torch's (kept apart: it builds the
    model on torch's meta device first)."""
    if rep["from_pretrained_diff"] <= TRAINED_TOL:
        return []
    return [f"from_pretrained: {rep['from_pretrained_error'] or rep['from_pretrained_diff']}"]


_CACHE: dict = {}


def compare_cached(model_name):
    """compare() once per process (the tests share each model's run)."""
    if model_name not in _CACHE:
        try:
            _CACHE[model_name] = compare(model_name)
        except wp.ChildFailed as e:
            _CACHE[model_name] = e
    if isinstance(_CACHE[model_name], wp.ChildFailed):
        raise _CACHE[model_name]
    return _CACHE[model_name]


def main(argv):
    if argv[:1] == ["--child"]:
        child(*argv[1:4])
        return 0
    status = 0
    for name in argv or MODELS:
        try:
            rep = compare(name)
        except wp.ChildFailed as e:
            print(f"{name}: FAILED\n{e}")
            status = 1
            continue
        bad = failures(rep) + from_pretrained_failures(rep)
        status |= bool(bad)
        print(f"{name} (transformers {rep['transformers']}, {rep['attn'][0]}): logits "
              f"{rep['logits_diff']:.3g}, loss {rep['loss_diff']:.3g}, grads "
              f"{rep['grad_diff']:.3g}, AdamW losses {rep['losses_diff']:.3g}, generate "
              f"{'equal' if rep['generated'][0] == rep['generated'][1] else 'DIFFERENT'}, "
              f"reload {rep['reload_self_diff']:.3g} / torch dir {rep['reload_torch_dir_diff']:.3g}, "
              f"autocast logits {rep['autocast_logits_diff']:.3g} loss "
              f"{rep['autocast_loss_diff']:.3g} grads {rep['autocast_grad_diff']:.3g}, padded "
              f"sdpa/eager loss {rep['padded_sdpa_loss_diff']:.3g}/"
              f"{rep['padded_eager_loss_diff']:.3g} grads {rep['padded_sdpa_grad_diff']:.3g}/"
              f"{rep['padded_eager_grad_diff']:.3g}, padded generate "
              f"{'equal' if rep['generated_padded'][0] == rep['generated_padded'][1] else 'DIFFERENT'}"
              f": {'ok' if not bad else '; '.join(bad)}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
