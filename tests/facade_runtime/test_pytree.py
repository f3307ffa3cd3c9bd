"""torch.utils._pytree (facade/pytree.py, written for the facade) against real torch's module:
flatten order and specs (repr, counts, equality), unflatten, tree_map with several trees,
registration of a custom node (as Hugging Face's ModelOutput does), key paths, and the errors."""
from __future__ import annotations

import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

TREES = '''
import collections
import torch
import torch.utils._pytree as pytree
NT = collections.namedtuple("NT", "a b")
def trees():
    return [
        {"a": [1, (2, None)], "b": collections.OrderedDict(x=3)},
        [NT(1, [2, 3]), collections.deque([4, 5], maxlen=3)],
        collections.defaultdict(int, k=(6, 7)),
        (), [None], 5, {"z": {}, "y": []},
    ]
'''


def test_flatten_unflatten_and_specs():
    check(TREES + '''
def f():
    out = []
    for t in trees():
        leaves, spec = pytree.tree_flatten(t)
        out.append((leaves, repr(spec).replace(__name__, "M"), spec.num_leaves, spec.num_nodes, spec.num_children,
                    spec.is_leaf(), pytree.tree_unflatten(leaves, spec) == t,
                    spec == pytree.tree_structure(t), pytree.tree_leaves(t),
                    list(pytree.tree_iter(t)), pytree.tree_is_leaf(t)))
    return out
''')


def test_tree_map_and_predicates():
    check(TREES + '''
def f():
    t = {"a": [1, 2], "b": (3, {"c": 4})}
    return (pytree.tree_map(lambda x: x * 10, t),
            pytree.tree_map(lambda x, y: x + y, [1, 2], [10, 20]),
            pytree.tree_map(lambda x, y: [x] + y, [5, 6], [[7, 9], [1, 2]]),
            pytree.tree_map_only(int, lambda x: -x, [1, "s", 2.5]),
            pytree.tree_all(lambda x: x > 0, t), pytree.tree_any(lambda x: x > 3, t),
            pytree.tree_leaves(t, is_leaf=lambda x: isinstance(x, tuple)))
''')


def test_tensors_as_leaves():
    check('''
import torch
import torch.utils._pytree as pytree
def f(x):
    return pytree.tree_map(lambda t: t * 2, {"x": x, "y": [x + 1]})
''', np.arange(4, dtype="float32"))


def test_register_custom_node_like_model_output():
    check('''
import torch
import torch.utils._pytree as pytree
class Out(dict):
    pass
def f():
    pytree.register_pytree_node(Out, lambda o: (list(o.values()), list(o.keys())),
                                lambda v, c: Out(zip(c, v)),
                                serialized_type_name="tests.Out")
    o = Out(logits=1, loss=2)
    leaves, spec = pytree.tree_flatten([o, 3])
    back = pytree.tree_unflatten([10, 20, 30], spec)
    try:
        pytree.register_pytree_node(Out, lambda o: ([], None), lambda v, c: Out())
    except ValueError as e:
        err = str(e).replace(Out.__module__, "M")
    return leaves, repr(spec), type(back[0]).__name__, dict(back[0]), back[1], err
''')


def test_key_paths():
    check('''
import collections
import torch
import torch.utils._pytree as pytree
NT = collections.namedtuple("NT", "a b")
def f():
    pairs, spec = pytree.tree_flatten_with_path({"a": [1, NT(2, 3)]})
    return [(pytree.keystr(p), v) for p, v in pairs], repr(spec).replace(__name__, "M")
''')


@pytest.mark.parametrize("case", [
    "pytree.tree_unflatten([1], pytree.tree_structure([1, 2]))",
    "pytree.tree_map(lambda x, y: x, [1, 2], [1, 2, 3])",
    "pytree.tree_map(lambda x, y: x, [1, 2], {'a': 1, 'b': 2})",
    "pytree.tree_map(lambda x, y: x, {'a': 1}, {'b': 1})",
])
def test_errors(case):
    check(f'''
import torch
import torch.utils._pytree as pytree
def f():
    return {case}
''')
