"""Run pytorch/extension-cpp's CPU cases (from its test/test_extension.py: sample inputs,
correctness, gradients, myadd_out) on one side, in a subprocess of the tests.

    python extcpp_runner.py torch|paddle SITE_DIR OUT.pkl

SITE_DIR holds the extension_cpp package built for that side.  Inputs are fixed numpy arrays,
so both sides compute on the same numbers; results are numpy arrays or ("error", type, msg)."""
import pickle
import sys
import types

import numpy as np

SCOPED = "tpx_extcpp_cases"

CASE_SRC = '''
import torch
import extension_cpp

def reference_muladd(a, b, c):
    return a * b + c

def samples(rng, requires_grad):
    def t(*size, grad=requires_grad):
        return torch.tensor(rng.standard_normal(size).astype("float32"), requires_grad=grad)
    return [[t(3), t(3), 1], [t(20), t(20), 3.14], [t(20), t(20, grad=False), -123],
            [t(2, 3, grad=False), t(2, 3), -0.3]]

def correctness(rng):
    out = []
    for args in samples(rng, False):
        r = extension_cpp.ops.mymuladd(*args)
        torch.testing.assert_close(r, reference_muladd(*args))
        out.append(r)
    return out

def gradients(rng):
    out = []
    for args in samples(rng, True):
        diff = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
        o = extension_cpp.ops.mymuladd(*args)
        g = torch.tensor(rng.standard_normal(tuple(o.shape)).astype("float32"))
        result = torch.autograd.grad(o, diff, g)
        expected = torch.autograd.grad(reference_muladd(*args), diff, g)
        torch.testing.assert_close(result, expected)
        out.extend(result)
    return out

def add_out(rng):
    out = []
    for n in (3, 20):
        a, b, o = (torch.tensor(rng.standard_normal(n).astype("float32")) for _ in range(3))
        extension_cpp.ops.myadd_out(a, b, o)
        torch.testing.assert_close(o, torch.add(a, b))
        out.append(o)
    return out

def mymul_op(rng):
    a, b = (torch.tensor(rng.standard_normal((4, 5)).astype("float32")) for _ in range(2))
    return [torch.ops.extension_cpp.mymul.default(a, b), torch.ops.extension_cpp.mymul(a, b)]

def check_sizes(rng):
    return [extension_cpp.ops.mymuladd(torch.zeros(3), torch.zeros(4), 1.0)]

def check_dtype(rng):
    return [extension_cpp.ops.mymuladd(torch.zeros(3, dtype=torch.float64),
                                       torch.zeros(3, dtype=torch.float64), 1.0)]
'''

CASES = ("correctness", "gradients", "add_out", "mymul_op", "check_sizes", "check_dtype")


def main(side, site, out):
    sys.path.insert(0, site)
    if side == "paddle":
        import torchproxy
        torchproxy.enable(scope={"extension_cpp", SCOPED})
    mod = types.ModuleType(SCOPED)
    sys.modules[SCOPED] = mod
    exec(compile(CASE_SRC, f"<{SCOPED}>", "exec"), mod.__dict__)
    res = {}
    for case in CASES:
        try:
            vals = getattr(mod, case)(np.random.default_rng(0))
            res[case] = ("ok", [v.detach().numpy().copy() for v in vals])
        except Exception as e:  # compared with the other side
            msg = str(e).strip().splitlines()
            res[case] = ("error", type(e).__name__, msg[0] if msg else "")
    with open(out, "wb") as f:
        pickle.dump(res, f)


if __name__ == "__main__":
    main(*sys.argv[1:4])
