"""torch's ModuleInfo database (``common_modules.module_db``) through real torch and the facade.

For each ModuleInfo (``nn.Linear``, ...) and each of its CPU ``ModuleInput``s in float32 (the
modules' dtype behaviour is the operators' business, measured by the OpInfo suite), in training
mode and, where ModuleInfo says train and eval differ, in eval mode too:

1. construct ``torch.nn.<Name>(*args, **kwargs)`` on both sides (same code, executed once in an
   unscoped module and once in a scoped one, so the scoped side's ``torch`` is the facade), then
   ``m.to(torch.float32)`` as torch's own TestModule does (float64 buffers such as
   FractionalMaxPool's ``_random_samples`` follow the module's dtype);
2. ``state_dict()`` keys and shapes must match torch's; torch's values are then loaded into the
   facade's module with ``load_state_dict`` (so both compute with the same weights);
3. forward: outputs compared like the OpInfo suite (values, dtype, shape, structure), and the
   ``state_dict`` after the forward pass (running statistics);
4. backward: ``sum((out_i * seed_i).sum())`` with fixed random seeds per output,
   ``.backward()``, then the gradients of the floating inputs and of every named parameter.

Where torch raises (forward or backward: SoftMarginLoss refuses a target that requires grad),
the facade must raise the same exception class, as in the OpInfo suite.

Tolerances: modules chain several kernels (conv, recurrent cells, norms), so results and
gradients use rtol 1e-4 / atol 1e-5 (float32) unless tolerances.txt has an entry for the module
id; anything further off is a wrong value.
A module passes when forward and backward pass on all its inputs; ``forward_ok`` records the
forward part alone.
"""
from __future__ import annotations

import itertools
import types
import warnings

import numpy as np
import torch

from . import core, tolerance
from .core import Mismatch, Result, Unconvertible, classify_raise, compare, normalize

MODULE_TOL = (1e-4, 1e-5)

_SNIPPET = '''
import torch

def resolve(path):
    obj = torch
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj

def build(path, a, k, train):
    m = resolve(path)(*a, **k)
    m.to(torch.float32)  # as torch's TestModule: m.to(device).to(dtype)
    # the common spellings: model.train() / model.eval()
    if train:
        m.train()
    else:
        m.eval()
    return m

def state(m):
    return dict(m.state_dict())

def load(m, sd):
    m.load_state_dict(sd)

def forward(m, a, k):
    return m(*a, **k)

def _flat(x, out):
    if isinstance(x, torch.Tensor):
        out.append(x)
    elif isinstance(x, (list, tuple)):
        for i in x:
            _flat(i, out)
    return out

def backward(m, a, k, seeds):
    a = [x.detach().clone().requires_grad_(True)
         if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in a]
    outs = [o for o in _flat(m(*a, **k), []) if o.is_floating_point()]
    loss = None
    for o, s in zip(outs, seeds):
        if not o.requires_grad:
            continue
        term = (o * s).sum()
        loss = term if loss is None else loss + term
    if loss is None:
        return None
    loss.backward()
    grads = [x.grad for x in a if isinstance(x, torch.Tensor) and x.is_floating_point()]
    return (grads, {n: p.grad for n, p in m.named_parameters()})

def flat(x):
    return _flat(x, [])

def kinds(m):
    return type(m).__name__, sorted((n, torch.nn.parameter.is_lazy(p))
                                    for n, p in m.named_parameters())
'''

_mods: dict = {}


def _snippets():
    if not _mods:
        _mods["facade"] = core._load(_SNIPPET, "modules")
        oracle = types.ModuleType("opinfo_oracle.modules")
        exec(compile(_SNIPPET, "<opinfo oracle modules>", "exec"), oracle.__dict__)
        _mods["torch"] = oracle
    return _mods["torch"], _mods["facade"]


_db = None


def module_db():
    global _db
    if _db is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from torch.testing._internal.common_modules import module_db as db
        core._no_test_fn()
        _db = db
    return _db


def module_id(info) -> str:
    return info.name + (f".{info.variant_name}" if getattr(info, "variant_name", "") else "")


def torch_path(info) -> str:
    return f"torch.{info.name}" if info.name.startswith("nn.") else f"torch.nn.{info.module_cls.__name__}"


def _inputs(info, training):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return info.module_inputs_func(info, device="cpu", dtype=torch.float32,
                                       requires_grad=False, training=training)


def _seeds(out_norm_flat):
    rng = np.random.default_rng(1)
    return [rng.standard_normal(o[2]).astype(o[3].dtype) for o in out_norm_flat]


def _cmp(e, a, values, stage, tol, margin):
    try:
        compare(e, a, values, tol=tol, margin=margin)
    except Mismatch as m:
        raise Mismatch(m.category, f"{stage}: {m.detail}") from None


def module_tol(mid: str):
    """float32: MODULE_TOL unless tolerances.txt has an entry for the module."""
    table = tolerance.for_keys((mid,))

    def untabled(dtype):
        return tolerance.Tol(*MODULE_TOL) if dtype == "float32" else tolerance.default(dtype)

    def get(dtype):
        t = table(dtype)
        return untabled(dtype) if t == tolerance.default(dtype) else t
    get.untabled = untabled
    return get


def _facade_call(stage, fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args)
        except Exception as exc:  # noqa: BLE001
            if stage in ("state_dict", "load_state_dict") and isinstance(exc, AttributeError) \
                    and f"attribute '{stage}'" in str(exc):
                raise Mismatch("not provided", f"torch.nn.Module.{stage}") from None
            m = classify_raise(exc)
            raise Mismatch(m.category, f"{stage}: {m.detail}") from None


def _oracle(seed, fn, *args):
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def _expect_raise(texc, stage, fn, *args):
    """torch raised ``texc`` at ``stage``: the facade must raise the same class (or a subclass)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = fn(*args)
        except Exception as fexc:  # noqa: BLE001
            if isinstance(fexc, type(texc)):
                return
            m = classify_raise(fexc)
            if m.category == "not provided":
                raise m from None
            raise Mismatch("wrong exception class", f"{stage}: torch {type(texc).__name__}, "
                           f"facade {core.first_line(fexc, 100)}") from None
    raise Mismatch("no exception where torch raises",
                   f"{stage}: torch raises {core.first_line(texc, 80)}; facade returns "
                   f"{type(got).__name__}")


def _same_kinds(tk, fk, stage):
    """Lazy modules: the class name and which parameters are still uninitialised."""
    if tk != fk:
        raise Mismatch("state_dict differs", f"{stage}: (class, [(parameter, is_lazy)]) torch "
                       f"{tk}, facade {fk}")


def check_input(info, mi, training, backward: bool, tol=None, margin=None):
    """One ModuleInput; raises Mismatch / Unconvertible."""
    tmod, fmod = _snippets()
    path = torch_path(info)
    ca, ck = mi.constructor_input.args, mi.constructor_input.kwargs
    fa, fk = mi.forward_input.args, mi.forward_input.kwargs
    pca, pck = core.to_facade(tuple(ca)), core.to_facade(dict(ck))
    pfa, pfk = core.to_facade(tuple(fa)), core.to_facade(dict(fk))

    torch.manual_seed(0)
    tm = tmod.build(path, ca, ck, training)
    try:
        fm = fmod.build(path, pca, pck, training)
    except Exception as exc:  # noqa: BLE001
        m = classify_raise(exc)
        if m.category == "not provided":
            raise m from None
        raise Mismatch(m.category, f"constructor: {m.detail}") from None
    if info.is_lazy:
        # torch.nn.Lazy*: no parameter shapes before the first call (torch's own TestModule
        # runs them without special casing; here the weights must be shared first): the
        # uninitialised parameters must match, then one call materialises them on both sides,
        # the class must become cls_to_become, and the comparison goes on with the weights
        # they got.  The backward stage below loads torch's weights into fresh, uninitialised
        # modules (the lazy load path).
        _same_kinds(tmod.kinds(tm), _facade_call("kinds", fmod.kinds, fm), "before the first call")
        try:
            _oracle(0, tmod.forward, tm, core.clone_torch(tuple(fa)), core.clone_torch(dict(fk)))
        except Exception as texc:  # noqa: BLE001
            _expect_raise(texc, "first call", fmod.forward, fm, pfa, pfk)
            return
        _facade_call("first call", fmod.forward, fm, pfa, pfk)
        _same_kinds(tmod.kinds(tm), _facade_call("kinds", fmod.kinds, fm), "after the first call")
    tsd = tmod.state(tm)
    fsd = _facade_call("state_dict", fmod.state, fm)
    tk = sorted((k, tuple(v.shape)) for k, v in tsd.items())
    fk_ = sorted((k, tuple(int(i) for i in v.shape)) for k, v in fsd.items())
    if tk != fk_:
        raise Mismatch("state_dict differs", f"keys/shapes torch {tk[:4]}..., facade {fk_[:4]}...")
    _facade_call("load_state_dict", fmod.load, fm, core.to_facade(dict(tsd)))

    tsd_copy = {k: v.detach().clone() for k, v in tsd.items()}
    try:
        tout = _oracle(0, tmod.forward, tm, core.clone_torch(tuple(fa)), core.clone_torch(dict(fk)))
    except Exception as texc:  # noqa: BLE001
        _expect_raise(texc, "forward", fmod.forward, fm, pfa, pfk)
        return
    # random modules (dropout in training): two oracle runs with different seeds differ
    tm2 = tmod.build(path, ca, ck, training)
    tm2.load_state_dict(tsd_copy)
    tout2 = _oracle(1, tmod.forward, tm2, core.clone_torch(tuple(fa)), core.clone_torch(dict(fk)))
    values = True
    try:
        compare(normalize(tout), normalize(tout2))
    except Mismatch:
        values = False
    fout = _facade_call("forward", fmod.forward, fm, pfa, pfk)
    _cmp(normalize(tout), normalize(fout), values, "forward", tol, margin)
    _cmp(normalize(dict(tmod.state(tm))), normalize(dict(_facade_call("state_dict", fmod.state, fm))),
         values, "state after forward", tol, margin)
    if not backward:
        return
    # backward, on fresh modules with the same weights
    tm = tmod.build(path, ca, ck, training)
    tm.load_state_dict(tsd_copy)
    fm = fmod.build(path, pca, pck, training)
    _facade_call("load_state_dict", fmod.load, fm, core.to_facade(dict(tsd_copy)))
    seeds = _seeds([normalize(o) for o in tmod.flat(tout) if o.is_floating_point()])
    try:
        tg = _oracle(0, tmod.backward, tm, core.clone_torch(tuple(fa)), core.clone_torch(dict(fk)),
                     [torch.from_numpy(s) for s in seeds])
    except Exception as texc:  # noqa: BLE001
        _expect_raise(texc, "backward", fmod.backward, fm, pfa, pfk,
                      [core.to_facade(torch.from_numpy(s)) for s in seeds])
        return
    if tg is None:  # no floating output needs a gradient
        return
    fg = _facade_call("backward", fmod.backward, fm, pfa, pfk, [core.to_facade(torch.from_numpy(s)) for s in seeds])
    _cmp(normalize(tg), normalize(fg), values, "backward", tol, margin)


def run_module(info, limit: int | None = None, only: str | None = None) -> Result:
    mid = module_id(info)
    if torch.float32 not in info.dtypes:
        return Result(mid, "skip", "no float32", "ModuleInfo lists no float32")
    modes = [True] + ([False] if info.train_and_eval_differ else [])
    # not provided: one lookup, no inputs needed
    _, fmod = _snippets()
    try:
        fmod.resolve(torch_path(info))
    except Exception as exc:  # noqa: BLE001
        m = classify_raise(exc)
        return Result(mid, "fail", m.category if m.category == "not provided" else "not provided",
                      m.detail)
    n = skipped = 0
    tol, mg = module_tol(mid), core.Margin()
    for backward in (False, True):
        for training in modes:
            mode = "train" if training else "eval"
            it = enumerate(_inputs(info, training))
            if only:
                wmode, _, wi = only.partition("#")
                if wmode != f"{mode}-{'backward' if backward else 'forward'}":
                    continue
                it = itertools.islice(it, int(wi), int(wi) + 1)
            elif limit is not None:
                it = itertools.islice(it, limit)
            for i, mi in it:
                where = f"{mode}-{'backward' if backward else 'forward'}#{i}"
                try:
                    check_input(info, mi, training, backward, tol, mg)
                    n += 1
                except Unconvertible:
                    skipped += 1
                except Mismatch as m:
                    return Result(mid, "fail", m.category, m.detail, where, n, skipped,
                                  forward_ok=backward, margin=mg.value, margin_untabled=mg.untabled)
                except Exception as exc:  # noqa: BLE001
                    return Result(mid, "fail", "harness error", core.first_line(exc), where, n,
                                  skipped, forward_ok=backward, margin=mg.value, margin_untabled=mg.untabled)
    if n == 0:
        return Result(mid, "skip", "no samples", f"{skipped} inputs not expressible on Paddle"
                      if skipped else "no module inputs", "-", 0, skipped)
    return Result(mid, "pass", "", "", "-", n, skipped, forward_ok=True, margin=mg.value, margin_untabled=mg.untabled)
