"""Bounds on every size, stride, offset and integer the facade hands to Paddle (issue 19 items
4-6) and numpy layouts (issue 18: Fortran-order arrays), against real torch 2.13.

Each case is a snippet that sets ``result``; it runs here under real torch and, in ONE child
process under glibc's heap checks (checkpoint_fuzz.run_child: ``MALLOC_CHECK_=3``,
``MALLOC_PERTURB_``, Paddle's signal handler off, faulthandler on), under the facade.  Before
the fixes, ``torch.empty(2**62)`` returned a tensor over a 0-byte allocation, ``set_`` with a
negative stride read before its allocation, ``torch.tensor(2**63)`` wrapped: a crash of the
child fails every case.  Results compare exactly: exception type and message (torch appends a
C++ stack to its argument-parser messages: compared up to it), or dtype, shape, strides where
the case asks, values.
"""
import json
import os
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checkpoint_fuzz import run_child  # noqa: E402

# -- item 4: sizes that overflow torch's storage arithmetic, and ones that cannot be allocated --
SIZE_CASES = [
    "result = torch.empty(2**62)",
    "result = torch.empty(2**61)",                       # 2**63 bytes: overflows int64
    "result = torch.empty(2**60, dtype=torch.uint8)",    # fits: torch's out-of-memory error
    "result = torch.empty(2**40)",
    "result = torch.empty(2**63)",                       # not an int64: TypeError
    "result = torch.empty(2, 2**63)",
    "result = torch.zeros(size=(2, 2**63))",
    "result = torch.empty(-1)",
    "result = torch.zeros((2**31, 2**31))",
    "result = torch.zeros((2**32, 2**32))",
    "result = torch.zeros((2**31, 2**31, 0))",           # 0 elements: allowed
    "result = torch.zeros((2**62, 2**62, 0))",           # the product overflowed first
    "result = torch.ones(2**40)",
    "result = torch.ones((2**61, 4), dtype=torch.uint8)",
    "result = torch.full((2**62,), 1.0)",
    "result = torch.FloatTensor(2**62)",
    "result = torch.FloatTensor()",
    "result = torch.randn(2**62)",
    "result = torch.rand(2**62)",
    "result = torch.randint(0, 5, (2**62,))",
    "result = torch.empty_strided((2**40,), (2**40,))",
    "result = torch.empty_strided((2,), (2**62,))",
    "result = torch.empty_strided((2,), (-1,))",
    "result = torch.empty_strided((0, 2), (2**62, 2**62))",
    "result = torch.empty_permuted((2**62, 2), (1, 0))",
    "result = torch.zeros(1).new_empty(2**62)",
    "result = torch.zeros(1).new_empty((2**31, 2**31))",
    "result = torch.zeros(1).new_zeros(2**62)",
    "result = torch.zeros(1).new_full((2**62,), 1.0)",
    "result = torch.zeros(1).new_ones(2**40)",
    "result = torch.zeros(1).new_empty_strided((2,), (2**62,))",
    "result = torch.zeros(1).resize_(2**62)",
    "result = torch.zeros(1).resize_(2**31, 2**31)",
    "result = torch.zeros(1).resize_(2**40)",
    "result = torch.zeros(1).resize_(3)[:1]",
    "result = torch.arange(2**62)", "result = torch.arange(0, 2**62, 1.0)",
    "result = torch.arange(2**40)", "result = torch.linspace(0, 1, 2**62)",
    "result = torch.linspace(0, 1, 2**40)", "result = torch.eye(2**31)",
    "result = torch.eye(2**20)", "result = torch.eye(3, 2)",
]

# -- item 5: set_ and as_strided over a storage of 4 floats --
VIEW_CASES = [
    f"s = torch.arange(4.0).untyped_storage()\nresult = torch.empty(0).set_(s, {args})"
    for args in ("0, (8,), (-1,)", "3, (4,), (-1,)", "3, (1,), (-1,)", "-1, (1,), (1,)",
                 "0, (2**62,), (1,)", "0, (2,), (2**62,)", "2**62, (1,), (1,)",
                 "1, (3,), (1,)", "0, (2, 2), (1, 2)", "3, (), ()")
] + [
    f"result = torch.arange(4.0).as_strided({args})"
    for args in ("(8,), (-1,), 3", "(2**62,), (1,)", "(2,), (2**62,)", "(2,), (2**63 - 1,)",
                 "(1,), (1,), 2**62", "(1,), (1,), -1", "(2, 2), (1, 2)", "(5,), (1,)",
                 "(2,), (1,), 2")
]

# -- item 6: Python integers (and floats) that do not fit the dtype --
INT_CASES = [f"result = {e}" for e in (
    "torch.tensor(2**63)", "torch.tensor(-2**63)", "torch.tensor(-2**63 - 1)",
    "torch.tensor(2**64)", "torch.tensor([1, 2**63])", "torch.tensor([-1, 2**63])",
    "torch.tensor([[1], [2**63]])", "torch.tensor([True, 2**63])", "torch.tensor([1, 2**64])",
    "torch.tensor([1.0, 2**63])", "torch.tensor([1, 2.5, 2**63])",
    "torch.tensor([1, 2**63], dtype=torch.float64)",
    "torch.tensor([[1, 2], [3, 2**70]], dtype=torch.float32)",
    "torch.tensor([1.0, 10**400])",
    "torch.tensor([300], dtype=torch.uint8)", "torch.tensor([256], dtype=torch.uint8)",
    "torch.tensor([-1], dtype=torch.uint8)", "torch.tensor([-255], dtype=torch.uint8)",
    "torch.tensor([-256], dtype=torch.uint8)", "torch.tensor(2**31, dtype=torch.int32)",
    "torch.tensor(-2**31 - 1, dtype=torch.int32)", "torch.tensor(2**31 - 1, dtype=torch.int32)",
    "torch.tensor(128, dtype=torch.int8)", "torch.tensor(-129, dtype=torch.int8)",
    "torch.tensor(2**15, dtype=torch.int16)", "torch.tensor(2**63, dtype=torch.int8)",
    "torch.tensor([255.9], dtype=torch.uint8)", "torch.tensor([-1.5], dtype=torch.uint8)",
    "torch.tensor([1.7, -3.7], dtype=torch.int32)", "torch.tensor([1e10], dtype=torch.int32)",
    "torch.tensor([float('nan')], dtype=torch.int32)",
    "torch.tensor([float('inf')], dtype=torch.int64)",
    "torch.tensor([2.0**62], dtype=torch.int64)",
    "torch.tensor([True, 300], dtype=torch.uint8)", "torch.tensor([1.5, 300], dtype=torch.uint8)",
    "torch.tensor([2**64], dtype=torch.bool)", "torch.tensor(2, dtype=torch.bool)",
    "torch.tensor(70000, dtype=torch.float16)", "torch.tensor(1e300, dtype=torch.float32)",
    "torch.tensor(2**63, dtype=torch.float32)", "torch.tensor([3 + 4j], dtype=torch.int32)",
    "torch.tensor(np.int64(300), dtype=torch.uint8)",
    "torch.tensor(np.array([300]), dtype=torch.uint8)",
    "torch.tensor([torch.tensor(300)], dtype=torch.uint8)",
    "torch.as_tensor(2**63)", "torch.as_tensor([300], dtype=torch.uint8)",
    "torch.full((2,), 2**63)", "torch.full((2,), -2**63)", "torch.full((2,), 2**64)",
    "torch.full((2,), 2**31, dtype=torch.int32)", "torch.full((2,), 300, dtype=torch.uint8)",
    "torch.full((2,), -255, dtype=torch.uint8)", "torch.full((2,), -256, dtype=torch.uint8)",
    "torch.full((2,), 2**63, dtype=torch.float32)", "torch.full((2,), 2**63, dtype=torch.float64)",
    "torch.full((1,), 1e300, dtype=torch.float32)", "torch.full((1,), 1e300, dtype=torch.float16)",
    "torch.full((1,), float('nan'), dtype=torch.int32)", "torch.full((1,), 2.5, dtype=torch.int32)",
    "torch.full((1,), 300, dtype=torch.bool)",
    "torch.full_like(torch.zeros(1, dtype=torch.int32), 2**31)",
    "torch.zeros(1, dtype=torch.int32).new_full((1,), 2**31)",
    "torch.zeros(2).fill_(2**63)", "torch.zeros(2, dtype=torch.long).fill_(2**63)",
    "torch.zeros(2, dtype=torch.long).fill_(2**64)", "torch.zeros(1).fill_(-2**63 - 1)",
    "torch.zeros(2, dtype=torch.int32).fill_(2**31)", "torch.zeros(2, dtype=torch.uint8).fill_(300)",
    "torch.zeros(2, dtype=torch.uint8).fill_(-1)", "torch.zeros(1, dtype=torch.int8).fill_(128)",
    "torch.zeros(1, dtype=torch.int16).fill_(2**15)", "torch.zeros(1).fill_(1e39)",
    "torch.zeros(1, dtype=torch.float16).fill_(70000)",
    "torch.zeros(1, dtype=torch.long).fill_(2.0**63)",
)]

# -- issue 18: numpy layouts (strides kept, memory shared by from_numpy) --
F = "f = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))\n"
T3 = "g = np.arange(24, dtype=np.float64).reshape(2, 3, 4).transpose(2, 0, 1)\n"
SL = "h = np.arange(12, dtype=np.float32).reshape(3, 4)[::2, 1::2]\n"
LAYOUT_CASES = [
    F + "a = torch.from_numpy(f)\nresult = (a.stride(), a.tolist(), a.is_contiguous())",
    F + "a = torch.from_numpy(f)\na[0, 1] = 100.0\nf[1, 2] = -5.0\n"
        "result = (f.tolist(), a.tolist(), a.stride())",
    F + "a = torch.tensor(f)\nf[0, 0] = 9.0\nresult = (a.stride(), a.tolist())",
    F + "a = torch.tensor(f, dtype=torch.float64)\nresult = (a.stride(), a.tolist(), a.dtype)",
    F + "a = torch.as_tensor(f)\na[1, 0] = 7.0\nresult = (a.stride(), f.tolist())",
    F + "a = torch.from_numpy(f)\nresult = ((a * 2).tolist(), a.sum().item(), "
        "a.contiguous().stride(), a.t().tolist())",
    T3 + "a = torch.from_numpy(g)\nresult = (a.stride(), a.tolist())",
    T3 + "a = torch.tensor(g)\nresult = (a.stride(), a.tolist())",
    SL + "a = torch.from_numpy(h)\nh[1, 1] = 50.0\nresult = (a.stride(), a.tolist())",
    SL + "a = torch.tensor(h)\nresult = (a.stride(), a.tolist())",
    "a = torch.from_numpy(np.arange(6.0)[::-1])\nresult = a",
    "a = torch.from_numpy(np.zeros((0, 3), order='F'))\nresult = a.shape",
]

CASES = SIZE_CASES + VIEW_CASES + INT_CASES + LAYOUT_CASES

DESCRIBE = r'''
def describe(r):
    if isinstance(r, torch.Tensor):
        if r.numel() > 64 or r.numel() == 0:  # (2**31, 2**31, 0).tolist() never ends
            return ["tensor", str(r.dtype).split(".")[-1], list(r.shape)]
        return ["tensor", str(r.dtype).split(".")[-1], list(r.shape), r.tolist()]
    if isinstance(r, (tuple, list)):
        return [describe(x) for x in r]
    if isinstance(r, torch.dtype):
        return ["dtype", str(r).split(".")[-1]]
    return ["value", repr(r) if not isinstance(r, float) else float(r)]


def run_case(src):
    # __name__: the facade child's scope is __main__ (Tensor methods with torch's meaning)
    ns = {"torch": torch, "np": np, "__name__": "__main__"}
    try:
        exec(src, ns)
        return ["ok", describe(ns["result"])]
    except Exception as e:
        return ["raise", type(e).__name__, str(e)]
'''

CHILD = "import json, numpy as np\n" + DESCRIBE + r'''
cases = json.load(open(sys.argv[1]))
out = []
for src in cases:
    print("CASE", src.replace("\n", "; "), file=sys.stderr, flush=True)
    out.append(run_case(src))
print("RESULTS" + json.dumps(out))
'''


def _oracle(src):
    import numpy as np
    ns = {"torch": torch, "np": np}
    exec(DESCRIBE, ns)
    return ns["run_case"](src)


@pytest.fixture(scope="module")
def facade_results(tmp_path_factory):
    path = tmp_path_factory.mktemp("bounds") / "cases.json"
    path.write_text(json.dumps(CASES))
    r = run_child(CHILD, [path], timeout=600)
    lines = [l for l in r.stdout.splitlines() if l.startswith("RESULTS")]
    if r.returncode != 0 or not lines:  # a crash: name the case it was running
        last = [l for l in r.stderr.splitlines() if l.startswith("CASE")]
        pytest.fail(f"facade child died (rc {r.returncode}) at {last[-1:]}:\n{r.stderr[-4000:]}")
    return dict(zip(CASES, json.loads(lines[0][len("RESULTS"):])))


def _first_line(msg):
    # torch's argument parser appends "\nException raised from ..." (a C++ stack)
    return msg.split("\n")[0].rstrip('"')


@pytest.mark.parametrize("src", CASES)
def test_matches_torch(src, facade_results):
    want, got = _oracle(src), facade_results[src]
    if want[0] == "raise":
        assert got[0] == "raise", f"torch raised {want[1]}: {want[2][:200]}; the facade gave {got}"
        assert got[1] == want[1], (got, want)
        assert _first_line(got[2]) == _first_line(want[2]), (got[2], want[2])
    else:
        assert got == want
