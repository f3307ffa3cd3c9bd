"""Tensors <-> numpy at the worker's edges, and the comparison of saved outputs.

Worker side: ``to_backend`` turns the case's numpy inputs into torch / Paddle tensors;
``flatten`` turns whatever the case returned into leaves ``(path, kind, dtype, array)``.
Runner side: ``compare`` checks two saved output sets leaf by leaf (numpy only).
"""
from __future__ import annotations

import sys

import numpy as np

# Paddle 2.6 prints dtypes as VarType names
_DTYPE_ALIASES = {"fp16": "float16", "fp32": "float32", "fp64": "float64", "bf16": "bfloat16",
                  "bool": "bool", "int8": "int8", "int16": "int16", "int32": "int32",
                  "int64": "int64", "uint8": "uint8"}


def dtype_name(dtype) -> str:
    s = str(dtype).split(".")[-1]
    return _DTYPE_ALIASES.get(s.lower(), s.lower())


# -- inputs ---------------------------------------------------------------------------------
def to_backend(arr, spec_input, backend: str, device: str):
    """numpy array (or plain value) -> a tensor of ``backend`` on ``device``."""
    if spec_input.kind == "value":
        return arr
    if backend == "torch":
        import torch
        t = torch.from_numpy(np.ascontiguousarray(arr))
        if spec_input.dtype == "bfloat16":
            t = t.to(torch.bfloat16)
        if device == "gpu":
            t = t.cuda()
        if spec_input.grad:
            t.requires_grad_(True)
        return t
    import paddle
    place = paddle.CUDAPlace(0) if device == "gpu" else paddle.CPUPlace()
    t = paddle.to_tensor(np.ascontiguousarray(arr), place=place)
    if spec_input.dtype == "bfloat16":
        t = t.astype("bfloat16")
    if spec_input.grad:
        t.stop_gradient = False
    return t


# -- outputs --------------------------------------------------------------------------------
def _tensor_leaf(v):
    """(dtype name, numpy array) for a torch or Paddle tensor, else None."""
    paddle = sys.modules.get("paddle")
    if paddle is not None and isinstance(v, paddle.Tensor):
        name = dtype_name(v.dtype)
        v = v.detach()
        if name == "bfloat16":
            v = v.astype("float32")
        return name, np.array(v.cpu().numpy())
    torch = sys.modules.get("torch")
    real = torch is not None and not getattr(torch, "__torchproxy__", False) \
        and hasattr(torch, "from_numpy") and type(torch).__name__ == "module"
    if real and isinstance(v, torch.Tensor):
        name = dtype_name(v.dtype)
        v = v.detach().cpu()
        if name == "bfloat16":
            v = v.float()
        return name, v.numpy().copy()
    return None


def flatten(value, path="out"):
    """-> list of (path, kind, dtype, array-or-None): kind is tensor/int/float/bool/none/str/other."""
    leaf = _tensor_leaf(value)
    if leaf is not None:
        return [(path, "tensor", leaf[0], leaf[1])]
    if isinstance(value, dict):
        out = []
        for k in sorted(value, key=str):
            out += flatten(value[k], f"{path}[{k!r}]")
        return out
    if isinstance(value, (list, tuple)):
        out = []
        for i, v in enumerate(value):
            out += flatten(v, f"{path}[{i}]")
        return out or [(path, type(value).__name__ + "-empty", "", None)]
    if value is None:
        return [(path, "none", "", None)]
    if isinstance(value, bool):
        return [(path, "bool", "bool", np.array(value))]
    if isinstance(value, int):
        return [(path, "int", "int64", np.array(value, dtype=np.int64))]
    if isinstance(value, float):
        return [(path, "float", "float64", np.array(value, dtype=np.float64))]
    if isinstance(value, str):
        return [(path, "str", "", None)]
    return [(path, "other:" + type(value).__name__, "", None)]


def save(leaves, npz_path) -> list[dict]:
    """Write the arrays to ``npz_path``; return the leaves' metadata (JSON-able)."""
    arrays, meta = {}, []
    for i, (path, kind, dtype, arr) in enumerate(leaves):
        entry = {"path": path, "kind": kind, "dtype": dtype}
        if arr is not None:
            arrays[f"o{i}"] = arr
            entry["key"] = f"o{i}"
            entry["shape"] = list(arr.shape)
        meta.append(entry)
    np.savez(npz_path, **arrays)
    return meta


# -- comparison (runner side, numpy only) -----------------------------------------------------
def compare(expected_meta, expected_npz, actual_meta, actual_npz, tolerance) -> str | None:
    """None if equal; else a one-paragraph description of the first differences.

    ``tolerance(dtype) -> (rtol, atol)``.  Kinds and dtypes must match exactly."""
    if len(expected_meta) != len(actual_meta):
        return (f"{len(actual_meta)} output(s), torch gives {len(expected_meta)}: "
                f"{[m['path'] for m in actual_meta]} vs {[m['path'] for m in expected_meta]}")
    problems = []
    with np.load(expected_npz) as e_arrays, np.load(actual_npz) as a_arrays:
        for em, am in zip(expected_meta, actual_meta):
            p = em["path"]
            if (em["kind"], em["dtype"]) != (am["kind"], am["dtype"]):
                problems.append(f"{p}: torch gives {em['kind']} {em['dtype']}, "
                                f"got {am['kind']} {am['dtype']}")
                continue
            if "key" not in em:
                continue
            e, a = e_arrays[em["key"]], a_arrays[am["key"]]
            if e.shape != a.shape:
                problems.append(f"{p}: shape torch {list(e.shape)}, got {list(a.shape)}")
                continue
            msg = compare_arrays(e, a, em["dtype"], tolerance)
            if msg:
                problems.append(f"{p}: {msg}")
    return "; ".join(problems[:4]) if problems else None


def compare_arrays(expected, actual, dtype, tolerance, label="torch") -> str | None:
    """None if equal within tolerance, else what differs (``label`` names the expected side)."""
    if expected.dtype.kind in "fc":
        rtol, atol = tolerance(dtype)
        e64, a64 = expected.astype(np.float64), actual.astype(np.float64)
        ok = np.isclose(a64, e64, rtol=rtol, atol=atol, equal_nan=True)
        if ok.all():
            return None
        bad = int((~ok).sum())
        with np.errstate(invalid="ignore"):
            err = np.asarray(np.abs(a64 - e64))  # an array also for 0-d outputs (a loss)
            err = np.where(np.isnan(err), np.inf, err)
        i = tuple(int(k) for k in np.unravel_index(int(np.argmax(err)), err.shape)) if err.ndim else ()
        return (f"{bad}/{ok.size} elements differ beyond rtol={rtol:g} atol={atol:g}; "
                f"max abs error {float(err.max()):.3g} at {list(i)} "
                f"({label} {float(e64[i]):.6g}, got {float(a64[i]):.6g})")
    if np.array_equal(expected, actual):
        return None
    diff = np.atleast_1d(expected != actual)
    bad = int(diff.sum())
    i = tuple(int(k) for k in np.argwhere(diff)[0]) if expected.ndim else ()
    return (f"{bad}/{expected.size} elements differ (exact comparison for {dtype}); first at "
            f"{list(i)}: {label} {expected[i].item()}, got {actual[i].item()}")
