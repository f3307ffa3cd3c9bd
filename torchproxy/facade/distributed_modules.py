"""torch.distributed's module tree as programs import it (issue 24).

Training scripts and libraries import more of ``torch.distributed`` than its collectives:
``from torch.distributed.elastic.multiprocessing.errors import record`` (torchrun's error
recording, a decorator applied at import), ``torch.distributed.constants``, FSDP's configs, the
RPC, checkpoint and pipelining packages at the top of a file that may never use them.  Each
module below is importable; what Paddle's engine can back is provided (the collectives sit at
``torch.distributed.distributed_c10d`` too: torch_layout.json binds each torch object at every
path torch has), the rest is in gaps.toml with the reason, and naming it raises
NotProvidedError (``from ... import name``: ImportError) naming the torch path.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.distributed: algorithms autograd checkpoint constants distributed_c10d elastic
        get_default_backend_for_device is_backend_available is_ucc_available is_xccl_available
        launch launcher nn optim pipelining rpc run
    torch.distributed.algorithms: ddp_comm_hooks join
    torch.distributed.algorithms.ddp_comm_hooks: default_hooks
    torch.distributed.checkpoint: state_dict
    torch.distributed.constants: default_pg_nccl_timeout default_pg_timeout
    torch.distributed.elastic: multiprocessing
    torch.distributed.elastic.multiprocessing: errors
    torch.distributed.elastic.multiprocessing.errors: record
    torch.distributed.fsdp: wrap
    torch.distributed.launcher: api
""")

import functools
import json
import os
import time
import traceback
from datetime import timedelta

from ..paddle_shims import is_compiled_with_nccl
from . import distributed as _d
from .device import device as _device
from .registry import module, torch_function, value

# modules whose names are all gaps (gaps.toml says why, per module): importable, so a program
# that imports them at the top and never uses them runs; each name raises NotProvidedError
for _name in ("algorithms", "algorithms.join", "algorithms.ddp_comm_hooks",
              "algorithms.ddp_comm_hooks.default_hooks", "autograd", "checkpoint",
              "checkpoint.state_dict", "distributed_c10d", "elastic", "elastic.multiprocessing",
              "elastic.multiprocessing.errors", "fsdp.wrap", "launch", "launcher", "launcher.api", "nn",
              "optim", "pipelining", "rpc", "run", "constants"):
    module("torch.distributed." + _name)

D = "torch.distributed."

# -- torch.distributed.constants -------------------------------------------------------------------
# torch's values: 30 minutes for non-NCCL groups; NCCL's 10 minutes where NCCL is built in (torch's
# CPU build has None).  Paddle's groups take no per-group timeout from the facade: these are the
# values torch code reads and passes back as timeout=, which init_process_group accepts.
value(D + "constants.default_pg_timeout", timedelta(seconds=1800))
value(D + "constants.default_pg_nccl_timeout",
      timedelta(minutes=10) if is_compiled_with_nccl() else None,
      note="10 minutes when Paddle is built with NCCL, else None (as torch's CPU build)")


# -- backend queries -----------------------------------------------------------------------------------
@torch_function(D + "is_ucc_available")
def is_ucc_available() -> bool:
    return False  # Paddle's process groups are Gloo and NCCL


@torch_function(D + "is_xccl_available")
def is_xccl_available() -> bool:
    return False


def _single_backend_available(name: str) -> bool:
    name = name.lower()
    if name == "gloo":
        return _d.is_gloo_available()
    return name == "nccl" and is_compiled_with_nccl()


@torch_function(D + "is_backend_available", note="gloo, and nccl on Paddle built with NCCL")
def is_backend_available(backend: str) -> bool:
    if ":" in backend:  # "cpu:gloo,cuda:nccl": every device's backend
        return all(_single_backend_available(part.split(":", 1)[1])
                   for part in backend.split(","))
    return _single_backend_available(backend)


@torch_function(D + "get_default_backend_for_device")
def get_default_backend_for_device(device) -> str:
    kind = device.type if isinstance(device, _device) else _device(device).type
    backend = {"cpu": "gloo", "cuda": "nccl"}.get(kind)  # Paddle's two process-group kinds
    if backend is None:
        raise ValueError(f"Default backend not registered for device : {device}")
    return backend


# -- torch.distributed.elastic.multiprocessing.errors.record -----------------------------------------
class _ErrorFile:
    """torch's default ErrorHandler: fault handler on, and an exception escaping the recorded
    function written as JSON to $TORCHELASTIC_ERROR_FILE (torchrun's agent reads it) when set."""

    def initialize(self) -> None:
        import faulthandler
        import warnings
        try:
            faulthandler.enable(all_threads=True)
        except Exception as e:
            warnings.warn(f"Unable to enable fault handler. {type(e).__name__}: {e}", stacklevel=2)

    def record_exception(self, e: BaseException) -> None:
        path = os.environ.get("TORCHELASTIC_ERROR_FILE")
        if path:
            data = {"message": {"message": f"{type(e).__name__}: {e}",
                                "extraInfo": {"py_callstack": traceback.format_exc(),
                                              "timestamp": str(int(time.time()))}}}
            with open(path, "w") as fp:
                json.dump(data, fp)


@torch_function(D + "elastic.multiprocessing.errors.record",
                note="writes $TORCHELASTIC_ERROR_FILE as torch's default error handler; "
                     "ChildFailedError (torchrun's agent) is not provided")
def record(fn, error_handler=None):
    handler = error_handler or _ErrorFile()

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        handler.initialize()
        try:
            return fn(*args, **kwargs)
        except SystemExit as se:
            if se.code == 0:
                return None  # torch's: a clean sys.exit(0) returns None
            raise
        except Exception as e:
            handler.record_exception(e)
            raise
    return wrapper
