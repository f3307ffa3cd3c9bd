"""Pickling what scoped code holds, as real torch pickles it (issue 19, items 19 and 20).

- Tensor-method dispatchers (``paddle.Tensor.numel`` after ``enable()``) pickle for everyone,
  with both dispatcher backends: a ``copy``/``pickle`` of ``paddle.Tensor.reshape`` worked before
  torchproxy was enabled and must keep working for Paddle code outside the scope.
- Named results (``torch.max(x, dim=0)``, ``sort``, ``topk``, ``linalg.slogdet``...) and
  ``torch.linalg.LinAlgError`` round-trip through pickle in scope, where ``sys.modules["torch"]``
  is real torch, keeping their torch names, fields and values (compared with real torch's own
  round trip).
Which module pickle finds under ``torch`` depends on the process state: named results and
result classes run in a fresh interpreter per scope; the dispatcher test runs one per backend,
enabling its three scopes in turn, each enable() ended by a disable() checked to restore
Paddle's own attributes (a child per case paid Paddle's and torch's import each time)."""
import functools
import json
import os
import subprocess
import sys
import textwrap

import paddle
import pytest

# Paddle 2.6's Tensor has no pickle support at all ("cannot pickle 'Tensor' object", with or
# without torchproxy), so results holding tensors can only round-trip on Paddle 3
TENSORS_PICKLE = not paddle.__version__.startswith("2.")
needs_tensor_pickle = pytest.mark.skipif(
    not TENSORS_PICKLE, reason="Paddle 2.6 tensors do not pickle (TypeError from Paddle itself)")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(src: str, **env) -> str:
    e = dict(os.environ, PYTHONPATH=ROOT, **env)
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(src)], capture_output=True,
                       text=True, timeout=300, env=e, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout.strip().splitlines()[-1]


SCOPES = ["{'__main__'}", "{'elsewhere'}", "None"]


@functools.lru_cache(maxsize=None)
def _dispatched_pickles(pure: str) -> dict:
    """scope -> "ok" or the traceback of its check: every scope enabled, checked and disabled in
    turn by one child per dispatcher backend (TORCHPROXY_PURE_PYTHON=pure)."""
    return json.loads(_run(f"""
        import copy, json, pickle, traceback, paddle, torchproxy
        def picklable(attr):
            if attr is None:  # a name this Paddle lacks (stride on 2.6)
                return False
            try:
                return pickle.loads(pickle.dumps(attr)) is attr
            except Exception:  # e.g. a property (size on Paddle 3): Paddle's own does not pickle
                return False
        names = [n for n in ("numel", "reshape", "max", "view", "flatten", "split", "sum",
                             "transpose", "size", "stride", "type", "to")
                 if picklable(getattr(paddle.Tensor, n, None))]
        assert {{"numel", "reshape", "sum", "max"}} <= set(names), names
        before = {{n: getattr(paddle.Tensor, n) for n in names}}
        def check(scope):
            torchproxy.enable(scope=scope)
            for n in names:
                attr = getattr(paddle.Tensor, n)
                assert attr is not before[n], n  # dispatched now
                back = pickle.loads(pickle.dumps(attr, protocol=pickle.HIGHEST_PROTOCOL))
                assert back is attr, (n, back, attr)
                assert copy.deepcopy(attr) is attr, n
            torchproxy.disable()
            # after disable() the same pickle names Paddle's own attribute again
            assert all(pickle.loads(pickle.dumps(getattr(paddle.Tensor, n))) is v
                       for n, v in before.items())
        res = {{}}
        for scope in {SCOPES!r}:
            try:
                check(eval(scope))
                res[scope] = "ok"
            except Exception:  # reported by that scope's test
                res[scope] = traceback.format_exc()
                if torchproxy.status()["enabled"]:
                    torchproxy.disable()
        print(json.dumps(res))
    """, TORCHPROXY_PURE_PYTHON=pure))


@pytest.mark.parametrize("pure", ["0", "1"])
@pytest.mark.parametrize("scope", SCOPES)
def test_dispatched_tensor_methods_pickle(pure, scope):
    assert _dispatched_pickles(pure)[scope] == "ok"


RESULTS = """
import pickle, numpy as np
{setup}
import torch
x = torch.tensor(np.array([[3., 1., 2.], [0., 5., 4.]], dtype="float32"))
out = []
for r in (torch.max(x, dim=0), torch.min(x, 1), torch.sort(x), torch.topk(x, 2),
          x.max(dim=1), torch.linalg.slogdet(x[:, :2] + 1), torch.kthvalue(x, 1)):
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is type(r), (type(back), type(r))
    out.append((type(back).__module__, type(back).__name__, type(back).__match_args__,
                [np.asarray(v.numpy() if hasattr(v, "numpy") else v).tolist() for v in back]))
e = pickle.loads(pickle.dumps(torch.linalg.LinAlgError("singular")))
assert isinstance(e, torch.linalg.LinAlgError) and isinstance(e, RuntimeError)
out.append((type(e).__module__, type(e).__name__, str(e)))
cls = pickle.loads(pickle.dumps(torch.return_types.max))
assert cls is torch.return_types.max
print(repr(out))
"""


@functools.lru_cache(maxsize=None)
def _torch_results() -> str:
    """Real torch's own round trip (the same for every scope: one child)."""
    return _run(RESULTS.format(setup=""))


@needs_tensor_pickle
@pytest.mark.parametrize("scope", ["{'__main__'}", "None"])
def test_named_results_and_linalgerror_pickle_as_in_torch(scope):
    got = _run(RESULTS.format(setup=f"import paddle, torchproxy\ntorchproxy.enable(scope={scope})"))
    assert got == _torch_results()


@needs_tensor_pickle
def test_unpickled_in_a_process_without_torchproxy_enabled():
    """The pickle names torchproxy's rebuild function, not a module only the scope can see."""
    data = _run("""
        import pickle, paddle, torchproxy
        torchproxy.enable(scope={"__main__"})
        import torch
        r = torch.sort(torch.tensor([2., 1.]))
        print(pickle.dumps((r, torch.linalg.LinAlgError("x")), 0).hex())
    """)
    out = _run(f"""
        import pickle
        r, e = pickle.loads(bytes.fromhex("{data}"))
        print(type(r).__module__, type(r).__name__, r.values.numpy().tolist(),
              type(e).__module__, type(e).__name__, str(e))
    """)
    assert out == "torch.return_types sort [1.0, 2.0] torch._C _LinAlgError x"


@pytest.mark.parametrize("scope", ["{'__main__'}", "None"])
def test_result_classes_and_linalgerror_pickle_on_every_paddle(scope):
    """No tensors involved (Paddle 2.6 included): the classes and a LinAlgError instance."""
    out = _run(f"""
        import pickle, paddle, torchproxy
        torchproxy.enable(scope={scope})
        import torch
        for cls in (torch.return_types.max, torch.return_types.sort, torch.linalg.LinAlgError):
            assert pickle.loads(pickle.dumps(cls)) is cls, cls
        e = pickle.loads(pickle.dumps(torch.linalg.LinAlgError("singular")))
        print(type(e).__module__, type(e).__name__, isinstance(e, RuntimeError), str(e))
    """)
    assert out == "torch._C _LinAlgError True singular"
