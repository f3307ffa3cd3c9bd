"""``torch.utils._pytree``: nested containers flattened to leaves and rebuilt from them.

Written for the facade rather than loaded from real torch: torch's module is pure Python but
imports ``torch.torch_version``, ``torch._library`` and (lazily) ``torch._dynamo`` from the real
package, which in global mode would mean real torch and the facade in one process, and without
real torch installed it is not there at all.  What is kept from torch is the behaviour clients
rely on (Hugging Face's ``ModelOutput`` registers each subclass at class creation; ``tree_map``
over model inputs): the registry of node types (list, tuple, namedtuple, dict, OrderedDict,
defaultdict, deque built in; ``None`` is a leaf), the same flatten order and contexts,
``TreeSpec`` equality / repr / counts, and the same ValueErrors (arity and type mismatches,
registering a type twice).  Tests: tests/facade_runtime/test_pytree.py, against real torch.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.utils: _pytree
    torch.utils._pytree: Context GetAttrKey LeafSpec MappingKey PyTree SUPPORTED_NODES SequenceKey
        TreeSpec _dict_flatten _dict_flatten_with_keys _dict_unflatten _register_pytree_node
        is_namedtuple is_namedtuple_class is_namedtuple_instance keystr register_pytree_node
        tree_all tree_any tree_flatten tree_flatten_with_path tree_is_leaf tree_iter tree_leaves
        tree_map tree_map_ tree_map_only tree_structure tree_unflatten
""")

import dataclasses
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any, Callable, NamedTuple

from .registry import module, torch_function, type_, value

module("torch.utils._pytree")
value("torch.utils._pytree.PyTree", Any)
value("torch.utils._pytree.Context", Any)


class NodeDef(NamedTuple):
    type: Any
    flatten_fn: Callable
    unflatten_fn: Callable
    flatten_with_keys_fn: Any = None


SUPPORTED_NODES: dict = {}
value("torch.utils._pytree.SUPPORTED_NODES", SUPPORTED_NODES)
_SERIALIZED_NAMES: dict = {}  # type -> serialized_type_name (kept for treespec users)


def _add_node(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn=None,
              serialized_type_name=None):
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
    _SERIALIZED_NAMES[cls] = serialized_type_name or f"{cls.__module__}.{cls.__qualname__}"


@torch_function("torch.utils._pytree.register_pytree_node")
def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None):
    """Register ``cls`` as a node: ``flatten_fn(x) -> (children, context)``,
    ``unflatten_fn(children, context) -> x``.  The dumpable-context hooks are only used by
    treespec serialization, which the facade does not provide."""
    if (to_dumpable_context is None) != (from_dumpable_context is None):
        raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} must "
                         "be None or registered.")
    _add_node(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn, serialized_type_name)


@torch_function("torch.utils._pytree._register_pytree_node")
def _register_pytree_node(cls, flatten_fn, unflatten_fn, to_str_fn=None, maybe_from_str_fn=None,
                          *, serialized_type_name=None, to_dumpable_context=None,
                          from_dumpable_context=None, flatten_with_keys_fn=None):
    # torch's deprecated spelling (the two string hooks are gone there too)
    warnings.warn("torch.utils._pytree._register_pytree_node is deprecated. Please use "
                  "torch.utils._pytree.register_pytree_node instead.", FutureWarning,
                  stacklevel=2)
    if to_str_fn is not None or maybe_from_str_fn is not None:
        warnings.warn("to_str_fn and maybe_from_str_fn is deprecated. Please use "
                      "to_dumpable_context and from_dumpable_context instead.", FutureWarning,
                      stacklevel=2)
    register_pytree_node(cls, flatten_fn, unflatten_fn,
                         serialized_type_name=serialized_type_name,
                         to_dumpable_context=to_dumpable_context,
                         from_dumpable_context=from_dumpable_context,
                         flatten_with_keys_fn=flatten_with_keys_fn)


# -- key paths (tree_flatten_with_path) ---------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


for _cls in (SequenceKey, MappingKey, GetAttrKey):
    _cls.__module__ = "torch.utils._pytree"
    type_(f"torch.utils._pytree.{_cls.__name__}", _cls)


@torch_function("torch.utils._pytree.keystr")
def keystr(kp) -> str:
    return "".join(str(k) for k in kp)


# -- namedtuples ---------------------------------------------------------------------------------
@torch_function("torch.utils._pytree.is_namedtuple_class")
def is_namedtuple_class(cls) -> bool:
    return (isinstance(cls, type) and issubclass(cls, tuple)
            and isinstance(getattr(cls, "_fields", None), tuple)
            and all(type(f) is str for f in cls._fields)
            and callable(getattr(cls, "_make", None)) and callable(getattr(cls, "_asdict", None)))


@torch_function("torch.utils._pytree.is_namedtuple_instance")
def is_namedtuple_instance(obj) -> bool:
    return is_namedtuple_class(type(obj))


@torch_function("torch.utils._pytree.is_namedtuple")
def is_namedtuple(obj) -> bool:
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


# -- the built-in node types (contexts as torch's: the keys, the namedtuple class...) ----------
def _seq_keys(d):
    return [(SequenceKey(i), v) for i, v in enumerate(d)]


@torch_function("torch.utils._pytree._dict_flatten")
def _dict_flatten(d):
    return list(d.values()), list(d.keys())


@torch_function("torch.utils._pytree._dict_unflatten")
def _dict_unflatten(values, context):
    return dict(zip(context, values))


@torch_function("torch.utils._pytree._dict_flatten_with_keys")
def _dict_flatten_with_keys(d):
    values, context = _dict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(context, values)], context


_add_node(tuple, lambda d: (list(d), None), lambda v, c: tuple(v),
          lambda d: (_seq_keys(d), None), "builtins.tuple")
_add_node(list, lambda d: (list(d), None), lambda v, c: list(v),
          lambda d: (_seq_keys(d), None), "builtins.list")
_add_node(dict, _dict_flatten, _dict_unflatten, _dict_flatten_with_keys, "builtins.dict")
_add_node(namedtuple, lambda d: (list(d), type(d)), lambda v, c: c(*v),
          lambda d: ([(GetAttrKey(f), v) for f, v in zip(d._fields, d)], type(d)),
          "collections.namedtuple")
_add_node(OrderedDict, lambda d: (list(d.values()), list(d.keys())),
          lambda v, c: OrderedDict(zip(c, v)),
          lambda d: ([(MappingKey(k), v) for k, v in d.items()], list(d.keys())),
          "collections.OrderedDict")
_add_node(defaultdict, lambda d: (list(d.values()), [d.default_factory, list(d.keys())]),
          lambda v, c: defaultdict(c[0], zip(c[1], v)),
          lambda d: ([(MappingKey(k), v) for k, v in d.items()],
                     [d.default_factory, list(d.keys())]),
          "collections.defaultdict")
_add_node(deque, lambda d: (list(d), d.maxlen), lambda v, c: deque(v, maxlen=c),
          lambda d: (_seq_keys(d), d.maxlen), "collections.deque")
_BUILTIN = frozenset(SUPPORTED_NODES)


def _node_type(tree):
    # every namedtuple class is a node under the one key `namedtuple` (as in torch)
    t = type(tree)
    return namedtuple if is_namedtuple_class(t) else t


@torch_function("torch.utils._pytree.tree_is_leaf")
def tree_is_leaf(tree, is_leaf=None) -> bool:
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) not in SUPPORTED_NODES


# -- TreeSpec -----------------------------------------------------------------------------------
class TreeSpec:
    """The structure of a pytree: the root's node type, its context and one spec per child
    (``type is None``: a leaf)."""
    __slots__ = ("type", "_context", "_children", "num_nodes", "num_leaves", "num_children")

    def __init__(self, type, context, children_specs):
        self.type, self._context, self._children = type, context, list(children_specs)
        if type is None:
            if context is not None:
                raise AssertionError("leaf node should not have a context")
            if self._children:
                raise AssertionError("leaf node should not have children")
            self.num_nodes = self.num_leaves = 1
        else:
            self.num_nodes = 1 + sum(c.num_nodes for c in self._children)
            self.num_leaves = sum(c.num_leaves for c in self._children)
        self.num_children = len(self._children)

    @property
    def context(self):
        return self._context

    @property
    def children_specs(self):
        return self._children

    def is_leaf(self) -> bool:
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self):
        return list(self._children)

    def child(self, index):
        return self._children[index]

    def __repr__(self, indent: int = 0) -> str:
        if self.type is None:
            return "*"
        inner = ""
        if self._children:
            indent += 2
            parts = [self._children[0].__repr__(indent)]
            parts += ["\n" + " " * indent + c.__repr__(indent) for c in self._children[1:]]
            inner = ",".join(parts)
        return f"TreeSpec({self.type.__name__}, {self._context}, [{inner}])"

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (str(self.type) == str(other.type) and self._context == other._context
                and self._children == other._children)

    def __hash__(self):
        ctx = self._context
        if self.type is defaultdict:
            ctx = (ctx[0], tuple(ctx[1]))
        elif self.type in (dict, OrderedDict):
            ctx = tuple(ctx)
        elif self.type is not None and self.type not in _BUILTIN:
            ctx = None  # a custom node's context need not be hashable
        return hash((self.type, ctx, tuple(self._children)))

    def flatten_up_to(self, tree):
        """The subtrees of ``tree`` at this spec's leaves (``tree`` has this spec as a
        prefix)."""
        out = []
        self._up_to(tree, out)
        return out

    def _up_to(self, node, out):
        if self.is_leaf():
            out.append(node)
            return
        node_type = _node_type(node)
        if self.type not in _BUILTIN:
            if node_type != self.type:
                raise ValueError(f"Type mismatch; expected {self.type!r}, but got "
                                 f"{node_type!r}.")
            children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
            if len(children) != self.num_children:
                raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got "
                                 f"{len(children)}.")
            if context != self._context:
                raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        else:
            both = {node_type, self.type}
            # dict, OrderedDict and defaultdict stand for one another; so do list and tuple
            if not (both <= {dict, OrderedDict, defaultdict} or both <= {list, tuple}
                    or node_type == self.type):
                raise ValueError(f"Node type mismatch; expected {self.type!r}, but got "
                                 f"{node_type!r}.")
            if node_type not in SUPPORTED_NODES:
                raise ValueError(f"Node type mismatch; expected {self.type!r}, but got "
                                 f"{node_type!r}.")
            if len(node) != self.num_children:
                raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got "
                                 f"{len(node)}.")
            if self.type in (dict, OrderedDict, defaultdict):
                keys = self._context[1] if self.type is defaultdict else self._context
                if set(node.keys()) != set(keys):
                    raise ValueError(f"Node keys mismatch; missing key(s): "
                                     f"{set(keys) - set(node.keys())}; extra key(s): "
                                     f"{set(node.keys()) - set(keys)}.")
                children = [node[k] for k in keys]
            else:
                if self.type is namedtuple and node_type is namedtuple \
                        and type(node) is not self._context:
                    raise ValueError(f"Node context mismatch for node type {self.type!r}; "
                                     f"expected {self._context!r}, but got {type(node)!r}.")
                children = list(node)
        for sub, spec in zip(children, self._children):
            spec._up_to(sub, out)

    def unflatten(self, leaves):
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
                             f"but the spec refers to a pytree that holds {self.num_leaves} "
                             f"items ({self}).")
        if self.is_leaf():
            return leaves[0]
        children, start = [], 0
        for spec in self._children:
            children.append(spec.unflatten(leaves[start:start + spec.num_leaves]))
            start += spec.num_leaves
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)


TreeSpec.__module__ = "torch.utils._pytree"
type_("torch.utils._pytree.TreeSpec", TreeSpec)


class LeafSpec(TreeSpec):
    """The spec of a leaf (``*``)."""
    __slots__ = ()

    def __init__(self):
        super().__init__(None, None, [])


LeafSpec.__module__ = "torch.utils._pytree"
type_("torch.utils._pytree.LeafSpec", LeafSpec)
_LEAF = LeafSpec()


# -- flatten / unflatten / map ------------------------------------------------------------------
@torch_function("torch.utils._pytree.tree_flatten")
def tree_flatten(tree, is_leaf=None):
    leaves = []

    def walk(node):
        if tree_is_leaf(node, is_leaf):
            leaves.append(node)
            return _LEAF
        children, context = SUPPORTED_NODES[_node_type(node)].flatten_fn(node)
        return TreeSpec(_node_type(node), context, [walk(c) for c in children])

    spec = walk(tree)
    return leaves, spec


@torch_function("torch.utils._pytree.tree_unflatten")
def tree_unflatten(leaves, treespec):
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance "
                        f"of TreeSpec but got item of type {type(treespec)}.")
    return treespec.unflatten(leaves)


@torch_function("torch.utils._pytree.tree_iter")
def tree_iter(tree, is_leaf=None):
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = SUPPORTED_NODES[_node_type(tree)].flatten_fn(tree)
    for child in children:
        yield from tree_iter(child, is_leaf)


@torch_function("torch.utils._pytree.tree_leaves")
def tree_leaves(tree, is_leaf=None):
    return list(tree_iter(tree, is_leaf))


@torch_function("torch.utils._pytree.tree_structure")
def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


@torch_function("torch.utils._pytree.tree_map")
def tree_map(func, tree, *rests, is_leaf=None):
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, *flat))


@torch_function("torch.utils._pytree.tree_map_")
def tree_map_(func, tree, *rests, is_leaf=None):
    """tree_map for its side effects; returns ``tree`` itself."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    for args in zip(*flat):
        func(*args)
    return tree


def _only(type_or_pred, func):
    if isinstance(type_or_pred, (type, tuple)):
        pred = lambda x: isinstance(x, type_or_pred)  # noqa: E731
    elif callable(type_or_pred):
        pred = type_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")
    return lambda x: func(x) if pred(x) else x


@torch_function("torch.utils._pytree.tree_map_only")
def tree_map_only(type_or_types_or_pred, func, tree, is_leaf=None):
    return tree_map(_only(type_or_types_or_pred, func), tree, is_leaf=is_leaf)


@torch_function("torch.utils._pytree.tree_all")
def tree_all(pred, tree, is_leaf=None) -> bool:
    return all(map(pred, tree_iter(tree, is_leaf)))


@torch_function("torch.utils._pytree.tree_any")
def tree_any(pred, tree, is_leaf=None) -> bool:
    return any(map(pred, tree_iter(tree, is_leaf)))


@torch_function("torch.utils._pytree.tree_flatten_with_path")
def tree_flatten_with_path(tree, is_leaf=None):
    """([(key path, leaf)...], spec); a custom node without ``flatten_with_keys_fn`` raises
    ValueError as in torch."""
    out = []

    def walk(node, path):
        if tree_is_leaf(node, is_leaf):
            out.append((path, node))
            return
        node_def = SUPPORTED_NODES[_node_type(node)]
        if node_def.flatten_with_keys_fn is None:
            raise ValueError(f"Did not find a flatten_with_keys_fn for type: {node_def.type}. "
                             "Please pass a flatten_with_keys_fn argument to "
                             "register_pytree_node.")
        pairs, _ = node_def.flatten_with_keys_fn(node)
        for k, child in pairs:
            walk(child, (*path, k))

    walk(tree, ())
    return out, tree_structure(tree, is_leaf)
