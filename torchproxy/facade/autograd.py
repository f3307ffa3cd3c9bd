"""torch's autograd API on Paddle's autograd.

- ``torch.autograd.Function``: every subclass gets a companion ``paddle.autograd.PyLayer``
  (built once, when the subclass is defined).  ``Function.apply`` runs it; the torch ``forward``
  and ``backward`` receive a :class:`FunctionCtx` with torch's ctx API.  The translation that
  matters: torch's ``backward`` returns one gradient per forward *input* (``None`` for
  non-tensors), Paddle's PyLayer wants one per *tensor* input -- the companion drops the rest.
- grad modes (``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``) switch
  Paddle's one grad flag (``paddle.base.dygraph.base._set_grad_enabled``, on 2.6 and 3.x).
"""
from __future__ import annotations

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch: autograd enable_grad inference_mode is_grad_enabled is_inference_mode_enabled no_grad
        set_grad_enabled
    torch.Tensor: backward detach_ grad grad_fn register_hook requires_grad requires_grad_
    torch.autograd: Function Variable backward enable_grad function grad inference_mode no_grad
        set_grad_enabled
    torch.autograd.function: Function FunctionCtx once_differentiable
""")

import functools
import inspect
import threading
import warnings
import weakref

import paddle
from paddle.autograd import PyLayer

from .. import paddle_shims as _shims
from ..errors import NotProvidedError
from ..paddle_shims import ZERO_SIZE_GRAD_CRASHES
from ..paddle_shims import empty_leaf_grad as _empty_leaf_grad
from ..paddle_shims import forget_empty_leaf_grad as _forget_empty_leaf_grad
from ..paddle_shims import set_grad_enabled as _set_grad_enabled
from .registry import module, torch_function, type_


module("torch.autograd")
module("torch.autograd.function")


# -- grad modes ---------------------------------------------------------------------------------
class _GradMode:
    """Base of the grad-mode context managers; also decorators, with or without parentheses
    (``@torch.no_grad`` and ``@torch.no_grad()``), as in torch 2.x."""

    _mode = None  # subclasses: the grad flag inside

    def __new__(cls, *args, **kwargs):
        if cls._bare_decorator_ok and len(args) == 1 and callable(args[0]) and not kwargs:
            # @torch.no_grad without parentheses: the argument is the function
            return cls()(args[0])
        return super().__new__(cls)

    _bare_decorator_ok = True

    def __enter__(self):
        self._prev = paddle.is_grad_enabled()
        _set_grad_enabled(self._mode)
        return None

    def __exit__(self, *exc):
        _set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        if inspect.isgeneratorfunction(fn):
            raise NotProvidedError(f"torch.{type(self).__name__} as a decorator of a generator "
                                   "function (put a `with` block inside the generator instead)")

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return type(self)()


class no_grad(_GradMode):
    _mode = False


class enable_grad(_GradMode):
    _mode = True


class inference_mode(_GradMode):
    """Paddle has no inference tensors: this is ``no_grad`` (mode=False: grad unchanged)."""

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return object.__new__(cls)

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __enter__(self):
        self._prev = paddle.is_grad_enabled()
        self._prev_inference = getattr(_inference, "on", False)
        if self.mode:
            _set_grad_enabled(False)
        _inference.on = self.mode

    def __exit__(self, *exc):
        _inference.on = self._prev_inference
        return super().__exit__(*exc)

    def clone(self):
        return type(self)(self.mode)


_inference = threading.local()  # inside inference_mode(True)? (torch.is_inference_mode_enabled)


class set_grad_enabled(_GradMode):
    """Sets the mode at construction (a plain call works), restores it on ``__exit__``."""

    _bare_decorator_ok = False

    def __init__(self, mode: bool):
        self._prev = paddle.is_grad_enabled()
        self.mode = bool(mode)
        _set_grad_enabled(self.mode)

    def __enter__(self):
        return None

    def __call__(self, fn):
        # as a decorator the mode applies inside the function only: undo the constructor's
        # switch now, as torch does
        _set_grad_enabled(self._prev)
        return super().__call__(fn)

    def clone(self):
        return type(self)(self.mode)


for _name, _cls in (("no_grad", no_grad), ("enable_grad", enable_grad),
                    ("inference_mode", inference_mode), ("set_grad_enabled", set_grad_enabled)):
    type_(f"torch.{_name}", _cls,
          note="Paddle has no inference tensors: grad recording off" if _name == "inference_mode" else "")
    type_(f"torch.autograd.{_name}", _cls)


@torch_function("torch.is_grad_enabled")
def is_grad_enabled() -> bool:
    return bool(paddle.is_grad_enabled())


@torch_function("torch.is_inference_mode_enabled",
                note="True inside torch.inference_mode() (which is grad-off on Paddle)")
def is_inference_mode_enabled() -> bool:
    return bool(getattr(_inference, "on", False))


# -- errors raised inside a Function's backward -------------------------------------------------
_pending = threading.local()


_FREED_GRAPH = ("Trying to backward through the graph a second time (or directly access saved "
                "tensors after they have already been freed). Saved intermediate values of the "
                "graph are freed when you call .backward() or autograd.grad(). Specify "
                "retain_graph=True if you need to backward through the graph a second time or if "
                "you need to access saved tensors after calling backward.")


# Paddle runs a PyLayer's node once: its backward() releases the node's context whatever
# retain_graph says (torch.autograd.grad runs copies of the nodes and leaves them whole), and
# the next backward or grad through that node segfaults (docs/memory-model.md, Paddle bug 13;
# the facade's views (expand, strided views) and torch.autograd.Function are PyLayers).  After
# a backward(retain_graph=True) the facade remembers the PyLayer nodes it ran, and refuses a
# later backward or grad that reaches one of them instead of crashing.  node_ptr() ->
# a weak reference to a tensor the backward started from: while it lives, so does its graph,
# so the address still names that node.
_SPENT_PYLAYERS: dict = {}


def _pylayer_nodes(roots):
    """Addresses of the PyLayer nodes in the graphs of ``roots``."""
    stack = [t.grad_fn for t in roots if isinstance(t, paddle.Tensor) and not t.stop_gradient
             and t.grad_fn is not None]  # Paddle's grad_fn (inside torchproxy)
    seen, found = set(), []
    while stack:
        node = stack.pop()
        if node is None:
            continue
        ptr = node.node_ptr()
        if ptr in seen:
            continue
        seen.add(ptr)
        if node.name().startswith("GradNodePyLayer"):
            found.append(ptr)
        stack.extend(node.next_functions)
    return found


def _refuse_spent_pylayers(roots):
    for ptr, ref in list(_SPENT_PYLAYERS.items()):
        if ref() is None:
            del _SPENT_PYLAYERS[ptr]
    if not _SPENT_PYLAYERS:
        return
    if any(ptr in _SPENT_PYLAYERS for ptr in _pylayer_nodes(roots)):
        raise RuntimeError(
            "torchproxy: a second backward through a graph that backward(retain_graph=True) "
            f"already ran is not provided where it passes a PyLayer (Paddle {_shims.VERSION} "
            "crashes there: a PyLayer node runs once; the facade's expand/strided views and "
            "torch.autograd.Function are PyLayers); compute the gradients in one backward, or "
            "use torch.autograd.grad for the earlier ones")


def _run_backward(fn, *args, **kwargs):
    """Run a Paddle backward; if a torch Function's backward raised, re-raise that error."""
    from .autograd_anomaly import refuse_nan_checked_backward  # (an area loaded after this)
    refuse_nan_checked_backward("a backward (torch.autograd.backward / grad, Tensor.backward)")
    own = getattr(fn, "__self__", None)
    roots = [own] if isinstance(own, paddle.Tensor) else list(args[0])
    _refuse_spent_pylayers(roots)
    retained = fn is not paddle.grad and bool(kwargs.get("retain_graph", args[2] if len(args) > 2
                                                          else False))
    _pending.error = None
    if _ASSIGNED_GRADS:
        _sync_assigned_grads()
    # after the sync: an assigned .grad written since (p.grad.add_) is the value to keep
    frozen = _snapshot_frozen() if _FROZEN and fn is not paddle.grad else None
    try:
        try:
            result = fn(*args, **kwargs)
        except SystemError as e:
            # Paddle's "(Fatal) The TensorWrappers of <node> do not exist": a second backward
            # through a graph whose saved tensors the first one freed; torch's error for it
            if "TensorWrappers" not in str(e):
                raise
            raise RuntimeError(_FREED_GRAPH) from e
        except RuntimeError as e:
            # Paddle's version check of saved tensors, in torch's words (Paddle's details kept:
            # it names no tensor or op as torch does)
            text = str(e)
            if "(PermissionDenied)" not in text or "modified by an inplace operation" not in text:
                raise
            raise RuntimeError("one of the variables needed for gradient computation has been "
                               "modified by an inplace operation: (Paddle: "
                               f"{text.strip().splitlines()[0]})") from e
        finally:
            if frozen:
                _restore_frozen(frozen)
            if _RETAINED:  # what reached a retained tensor before an error counts, as in torch
                _accumulate_retained(fn is not paddle.grad)
        if _ASSIGNED_GRADS:
            _write_back_assigned_grads()
        if retained and roots:
            ref = weakref.ref(roots[0])
            for ptr in _pylayer_nodes(roots):
                _SPENT_PYLAYERS[ptr] = ref
        return result
    except Exception:
        err, _pending.error = getattr(_pending, "error", None), None
        if err is not None:
            raise err.with_traceback(err.__traceback__) from None
        raise


# -- torch.autograd.grad / backward -------------------------------------------------------------
def _check_differentiable(tensors):
    """torch refuses a backward from a tensor outside the graph (``x.detach().sum()``, a
    no_grad result); Paddle runs it and leaves every .grad as it was."""
    for i, t in enumerate(tensors):
        if isinstance(t, paddle.Tensor) and t.stop_gradient:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")


def _as_list(x):
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


@torch_function("torch.autograd.grad")
def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    if is_grads_batched:
        raise NotProvidedError("torch.autograd.grad(is_grads_batched=True) (call "
                               "torch.autograd.grad once per row of grad_outputs instead)")
    if allow_unused is None:
        allow_unused = materialize_grads
    inputs_l = _as_list(inputs)
    # torch's checks, outputs first (Paddle raises other errors, or none)
    _check_differentiable(_as_list(outputs))
    if any(isinstance(x, paddle.Tensor) and x.stop_gradient for x in inputs_l):
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    try:
        grads = _run_backward(paddle.grad, _as_list(outputs), inputs_l,
                              grad_outputs=_as_list(grad_outputs), retain_graph=retain_graph,
                              create_graph=create_graph, allow_unused=True)
    except RuntimeError as e:
        op = _shims.missing_double_grad(e)
        if op is None:
            raise
        # the graph passes through an op whose gradient Paddle cannot differentiate again (found
        # while recording it, or while differentiating the recorded graph)
        raise NotProvidedError(f"torch.autograd.grad(create_graph=True) through {op} (Paddle "
                               f"{_shims.VERSION} has no higher-order gradient for {op})") \
            from e
    out = []
    for i, (g, x) in enumerate(zip(grads, inputs_l)):
        if _LEAF_HOOKS and x.is_leaf:
            g = _apply_leaf_hooks(x, g)
        if g is None:
            if not allow_unused:
                # torch's message; Paddle raises a different one (or none) per version
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is "
                                   "the desired behavior.")
            if materialize_grads:
                g = paddle.zeros_like(x)
        out.append(g)
    return tuple(out)


def _no_create_graph(what, create_graph):
    if create_graph:
        # Paddle's backward has no create_graph, and a leaf's .grad here never requires grad
        raise NotProvidedError(f"{what}(create_graph=True) (use torch.autograd.grad(..., "
                               "create_graph=True))")


def _backward_into(outputs, grads, inputs, retain_graph):
    """backward(inputs=...): gradients accumulate into the listed tensors' .grad only (leaves
    or not), as torch's; computed with paddle.grad, which leaves every other .grad alone."""
    inputs = _as_list(inputs)
    if not inputs:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    if any(x.stop_gradient for x in inputs):
        # torch retains the gradient of each input (leaf or not): refused for one that does
        # not require grad (Paddle returns None for it)
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if any(not x.is_leaf for x in inputs):
        # Paddle sets .grad on leaves only
        raise NotProvidedError("torch.Tensor.backward(inputs=) with a non-leaf tensor in inputs")
    gs = _run_backward(paddle.grad, outputs, inputs, grad_outputs=grads,
                       retain_graph=bool(retain_graph), create_graph=False, allow_unused=True)
    for x, g in zip(inputs, gs):
        if _LEAF_HOOKS:  # paddle.grad returns a leaf's gradient without its hooks
            g = _apply_leaf_hooks(x, g)
        if g is None:
            continue
        g = g.detach()
        cur = x.grad  # Paddle's (inside torchproxy)
        x.grad = g if cur is None else cur + g
    if _ASSIGNED_GRADS:
        _write_back_assigned_grads()


@torch_function("torch.autograd.backward", note="create_graph=True is not provided; inputs=: "
                 "leaf tensors only, and retain_grad() tensors on the way keep their .grad")
def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    _no_create_graph("torch.autograd.backward", create_graph)
    _check_differentiable(_as_list(tensors))
    if inputs is not None:
        return _backward_into(_as_list(tensors), _as_list(grad_tensors), inputs, retain_graph)
    _run_backward(paddle.autograd.backward, _as_list(tensors), _as_list(grad_tensors),
                  bool(retain_graph))


# -- torch.autograd.Function on PyLayer ---------------------------------------------------------
class FunctionCtx:
    """The ``ctx`` torch code sees.  Arbitrary attributes live here; the Paddle context it
    wraps does the bookkeeping Paddle needs (non-differentiable outputs, grad materialising)."""

    def __init__(self, pctx, needs_input_grad):
        self._pctx = pctx
        self._saved = ()
        self.needs_input_grad = needs_input_grad
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        # kept here (None entries allowed, as in torch); Paddle's save_for_backward would
        # reject None on some versions
        self._saved = tensors

    @property
    def saved_tensors(self):
        return tuple(self._saved)

    def mark_non_differentiable(self, *tensors):
        self._pctx.mark_non_differentiable(*tensors)

    def set_materialize_grads(self, value: bool):
        self.materialize_grads = bool(value)
        self._pctx.set_materialize_grads(bool(value))

    def mark_dirty(self, *tensors):
        raise NotProvidedError("torch.autograd.function.FunctionCtx.mark_dirty (an in-place "
                               "autograd.Function: Paddle's PyLayer has no counterpart; return a "
                               "new tensor from forward instead)")


type_("torch.autograd.function.FunctionCtx", FunctionCtx)


def _is_tensor(x) -> bool:
    return isinstance(x, paddle.Tensor)


_Tensor = paddle.Tensor
_CONTAINERS = (list, tuple, dict)  # what Function.apply hides from Paddle (_Opaque)


def _base(t):
    """The address of ``t``'s allocation (None for Paddle 2.6's 0-element tensors, which have
    none)."""
    p = t.data_ptr()
    return None if p is None else p - _shims.byte_offset(t)


def _fresh(out, args, positions):
    """out, or a copy of it when it is one of the tensor inputs (args[positions]) or a view of
    one's memory (Liger's rope kernel writes into ``q.transpose(1, 2).contiguous()``, which
    is ``q``'s memory when the transpose moves only size-1 dims, and returns its transpose:
    Paddle's run_partial_grad then failed with "Invalid slot_id for GradTensorHolder::add()")."""
    if isinstance(out, _Tensor):
        base = None
        for i in positions:
            a = args[i]
            if a is out:
                return paddle.assign(out)
            if base is None:
                base = _base(out)
                if base is None:
                    return out
            if _base(a) == base:
                return paddle.assign(out)
    return out


class _FunctionMeta(type):
    def __init__(cls, name, bases, ns):
        super().__init__(name, bases, ns)
        if bases and ("forward" in ns or "backward" in ns):
            cls._pylayer = _companion_pylayer(cls)


class _Opaque:
    """Hides a container argument from Paddle: PyLayer counts tensors inside lists as inputs
    that need gradients; torch's Function does not look into containers."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _companion_pylayer(torch_cls):
    has_setup_context = getattr(torch_cls, "setup_context", None) is not Function.setup_context

    def forward(pctx, *args):
        # every launch of a kernel wrapped in a Function runs this: one pass over the
        # arguments, no per-argument helper calls (issue 26, sixth round)
        needs, positions, opaque = [], [], False
        for i, a in enumerate(args):
            if isinstance(a, _Tensor):
                needs.append(not a.stop_gradient)
                positions.append(i)
            else:
                opaque = opaque or type(a) is _Opaque
                needs.append(False)
        if opaque:
            args = tuple(a.value if type(a) is _Opaque else a for a in args)
        ctx = FunctionCtx(pctx, tuple(needs))
        pctx._torch_ctx = ctx
        pctx._tensor_positions = positions = tuple(positions)
        # read by backward only, which Paddle runs only when an input needs a gradient
        pctx._input_dtypes = (tuple(args[i].dtype for i in positions) if True in needs
                              else None)
        if has_setup_context:
            out = torch_cls.forward(*args)
            torch_cls.setup_context(ctx, args, out)
        else:
            out = torch_cls.forward(ctx, *args)
        # Paddle treats an input returned as output as an in-place op (and refuses it for
        # leaves, also when the output merely shares the input's memory); torch returns an
        # alias.  A copy is the closest Paddle accepts: same values and gradients, but a
        # later in-place write to the output does not reach the input.
        if isinstance(out, tuple):
            # torch's backward gets one gradient per output, None for non-tensor ones;
            # Paddle's gets them for tensor outputs only: remember where those were
            pctx._out_layout = (len(out), tuple(i for i, o in enumerate(out) if _is_tensor(o)))
            return tuple(_fresh(o, args, positions) for o in out)
        pctx._out_layout = None
        return _fresh(out, args, positions)

    def backward(pctx, *grads):
        try:
            return _backward(pctx, grads)
        except BaseException as e:
            # Paddle re-raises errors of a PyLayer backward as OSError("(External) ...");
            # keep the original so the torch-facing entry points re-raise it as torch would
            _pending.error = e
            raise

    def _backward(pctx, grads):
        ctx = pctx._torch_ctx
        layout = pctx._out_layout
        if layout is not None and len(grads) != layout[0]:
            full = [None] * layout[0]
            for g, i in zip(grads, layout[1]):
                full[i] = g
            grads = tuple(full)
        result = torch_cls.backward(ctx, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n_inputs = len(ctx.needs_input_grad)
        if len(result) < n_inputs:
            raise RuntimeError(f"function {torch_cls.__name__}Backward returned an incorrect "
                               f"number of gradients (expected {n_inputs}, got {len(result)})")
        # torch allows extra trailing Nones; anything else past the inputs is an error there too
        if any(g is not None for g in result[n_inputs:]):
            raise RuntimeError(f"function {torch_cls.__name__}Backward returned an incorrect "
                               f"number of gradients (expected {n_inputs}, got {len(result)})")
        # torch ignores a gradient returned for an input that does not require one (Liger's
        # kernels return them); Paddle's PyLayer refuses anything but None there
        needs = ctx.needs_input_grad
        picked = tuple(result[i] if needs[i] else None for i in pctx._tensor_positions)
        # torch casts a gradient to its input's dtype (validate_outputs: a float32 gradient
        # for a bfloat16 input, as under autocast); Paddle 2.6 reads it as the input's dtype
        dtypes = pctx._input_dtypes
        if dtypes is not None:  # None: no input needed a gradient at forward time
            picked = tuple(g.astype(dt) if _is_tensor(g) and g.dtype != dt else g
                           for g, dt in zip(picked, dtypes))
        return picked[0] if len(picked) == 1 else picked

    return type(f"{torch_cls.__name__}_PyLayer", (PyLayer,),
                {"forward": staticmethod(forward), "backward": staticmethod(backward),
                 "__module__": torch_cls.__module__})


class Function(metaclass=_FunctionMeta):
    """torch.autograd.Function: define ``forward(ctx, ...)`` and ``backward(ctx, *grads)`` as
    staticmethods (or ``forward(...)`` plus ``setup_context(ctx, inputs, output)``)."""

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        if kwargs:  # torch binds keyword arguments to forward's positional parameters
            sig = inspect.signature(cls.forward)
            params = list(sig.parameters.values())
            if cls.setup_context is Function.setup_context:
                params = params[1:]  # old style forward(ctx, ...): drop ctx
            bound = inspect.Signature(params).bind(*args, **kwargs)
            bound.apply_defaults()
            args = bound.args
        pylayer = cls.__dict__.get("_pylayer") or getattr(cls, "_pylayer", None)
        if pylayer is None:
            raise RuntimeError(f"{cls.__name__} defines no forward/backward")
        for a in args:  # rebuilt only when a container is there to hide
            if isinstance(a, _CONTAINERS):
                args = tuple(_Opaque(a) if isinstance(a, _CONTAINERS) else a for a in args)
                break
        return pylayer.apply(*args)


type_("torch.autograd.Function", Function,
      note="on paddle.autograd.PyLayer; ctx: save_for_backward, saved_tensors, needs_input_grad, "
           "mark_non_differentiable, set_materialize_grads, attributes")
type_("torch.autograd.function.Function", Function)


class _DelayedError(PyLayer):
    """torch's ``_functions.DelayedError``: passes its inputs through; differentiating it
    raises (the second backward through a ``@once_differentiable`` backward)."""

    @staticmethod
    def forward(ctx, *xs):
        return tuple(paddle.assign(x) if x is not None else None for x in xs)

    @staticmethod
    def backward(ctx, *grads):
        err = RuntimeError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable")
        _pending.error = err  # Paddle re-raises it as OSError; _run_backward restores it
        raise err


@torch_function("torch.autograd.function.once_differentiable")
def once_differentiable(fn):
    """Decorator for a ``Function.backward``: torch's: the backward runs with grad off; when
    grad is on (``create_graph=True``) and an argument requires grad, the outputs are marked
    so that differentiating them again raises torch's RuntimeError."""
    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        prev = paddle.is_grad_enabled()
        _set_grad_enabled(False)
        try:
            outputs = fn(ctx, *args, **kwargs)
        finally:
            _set_grad_enabled(prev)
        if not prev:
            return outputs
        if not any(_is_tensor(a) and not a.stop_gradient for a in args):
            return outputs
        outs = outputs if isinstance(outputs, tuple) else (outputs,)

        def fake_requires_grad(v):
            if v is not None:
                v = v.detach()
                v.stop_gradient = False
            return v
        wrapped = _DelayedError.apply(*[fake_requires_grad(v) for v in outs])
        if not isinstance(wrapped, (tuple, list)):
            wrapped = (wrapped,)
        wrapped = tuple(wrapped)
        return wrapped if isinstance(outputs, tuple) else wrapped[0]
    return wrapper


# -- the Tensor side of autograd: requires_grad (Paddle: stop_gradient) -----------------------
from .registry import tensor_method  # noqa: E402


def _get_requires_grad(self) -> bool:
    return not self.stop_gradient


# Leaves whose requires_grad was turned off after a graph recorded them: torch's backward
# leaves their .grad alone (AccumulateGrad skips a leaf that no longer requires grad), Paddle's
# accumulates into it.  id(leaf) -> a weak reference; a backward snapshots their gradients and
# puts them back (_run_backward).
_FROZEN: dict = {}


def _set_requires_grad(self, flag) -> None:
    flag = bool(flag)
    if not flag and not self.is_leaf:  # (Paddle would cut the graph at a computed tensor)
        raise RuntimeError("you can only change requires_grad flags of leaf variables. If you "
                           "want to use a computed variable in a subgraph that doesn't require "
                           "differentiation use var_no_grad = var.detach().")
    if self.is_leaf:
        key = id(self)
        if not flag and not self.stop_gradient:
            _FROZEN[key] = weakref.ref(self, lambda _r, d=_FROZEN: d.pop(key, None))
        elif flag:
            _FROZEN.pop(key, None)
    self.stop_gradient = not flag


def _snapshot_frozen():
    """[(leaf, a copy of its Paddle gradient or None)] for the leaves turned off."""
    out = []
    for ref in list(_FROZEN.values()):
        leaf = ref()
        if leaf is None or not leaf.stop_gradient:
            continue
        g = leaf.grad  # Paddle's (inside torchproxy)
        out.append((leaf, None if g is None else paddle.assign(g.detach())))
    return out


def _restore_frozen(frozen):
    for leaf, before in frozen:
        g = leaf.grad  # Paddle's
        if g is None:
            continue
        if before is None:
            leaf.clear_gradient(False)
        else:
            with paddle.no_grad():
                paddle.assign(before, output=g.detach())  # in place: x.grad keeps its identity


# the property is complete (getter and setter) before it is registered
tensor_method("requires_grad")(property(_get_requires_grad, _set_requires_grad))


@tensor_method("detach_", note="torch's refusal for views in the autograd graph")
def detach_(self):
    if not self.stop_gradient and _shims.autograd_view_root(self) is not None:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead. If you are using "
            "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
            "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
            "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
            "function in torch/optim/optimizer.py as the solution.")
    return self.detach_()  # Paddle's (inside torchproxy)


# Hooks registered on leaves through the facade, in order: torch.autograd.grad applies them to
# the gradients it returns for those leaves (torch runs a tensor's hooks before capturing its
# gradient); paddle.grad returns a leaf's gradient without its hooks.  id(leaf) -> [a weak
# reference to the leaf, [hook handle, ...]]
_LEAF_HOOKS: dict = {}


class _HookHandle:
    """torch's RemovableHandle over Paddle's: remove() also drops the hook from _LEAF_HOOKS."""

    def __init__(self, handle, hook):
        self._handle, self.hook, self.removed = handle, hook, False

    def remove(self):
        if not self.removed:
            self.removed = True
            self._handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


@tensor_method("register_hook", note="Paddle's hook; torch's checks, a retained non-leaf's "
                                     ".grad is taken after it, torch.autograd.grad applies a "
                                     "leaf's hooks")
def register_hook(self, hook):
    if self.stop_gradient:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    handle = _HookHandle(self.register_hook(hook), hook)  # Paddle's (inside torchproxy)
    if self.is_leaf:
        key = id(self)
        entry = _LEAF_HOOKS.get(key)
        if entry is None or entry[0]() is not self:
            entry = _LEAF_HOOKS[key] = [weakref.ref(self, lambda _r, d=_LEAF_HOOKS: d.pop(key, None)),
                                        []]
        entry[1].append(handle)
    else:
        keep_capture_last(self)
    return handle


def _apply_leaf_hooks(x, g):
    entry = _LEAF_HOOKS.get(id(x))
    if entry is None or entry[0]() is not x or g is None:
        return g
    for handle in entry[1]:
        if not handle.removed:
            out = handle.hook(g)
            g = g if out is None else out
    return g


@tensor_method("requires_grad_")
def requires_grad_(self, requires_grad: bool = True):
    _set_requires_grad(self, requires_grad)
    return self


@tensor_method("backward", note="see torch.autograd.backward")
def tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    _no_create_graph("torch.Tensor.backward", create_graph)
    _check_differentiable([self])
    if gradient is None:
        n = 1
        for d in self.shape:
            n *= d
        if n != 1:  # Paddle would silently use ones; torch refuses
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        if self.is_complex():  # so does torch for a complex loss (Paddle: a gradient of 1)
            from .dtypes import torch_name
            raise RuntimeError("grad can be implicitly created only for real scalar outputs but "
                               f"got torch.{torch_name(self.dtype)}")
    if inputs is not None:
        return _backward_into([self], None if gradient is None else [gradient], inputs,
                              retain_graph)
    # inside torchproxy, self.backward is Paddle's own method
    _run_backward(self.backward, gradient, retain_graph=bool(retain_graph))


# A non-leaf's retained gradient (retain_grad()) accumulates over backward calls in torch
# (``grad = grad + new``, a new tensor each time) and is the gradient after the tensor's hooks;
# Paddle's retain_grads hook replaces it with the newest gradient, taken before the hooks.  The
# facade keeps the torch value itself, from a Paddle hook of its own that it keeps last
# (register_hook below moves it behind each new hook): id(tensor) -> [a weak reference to the
# tensor, that hook's handle, the accumulated gradient or None, the gradient the running
# backward delivered or None].  It stays with the tensor through detach_() (torch keeps .grad
# there too).
_RETAINED: dict = {}


def _capture_hook(key):
    def capture(g):
        entry = _RETAINED.get(key)
        if entry is not None:
            entry[3] = g.detach()
        return None  # the gradient flows on unchanged
    return capture


def track_retained(t) -> None:
    """Called by Tensor.retain_grad for a non-leaf."""
    key = id(t)
    if _retained_entry(t) is not None:
        return
    _RETAINED[key] = [weakref.ref(t, lambda _r, d=_RETAINED: d.pop(key, None)), None, None, None]
    _RETAINED[key][1] = t.register_hook(_capture_hook(key))  # Paddle's


def keep_capture_last(t) -> None:
    """After a hook was registered on ``t``: its retained gradient is taken after it."""
    entry = _retained_entry(t) if _RETAINED else None
    if entry is not None:
        entry[1].remove()
        entry[1] = t.register_hook(_capture_hook(id(t)))


def _retained_entry(t):
    entry = _RETAINED.get(id(t))
    return entry if entry is not None and entry[0]() is t else None


def _accumulate_retained(accumulate: bool) -> None:
    """After a backward: add what each retained non-leaf received to its torch .grad
    (``accumulate`` False after torch.autograd.grad, which leaves every .grad alone)."""
    for entry in list(_RETAINED.values()):
        new, entry[3] = entry[3], None
        if new is None or not accumulate:
            continue
        entry[2] = paddle.assign(new) if entry[2] is None else entry[2] + new


def _get_grad(self):
    """``self.grad`` as torch has it (the Tensor property's getter).  Facade code reads a
    gradient through this (``grad_of``), never through ``p.grad``: inside torchproxy that is
    Paddle's own property, which holds a copy of a tensor assigned to ``.grad``."""
    if _RETAINED:
        entry = _retained_entry(self)
        if entry is not None:
            return entry[2]
    assigned = _assigned_grad(self) if _ASSIGNED_GRADS else None
    if assigned is not None:
        return assigned
    g = self.grad  # Paddle's (inside torchproxy)
    if g is None:
        # Paddle 2.6 keeps an empty leaf's gradient None (paddle_shims.empty_leaf_grad)
        return _empty_leaf_grad(self) if ZERO_SIZE_GRAD_CRASHES and 0 in self.shape else None
    if g.stop_gradient:
        return g
    # Paddle's grad tensor records stop_gradient=False; torch's .grad never requires grad.
    # detach() shares the memory, so in-place updates (x.grad.zero_()) reach the real grad.
    return g.detach()


# Facade code reads a gradient and uses it at once (optimizers, clipping): the detached alias.
grad_of = _get_grad

# What ``x.grad`` hands the user must outlive the leaf's gradient, as torch's does: torch's
# ``p.grad = None`` / ``zero_grad()`` / ``p.grad = other`` detach the old gradient tensor from
# the leaf, and whoever holds it keeps its values.  Paddle's detach() shares the gradient's
# DenseTensor object itself, and Paddle releases a gradient by resetting that object's memory
# (clear_gradient(False)) and assigns one by copying into it: a held x.grad then became an
# uninitialised tensor (Paddle 3.3) or read freed memory (Paddle 2.6), or took the new values.
# A view is its own DenseTensor on the same allocation: in-place updates still reach the real
# gradient both ways (g.zero_(), backward's accumulation), and a release leaves it whole.  The
# view is remembered weakly per leaf, so ``p.grad is p.grad`` holds while anyone holds it, as
# torch keeps one Python object per gradient.
# id(leaf) -> (a weak reference to the leaf, a weak reference to the view it was handed)
_GRAD_VIEWS: dict = {}


def _user_grad(self):
    """``x.grad``'s getter: a view of Paddle's gradient (above), the same object while held."""
    g = _get_grad(self)
    if g is None or (_ASSIGNED_GRADS and g is _assigned_grad(self)) or 0 in g.shape:
        # none, the tensor the user assigned (theirs, as it is), or no memory to outlive
        # (Paddle's view refuses 0 elements)
        return g
    if not g.is_contiguous():
        # a leaf's first gradient is the tensor backward produced, strided when the last op
        # was a view's gradient (transpose): Paddle accumulates the next backward into a
        # strided gradient out of place (a new allocation), so a held x.grad would keep the
        # old values and stop being x.grad; torch accumulates in place.  Made contiguous in
        # place (g shares the leaf's DenseTensor), later backwards accumulate into it.
        with paddle.no_grad():
            paddle.assign(g.contiguous(), output=g)
    key = id(self)
    entry = _GRAD_VIEWS.get(key)
    if entry is not None and entry[0]() is self:
        v = entry[1]()
        # the same allocation, shape and dtype: the gradient it viewed is the current one (an
        # allocation a live view holds cannot be reused by a new gradient)
        if v is not None and v.data_ptr() == g.data_ptr() and v.shape == g.shape \
                and v.dtype == g.dtype:
            return v
    v = g.view(g.shape)
    _GRAD_VIEWS[key] = (weakref.ref(self, lambda _ref: _GRAD_VIEWS.pop(key, None)),
                        weakref.ref(v))
    return v


# torch's backward accumulates into a leaf's existing .grad in place (AccumulateGrad without
# create_graph: ``grad += new``), so a .grad the caller assigned -- a view into a buffer of
# theirs, as Liger's tiled MLP does (x_shard.grad = x_grad.narrow(...)) -- receives the
# gradient.  Paddle's setter copies the tensor, and its backward gives the leaf a new one.  The
# facade keeps each tensor assigned to a .grad (weakly, per leaf): ``x.grad`` returns it (the
# same object, as torch), a backward starts from its current value (the caller may have written
# into it since) and writes the leaf's accumulated gradient back into it in place.
# id(leaf) -> (a weak reference to the leaf, the tensor assigned to its .grad); keyed by id, as
# a WeakKeyDictionary would compare tensors with == (elementwise) on a hash collision
_ASSIGNED_GRADS: dict = {}


def _assigned_items():
    for key, (ref, assigned) in list(_ASSIGNED_GRADS.items()):
        leaf = ref()
        if leaf is not None and _still_assigned(key, leaf):
            yield leaf, assigned


def _still_assigned(key, leaf) -> bool:
    # Paddle holds a copy of the assigned tensor from the assignment on (the setter, and each
    # backward's write-back), so a leaf whose Paddle gradient is None was cleared by a path
    # other than the facade's setter (Paddle's clear_gradient from Paddle code): torch's .grad
    # is None then, and the next backward must not start from the forgotten tensor's values
    if leaf.grad is None:  # Paddle's (inside torchproxy)
        _ASSIGNED_GRADS.pop(key, None)
        return False
    return True


def _assigned_grad(leaf):
    key = id(leaf)
    entry = _ASSIGNED_GRADS.get(key)
    if entry is None or entry[0]() is not leaf or not _still_assigned(key, leaf):
        return None
    return entry[1]


def clear_grad(p, set_to_none: bool) -> None:
    """``zero_grad`` of optimizers and modules for one parameter, as torch's: set_to_none
    forgets the gradient (an assigned one too); otherwise it is zeroed in place (an assigned
    tensor, a view into the caller's buffer, is zeroed with it)."""
    if set_to_none:
        _ASSIGNED_GRADS.pop(id(p), None)
        p.clear_gradient(False)
        return
    assigned = _assigned_grad(p) if _ASSIGNED_GRADS else None
    if assigned is not None:
        with paddle.no_grad():
            paddle.assign(paddle.zeros_like(assigned), output=assigned)  # through views
            if not assigned.stop_gradient:  # torch: zero_grad detaches a gradient that
                assigned.stop_gradient = True  # requires grad (requires_grad_(False))
    g = p.grad  # Paddle's: shares the leaf's DenseTensor
    if g is not None:
        # zeroed in place, not with clear_gradient(True): that marks Paddle's accumulation
        # node "fake empty", and the next backward then replaces the gradient instead of adding
        # to it, losing whatever was written into it since (p.grad.add_(...), p.grad = t)
        with paddle.no_grad():
            g.detach().zero_()


def _assign_grad(leaf, value):
    key = id(leaf)
    _ASSIGNED_GRADS[key] = (weakref.ref(leaf, lambda _ref: _ASSIGNED_GRADS.pop(key, None)),
                            value)


def _sync_assigned_grads():
    for leaf, assigned in _assigned_items():
        leaf.grad = assigned  # Paddle's setter (a copy of its current value)


def _write_back_assigned_grads():
    for leaf, assigned in _assigned_items():
        g = leaf.grad  # Paddle's
        if g is None:
            continue
        with paddle.no_grad():
            paddle.assign(g.detach(), output=assigned)  # through views, as copy_
        leaf.grad = assigned  # Paddle's setter


_CPP_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half",
             "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int"}
_SCALAR_TYPE = {"float32": "Float", "float64": "Double", "float16": "Half",
                "bfloat16": "BFloat16", "int64": "Long", "int32": "Int"}


def _check_grad_assignment(leaf, value):
    """torch's checks of ``x.grad = value`` (Paddle's setter copies any shape in, or
    broadcasts)."""
    if not isinstance(value, paddle.Tensor):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                        f"{type(value).__name__}")
    if value is leaf:
        raise RuntimeError("can't assign Variable as its own grad")
    if value.dtype != leaf.dtype:
        from .dtypes import torch_name
        # torch names the gradient's dtype by its C++ type and the tensor's by ScalarType
        cpp, scalar = _CPP_TYPE.get(torch_name(value.dtype)), _SCALAR_TYPE.get(
            torch_name(leaf.dtype))
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{cpp or torch_name(value.dtype)}' to a "
            f"tensor with grad_dtype '{scalar or torch_name(leaf.dtype)}'. The gradient must "
            "match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
            "tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. "
            "Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may "
            "break downstream systems that assume they match.")
    if list(value.shape) != list(leaf.shape):
        raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' to a "
                           f"tensor of size '{list(leaf.shape)}'. Please ensure that the "
                           "gradient and the tensor are the same size")


def _set_grad(self, value):
    entry = _retained_entry(self) if _RETAINED else None
    if entry is not None:  # a retained non-leaf's: the facade's own (above)
        if value is not None:
            _check_grad_assignment(self, value)
        entry[2] = value
        return
    if value is None:
        _ASSIGNED_GRADS.pop(id(self), None)
        self.clear_gradient(False)  # release it: x.grad is None afterwards (Paddle 2.6 and 3.x)
        if ZERO_SIZE_GRAD_CRASHES:
            _forget_empty_leaf_grad(self)
    else:
        _check_grad_assignment(self, value)
        if self.grad is not None:  # Paddle's setter copies into the gradient it has: release
            self.clear_gradient(False)  # that one, so an x.grad held from before keeps its values
        self.grad = value  # Paddle's setter
        _assign_grad(self, value)


tensor_method("grad", note="a view of Paddle's grad with requires_grad False, as torch's; "
                           "x.grad = None releases it; a held x.grad keeps its values"
              )(property(_user_grad, _set_grad))


def _get_grad_fn(self):
    # torch: a leaf (and any tensor that does not require grad) has no grad_fn; Paddle gives
    # every tensor a node (an accumulation node for leaves), so `t.grad_fn is None`, the usual
    # leaf test, would never hold
    if self.stop_gradient or self.is_leaf:
        return None
    return self.grad_fn  # Paddle's node (name(), next_functions) inside torchproxy


tensor_method("grad_fn", note="None for leaves and tensors that do not require grad, as torch's; "
                              "otherwise Paddle's grad node (its name() is Paddle's, e.g. "
                              "MultiplyGradNode for torch's MulBackward0)")(property(_get_grad_fn))


# -- torch.autograd.Variable: torch's deprecated wrapper, a plain Tensor since torch 0.4 --------
class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, paddle.Tensor)  # torch: isinstance(t, Variable) for every tensor


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False)``: a new leaf tensor on ``data``'s memory (torch
    returns a detached alias, ``requires_grad`` as given)."""

    def __new__(cls, data, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                          "instead.")
        if not isinstance(data, paddle.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        out.stop_gradient = not requires_grad
        return out


type_("torch.autograd.Variable", Variable)
