"""The CUDA branches of the facade's samplers (facade/random.py: _sample / _draws): what each
returns (object, shape, dtype, device), whether its values follow the distribution (a KS test
for the continuous ones, moments and frequencies for the discrete ones, fixed seeds), and
whether torch.manual_seed and generator= reproduce them.

    TORCHPROXY_TREE=/path/to/tree python3 gpu/rng_cuda_check.py [--device cuda] [-n 20000]
    TORCHPROXY_TREE=... python3 gpu/rng_cuda_check.py --device cpu --paddle-branch

--paddle-branch (CPU machine): the same non-CPU branch code (Paddle's samplers, then the
branch's own arithmetic) run on Paddle's CPU kernels, by making the module's _is_cpu answer False:
it checks that branch's math where no GPU build with working kernels is at hand; the CPU's own
branch (torch's numbers) is tests/facade_runtime/test_torch_rng.py's.

Paddle 2.6.2's GPU wheel has no sm_90 kernels (the shared gpu/README.md): on an H100 its kernels
may write nothing.  A probe says whether draws carry values; where they do not, the value
checks print NOT RUN (never a pass), and only what each call returned is checked.
Each line: PASS / FAIL / NOT RUN, the check, what was measured.  Exit status 1 on any FAIL.
"""
from __future__ import annotations

import argparse
import math
import os
import sys

SCOPED = "rng_cuda_check_scoped"
if __name__ == "__main__":
    # the checks run as a module in torchproxy's scope (as a user's code does): its Tensor
    # methods (uniform_(generator=...), ...) are the facade's only there
    sys.path.insert(0, os.environ.get("TORCHPROXY_TREE", "."))
    import runpy

    import torchproxy
    torchproxy.enable(scope={SCOPED})
    runpy.run_path(__file__, run_name=SCOPED)
    sys.exit(0)

ap = argparse.ArgumentParser()
ap.add_argument("--device", default="cuda")
ap.add_argument("-n", type=int, default=20000)
ap.add_argument("--paddle-branch", action="store_true")
args = ap.parse_args()
sys.path.insert(0, os.environ.get("TORCHPROXY_TREE", "."))
import numpy as np  # noqa: E402
import paddle  # noqa: E402

import torch  # noqa: E402  (the facade: this module runs in torchproxy's scope)

from torchproxy.facade import random as frandom  # noqa: E402

if args.paddle_branch:
    if args.device != "cpu":
        sys.exit("--paddle-branch runs on the CPU")
    frandom._is_cpu = lambda place: False  # every sampler takes its non-CPU (Paddle) branch
DEV, N = args.device, args.n
tree = os.environ.get("TORCHPROXY_TREE", ".")
tid = open(os.path.join(tree, "TREE")).read().strip() if os.path.exists(
    os.path.join(tree, "TREE")) else tree
print(f"tree: {tid}; Paddle {paddle.__version__}; device {DEV}"
      f"{' (the non-CPU branch on Paddle CPU kernels)' if args.paddle_branch else ''}; n={N}")
failures = []


def report(ok, what, detail):
    tag = "NOT RUN" if ok is None else ("PASS" if ok else "FAIL")
    if ok is not None and not ok:  # (numpy booleans too)
        failures.append(what)
    print(f"{tag:7s} {what}: {detail}")


def values(t):
    return np.asarray(t.cpu().numpy(), dtype=np.float64).ravel()


# -- the probe: do Paddle's kernels on this device write values? ------------------------------
probe = values(torch.rand(4096, device=DEV))
DRAWS = bool(np.isfinite(probe).all() and probe.std() > 0.2 and 0 <= probe.min() and probe.max() < 1)
arith = values(torch.tensor([1.0, 2.0, 3.0], device=DEV) * 3 + 1)
ARITH = bool((arith == [4.0, 7.0, 10.0]).all())
# the samplers are a draw and then Paddle arithmetic (scale, log1p, tan, compare, assign): their
# values mean something only where both run
REAL = DRAWS and ARITH
print(f"probe torch.rand(4096): min {probe.min():.4g} max {probe.max():.4g} std {probe.std():.4g}"
      f" ({'draws real' if DRAWS else 'no draws'}); probe [1, 2, 3] * 3 + 1 = {arith.tolist()}"
      f" ({'arithmetic runs' if ARITH else 'no arithmetic'}) -> "
      f"{'value checks run' if REAL else 'value checks NOT RUN (the kernels write nothing here)'}")


def safe(what, thunk):
    """thunk()'s result, or None after reporting its exception as a FAIL."""
    try:
        return thunk()
    except Exception as e:  # noqa: BLE001  a failure is a result here
        report(False, what, f"raised {type(e).__name__}: {str(e)[:160]}")
        return None


def phi(z):
    return 0.5 * (1 + np.vectorize(math.erf)(z / math.sqrt(2)))


def ks(v, cdf):
    """Kolmogorov-Smirnov statistic of v against a continuous cdf, and the alpha=0.001 bound."""
    v = np.sort(v)
    f = cdf(v)
    i = np.arange(1, len(v) + 1)
    d = max(np.max(i / len(v) - f), np.max(f - (i - 1) / len(v)))
    return d, 1.95 / math.sqrt(len(v))


def near(got, want, se, k=5.0):
    return abs(got - want) <= k * se


CONT = {  # name -> (call on x, cdf)
    "uniform_(-2, 3)": (lambda x, g=None: x.uniform_(-2, 3, generator=g),
                        lambda v: np.clip((v + 2) / 5, 0, 1)),
    "normal_(1.5, 2)": (lambda x, g=None: x.normal_(1.5, 2.0, generator=g),
                        lambda v: phi((v - 1.5) / 2)),
    "exponential_(2)": (lambda x, g=None: x.exponential_(2.0, generator=g),
                        lambda v: 1 - np.exp(-2.0 * np.maximum(v, 0))),
    "cauchy_(1, 0.5)": (lambda x, g=None: x.cauchy_(1.0, 0.5, generator=g),
                        lambda v: 0.5 + np.arctan((v - 1.0) / 0.5) / math.pi),
    "log_normal_(0.5, 0.75)": (lambda x, g=None: x.log_normal_(0.5, 0.75, generator=g),
                               lambda v: phi((np.log(np.maximum(v, 1e-300)) - 0.5) / 0.75)),
}


def returned(name, r, x, dt):
    ok = (r is x and list(r.shape) == [N] and r.dtype == dt and str(r.device) == str(x.device)
          and r.device.type == DEV)
    report(ok, f"{name} {str(dt).split('.')[-1]} returns", f"self={r is x} shape={list(r.shape)} "
           f"dtype={r.dtype} device={r.device}")


def draws(name, call, seed):
    """(dtype name, dtype, result) of the in-place sampler ``call`` on a fresh tensor of each
    float dtype, seeded with ``seed``, after the check of what it returns (a call that raised is
    reported by safe() and skipped)."""
    for dt in (torch.float32, torch.float64, torch.float16):
        torch.manual_seed(seed)
        x = torch.empty(N, device=DEV, dtype=dt)
        dt_name = str(dt).split(".")[-1]
        r = safe(f"{name} {dt_name}", lambda: call(x))
        if r is None:
            continue
        returned(name, r, x, dt)
        yield dt_name, dt, r


for name, (call, cdf) in CONT.items():
    for dt_name, dt, r in draws(name, call, 1234):
        if dt == torch.float16:
            continue  # a half tensor's values are float32 draws rounded once; KS on float32/64
        v = values(r)
        if not REAL:
            report(None, f"{name} {dt_name} KS", "no values on this device")
            continue
        d, bound = ks(v, cdf)
        report(bool(np.isfinite(v).all()) and d < bound,
               f"{name} {dt_name} KS", f"D={d:.4f} (bound {bound:.4f} at alpha 0.001)")


def discrete(name, v, dt_name):
    if not REAL:
        report(None, f"{name} {dt_name} values", "no values on this device")
        return
    if name.startswith("geometric_"):
        p = 0.3
        ok = bool((v >= 1).all() and (v == np.round(v)).all())
        m, se_m = v.mean(), math.sqrt((1 - p) / p ** 2 / N)
        f1, se_1 = (v == 1).mean(), math.sqrt(p * (1 - p) / N)
        report(ok and near(m, 1 / p, se_m) and near(f1, p, se_1), f"{name} {dt_name} values",
               f"integers >= 1: {ok}; mean {m:.4f} (1/p {1 / p:.4f}, 5 se {5 * se_m:.4f}); "
               f"P(X=1) {f1:.4f} (p {p}, 5 se {5 * se_1:.4f})")
    elif name.startswith("bernoulli_(0.3)"):
        ok = bool(np.isin(v, (0, 1)).all())
        m, se = v.mean(), math.sqrt(0.3 * 0.7 / N)
        report(ok and near(m, 0.3, se), f"{name} {dt_name} values",
               f"in {{0, 1}}: {ok}; mean {m:.4f} (0.3, 5 se {5 * se:.4f})")
    elif name.startswith("random_(0, 10)"):
        ok = bool(((v >= 0) & (v < 10) & (v == np.round(v))).all())
        freq = np.bincount(v.astype(np.int64), minlength=10)[:10] / N
        se = math.sqrt(0.1 * 0.9 / N)
        report(ok and all(near(f, 0.1, se) for f in freq), f"{name} {dt_name} values",
               f"integers in [0, 10): {ok}; frequencies {np.round(freq, 4).tolist()} "
               f"(0.1, 5 se {5 * se:.4f})")


DISC = {
    "geometric_(0.3)": lambda x, g=None: x.geometric_(0.3, generator=g),
    "bernoulli_(0.3)": lambda x, g=None: x.bernoulli_(0.3, generator=g),
    "random_(0, 10)": lambda x, g=None: x.random_(0, 10, generator=g),
}
for name, call in DISC.items():
    for dt_name, _dt, r in draws(name, call, 99):
        discrete(name, values(r), dt_name)

# bernoulli with tensor probabilities: x.bernoulli_(p), torch.bernoulli(p), p.bernoulli()
pn = np.random.default_rng(5).uniform(size=N)
for dt in (torch.float32, torch.float64, torch.float16):
    p = torch.tensor(pn, dtype=dt, device=DEV)
    pv = values(p)  # the probabilities as stored (a half tensor's are rounded)
    se = math.sqrt(float((pv * (1 - pv)).sum()))
    for name, fn in (("x.bernoulli_(p)", lambda g=None: torch.empty(N, device=DEV, dtype=dt)
                      .bernoulli_(p, generator=g)),
                     ("torch.bernoulli(p)", lambda g=None: torch.bernoulli(p, generator=g)),
                     ("p.bernoulli()", lambda g=None: p.bernoulli(generator=g))):
        torch.manual_seed(7)
        dn = str(dt).split(".")[-1]
        r = safe(f"{name} {dn}", fn)
        if r is None:
            continue
        report(list(r.shape) == [N] and r.dtype == dt and r.device.type == DEV,
               f"{name} {dn} returns", f"shape={list(r.shape)} dtype={r.dtype} device={r.device}")
        if not REAL:
            report(None, f"{name} {dn} values", "no values on this device")
            continue
        v = values(r)
        ok = bool(np.isin(v, (0, 1)).all())
        report(ok and near(v.sum(), pv.sum(), se), f"{name} {dn} values",
               f"in {{0, 1}}: {ok}; ones {v.sum():.0f} (sum p {pv.sum():.1f}, 5 se {5 * se:.1f}); "
               f"ones where p<0.1: {v[pv < 0.1].mean():.4f}, where p>0.9: {v[pv > 0.9].mean():.4f}")

# randint / randint_like / randperm
def integer_checks():
    torch.manual_seed(3)
    r = torch.randint(0, 10, (N,), device=DEV)
    report(list(r.shape) == [N] and r.dtype == torch.int64 and r.device.type == DEV, "randint returns",
           f"shape={list(r.shape)} dtype={r.dtype} device={r.device}")
    discrete("random_(0, 10) via torch.randint", values(r), "int64")
    r = torch.randint(0, 10, (N,), device=DEV, dtype=torch.int32)
    report(r.dtype == torch.int32 and r.device.type == DEV, "randint dtype=int32 returns",
           f"dtype={r.dtype} device={r.device}")
    for like in (torch.empty(N, device=DEV), torch.empty(N, device=DEV, dtype=torch.int32)):
        r = torch.randint_like(like, 10)
        report(r.dtype == like.dtype and list(r.shape) == [N] and r.device.type == DEV,
               f"randint_like({str(like.dtype).split('.')[-1]}) returns",
               f"dtype={r.dtype} device={r.device}")
        discrete("random_(0, 10) via randint_like", values(r), str(like.dtype).split(".")[-1])
    for dt in (None, torch.int32, torch.float32):
        r = torch.randperm(1000, device=DEV) if dt is None else torch.randperm(1000, device=DEV, dtype=dt)
        want = torch.int64 if dt is None else dt
        report(r.dtype == want and list(r.shape) == [1000] and r.device.type == DEV,
               f"randperm(1000{'' if dt is None else ', ' + str(dt)}) returns",
               f"dtype={r.dtype} device={r.device}")
        if REAL:
            v = values(r)
            report(bool((np.sort(v) == np.arange(1000)).all()), f"randperm(1000) {want} values",
                   "a permutation of 0..999" if (np.sort(v) == np.arange(1000)).all() else
                   f"not a permutation: {np.unique(v).size} distinct")
        else:
            report(None, f"randperm(1000) {want} values", "no values on this device")


safe("randint / randint_like / randperm", integer_checks)

# reproducibility: torch.manual_seed, generator= (same seed, same numbers; the generator's
# draws leave the global stream alone)
CALLS = {**{k: c for k, (c, _cdf) in CONT.items()}, **DISC}
gen_dev = DEV if not args.paddle_branch else "cpu"
def reproducibility(name, call):
    def draw(g=None):
        return values(call(torch.empty(4096, device=DEV), g))
    torch.manual_seed(2024)
    a = draw()
    b0 = draw()
    torch.manual_seed(2024)
    b = draw()
    g = torch.Generator(device=gen_dev)
    g.manual_seed(11)
    c = draw(g)
    g.manual_seed(11)
    d = draw(g)
    torch.manual_seed(2024)
    draw(g)  # a generator's draw between: the global stream's next draw is still `a`
    e = draw()
    if not REAL:
        report(None, f"{name} reproducibility", "no values on this device")
        return
    ok = (a == b).all() and (c == d).all() and (a == e).all() and not (a == b0).all() \
        and not (a == c).all()
    report(bool(ok), f"{name} reproducibility",
           f"manual_seed repeats {(a == b).all()}; next draw differs {not (a == b0).all()}; "
           f"generator repeats {(c == d).all()}; generator leaves the global stream "
           f"{(a == e).all()}; generator != global {not (a == c).all()}")


for name, call in CALLS.items():
    safe(f"{name} reproducibility", lambda: reproducibility(name, call))

print(f"== {len(failures)} failed" + (": " + ", ".join(failures) if failures else ""))
sys.exit(1 if failures else 0)
