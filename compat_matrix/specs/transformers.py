"""Hugging Face transformers (the release ./dev installs into .venv), unmodified: tiny
``GPT2LMHeadModel`` and ``LlamaForCausalLM`` (2 layers, small widths).

Why this library: most torch-written libraries import ``transformers`` somewhere, and Liger
exists to patch its models; a row here says whether a user's model code runs on Paddle tensors.

Nothing is downloaded: the configs are built in code, and every parameter is then overwritten
from numpy with a fixed seed (``_weights``), so the oracle and the proxies hold the same weights
without sharing a file (each backend's own ``manual_seed`` draws different numbers).  The token
batches are the case's inputs.  Cases: eval logits; the training loss and the gradients of the
embedding and the last layer's MLP; 5 AdamW steps (the loss of each); and greedy ``generate``.
tests/clients/hf_transformers.py goes further (autocast, safetensors round trips) in CI, and
tests/clients/liger_llama.py patches this Llama with ``apply_liger_kernel_to_llama``: that
needs Liger 0.7.0, the last release that patches transformers 4.57 (the Liger row's pinned 0.8.5
refuses it at import), so it is not a case of this row.
"""
from compat_matrix.spec import Case, Library, randint, value

VOCAB = 64
_NORM_WEIGHTS = ("norm.weight", "ln_1.weight", "ln_2.weight", "ln_f.weight")

LIBRARY = Library(
    name="transformers",
    scope=("transformers", "safetensors"),
    requires=("transformers", "safetensors"),
    imports=("transformers",),
    # pinned once, in ci/requirements-main.txt (the tests' client too), with its dependencies
    install=("pip install -r ci/requirements-main.txt   # transformers==4.57.1, in .venv",),
    scan=("transformers.models.gpt2", "transformers.models.llama"),
    devices=("cpu",),
    notes="tiny GPT-2 and Llama built from configs in code, weights from numpy",
    unavailable_reason="the models run Paddle's own kernels, and the lent GPU machine's Paddle "
                       "(GPU 2.6.2) has none for sm_90",
)


def _model(kind):
    import numpy as np
    import torch
    import transformers
    if kind == "gpt2":
        cfg = transformers.GPT2Config(
            vocab_size=VOCAB, n_positions=32, n_embd=32, n_layer=2, n_head=4, resid_pdrop=0.0,
            embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=1, eos_token_id=2, pad_token_id=0)
        model = transformers.GPT2LMHeadModel(cfg)
    else:
        cfg = transformers.LlamaConfig(
            vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
            bos_token_id=1, eos_token_id=2, pad_token_id=0)
        model = transformers.LlamaForCausalLM(cfg)
    rng = np.random.default_rng(7)
    with torch.no_grad():  # the same weights on every backend, in named_parameters() order
        for name, p in model.named_parameters():
            w = rng.standard_normal(tuple(p.shape)) * 0.05
            if name.endswith(_NORM_WEIGHTS):   # norms near 1, as initialised
                w = 1.0 + w
            p.copy_(torch.from_numpy(w.astype("float32")))
    return model


def _watched(model):
    """The gradients compared: the token embedding and the last block's MLP input weight."""
    names = [n for n, _ in model.named_parameters()]
    first = names[0]
    mlp = [n for n in names if ".mlp." in n and n.endswith("weight")][-1]
    params = dict(model.named_parameters())
    return params[first], params[mlp]


def logits(kind, tokens):
    model = _model(kind).eval()
    import torch
    with torch.no_grad():
        return model(tokens).logits


def loss_backward(kind, tokens):
    model = _model(kind).train()
    out = model(tokens, labels=tokens)
    out.loss.backward()
    emb, mlp = _watched(model)
    return out.loss, emb.grad, mlp.grad


def adamw_steps(kind, batches):
    import torch
    model = _model(kind).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    losses = []
    for tokens in batches:
        opt.zero_grad()
        loss = model(tokens, labels=tokens).loss
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses)


def generate(kind, prompt):
    model = _model(kind).eval()
    return model.generate(prompt, max_new_tokens=6, do_sample=False, pad_token_id=0)


_TOKENS = randint(3, VOCAB, 2, 12)

CASES = [
    Case(f"{kind}_{name}", fn, inputs=[value(kind), *inputs], tol=tol)
    for kind in ("gpt2", "llama")
    for name, fn, inputs, tol in (
        ("logits", logits, [_TOKENS], {}),
        ("loss_backward", loss_backward, [_TOKENS], {}),
        ("adamw_5_steps", adamw_steps, [randint(3, VOCAB, 5, 2, 12)], {}),
        ("generate", generate, [randint(3, VOCAB, 2, 4)], {}),
    )
]
