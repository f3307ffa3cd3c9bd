"""torchproxy/integrations/triton_interpreter_bf16.py: with the ``bf16`` fix, Triton's CPU
interpreter computes bfloat16 kernels as compiled Triton does (each operation in float32, rounded
to nearest even), checked against REAL torch's bfloat16 arithmetic; without it, the same kernels
compute on the uint16 bit patterns, as reported (Liger-Kernel's geglu/swiglu bf16 cases).
Each scenario runs in a fresh process (TRITON_INTERPRET is read at Triton's import; the fixes
are process-wide)."""

import numpy as np
import pytest

from interpreter_child import run_kernels

pytest.importorskip("triton")
torch = pytest.importorskip("torch")

KERNELS = '''
import torch, triton, triton.language as tl

@triton.jit
def elementwise(a_ptr, b_ptr, c_ptr, mul, add, sub, div, mx, lt, fma, N: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r)
    b = tl.load(b_ptr + r)
    c = tl.load(c_ptr + r)
    tl.store(mul + r, a * b)
    tl.store(add + r, a + b)
    tl.store(sub + r, a - b)
    tl.store(div + r, a / b)
    tl.store(mx + r, tl.maximum(a, b))
    tl.store(lt + r, (a < b).to(tl.int8))
    tl.store(fma + r, tl.fma(a, b, c))

@triton.jit
def casts(x_ptr, a_ptr, st, rtne, rtz, to_int, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)                      # float32
    tl.store(st + r, x)                         # stored into a bf16 tensor: fptrunc (rtne)
    tl.store(rtne + r, x.to(tl.bfloat16, fp_downcast_rounding="rtne"))
    tl.store(rtz + r, x.to(tl.bfloat16, fp_downcast_rounding="rtz"))
    tl.store(to_int + r, tl.load(a_ptr + r).to(tl.int32))

@triton.jit
def reductions(a_ptr, s_ptr, m_ptr, i_ptr, N: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, N))
    tl.store(s_ptr, tl.sum(a, axis=0))
    tl.store(m_ptr, tl.max(a, axis=0))
    tl.store(i_ptr, tl.argmax(a, axis=0))

@triton.jit
def dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr):
    r = tl.arange(0, M)
    a = tl.load(a_ptr + r[:, None] * M + r[None, :])
    b = tl.load(b_ptr + r[:, None] * M + r[None, :])
    tl.store(c_ptr + r[:, None] * M + r[None, :], tl.dot(a, b))

def run_all():
    bf = torch.bfloat16
    g = torch.Generator().manual_seed(0)
    N = 64
    a = (torch.randn(N, generator=g) * 3).to(bf)
    b = (torch.randn(N, generator=g) * 3).to(bf)
    b[b.abs() < 0.25] = 0.5
    c = torch.randn(N, generator=g).to(bf)
    outs = [torch.empty(N, dtype=bf) for _ in range(5)]
    lt = torch.empty(N, dtype=torch.int8)
    fma = torch.empty(N, dtype=bf)
    elementwise[(1,)](a, b, c, *outs, lt, fma, N=N)
    af, bf32, cf = a.float(), b.float(), c.float()
    refs = [a * b, a + b, a - b, a / b, torch.maximum(a, b)]
    res = {}
    for name, o, r in zip(("mul", "add", "sub", "div", "max"), outs, refs):
        res[name] = torch.equal(o, r)
    res["lt"] = torch.equal(lt.bool(), a < b)
    res["fma"] = torch.equal(fma, (af * bf32 + cf).to(bf))
    # float32 values with ties and carries into the exponent: 1 + k/2^8 + 2^-9 (halfway)
    x = torch.cat([torch.randn(N - 8, generator=g) * 100,
                   torch.tensor([1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -8 + 2 ** -9,
                                 1 + 2 ** -9, 1 + 3 * 2 ** -9, 255.5, -(1 + 3 * 2 ** -9),
                                 float(torch.finfo(torch.float32).max)])])
    st, rtne, rtz = (torch.empty(N, dtype=bf) for _ in range(3))
    to_int = torch.empty(N, dtype=torch.int32)
    casts[(1,)](x, a, st, rtne, rtz, to_int, N=N)
    res["store_rounds"] = torch.equal(st, x.to(bf))
    res["rtne"] = torch.equal(rtne, x.to(bf))
    trunc = (x.view(torch.int32) >> 16).to(torch.int16).view(bf)   # round toward zero
    res["rtz"] = torch.equal(rtz, trunc)
    res["to_int"] = torch.equal(to_int, a.to(torch.int32))
    s, m = torch.empty(1, dtype=bf), torch.empty(1, dtype=bf)
    i = torch.empty(1, dtype=torch.int32)
    neg = -(a.abs() + 1)                          # all negative: bit order is not value order
    reductions[(1,)](neg, s, m, i, N=N)
    res["sum"] = torch.equal(s[0], neg.float().sum().to(bf))
    res["reduce_max"] = torch.equal(m[0], neg.max())
    res["argmax"] = int(i[0]) == int(neg.argmax())
    A = torch.randint(-2, 3, (16, 16), generator=g).to(bf)
    B = torch.randint(-2, 3, (16, 16), generator=g).to(bf)
    C = torch.zeros(16, 16)
    dot[(1,)](A, B, C, M=16)
    res["dot"] = torch.equal(C, A.float() @ B.float())
    return res
'''


def _run(tmp_path, fix: bool) -> dict:
    return run_kernels(tmp_path, "bf16_kernels", KERNELS, fix)


def test_bf16_kernels_compute_what_torch_computes(tmp_path):
    res = _run(tmp_path, fix=True)
    assert res.pop("installed")["bf16"] is True
    assert res == dict.fromkeys(res, True) and len(res) == 15, res


def test_without_the_fix_bf16_kernels_compute_on_bit_patterns(tmp_path):
    res = _run(tmp_path, fix=False)
    res.pop("installed")
    # what the interpreter gets wrong as it is (Triton 3.6 and 3.9): arithmetic on the
    # integers, the bit order in comparisons, truncating stores and casts.  tl.maximum, tl.max /
    # tl.argmax and the cast to int are right on 3.6 (its language upcasts bf16 to float32
    # before them) and tl.max / tl.argmax wrong on 3.9; rtz (a truncation) is right on both
    wrong = {k for k, v in res.items() if not v}
    always = {"mul", "add", "sub", "div", "lt", "fma", "store_rounds", "rtne", "sum", "dot"}
    assert always <= wrong <= always | {"max", "reduce_max", "argmax", "to_int"}, res


def test_rounding_matches_torch_bit_for_bit():
    from torchproxy.integrations.triton_interpreter_bf16 import bf16_to_f32, f32_to_bf16
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2 ** 32, size=200_000, dtype=np.uint64).astype(np.uint32)
    special = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7F7FFFFF, 0x00000001,
                        0x3F808000, 0x3F818000, 0x3F80C000, 0x7FC00000, 0xFFC00001],
                       dtype=np.uint32)
    x = np.concatenate([bits, special]).view(np.float32)
    ours = f32_to_bf16(x)
    ref = torch.from_numpy(x.copy()).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    nan = np.isnan(x)
    assert np.array_equal(ours[~nan], ref[~nan])
    assert np.isnan(bf16_to_f32(ours[nan])).all()  # torch makes every NaN 0x7FC0: NaN either way
    assert np.array_equal(bf16_to_f32(ref[~nan]),
                          torch.from_numpy(ref[~nan].view(np.int16).copy()).view(
                              torch.bfloat16).float().numpy())
