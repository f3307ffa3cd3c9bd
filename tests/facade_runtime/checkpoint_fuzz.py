"""Fuzzed checkpoints: the facade's ``torch.load`` against real torch's, under glibc's heap checks.

Seeds are valid files written by REAL torch (in this process) and by the facade (in the child):
tensors of several dtypes, views sharing a storage (transposed, offset, strided), a Paddle view
with a negative stride (facade only), parameters, a state_dict with ``_metadata``.  Cases are
mutations of them (bits flipped, bytes inserted or deleted in the pickle; ints in the pickle --
sizes, strides, offsets, storage numels -- replaced by edge values; storage records flipped,
truncated, extended or dropped; bytes of the zip itself flipped) and hand-built pickles
(GLOBAL/BUILD/REDUCE/SETITEM(S)/APPEND/INST/OBJ/NEWOBJ aimed at classes, modules and the
rebuild functions, out-of-bounds views).  Every case is loaded (default ``weights_only``) by real
torch here and by the facade in ONE child process run with ``MALLOC_CHECK_=3`` /
``MALLOC_PERTURB_``; the child snapshots ``vars()`` of ``paddle.Tensor``, Paddle's parameter
class, every facade class and ``builtins`` before and after each load.

A case passes when the facade raised, or loaded exactly what torch loaded (dtypes, shapes,
values bit for bit, requires_grad, container types); it fails when the facade loaded something
torch refused or loaded different values, when a class or builtins changed, or when the child
died (the case it was on is reported).

    python -m tests.facade_runtime.checkpoint_fuzz --files 2000 [--seed 1] [--keep DIR]
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import pickle
import pickletools
import random
import struct
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# glibc: MALLOC_CHECK_=3 aborts on a detected heap inconsistency, MALLOC_PERTURB_ fills freed
# and new memory with a pattern so a read of garbage is not a lucky zero
HEAP_ENV = {"MALLOC_CHECK_": "3", "MALLOC_PERTURB_": "165"}

CHILD_PREAMBLE = """
import faulthandler, sys
import paddle
paddle.disable_signal_handler()   # else Paddle's handler can turn an abort into a hang
faulthandler.enable()
import torchproxy
torchproxy.enable(scope={"__main__"})
import torch
"""


_MALLOC_DEBUG = "/usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0"


def child_env() -> dict:
    env = dict(os.environ)
    env.update(HEAP_ENV)
    if os.path.exists(_MALLOC_DEBUG):  # glibc >= 2.34 honours MALLOC_CHECK_ only with it
        env["LD_PRELOAD"] = " ".join(p for p in (env.get("LD_PRELOAD"), _MALLOC_DEBUG) if p)
    env["PYTHONPATH"] = ROOT + os.pathsep + HERE + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_child(code: str, args=(), timeout=300, **kw) -> subprocess.CompletedProcess:
    """``code`` (after CHILD_PREAMBLE: scoped ``torch`` is the facade) in a fresh interpreter
    under the heap checks."""
    return subprocess.run([sys.executable, "-c", CHILD_PREAMBLE + code, *map(str, args)],
                          env=child_env(), capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, **kw)


# -- what a load returned, as comparable JSON -----------------------------------------------------
BIG = 1 << 20  # elements: larger tensors (stride-0 views of mutated sizes) are not materialised


def summarize(obj, tensor_info, is_tensor, special, depth=0):
    if depth > 40:
        return ["deep"]
    if is_tensor(obj):
        return ["T"] + tensor_info(obj)
    s = special(obj)
    if s is not None:
        return s
    if obj is None or isinstance(obj, (bool, int, float, str, bytes, complex)):
        return [type(obj).__name__, repr(obj)]
    if isinstance(obj, bytearray):
        return ["bytearray", obj.hex()]
    if isinstance(obj, type):
        return ["class", obj.__name__]
    if isinstance(obj, (list, tuple)):
        return ["seq", type(obj).__name__,
                [summarize(x, tensor_info, is_tensor, special, depth + 1) for x in obj]]
    if isinstance(obj, dict):
        items = [[summarize(k, tensor_info, is_tensor, special, depth + 1),
                  summarize(v, tensor_info, is_tensor, special, depth + 1)]
                 for k, v in obj.items()]
        attrs = summarize(dict(vars(obj)), tensor_info, is_tensor, special, depth + 1) \
            if getattr(obj, "__dict__", None) else None
        return ["map", type(obj).__name__, items, attrs]
    if isinstance(obj, (set, frozenset)):
        return ["set", sorted(json.dumps(summarize(x, tensor_info, is_tensor, special, depth + 1))
                              for x in obj)]
    if callable(obj) and hasattr(obj, "__name__"):
        return ["callable", obj.__name__]
    return ["obj", type(obj).__name__]


def _values_digest(arr) -> str:
    import numpy as np
    return hashlib.sha1(np.ascontiguousarray(arr).tobytes()).hexdigest()


def torch_tensor_info(t):
    import torch
    d = t.detach()
    name = str(d.dtype).split(".")[-1]
    n = d.numel()
    if n > BIG:
        d = d.float() if d.dtype.is_floating_point and d.element_size() < 4 else d
        vals = ["big", d[(0,) * d.ndim].item(), d[(-1,) * d.ndim].item()] if d.ndim else []
    elif name in ("float16", "bfloat16"):  # the bits: a converted NaN may change its payload
        vals = _values_digest(d.contiguous().view(torch.int16).numpy())
    else:
        d = d.float() if d.dtype.is_floating_point and d.element_size() < 4 else d
        vals = _values_digest(d.contiguous().numpy())
    return [name, list(t.shape), vals, bool(t.requires_grad),
            isinstance(t, torch.nn.Parameter)]


def torch_special(obj):
    import torch
    if isinstance(obj, torch.dtype):
        return ["dtype", str(obj).split(".")[-1]]
    if isinstance(obj, torch.device):
        return ["device", str(obj)]
    if isinstance(obj, torch.Size):
        return ["seq", "Size", [["int", repr(int(d))] for d in obj]]
    return None


def run_torch_loads(cases):
    """Real torch's result for each case path: ["ok", summary] or ["raise", type name]."""
    import warnings
    import torch
    out = []
    for path in cases:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                obj = torch.load(path)
            out.append(["ok", summarize(obj, torch_tensor_info, torch.is_tensor, torch_special)])
        except Exception as e:  # noqa: BLE001 -- any refusal is a refusal
            out.append(["raise", type(e).__name__])
    return out


# -- the facade child ------------------------------------------------------------------------
FACADE_CHILD = r'''
import builtins, collections, json, os, warnings
import numpy as np
import checkpoint_fuzz as cf
from torchproxy.facade import modules, dtypes as _dt
from torchproxy.paddle_shims import EagerParamBase

work = sys.argv[1]
# 1. seeds written by the facade
seeds = os.path.join(work, "seeds_facade")
os.makedirs(seeds, exist_ok=True)
base = torch.arange(24.0).reshape(4, 6)
rev = paddle.arange(6, dtype="float32")[::-1]          # Paddle's own slicing: stride -1
objs = {
    "views": {"base": base, "t": base.t(), "row": base[2], "cols": base[:, ::2]},
    "dtypes": {n: torch.arange(6).to(getattr(torch, n)) for n in
               ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int8",
                "uint8", "bool")},
    "negstride": {"rev": rev, "rev2": paddle.arange(12, dtype="float32").reshape([3, 4])[::-1, 1:],
                  "fwd": rev[::-1]},
    "param": {"w": torch.nn.Parameter(torch.ones(2, 3)), "s": torch.tensor(2.5),
              "e": torch.zeros(0, 3), "lst": [1, (2.0, "x"), None]},
}
for name, obj in objs.items():
    torch.save(obj, os.path.join(seeds, name + ".pt"))
print("SEEDS", flush=True)

# 2. load the cases the parent lists
manifest = sys.stdin.readline().strip()
cases = json.load(open(manifest))
seen = set()
classes = [paddle.Tensor, EagerParamBase, collections.OrderedDict, collections.Counter, set,
           bytearray, complex, type, object, dict, list, tuple]
for mod in modules.build().values():
    for v in list(vars(mod).values()):
        if isinstance(v, type) and id(v) not in seen:
            seen.add(id(v))
            classes.append(v)

def snapshot():
    snap = {id(c): (c, dict(vars(c))) for c in classes}
    snap["builtins"] = (builtins, dict(vars(builtins)))
    return snap

def changed(before):
    out = []
    for key, (owner, attrs) in before.items():
        now = dict(vars(owner))
        for k in set(attrs) | set(now):
            if k in ("__builtins__", "_"):
                continue
            if attrs.get(k, cf) is not now.get(k, cf):
                out.append(f"{getattr(owner, '__name__', owner)}.{k}")
    return out

def info(t):
    name = _dt.torch_name(t.dtype)
    is_param = isinstance(t, EagerParamBase)
    shape = list(t.shape)
    n = int(np.prod(shape)) if shape else 1
    if n <= cf.BIG and name in ("float16", "bfloat16"):
        # the bits (Paddle hands bfloat16 out as its uint16 bits, float16 as numpy's)
        vals = cf._values_digest(np.ascontiguousarray(t.numpy()).view(np.uint16))
        return [name, shape, vals, not t.stop_gradient, is_param]
    if name in ("bfloat16", "float16", "float8_e4m3fn", "float8_e5m2"):
        t = t.astype("float32")
    if n > cf.BIG:
        vals = ["big", t[(0,) * len(shape)].item(), t[(-1,) * len(shape)].item()] if shape else []
    else:
        vals = cf._values_digest(t.numpy())
    return [name, shape, vals, not t.stop_gradient, is_param]

def special(obj):
    if type(obj) is _dt.DTYPE_TYPE:
        return ["dtype", _dt.torch_name(obj)]
    if type(obj).__name__ == "device" and type(obj).__module__.startswith("torchproxy"):
        return ["device", str(obj)]
    return None

results = []
progress = open(os.path.join(work, "progress"), "w", buffering=1)
for i, path in enumerate(cases):
    progress.write(f"{i}\n")
    before = snapshot()
    obj = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            obj = torch.load(path)
        res = ["ok", cf.summarize(obj, info,
                                  lambda o: isinstance(o, (paddle.Tensor, EagerParamBase)),
                                  special)]
    except Exception as e:
        res = ["raise", type(e).__name__, str(e)[:200]]
    res.append(changed(before))
    results.append(res)
    del obj
json.dump(results, open(os.path.join(work, "facade_results.json"), "w"))
print("DONE", flush=True)
'''


# -- cases -------------------------------------------------------------------------------------
def read_entries(path):
    with zipfile.ZipFile(path) as z:
        return [(i.filename, z.read(i.filename)) for i in z.infolist()]


def zip_bytes(entries) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for name, data in entries:
            z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return out.getvalue()


EDGE_INTS = [0, 1, 2, 3, 5, 7, 64, 255, 256, -1, -2, -64, 2 ** 31 - 1, 2 ** 31, 2 ** 32,
             2 ** 40, 2 ** 61, 2 ** 62, 2 ** 63 - 1, 2 ** 63, -(2 ** 63), 2 ** 64]


def encode_int(v: int) -> bytes:
    if 0 <= v < 256:
        return b"K" + bytes([v])
    if 0 <= v < 65536:
        return b"M" + struct.pack("<H", v)
    if -(2 ** 31) <= v < 2 ** 31:
        return b"J" + struct.pack("<i", v)
    enc = pickle.encode_long(v)
    return b"\x8a" + bytes([len(enc)]) + enc


def _int_ops(data: bytes):
    """(position, length, value) of every integer opcode in a pickle."""
    out = []
    ops = list(pickletools.genops(data))
    for k, (op, arg, pos) in enumerate(ops):
        if op.name in ("BININT", "BININT1", "BININT2", "LONG1"):
            end = ops[k + 1][2] if k + 1 < len(ops) else len(data)
            out.append((pos, end - pos, arg))
    return out


def mutate(entries, rng: random.Random):
    entries = list(entries)
    ipkl = next(i for i, (n, _) in enumerate(entries) if n.endswith("data.pkl"))
    name, pkl = entries[ipkl]
    recs = [i for i, (n, _) in enumerate(entries) if "/data/" in n]
    kind = rng.choice(["pkl-flip", "pkl-insert", "pkl-delete", "pkl-int", "pkl-int", "pkl-int",
                       "pkl-ints", "rec-flip", "rec-trunc", "rec-extend", "rec-drop",
                       "zip-flip"])
    if kind.startswith("rec") and not recs:
        kind = "pkl-int"
    desc = kind
    if kind == "pkl-flip":
        p = rng.randrange(len(pkl))
        pkl = pkl[:p] + bytes([pkl[p] ^ (1 << rng.randrange(8))]) + pkl[p + 1:]
        desc += f"@{p}"
    elif kind == "pkl-insert":
        p = rng.randrange(len(pkl) + 1)
        pkl = pkl[:p] + bytes([rng.randrange(256)]) + pkl[p:]
        desc += f"@{p}"
    elif kind == "pkl-delete":
        p = rng.randrange(len(pkl))
        pkl = pkl[:p] + pkl[p + 1:]
        desc += f"@{p}"
    elif kind in ("pkl-int", "pkl-ints"):
        ops = _int_ops(pkl)
        picks = sorted(rng.sample(ops, min(len(ops), 1 if kind == "pkl-int" else 3)),
                       key=lambda o: -o[0])
        for pos, length, old in picks:  # from the end: earlier positions stay valid
            new = rng.choice(EDGE_INTS + [old + rng.choice((-1, 1)), rng.randrange(100)])
            pkl = pkl[:pos] + encode_int(new) + pkl[pos + length:]
            desc += f" {old}->{new}@{pos}"
    elif kind == "rec-flip":
        i = rng.choice(recs)
        n, d = entries[i]
        if d:
            p = rng.randrange(len(d))
            entries[i] = (n, d[:p] + bytes([d[p] ^ 0xFF]) + d[p + 1:])
        desc += f" {n}"
    elif kind == "rec-trunc":
        i = rng.choice(recs)
        n, d = entries[i]
        entries[i] = (n, d[:max(0, len(d) - rng.choice((1, 2, 4, 8, len(d))))])
        desc += f" {n}"
    elif kind == "rec-extend":
        i = rng.choice(recs)
        n, d = entries[i]
        entries[i] = (n, d + bytes(rng.choice((1, 4, 8, 64))))
        desc += f" {n}"
    elif kind == "rec-drop":
        i = rng.choice(recs)
        desc += f" {entries[i][0]}"
        del entries[i]
        if i < ipkl:
            ipkl -= 1
    if kind != "zip-flip":
        entries[ipkl] = (name, pkl)
        return desc, zip_bytes(entries)
    raw = bytearray(zip_bytes(entries))
    p = rng.randrange(len(raw))
    raw[p] ^= 1 << rng.randrange(8)
    return f"{desc}@{p}", bytes(raw)


# hand-built pickles: opcodes aimed at classes, modules and the rebuild functions
def G(mod, name):
    return b"c" + mod.encode() + b"\n" + name.encode() + b"\n"


def U(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def TUP(*items):
    return b"(" + b"".join(items) + b"t"


def INTS(xs):
    return TUP(*[encode_int(x) for x in xs])


def STORAGE(kind="FloatStorage", key="0", numel=4):
    return TUP(U("storage"), G("torch", kind), U(key), U("cpu"), encode_int(numel)) + b"Q"


def V2(offset, size, stride, storage=None, hooks=None):
    return (G("torch._utils", "_rebuild_tensor_v2")
            + TUP(storage or STORAGE(), encode_int(offset), INTS(size), INTS(stride), b"\x89",
                  hooks or (G("collections", "OrderedDict") + b")R"))
            + b"R")


def PKL(body):
    return b"\x80\x02" + body + b"."


def _build_attack(target, attr, value=None):
    # GLOBAL target; (None, {attr: value}); BUILD -- torch's slot-state form
    value = value or G("collections", "OrderedDict")
    return PKL(target + b"N}" + U(attr) + value + b"s\x86b")


def hand_built():
    """(description, pickle bytes, {record: bytes}) cases."""
    floats4 = struct.pack("<4f", 1.0, 2.0, 3.0, 4.0)
    recs = {"0": floats4}
    cases = []
    classes = [("torch", "Tensor"), ("torch", "device"), ("torch", "Size"), ("torch", "FloatTensor"),
               ("torch.nn.parameter", "Parameter"), ("collections", "OrderedDict"),
               ("collections", "Counter"), ("builtins", "set"), ("builtins", "complex"),
               ("builtins", "bytearray"), ("torch._utils", "_rebuild_tensor_v2"),
               ("torch.serialization", "_get_layout"), ("torch", "float32"),
               ("torch", "FloatStorage"), ("_codecs", "encode")]
    for mod, name in classes:
        for attr in ("numel", "__repr__", "__init__", "__class__", "__dict__", "cpu", "x"):
            cases.append((f"BUILD {mod}.{name}.{attr}", _build_attack(G(mod, name), attr), recs))
        # dict-state BUILD (no slot state), SETITEM(S) and APPEND(S) into the class itself
        cases.append((f"BUILD-dict {mod}.{name}",
                      PKL(G(mod, name) + b"}" + U("numel") + b"Ns" + b"b"), recs))
        cases.append((f"SETITEM {mod}.{name}", PKL(G(mod, name) + U("numel") + b"Ns"), recs))
        cases.append((f"SETITEMS {mod}.{name}", PKL(G(mod, name) + b"(" + U("numel") + b"Nu"),
                      recs))
        cases.append((f"APPEND {mod}.{name}", PKL(G(mod, name) + b"Na"), recs))
        cases.append((f"NEWOBJ {mod}.{name}", PKL(G(mod, name) + b")\x81"), recs))
        cases.append((f"NEWOBJ(2**62) {mod}.{name}", PKL(G(mod, name) + INTS([2 ** 62]) + b"\x81"),
                      recs))
        cases.append((f"REDUCE() {mod}.{name}", PKL(G(mod, name) + b")R"), recs))
        cases.append((f"REDUCE(2**62) {mod}.{name}", PKL(G(mod, name) + INTS([2 ** 62]) + b"R"),
                      recs))
        cases.append((f"REDUCE(2,3) {mod}.{name}", PKL(G(mod, name) + INTS([2, 3]) + b"R"), recs))
        cases.append((f"REDUCE([1,2]) {mod}.{name}",
                      PKL(G(mod, name) + b"(]" + b"(" + encode_int(1) + encode_int(2) + b"e" + b"tR"),
                      recs))
    # BUILD on an instance torch refuses (device, Size) and on OrderedDict (a state_dict's way)
    cases.append(("BUILD device instance",
                  PKL(G("torch", "device") + TUP(U("cpu")) + b"R}" + U("type") + U("cuda") + b"sb"),
                  recs))
    cases.append(("BUILD OrderedDict instance _metadata",
                  PKL(G("collections", "OrderedDict") + b")R}" + U("_metadata") + b"}sb"), recs))
    # opcodes outside torch's list: INST, OBJ, NEWOBJ_EX, STACK_GLOBAL, FRAME, protocol 0 ints
    cases.append(("INST", b"(itorch\nTensor\n.", recs))
    cases.append(("OBJ", PKL(b"(" + G("torch", "Tensor") + b"o"), recs))
    cases.append(("INST builtins.eval", b"(S'1'\nibuiltins\neval\n.", recs))
    cases.append(("STACK_GLOBAL", b"\x80\x04" + U("torch") + U("Tensor") + b"\x93.", recs))
    cases.append(("NEWOBJ_EX", PKL(G("torch", "Tensor") + b")}\x92"), recs))
    cases.append(("INT op", b"I1\n.", recs))
    cases.append(("EXT1", PKL(b"\x82\x01"), recs))
    # globals outside the allow list
    for mod, name in (("os", "system"), ("builtins", "eval"), ("builtins", "getattr"),
                      ("builtins", "setattr"), ("paddle", "Tensor"), ("torchproxy", "enable"),
                      ("torch", "load"), ("torch._C", "_set_grad_enabled"), ("builtins", "type"),
                      ("posix", "system"), ("subprocess", "Popen"), ("numpy", "frombuffer")):
        cases.append((f"GLOBAL {mod}.{name}", PKL(G(mod, name) + INTS([1]) + b"R"), recs))
    # views of a storage of 4 floats
    for off, size, stride in ((3, [64], [-1]), (3, [4], [-1]), (0, [8], [-1]), (0, [1], [-1]),
                              (-1, [1], [1]), (0, [5], [1]), (4, [1], [1]), (3, [1], [1]),
                              (0, [2 ** 62], [1]), (0, [2], [2 ** 62]), (0, [2], [2 ** 63 - 1]),
                              (2 ** 62, [1], [1]), (2 ** 63, [1], [1]), (0, [2 ** 63], [1]),
                              (0, [2 ** 31, 2 ** 31], [0, 0]), (0, [2, 2], [2, 1]),
                              (0, [2, 2], [1, 2]), (1, [3], [1]), (0, [4, 0], [2 ** 62, 1]),
                              (5, [0], [1]), (0, [], []), (3, [], []), (4, [], []),
                              (0, [2, 3], [1, 1]), (0, [2], [0])):
        cases.append((f"view off={off} size={size} stride={stride}",
                      PKL(V2(off, size, stride)), recs))
    cases.append(("numel mismatch", PKL(V2(0, [4], [1], STORAGE(numel=5))), recs))
    cases.append(("numel 2**62", PKL(V2(0, [4], [1], STORAGE(numel=2 ** 62))), recs))
    cases.append(("numel -1", PKL(V2(0, [1], [1], STORAGE(numel=-1))), recs))
    cases.append(("missing record", PKL(V2(0, [1], [1], STORAGE(key="9"))), recs))
    cases.append(("record key ../", PKL(V2(0, [1], [1], STORAGE(key="../0"))), recs))
    cases.append(("size of floats", PKL(G("torch._utils", "_rebuild_tensor_v2")
                                        + TUP(STORAGE(), encode_int(0),
                                              TUP(b"G" + struct.pack(">d", 2.0)), INTS([1]),
                                              b"\x89", b"N") + b"R"), recs))
    cases.append(("size a str", PKL(G("torch._utils", "_rebuild_tensor_v2")
                                    + TUP(STORAGE(), encode_int(0), U("ab"), INTS([1]), b"\x89",
                                          b"N") + b"R"), recs))
    cases.append(("storage an int", PKL(V2(0, [1], [1], storage=encode_int(7))), recs))
    cases.append(("v3 dtype str", PKL(G("torch._utils", "_rebuild_tensor_v3")
                                      + TUP(STORAGE("UntypedStorage", numel=16), encode_int(0),
                                            INTS([2]), INTS([1]), b"\x89", b"N", U("float64"))
                                      + b"R"), recs))
    cases.append(("v3 float64 over 12 bytes", PKL(G("torch._utils", "_rebuild_tensor_v3")
                                                  + TUP(STORAGE("UntypedStorage", numel=12),
                                                        encode_int(0), INTS([1]), INTS([1]),
                                                        b"\x89", b"N", G("torch", "float64"))
                                                  + b"R"), {"0": floats4[:12]}))
    cases.append(("v3 float64 ok", PKL(G("torch._utils", "_rebuild_tensor_v3")
                                       + TUP(STORAGE("UntypedStorage", numel=16), encode_int(0),
                                             INTS([2]), INTS([1]), b"\x89", b"N",
                                             G("torch", "float64")) + b"R"), recs))
    cases.append(("persid int", PKL(encode_int(3) + b"Q"), recs))
    cases.append(("persid other kind", PKL(TUP(U("module"), U("os")) + b"Q"), recs))
    cases.append(("param with state __class__",
                  PKL(G("torch._utils", "_rebuild_parameter_with_state")
                      + TUP(V2(0, [4], [1]), b"\x88", G("collections", "OrderedDict") + b")R",
                            b"}" + U("__class__") + G("collections", "OrderedDict") + b"s")
                      + b"R"), recs))
    cases.append(("param with state data",
                  PKL(G("torch._utils", "_rebuild_parameter_with_state")
                      + TUP(V2(0, [4], [1]), b"\x88", b"N", b"}" + U("data") + b"Ns") + b"R"),
                  recs))
    cases.append(("param with state custom",
                  PKL(G("torch._utils", "_rebuild_parameter_with_state")
                      + TUP(V2(0, [4], [1]), b"\x88", b"N", b"}" + U("my_attr") + encode_int(5)
                            + b"s") + b"R"), recs))
    cases.append(("from_type_v2 func=set",
                  PKL(G("torch._tensor", "_rebuild_from_type_v2")
                      + TUP(G("builtins", "set"), G("torch", "Tensor"), b")", b"N") + b"R"), recs))
    cases.append(("from_type_v2 ok",
                  PKL(G("torch._tensor", "_rebuild_from_type_v2")
                      + TUP(G("torch._utils", "_rebuild_tensor_v2"), G("torch", "Tensor"),
                            TUP(STORAGE(), encode_int(0), INTS([4]), INTS([1]), b"\x89", b"N"),
                            b"N") + b"R"), recs))
    cases.append(("FloatTensor(2**62)", PKL(G("torch", "FloatTensor") + INTS([2 ** 62]) + b"R"),
                  recs))
    cases.append(("FloatTensor(2**31, 2**31)",
                  PKL(G("torch", "FloatTensor") + INTS([2 ** 31, 2 ** 31]) + b"R"), recs))
    cases.append(("bytearray(2**62)", PKL(G("builtins", "bytearray") + INTS([2 ** 62]) + b"R"),
                  recs))
    cases.append(("set of lists", PKL(G("builtins", "set") + b"(]t" + b"R"), recs))
    cases.append(("memo get missing", PKL(b"h\x05"), recs))
    cases.append(("stack underflow", PKL(b"R"), recs))
    cases.append(("mark underflow", PKL(b"t"), recs))
    cases.append(("empty", b"", recs))
    return cases


# hand-built cases whose result is an uninitialised tensor (torch.empty): dtype and shape only
UNINITIALISED = {f"hand REDUCE(2,3) {m}.{n}" for m, n in (("torch", "Tensor"),
                                                           ("torch", "FloatTensor"))}


def _torch_seed_objects():
    import torch
    torch.manual_seed(0)
    base = torch.arange(24.0).reshape(4, 6)
    sd = torch.nn.Linear(3, 2).state_dict()
    return {
        "views": {"base": base, "t": base.t(), "row": base[2], "cols": base[:, ::2]},
        "dtypes": {n: torch.arange(6).to(getattr(torch, n)) for n in
                   ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16",
                    "int8", "uint8", "bool", "complex64")},
        "state_dict": sd,
        "param": {"w": torch.nn.Parameter(torch.ones(2, 3)), "s": torch.tensor(2.5),
                  "e": torch.zeros(0, 3), "lst": [1, (2.0, "x"), None], "dev": torch.device("cpu"),
                  "size": torch.Size([2, 3]), "dt": torch.float16},
    }


def run(files: int, seed: int = 0, workdir: str | None = None, timeout: float = 1200) -> dict:
    """Build ``files`` mutated cases plus the hand-built ones, load them in both, compare."""
    import torch
    own = workdir is None
    work = workdir or tempfile.mkdtemp(prefix="ckpt_fuzz_")
    os.makedirs(work, exist_ok=True)
    t0 = time.time()
    stderr_path = os.path.join(work, "child.stderr")
    child = subprocess.Popen([sys.executable, "-c", CHILD_PREAMBLE + FACADE_CHILD, work],
                             env=child_env(), cwd=ROOT, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=open(stderr_path, "w"), text=True)
    try:
        seeds_torch = os.path.join(work, "seeds_torch")
        os.makedirs(seeds_torch, exist_ok=True)
        for name, obj in _torch_seed_objects().items():
            torch.save(obj, os.path.join(seeds_torch, name + ".pt"))
        line = child.stdout.readline()
        if line.strip() != "SEEDS":
            child.wait(timeout=60)
            raise RuntimeError(f"facade child failed writing its seeds (rc {child.returncode}): "
                               + open(stderr_path).read()[-3000:])
        seed_paths = sorted(os.path.join(d, f) for d in (seeds_torch, os.path.join(work, "seeds_facade"))
                            for f in os.listdir(d))
        rng = random.Random(seed)
        cases_dir = os.path.join(work, "cases")
        os.makedirs(cases_dir, exist_ok=True)
        paths, descs = [], []

        def add(desc, raw):
            p = os.path.join(cases_dir, f"{len(paths):05d}.pt")
            with open(p, "wb") as f:
                f.write(raw)
            paths.append(p)
            descs.append(desc)

        for p in seed_paths:  # the seeds themselves must load equal
            add(f"seed {os.path.basename(os.path.dirname(p))}/{os.path.basename(p)}",
                open(p, "rb").read())
        template = read_entries(os.path.join(seeds_torch, "views.pt"))
        for desc, pkl, recs in hand_built():
            entries = [(n, d) for n, d in template if "/data/" not in n]
            entries = [(n, pkl if n.endswith("data.pkl") else d) for n, d in entries]
            prefix = entries[0][0].split("/")[0]
            entries += [(f"{prefix}/data/{k}", v) for k, v in recs.items()]
            add(f"hand {desc}", zip_bytes(entries))
        seeds_entries = [(p, read_entries(p)) for p in seed_paths]
        for i in range(files):
            p, entries = seeds_entries[i % len(seeds_entries)]
            desc, raw = mutate(entries, rng)
            add(f"mutated {os.path.basename(os.path.dirname(p))}/{os.path.basename(p)} {desc}",
                raw)
        manifest = os.path.join(work, "manifest.json")
        json.dump(paths, open(manifest, "w"))
        child.stdin.write(manifest + "\n")
        child.stdin.flush()
        expected = run_torch_loads(paths)  # real torch, while the child loads
        try:
            child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        report = {"files": len(paths), "mutated": files, "hand_built": len(paths) - files -
                  len(seed_paths), "seconds": None, "crash": None, "mismatches": [],
                  "class_changes": [], "refused": 0, "loaded": 0, "both_refused": 0,
                  "facade_refused_torch_loaded": [], "workdir": work}
        results_path = os.path.join(work, "facade_results.json")
        if child.returncode != 0 or not os.path.exists(results_path):
            prog = open(os.path.join(work, "progress")).read().split() \
                if os.path.exists(os.path.join(work, "progress")) else []
            at = int(prog[-1]) if prog else None
            report["crash"] = {"rc": child.returncode, "case": None if at is None else descs[at],
                               "path": None if at is None else paths[at],
                               "stderr": open(stderr_path).read()[-4000:]}
            report["seconds"] = round(time.time() - t0, 1)
            return report
        got = json.load(open(results_path))
        for desc, path, exp, res in zip(descs, paths, expected, got):
            if res[-1]:
                report["class_changes"].append({"case": desc, "path": path, "changed": res[-1]})
            if res[0] == "raise":
                report["refused"] += 1
                if exp[0] == "raise":
                    report["both_refused"] += 1
                else:
                    report["facade_refused_torch_loaded"].append(
                        {"case": desc, "facade": res[1:3]})
                continue
            report["loaded"] += 1
            if desc in UNINITIALISED and exp[0] == "ok":  # torch.empty's values: garbage
                exp, res = [exp[0], exp[1][:3]], [res[0], res[1][:3]] + res[2:]
            if exp[0] != "ok" or exp[1] != res[1]:
                report["mismatches"].append({"case": desc, "path": path, "torch": exp,
                                             "facade": res[1]})
        report["seconds"] = round(time.time() - t0, 1)
        if own and not (report["mismatches"] or report["class_changes"]):
            import shutil
            shutil.rmtree(work, ignore_errors=True)
            report["workdir"] = None
        return report
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=500, help="mutated files (plus the hand-built)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", default=None, help="work directory to keep (cases, results)")
    args = ap.parse_args(argv)
    rep = run(args.files, args.seed, args.keep)
    short = {k: (len(v) if isinstance(v, list) else v) for k, v in rep.items()}
    print(json.dumps(short, indent=1))
    for key in ("mismatches", "class_changes"):
        for item in rep[key][:20]:
            print(key, json.dumps(item)[:600])
    # stricter than torch (allowed: the facade raised), grouped by the facade's reason
    groups: dict = {}
    for item in rep["facade_refused_torch_loaded"]:
        key = f"{item['facade'][0]}: {item['facade'][1][:70]}"
        groups[key] = groups.get(key, 0) + 1
    for key, n in sorted(groups.items(), key=lambda kv: -kv[1]):
        print(f"facade refused, torch loaded: {n} x {key}")
    if rep["crash"]:
        print("CRASH", json.dumps(rep["crash"])[:5000])
    return 1 if rep["crash"] or rep["mismatches"] or rep["class_changes"] else 0


if __name__ == "__main__":
    sys.exit(main())
