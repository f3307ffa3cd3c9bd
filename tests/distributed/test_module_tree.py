"""torch.distributed's module tree as programs import it: the modules import as under real torch,
the same objects sit at torch's paths (distributed_c10d, run.record), the provided extras
(constants, backend queries, elastic's record) behave as torch's, and every path torch has
that the facade does not provide raises NotProvidedError naming it."""
from __future__ import annotations

import types

import pytest

from difftest import check, load

from torchproxy import coverage
from torchproxy.errors import NotProvidedError
from torchproxy.facade import distributed_modules, layout, modules

MODULES = ["torch.distributed", "torch.distributed.distributed_c10d",
           "torch.distributed.algorithms", "torch.distributed.algorithms.join",
           "torch.distributed.algorithms.ddp_comm_hooks",
           "torch.distributed.algorithms.ddp_comm_hooks.default_hooks",
           "torch.distributed.autograd", "torch.distributed.checkpoint",
           "torch.distributed.checkpoint.state_dict", "torch.distributed.constants",
           "torch.distributed.device_mesh", "torch.distributed.elastic",
           "torch.distributed.elastic.multiprocessing",
           "torch.distributed.elastic.multiprocessing.errors", "torch.distributed.fsdp",
           "torch.distributed.fsdp.wrap", "torch.distributed.launch", "torch.distributed.launcher",
           "torch.distributed.launcher.api", "torch.distributed.nn", "torch.distributed.optim",
           "torch.distributed.pipelining", "torch.distributed.rpc", "torch.distributed.run",
           "torch.distributed.tensor", "torch.distributed.tensor.parallel",
           "torch.distributed.tensor.placement_types"]

TREE = f'''
import importlib, torch
MODULES = {MODULES!r}

def f():
    out = [importlib.import_module(m).__name__ for m in MODULES]
    import torch.distributed as dist
    import torch.distributed.distributed_c10d as c10d
    import torch.distributed.run
    from torch.distributed.elastic.multiprocessing.errors import record
    from torch.distributed.constants import default_pg_timeout, default_pg_nccl_timeout
    same = [c10d.all_reduce is dist.all_reduce, c10d.init_process_group is dist.init_process_group,
            c10d.new_group is dist.new_group, c10d.ReduceOp is dist.ReduceOp,
            c10d.Backend is dist.Backend, c10d.group is dist.group, c10d.Work is dist.Work,
            torch.distributed.run.record is record,
            c10d.default_pg_timeout is default_pg_timeout]
    out.append(same)
    out += [f"{{o.__module__}}.{{o.__qualname__}}" for o in
            (dist.all_reduce, dist.init_process_group, dist.new_group, dist.barrier, dist.Backend,
             dist.group, record)]
    out += [default_pg_timeout, default_pg_nccl_timeout, dist.is_ucc_available(),
            dist.is_xccl_available()]
    out += [dist.is_backend_available(b) for b in ("gloo", "GLOO", "nccl", "mpi", "ucc", "foo",
                                                    "cpu:gloo", "cpu:gloo,cuda:nccl")]
    for dev in ("cpu", "cuda", "cuda:1", "cpu:0", torch.device("cuda", 1), "meta"):
        try:
            out.append(dist.get_default_backend_for_device(dev))
        except ValueError as e:
            out.append(str(e))
    return out
'''


def test_module_tree_imports_as_torch():
    check(TREE)


RECORD = '''
import json, os, sys, tempfile
from torch.distributed.elastic.multiprocessing.errors import record

@record
def ok(x, y=1):
    """doc"""
    return x + y

@record
def clean_exit():
    sys.exit(0)

@record
def failed_exit():
    sys.exit(3)

@record
def bad():
    raise ValueError("boom")

def f():
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    old = os.environ.get("TORCHELASTIC_ERROR_FILE")
    os.environ["TORCHELASTIC_ERROR_FILE"] = path
    try:
        out = [ok(1, y=2), clean_exit(), ok.__name__, ok.__doc__]
        try:
            failed_exit()
        except SystemExit as e:
            out.append(e.code)
        out.append(os.path.getsize(path))  # a non-zero exit is not recorded
        try:
            bad()
        except ValueError as e:
            out.append(str(e))
        with open(path) as fp:
            data = json.load(fp)
        out += [sorted(data), sorted(data["message"]), data["message"]["message"],
                sorted(data["message"]["extraInfo"]),
                "ValueError: boom" in data["message"]["extraInfo"]["py_callstack"],
                data["message"]["extraInfo"]["timestamp"].isdigit()]
        del os.environ["TORCHELASTIC_ERROR_FILE"]
        try:
            bad()  # no error file: nothing written, the exception propagates
        except ValueError as e:
            out.append(str(e))
    finally:
        os.unlink(path)
        if old is not None:
            os.environ["TORCHELASTIC_ERROR_FILE"] = old
        else:
            os.environ.pop("TORCHELASTIC_ERROR_FILE", None)
    return out
'''


def test_elastic_record_writes_torchs_error_file():
    check(RECORD)


@pytest.fixture(scope="module")
def tree():
    return modules.build()


def _unprovided(tree):
    """Every torch.distributed path of torch's layout that is a gap and whose module the
    facade has (so naming it reaches the module's NotProvidedError)."""
    st = layout.status(tree, coverage.load_gaps())
    out = []
    for path, s in st.items():
        parent, _, attr = path.rpartition(".")
        if s == "gap" and path.startswith("torch.distributed.") and parent in tree:
            if not isinstance(vars(tree[parent]).get(attr), types.ModuleType):
                out.append(path)
    return sorted(out)


def test_every_unprovided_path_raises_not_provided(tree):
    paths = _unprovided(tree)
    assert len(paths) > 250, len(paths)  # the tree's gaps are reached, not skipped
    wrong = []
    for path in paths:
        parent, _, attr = path.rpartition(".")
        try:
            getattr(tree[parent], attr)
        except NotProvidedError as e:
            if path not in str(e):
                wrong.append((path, str(e)[:80]))
        else:
            wrong.append((path, "no error"))
    assert not wrong, wrong[:20]


def test_from_import_of_an_unprovided_name_names_it():
    m = load('''
def f(stmt):
    try:
        exec(stmt, {"__name__": __name__})  # the importer is this scoped module
    except ImportError as e:
        return type(e).__name__, str(e)
''', scoped=True)
    for stmt, path in [
            ("from torch.distributed.rpc import init_rpc", "torch.distributed.rpc.init_rpc"),
            ("from torch.distributed.run import main", "torch.distributed.run.main"),
            ("from torch.distributed.fsdp import MixedPrecision",
             "torch.distributed.fsdp.MixedPrecision"),
            ("from torch.distributed import TCPStore", "torch.distributed.TCPStore"),
            ("from torch.distributed.algorithms.join import Join",
             "torch.distributed.algorithms.join.Join")]:
        kind, msg = m.f(stmt)
        assert kind == "NameNotProvidedImportError" and path in msg, (stmt, msg)


def test_registered_modules_are_torchs():
    # each module the area declares exists in real torch (no invented paths)
    import importlib
    pytest.importorskip("torch")
    for name in distributed_modules.NAMES:
        try:
            importlib.import_module(name)
        except ImportError:
            parent, _, attr = name.rpartition(".")
            assert hasattr(importlib.import_module(parent), attr), name
