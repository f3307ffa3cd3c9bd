"""``torch.nn`` module classes, split by the families of torch's own ``torch/nn/modules/``:
this module holds the containers (``Sequential``, ``ModuleDict``, ``ParameterList``,
``ParameterDict``) and the helpers every ``nn_modules_*`` family uses (``_export`` registers a
class as ``torch.nn.<name>``).  The families: ``nn_modules_activation``, ``_loss``, ``_conv``,
``_pooling``, ``_norm``, ``_dropout``, ``_reshape``, ``_sparse``, ``_rnn``, ``_transformer``;
``Module``, ``Linear``, ``LayerNorm``, ``Dropout``, ``Embedding``... are in facade/nn.py
(docs/ARCHITECTURE.md, "Where each torch namespace lives").

Each class has torch's constructor arguments, attribute names, parameter/buffer names and
shapes (so ``state_dict()`` keys match torch's and real torch's weights load by key), torch's
initialisation scheme (``reset_parameters`` with the facade's ``nn.init``), and a forward
written with the functional forms (facade/nn.py, facade/nn_functional*.py).
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn: ModuleDict ParameterDict ParameterList Sequential
""")

import collections

import paddle

from .nn import Module, Parameter
from .nn_functional import _ntuple
from .registry import type_


def _export(cls):
    """Register a module class as ``torch.nn.<its name>`` (the area that defines it declares
    the name in its NAMES)."""
    type_(f"torch.nn.{cls.__name__}", cls)
    return cls


def _export_base(module: str):
    """Register a private base class at its torch home, ``torch.nn.modules.<module>.<name>``
    (``_Loss``, ``_BatchNorm``...: user code subclasses them by that path)."""
    def deco(cls):
        type_(f"torch.nn.modules.{module}.{cls.__name__}", cls)
        return cls
    return deco


def _empty(shape):
    return paddle.empty([int(s) for s in shape], dtype=paddle.get_default_dtype())


def _param(shape):
    return Parameter(_empty(shape))


def _optional_bias(layer, bias, n):
    """A layer's ``bias`` of ``n`` (uninitialised; reset_parameters fills it), or None
    registered under that name when ``bias=False`` (torch's state_dict and repr see it)."""
    if bias:
        layer.bias = _param([n])
    else:
        layer.register_parameter("bias", None)


def _tuple(v, n):
    """An int-or-sequence size argument (kernel, stride, padding...) as an n-tuple."""
    return _ntuple(v, n)


# -- containers ---------------------------------------------------------------------------------
@_export
class Sequential(Module):
    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], collections.OrderedDict):
            for key, m in args[0].items():
                self.add_module(key, m)
        else:
            for idx, m in enumerate(args):
                self.add_module(str(idx), m)

    def __getitem__(self, idx):
        items = list(self._sub_layers.items())
        if isinstance(idx, slice):
            return Sequential(collections.OrderedDict(items[idx]))
        n = len(items)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return items[idx % n][1]

    def __setitem__(self, idx, module):
        key = list(self._sub_layers)[idx]
        self._sub_layers[key] = module

    def __delitem__(self, idx):
        keys = list(self._sub_layers)
        for k in (keys[idx] if isinstance(idx, slice) else [keys[idx]]):
            del self._sub_layers[k]
        rest = list(self._sub_layers.values())
        self._sub_layers.clear()
        for i, m in enumerate(rest):
            self._sub_layers[str(i)] = m

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        mods = list(self._sub_layers.values())
        mods.insert(index, module)
        self._sub_layers.clear()
        for i, m in enumerate(mods):
            self._sub_layers[str(i)] = m
        return self

    def forward(self, input):
        for m in self._sub_layers.values():
            input = m(input)
        return input


class _KeyedContainer:
    """The mapping methods ModuleDict and ParameterDict share: torch's dict API over the
    ``paddle.nn.Layer`` store named by ``_store`` (``_sub_layers`` or ``_parameters``), so
    registration, ``state_dict()`` keys and ``parameters()`` stay Paddle's own."""
    _store = ""

    def _entries(self):
        return getattr(self, self._store)

    def _put_all(self, entries):
        """update()'s body: a mapping's items or an iterable of (key, value) pairs, each set
        through the class's own __setitem__ (a module registered, a tensor made a Parameter)."""
        items = entries.items() if hasattr(entries, "items") else entries
        for k, v in items:
            self[k] = v

    def __getitem__(self, key):
        return self._entries()[key]

    def __delitem__(self, key):
        del self._entries()[key]

    def __len__(self):
        return len(self._entries())

    def __iter__(self):
        return iter(self._entries())

    def __contains__(self, key):
        return key in self._entries()

    def keys(self):
        return self._entries().keys()

    def items(self):
        return self._entries().items()

    def values(self):
        return self._entries().values()


@_export
class ModuleDict(_KeyedContainer, Module):
    _store = "_sub_layers"

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def pop(self, key):
        return self._sub_layers.pop(key)

    def clear(self):
        self._sub_layers.clear()

    def update(self, modules):
        self._put_all(modules)


@_export
class ParameterList(Module):
    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def _as_param(self, v):
        if isinstance(v, paddle.Tensor) and not isinstance(v, Parameter):
            v = Parameter(v)
        return v

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(self._size)[idx]])
        if not -self._size <= idx < self._size:
            raise IndexError(f"index {idx} is out of range")
        return self._parameters[str(idx % self._size)]

    def __setitem__(self, idx, param):
        self.register_parameter(str(idx % self._size), self._as_param(param))

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(self._size))

    def append(self, value):
        self._size += 1
        self.register_parameter(str(self._size - 1), self._as_param(value))
        return self

    def extend(self, values):
        for v in values:
            self.append(v)
        return self

    def forward(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


@_export
class ParameterDict(_KeyedContainer, Module):
    _store = "_parameters"

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __setitem__(self, key, value):
        if isinstance(value, paddle.Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        self.register_parameter(key, value)

    def update(self, parameters):
        self._put_all(parameters)
