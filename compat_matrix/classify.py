"""Exception -> reason class, in the worker (see README.md for the classes).

A case fails for "unsupported" reasons only when the exception itself names a torch name the
backend lacks: torchproxy's NotProvidedError family carries ``torch_name``; Paddle's proxy
forwards ``torch.X`` to ``paddle.X`` and fails with Paddle's names, which we map back.  Names
recorded by the tracer but not in the exception (``hasattr`` probes the library handled) are
listed as "missing names seen", not as the cause.
"""
from __future__ import annotations

import re
import traceback

# Paddle's proxy serves torch.X from paddle.X, so its AttributeErrors speak of paddle modules.
_ATTR_RE = re.compile(r"module '((?:torch|paddle)(?:\.[\w.]+)?)' has no attribute '(\w+)'")
_MOD_RE = re.compile(r"No module named '((?:torch|paddle)(?:\.[\w.]+)?)'")
_TENSOR_ATTR_RE = re.compile(r"'Tensor' object has no attribute '(\w+)'")
_FROM_RE = re.compile(r"cannot import name '(\w+)' from '((?:torch|paddle)(?:\.[\w.]+)?)'")


def chain(exc: BaseException):
    """The exception and its causes / contexts, outermost first (no cycles)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _torch_name(paddle_or_torch_name: str) -> str:
    head, _, rest = paddle_or_torch_name.partition(".")
    return "torch" + ("." + rest if rest else "")


def unsupported_names(exc: BaseException, backend: str) -> list[str]:
    """Torch names the exception says the backend lacks ([] if it is not that kind of error)."""
    if backend == "torch":
        return []
    names: list[str] = []
    for e in chain(exc):
        name = getattr(e, "torch_name", None)
        if isinstance(name, str):
            names.append(name)
            continue
        msg = str(e)
        for mod, attr in _ATTR_RE.findall(msg):
            names.append(f"{_torch_name(mod)}.{attr}")
        for mod in _MOD_RE.findall(msg):
            names.append(_torch_name(mod))
        for attr, mod in _FROM_RE.findall(msg):
            names.append(f"{_torch_name(mod)}.{attr}")
        for attr in _TENSOR_ATTR_RE.findall(msg):
            names.append(f"torch.Tensor.{attr}")
    out = []
    for n in names:
        if n not in out:
            out.append(n)
    return out


def describe(exc: BaseException, limit: int = 600) -> str:
    """``Type: message`` of the innermost informative exception, truncated."""
    inner = list(chain(exc))
    # Triton's interpreter re-raises as InterpreterError(repr(e)): the cause is more useful
    e = inner[-1] if len(inner) > 1 and type(inner[0]).__name__ == "InterpreterError" else inner[0]
    text = f"{type(e).__name__}: {e}"
    return text if len(text) <= limit else text[:limit] + "..."


def classify(exc: BaseException, backend: str, stage: str) -> tuple[str, str, list[str]]:
    """-> (reason class, detail, unsupported torch names).  ``stage`` is "import" or "call"."""
    names = unsupported_names(exc, backend)
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)[-6:])
    if names:
        return "unsupported", f"unsupported torch name {names[0]}: {describe(exc)}", names
    if stage == "import":
        return "import_error", describe(exc) + "\n" + tb[-1500:], []
    return "error", describe(exc) + "\n" + tb[-1500:], []
