"""Pickling of facade classes that carry torch's names (``torch.return_types.*``,
``torch.linalg.LinAlgError``) and of the Tensor-method dispatchers.

Classes.  pickle stores a class by reference: it imports ``cls.__module__`` and reads
``cls.__qualname__`` there.  These classes say ``torch.return_types`` / ``torch.linalg`` as
torch's do (tracebacks and code read those names), but outside global mode ``sys.modules
["torch"]`` is real torch or nothing, so pickle refused them ("not the same object as
torch.return_types.max"), and so did every instance (a ``max(x, dim=0)`` result, a raised
``LinAlgError``).  Their metaclass, :class:`TorchNamed`, is registered with ``copyreg``: pickle
consults ``copyreg.dispatch_table`` for a class's metaclass before saving it by reference, so
they are stored as ``rebuild_class("torch.return_types.max")``, which finds the facade's own
class whoever unpickles (scoped, global, or no torchproxy enabled at all).

Dispatchers.  ``paddle.Tensor.numel`` and the other names torchproxy dispatches by scope are
``_cdispatch.Method`` objects (or, with the pure-Python backend, functions that tensor.py makes
reachable at ``paddle.Tensor.<name>``); they pickle as ``getattr(paddle.Tensor, name)``: what the
name means in the unpickling process, exactly as Paddle's original attribute would.
"""
from __future__ import annotations

import copyreg
import importlib

_CLASSES: dict[str, type] = {}  # "torch.return_types.max" -> the facade's class


class TorchNamed(type):
    """Metaclass of facade classes whose torch name pickle cannot reach outside global mode."""


def torch_named(name: str, bases: tuple, namespace: dict, module: str) -> type:
    """A class named ``module.name`` that pickles through :func:`rebuild_class`."""
    namespace = dict(namespace, __module__=module, __qualname__=name)
    cls = TorchNamed(name, bases, namespace)
    _CLASSES[f"{module}.{name}"] = cls
    return cls


def named_tuple(name: str, fields, module: str = "torch.return_types") -> type:
    """torch's named result tuple ``module.name`` (``values``/``indices``...): a namedtuple."""
    import collections
    base = collections.namedtuple(name, fields)
    return torch_named(name, (base,), {"__slots__": ()}, module)


def rebuild_class(full_name: str) -> type:
    """The facade class pickled as ``full_name`` (unpickling entry point: keep its name)."""
    cls = _CLASSES.get(full_name)
    if cls is None:  # a fresh process: the areas that define the classes are not imported yet
        importlib.import_module("torchproxy.facade.registry").load_table()  # lazy: unpickling only
        cls = _CLASSES.get(full_name)
    if cls is None:
        raise AttributeError(f"torchproxy: no facade class {full_name} to unpickle")
    return cls


def _reduce_class(cls):
    return rebuild_class, (f"{cls.__module__}.{cls.__qualname__}",)


copyreg.pickle(TorchNamed, _reduce_class)


def _reduce_dispatcher(attr):
    import paddle  # lazy: only when a dispatcher is pickled
    return getattr, (paddle.Tensor, attr.__name__)


def register_dispatcher_types(*types) -> None:
    """Make the C dispatcher's descriptor types pickle by name (dispatch.py calls this)."""
    for t in types:
        copyreg.pickle(t, _reduce_dispatcher)


# -- facade classes renamed to their torch home (layout.apply) ------------------------------------
# ``torch.nn.Linear.__module__`` is "torch.nn.modules.linear", as torch's.  pickle stores a class
# by that name and checks it finds the same object there; outside global mode it finds real
# torch's class (or nothing).  So instances of renamed classes reduce through new_instance(name),
# which finds the facade's class wherever they are unpickled.  (A class object itself still
# pickles by reference: see gaps.toml, "pickle (facade class objects)".)
_RENAMED: dict[type, str] = {}


def _defines_reduce(cls) -> bool:
    return any("__reduce_ex__" in vars(k) or "__reduce__" in vars(k) for k in cls.__mro__[:-1])


def register_renamed(cls: type) -> None:
    """Called by layout.apply after giving ``cls`` its torch ``__module__``/``__qualname__``."""
    full = f"{cls.__module__}.{cls.__qualname__}"
    _CLASSES[full] = cls
    if isinstance(cls, TorchNamed) or issubclass(cls, BaseException):
        return  # TorchNamed classes pickle through rebuild_class; exceptions reduce by args
    if not _defines_reduce(cls):
        cls.__reduce_ex__ = _reduce_renamed
    _RENAMED[cls] = full


def _reduce_renamed(self, protocol):
    rv = object.__reduce_ex__(self, protocol)
    full = _RENAMED.get(type(self))
    if full is None or protocol < 2 or rv[0] is not copyreg.__newobj__:
        return rv  # a user subclass (pickled by its own name), or an old protocol
    return (new_instance, (full, *rv[1][1:]), *rv[2:])


def new_instance(full_name: str, *args):
    """``cls.__new__(cls, *args)`` for the facade class named ``full_name`` (unpickling entry
    point: keep its name)."""
    cls = _CLASSES.get(full_name)
    if cls is None:  # a fresh process: the layout is applied when the module tree is built
        importlib.import_module("torchproxy.facade.modules").build()
        cls = _CLASSES.get(full_name)
    if cls is None:
        raise AttributeError(f"torchproxy: no facade class {full_name} to unpickle")
    return cls.__new__(cls, *args)
