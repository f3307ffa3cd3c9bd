"""torch's module layout: every path torch exposes an object at, and that object's home.

torch defines ``Linear`` in ``torch.nn.modules.linear`` and re-exports it as ``torch.nn.Linear``
and ``torch.nn.modules.Linear``; user code, checkpoints and ``torch.load(weights_only=True)``
allow-lists name it by any of those paths, and by ``Linear.__module__``/``__qualname__``.  The
facade's areas declare each name once (usually at its short public path); this module makes it
reachable at every path torch has, and gives facade-owned classes and functions torch's
``__module__``/``__qualname__``.

The layout is data, generated from real torch (the oracle venv) into ``torch_layout.json``:

    .venv/bin/python -m torchproxy.facade.layout --write

Each *group* there is one torch object: the paths it is reachable at (every name of a layout
module's ``__all__`` -- or, for modules without one, its public names defined under ``torch`` --
plus the object's home ``__module__.__qualname__``, which may be private:
``torch.utils.data._utils.collate.default_collate``) and, for classes and Python functions,
that home.  :func:`apply` runs when the facade tree is built: for each group one of whose paths
the registry provides, the same object is bound at every other path of the group (creating the
modules, ``torch.nn.modules.linear`` ...).  A path no group member provides stays missing
(``NotProvidedError``); tests/facade_runtime/test_layout.py fails when such a path is not
listed in gaps.toml.
"""
from __future__ import annotations

import json
import os
import types

HERE = os.path.dirname(os.path.abspath(__file__))
LAYOUT_JSON = os.path.join(HERE, "torch_layout.json")
COMMAND = ".venv/bin/python -m torchproxy.facade.layout --write"

# The modules whose public names make up the layout: name -> which public submodules are
# walked too (True: every one; a tuple: these; False: none).  Chosen by what torch programs
# import (issue 22's corpus); torch.fx/_dynamo/compiler/accelerator are another area's.
LAYOUT_MODULES = {
    "torch": False,
    "torch.functional": False,
    "torch.nn": False,
    "torch.nn.functional": False,
    "torch.nn.init": False,
    "torch.nn.parameter": False,
    "torch.nn.modules": True,
    "torch.nn.utils": ("clip_grad", "rnn", "parametrize", "parametrizations", "spectral_norm",
                       "weight_norm", "convert_parameters", "stateless", "fusion", "init",
                       "memory_format"),
    "torch.linalg": False,
    "torch.fft": False,
    "torch.special": False,
    "torch.distributions": True,
    "torch.optim": True,
    "torch.utils.data": ("dataset", "sampler", "dataloader", "distributed"),
    "torch.nn.parallel": ("distributed",),
    "torch.autograd": ("grad_mode", "function", "functional", "anomaly_mode", "variable",
                       "graph", "forward_ad"),
    "torch.testing": False,
    "torch.amp": ("autocast_mode", "grad_scaler"),
    "torch.cuda.amp": ("autocast_mode", "grad_scaler"),
    # torch.distributed as programs import it (issue 24): the package, the modules scripts and
    # libraries name (the collectives' home distributed_c10d, torchrun's run/launch, elastic's
    # error recording, FSDP, DTensor, RPC...) and the submodules of those they import from
    "torch.distributed": ("distributed_c10d", "algorithms", "fsdp", "elastic", "rpc", "tensor",
                          "run", "launch", "launcher", "device_mesh", "checkpoint", "optim", "nn",
                          "autograd", "pipelining", "constants", "rendezvous"),
    "torch.distributed.algorithms": ("join", "ddp_comm_hooks"),
    "torch.distributed.algorithms.ddp_comm_hooks": ("default_hooks",),
    "torch.distributed.elastic": ("multiprocessing",),
    "torch.distributed.elastic.multiprocessing": ("errors",),
    "torch.distributed.fsdp": ("wrap",),
    "torch.distributed.tensor": ("parallel", "placement_types", "device_mesh"),
    "torch.distributed.checkpoint": ("state_dict",),
}

# The per-module counts docs/COVERAGE.md reports (each with its submodules' paths where marked).
REPORTED = ("torch", "torch.nn", "torch.nn.functional", "torch.nn.modules", "torch.nn.modules.*",
            "torch.nn.utils", "torch.linalg", "torch.fft", "torch.special", "torch.distributions",
            "torch.optim", "torch.utils.data", "torch.autograd", "torch.testing",
            "torch.distributed", "torch.distributed.*")


# -- generation (needs real torch) ---------------------------------------------------------------
def _layout_module_names() -> list[str]:
    import importlib
    import pkgutil
    names = []
    for root, subs in LAYOUT_MODULES.items():
        names.append(root)
        if not subs:
            continue
        mod = importlib.import_module(root)
        found = sorted(i.name for i in pkgutil.iter_modules(mod.__path__) if not i.name.startswith("_"))
        names += [f"{root}.{s}" for s in found if subs is True or s in subs]
    return names


def _in_layout(modname: str) -> bool:
    """A home under one of the layout's packages (torch.utils.data._utils.collate: yes;
    torch._tensor_str, torch.jit: no -- their modules are not part of this layout)."""
    return any(modname == r or modname.startswith(r + ".") for r in LAYOUT_MODULES if r != "torch")


def _home(obj):
    """``module.qualname`` where torch defines ``obj``, when that path finds ``obj`` again."""
    import importlib
    mod, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not (isinstance(mod, str) and isinstance(qual, str)) or "<" in qual:
        return None
    if not mod.startswith("torch") or mod.startswith("torch._C") or mod == "torch":
        # builtins (torch._C._nn.gelu, torch._VariableFunctionsClass.conv2d) have no importable
        # home; objects defined in torch/__init__.py are at their torch.* path already
        return None
    try:
        found = importlib.import_module(mod)
        for part in qual.split("."):
            found = getattr(found, part)
    except Exception:
        return None
    return (mod, qual) if found is obj else None


def _torch_object(o) -> bool:
    m = getattr(o, "__module__", None)
    return not isinstance(o, types.ModuleType) and isinstance(m, str) and m.startswith("torch")


def _public_names(modname: str, mod) -> tuple[list[str], list[str]]:
    """(documented, also): the module's ``__all__`` -- or, without one (torch.nn,
    torch.nn.functional, torch.linalg...), its public names whose object is torch's (typing,
    math and warnings imports are not part of the layout) -- and its other public torch
    objects (``torch.lu``, re-exported from torch.functional but not in ``torch.__all__``):
    those are bound too, so the same object reaches every path, but not checked."""
    public = [n for n in dir(mod) if not n.startswith("_") and _torch_object(getattr(mod, n, None))]
    declared = getattr(mod, "__all__", None)
    documented = [n for n in declared if isinstance(n, str)] if declared is not None else public
    # private base classes user code subclasses (torch.nn.modules.loss._Loss, _BatchNorm,
    # torch.optim.lr_scheduler._LRScheduler): single-underscore classes defined in the module
    documented += [n for n, o in vars(mod).items()
                   if n.startswith("_") and not n.startswith("__") and isinstance(o, type)
                   and o.__module__ == modname]
    documented = sorted(set(documented))
    return documented, sorted(set(public) - set(documented))


def generate() -> dict:
    import importlib
    import torch
    groups: dict[object, dict] = {}  # identity key -> group
    modules = _layout_module_names()
    for modname in modules:
        mod = importlib.import_module(modname)
        documented, also = _public_names(modname, mod)
        for name in documented + also:
            if not hasattr(mod, name):
                continue  # torch lists a name it does not define
            obj = getattr(mod, name)
            if isinstance(obj, types.ModuleType):
                continue  # submodules are modules of the layout, not objects
            path = f"{modname}.{name}"
            # plain values share identity by accident (True, 0, "cpu"): one group per path
            shared = not isinstance(obj, (bool, int, float, str, bytes, type(None), tuple))
            key = ("id", id(obj)) if shared else ("path", path)
            g = groups.setdefault(key, {"paths": set(), "also": set(),
                                        "home": _home(obj) if shared else None})
            g["paths" if name in documented else "also"].add(path)
            if g["home"] and _in_layout(g["home"][0]):
                g["paths"].add(".".join(g["home"]))
    out = []
    for g in groups.values():
        if not g["paths"]:
            continue  # only undocumented paths: not part of the layout
        home = g["home"]
        out.append({"paths": sorted(g["paths"]),
                    **({"also": sorted(g["also"] - g["paths"])} if g["also"] - g["paths"] else {}),
                    **({"module": home[0], "qualname": home[1]} if home else {})})
    out.sort(key=lambda g: g["paths"][0])
    return {"generated_by": COMMAND, "torch": torch.__version__.split("+")[0],
            "modules": modules, "groups": out}


def write(path: str = LAYOUT_JSON) -> dict:
    data = generate()
    # one group per line: a regeneration's diff shows the objects that changed
    head = {k: v for k, v in data.items() if k != "groups"}
    text = json.dumps(head, indent=1, sort_keys=True)[:-2] + ',\n "groups": [\n'
    text += ",\n".join(json.dumps(g, sort_keys=True) for g in data["groups"]) + "\n]}\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return data


# -- applying it to the facade tree ---------------------------------------------------------------
_LAYOUT = None
# id(object) -> "torchproxy.facade.<area>.<name>", for the objects apply() gave torch's names
# (the coverage file's "how" column shows where the implementation is written)
ORIGINAL_NAMES: dict[int, str] = {}


def load() -> dict:
    global _LAYOUT
    if _LAYOUT is None:
        with open(LAYOUT_JSON, encoding="utf-8") as f:
            _LAYOUT = json.load(f)
    return _LAYOUT


def _owned(obj) -> bool:
    """A class or Python function of torchproxy's own (never Paddle's: an alias's object is
    Paddle's, and renaming it would show in every Paddle caller's tracebacks)."""
    return (isinstance(obj, (type, types.FunctionType))
            and (getattr(obj, "__module__", "") or "").startswith("torchproxy."))


def _provided_groups(table: dict):
    """(group, the registered path that provides its object, its other paths) for each group
    the registry provides."""
    for g in load()["groups"]:
        every = g["paths"] + g.get("also", [])
        have = [p for p in every if p in table and table[p].kind != "module"]
        if have:
            yield g, have[0], [p for p in every if p not in table]


def aliases(table: dict) -> dict[str, str]:
    """``{path: provided-by path}`` that :func:`apply` binds, without building anything
    (``torch.autocast`` -> ``torch.amp.autocast``): torchproxy scan classifies by it."""
    return {p: provider for _, provider, others in _provided_groups(table) for p in others}


def apply(table: dict, resolve, module_of) -> dict[str, str]:
    """Bind each provided group's object at all its torch paths.  ``resolve(entry)`` gives a
    TABLE entry's object, ``module_of(name)`` the facade module of that name (created on
    demand).  Returns ``{path: provided-by path}`` for the paths bound here."""
    bound: dict[str, str] = {}
    homes: dict[int, set] = {}   # id(obj) -> the torch homes it would take (renamed if one)
    objs: dict[int, object] = {}
    for g, provider, others in _provided_groups(table):
        obj = resolve(table[provider])
        for p in others:
            parent, _, attr = p.rpartition(".")
            setattr(module_of(parent), attr, obj)
            bound[p] = provider
        if "module" in g and _owned(obj):
            homes.setdefault(id(obj), set()).add((g["module"], g["qualname"]))
            objs[id(obj)] = obj
    for key, hs in homes.items():
        if len(hs) == 1:  # one facade object serving two torch objects keeps its own name
            obj = objs[key]
            ORIGINAL_NAMES[key] = f"{obj.__module__}.{obj.__qualname__}"
            (obj.__module__, obj.__qualname__), = hs
            if isinstance(obj, type):
                from .pickling import register_renamed
                register_renamed(obj)
    return bound


# -- what the facade provides of it (tests/facade_runtime/test_layout.py, docs/COVERAGE.md) --------
def gap_for(path: str, gaps: dict[str, str]) -> str | None:
    """The gaps.toml key that covers ``path``: the name itself (or with a "(qualifier)"), a
    module listed whole (``torch.utils.data.datapipes`` covers its names), or a glob
    (``torch.cudnn_*``)."""
    import fnmatch
    for key in gaps:
        name = key.split(" (", 1)[0]
        if name == path or path.startswith(name + ".") or (any(c in name for c in "*?[") and fnmatch.fnmatchcase(path, name)):
            return key
    return None


def status(tree: dict, gaps: dict[str, str]) -> dict[str, str]:
    """Every documented torch path -> "provided" | "gap" | "missing"."""
    out = {}
    for g in load()["groups"]:
        for p in g["paths"]:
            parent, _, attr = p.rpartition(".")
            mod = tree.get(parent)
            # a facade module at an object's path (torch.autograd.variable: torch's is a
            # function shadowing its submodule) is not that object
            if mod is not None and attr in vars(mod) and not isinstance(vars(mod)[attr], types.ModuleType):
                out[p] = "provided"
            else:
                out[p] = "gap" if gap_for(p, gaps) else "missing"
    return out


def counts(tree: dict, gaps: dict[str, str]) -> list[tuple[str, int, int, int, int]]:
    """(module, torch paths, provided, gaps, missing) for each REPORTED module; "x.*" counts
    the paths of x's submodules, not of x itself."""
    st = status(tree, gaps)
    rows = []
    for rep in REPORTED:
        if rep.endswith(".*"):
            base = rep[:-2] + "."
            sel = [p for p in st if p.rpartition(".")[0].startswith(base)]
        else:
            sel = [p for p in st if p.rpartition(".")[0] == rep]
        c = [sum(1 for p in sel if st[p] == k) for k in ("provided", "gap", "missing")]
        rows.append((rep, len(sel), *c))
    return rows


def main(argv=None) -> int:
    import argparse
    p = argparse.ArgumentParser(prog="python -m torchproxy.facade.layout",
                                description="regenerate torch_layout.json from real torch")
    p.add_argument("--write", action="store_true", help=f"write {LAYOUT_JSON}")
    args = p.parse_args(argv)
    data = write() if args.write else generate()
    print(f"{len(data['modules'])} modules, {len(data['groups'])} objects, "
          f"{sum(len(g['paths']) for g in data['groups'])} paths (torch {data['torch']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
