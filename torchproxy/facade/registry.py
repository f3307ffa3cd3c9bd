"""The facade is data: one table of torch names -> implementations.

Every public torch name the facade provides is one :class:`Entry` in :data:`TABLE`, registered
by the area modules listed in :data:`AREAS` (``dtypes``, ``device``, ``creation``...).  The module
tree that scoped code sees (``torch``, ``torch.nn.functional``...) is built from this table, and so
are the coverage report and the porting scanner.  Nothing else decides what exists.

Kinds:
- ``alias``   the Paddle object is used as is (its semantics match torch's on every supported
              Paddle version); ``impl`` is a dotted Paddle path, resolved when the tree is built.
- ``adapter`` a small function of ours that gives torch semantics on Paddle.
- ``type``    a class of ours (``torch.device``, ``torch.Size``, ``torch.autograd.Function``...).
- ``value``   a constant (``torch.float16``, ``torch.__version__``...).
- ``module``  a submodule of the facade (``torch.nn``); created empty, filled by the entries.
"""
from __future__ import annotations

import importlib
import sys
import types
from typing import Callable, NamedTuple

KINDS = ("alias", "adapter", "type", "value", "module")


class Entry(NamedTuple):
    name: str      # full torch name: "torch.nn.functional.relu"
    kind: str      # one of KINDS
    impl: object   # alias: "paddle.nn.functional.relu"; others: the object itself
    note: str = ""  # caveat shown in the coverage report ("" = none)


TABLE: dict[str, Entry] = {}
# Tensor methods and properties, keyed "torch.Tensor.<name>".  Installed on paddle.Tensor by
# torchproxy.facade.tensor (policy: add what Paddle lacks; dispatch by caller scope where
# Paddle has the name with other semantics).  ``impl`` is a function or a ``property``.
TENSOR_TABLE: dict[str, Entry] = {}

# Area modules, imported in this order by load_table(); each registers its entries and keeps a
# manifest of them, ``NAMES = manifest("""torch.Tensor: abs abs_ ...""")`` (checked at load:
# check_area).  A module listed here that does not exist is an error; so is a module outside
# this list that registers names.
AREAS = (
    "torchproxy.facade.core",       # torch.Tensor, torch.Size, numel/size/shape/dim
    "torchproxy.facade.tensor_str",  # how a tensor prints: repr/str/format, set_printoptions
    "torchproxy.facade.dtypes",     # dtypes, finfo/iinfo, default dtype
    "torchproxy.facade.device",     # torch.device
    "torchproxy.facade.creation",   # empty/zeros/arange/tensor/... with torch signatures
    "torchproxy.facade.ops",        # math, comparisons, matmul (torch.* functions)
    "torchproxy.facade.ops_sorting",  # sort/argsort/topk, torch's CPU order among ties
    "torchproxy.facade.ops_reduce",  # sum/mean/max/median/unique... (torch.return_types)
    "torchproxy.facade.ops_shape",  # cat/stack/reshape/split/gather/scatter...
    "torchproxy.facade.ops_indexing",  # as_strided*, put, masked_scatter, index_put, tile, mT
    "torchproxy.facade.tensor_views",  # Tensor views: stride, view, reshape, expand, contiguous
    "torchproxy.facade.tensor_methods",  # Tensor methods with torch semantics
    "torchproxy.facade.operators",  # + - * / on tensors with torch's type promotion
    "torchproxy.facade.cuda",       # torch.cuda, streams, events, memory
    "torchproxy.facade.cpu",        # torch.cpu (device-agnostic helpers: one CPU device)
    "torchproxy.facade.runtime",    # torch._C, torch.version, torch.backends, torch.compile
    "torchproxy.facade.compiler_probes",  # torch.fx.Proxy, _dynamo/compiler export probes, cond
    "torchproxy.facade.torch_types",  # torch.types: annotation aliases (transformers 5 imports)
    "torchproxy.facade.accelerator",  # torch.accelerator, torch.Stream (CPU)
    "torchproxy.facade.autograd",   # autograd.Function, no_grad, enable_grad, inference_mode
    "torchproxy.facade.autograd_anomaly",  # detect_anomaly / set_detect_anomaly, the mode flags
    "torchproxy.facade.autograd_gradcheck",  # torch.autograd.gradcheck (torch's slow mode)
    "torchproxy.facade.library",    # torch.library, torch.ops
    "torchproxy.facade.nn",         # torch.nn.Module/Parameter, torch.nn.functional
    "torchproxy.facade.nn_functional",  # torch.nn.functional: activations, bilinear, one_hot; helpers
    "torchproxy.facade.nn_functional_loss",  # torch.nn.functional loss functions (ctc_loss too)
    "torchproxy.facade.nn_functional_dropout",  # dropout1d/2d/3d, alpha dropouts
    "torchproxy.facade.nn_functional_pooling",  # max/avg/lp/adaptive/fractional pools, unpools
    "torchproxy.facade.nn_functional_norm",  # batch/instance/group/local-response norm (+ torch.*)
    "torchproxy.facade.nn_functional_conv",  # conv3d, conv_transpose*, unfold/fold, torch.conv*
    "torchproxy.facade.nn_functional_vision",  # pixel/channel shuffle, interpolate, grid_sample
    "torchproxy.facade.nn_functional_attention",  # sdpa, multi_head_attention_forward, nn.attention
    "torchproxy.facade.nn_init",    # torch.nn.init
    "torchproxy.facade.nn_modules",  # torch.nn containers (Sequential, ModuleDict...); helpers
    "torchproxy.facade.nn_modules_activation",  # ReLU6, ELU, Hardtanh, PReLU, Softmax2d...
    "torchproxy.facade.nn_modules_loss",  # *Loss modules, PairwiseDistance, CosineSimilarity
    "torchproxy.facade.nn_modules_conv",  # Conv*d, ConvTranspose*d, Bilinear
    "torchproxy.facade.nn_modules_lazy",  # UninitializedParameter, LazyModuleMixin, Lazy*
    "torchproxy.facade.nn_modules_pooling",  # MaxPool*d, AvgPool*d, LPPool*d, adaptive/fractional
    "torchproxy.facade.nn_modules_norm",  # BatchNorm*d, InstanceNorm*d, GroupNorm, RMSNorm...
    "torchproxy.facade.nn_modules_dropout",  # Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout
    "torchproxy.facade.nn_modules_reshape",  # *Pad*d, Flatten, PixelShuffle, Fold, Upsample
    "torchproxy.facade.nn_modules_sparse",  # EmbeddingBag, F.embedding_bag
    "torchproxy.facade.nn_modules_rnn",  # RNN/LSTM/GRU, RNNBase, *Cell
    "torchproxy.facade.nn_modules_transformer",  # MultiheadAttention, Transformer*
    "torchproxy.facade.nn_utils",   # torch.nn.utils, torch.nn.utils.rnn
    "torchproxy.facade.misc",       # torch.testing, torch.utils.dlpack, ...
    "torchproxy.facade.testing_internal",  # torch.testing._internal (TestCase, run_tests, opcheck)
    "torchproxy.facade.distributed_tensor",  # DeviceMesh, placements, ParallelStyle (import-time names)
    "torchproxy.facade.distributed",  # torch.distributed on paddle.distributed: init, groups, collectives
    "torchproxy.facade.distributed_parallel",  # DistributedDataParallel, DistributedSampler, mp.spawn
    "torchproxy.facade.distributed_modules",  # torch.distributed's module tree, constants, elastic's record
    "torchproxy.facade.storage",    # untyped_storage, storage_offset, set_ (Triton interpreter)
    "torchproxy.facade.cpp_extension",  # torch.utils.cpp_extension (JIT-built extensions)
    "torchproxy.facade.serialization",  # torch.load, safe globals (torch's zip format)
    "torchproxy.facade.serialization_save",  # torch.save (torch's zip format)
    "torchproxy.facade.random",  # Generator streams, generator=, randperm/normal/bernoulli/multinomial
    "torchproxy.facade.signal",  # torch.signal.windows (torch's window formulas)
    "torchproxy.facade.fft",  # torch.fft on paddle.fft (torch's n/s/dim/norm, dtypes, errors)
    "torchproxy.facade.linalg",  # torch.linalg on paddle.linalg (result tuples, norms, errors)
    "torchproxy.facade.linalg_more",  # torch.svd/qr/lu/geqrf/ormqr/matrix_exp, lstsq, ldl, cross
    "torchproxy.facade.special",  # torch.special on Paddle ops (erfc/erfcx/ndtr fits, polynomials)
    "torchproxy.facade.ops_clients",  # names real clients need (Triton tutorials, Liger tests)
    # torch.* functions and Tensor methods from torch's OpInfo database, by torch.html's sections
    "torchproxy.facade.ops_pointwise",  # Pointwise Ops: arc*, lgamma, xlogy, hypot, conj/real/imag...
    "torchproxy.facade.ops_blas_lapack",  # BLAS and LAPACK Operations: dot, mv, addmv, addr, baddbmm...
    "torchproxy.facade.ops_slicing_joining",  # Indexing, Slicing, Joining, Mutating: splits, scatters, *_copy
    "torchproxy.facade.ops_reduction_comparison",  # Reduction/Comparison Ops: nansum, kthvalue, isin, histc
    "torchproxy.facade.ops_other_operations",  # Other Operations: meshgrid, cdist, cov, diag, tensordot
    "torchproxy.facade.creation_ops",  # Creation Ops: logspace, scalar_tensor, channels_last
    "torchproxy.facade.data",  # torch.utils.data: datasets, samplers, collate, DataLoader with workers
    "torchproxy.facade.optim",  # torch.optim and lr_scheduler (torch's update formulas)
    "torchproxy.facade.optim_lbfgs",  # torch.optim.LBFGS (closure API, strong-Wolfe line search)
    "torchproxy.facade.distributions",  # torch.distributions: the Distribution base, the modules
    "torchproxy.facade.distributions_constraints",  # torch.distributions.constraints
    "torchproxy.facade.distributions_multivariate",  # Dirichlet, MultivariateNormal, Independent
    "torchproxy.facade.distributions_continuous",  # Normal, Laplace, Cauchy, Gamma, Beta, StudentT...
    "torchproxy.facade.distributions_discrete",  # Bernoulli, Categorical, Poisson, Binomial...
    "torchproxy.facade.distributions_kl",  # kl_divergence, register_kl and torch's closed forms
    "torchproxy.facade.masked",  # torch.masked: masked reductions/normalizations (torch's strided code)
    "torchproxy.facade.ops_other",  # unravel_index, constant_pad_nd, _chunk_cat, gradient (OpInfo "other")
    "torchproxy.facade.hub",  # torch.hub checkpoint download, torch.utils.model_zoo.load_url
    "torchproxy.facade.pytree",  # torch.utils._pytree (registry of nodes, flatten/unflatten/map)
    "torchproxy.facade.func",  # torch.vmap (a loop over the mapped dimension, outputs stacked)
    "torchproxy.facade.autocast",  # torch.autocast, torch.amp autocast/custom_fwd, autocast state
    "torchproxy.facade.amp",  # torch.amp/torch.cuda.amp GradScaler; torch.onnx (importable)
    "torchproxy.facade.ops_inplace",  # torch.<op>_ functions (torch.sigmoid_): the Tensor in-place methods
    "torchproxy.facade.ops_windows",  # torch.hann/hamming/blackman/bartlett/kaiser_window (Spectral Ops)
    "torchproxy.facade.ops_tensors",  # is_nonzero, set_default_tensor_type, frombuffer, can_cast, vander...
    "torchproxy.facade.nn_functional_activation",  # torch.celu/rrelu/selu/threshold(_): ATen forms
    "torchproxy.facade.nn_functional_distance",  # torch.pdist/cosine_similarity/bilinear: ATen forms
    "torchproxy.facade.pinned",  # Tensor.pin_memory/is_pinned (pin_memory= of creation: pinned.py)
    "torchproxy.facade.tensor_attributes",  # is_cpu, nbytes, itemsize, is_inference/is_signed/is_conj...
    "torchproxy.facade.ops_foreach",  # torch._foreach_* (add/mul/addcmul/lerp/norm/zero_...): loops
    "torchproxy.facade.sparse_layouts",  # is_sparse, to_dense, indices/values...: torch's strided answers
)


# `import torchproxy` loads this module (the hook's module table), so its decorators import
# zero_size, and with it the Paddle layer (paddle_shims), when the facade loads, not at import.

# module name -> the torch names its import registered (TABLE and TENSOR_TABLE alike); the
# registering module is the one whose top-level code ran the registration (its "<module>"
# frame), so helpers such as ops._unary() are attributed to the area that called them.
REGISTERED_BY: dict[str, list[str]] = {}


def _note_registrant(name: str) -> None:
    f = sys._getframe(2)
    while f is not None and f.f_code.co_name != "<module>":
        f = f.f_back
    mod = f.f_globals.get("__name__", "?") if f is not None else "?"
    REGISTERED_BY.setdefault(mod, []).append(name)


_AS_DECLARED: dict[str, Entry] = {}  # entries as declared (TABLE's adapters may be wrapped)


def _register(entry: Entry) -> None:
    if not entry.name.startswith("torch"):
        raise ValueError(f"facade names start with 'torch': {entry.name!r}")
    if entry.kind not in KINDS:
        raise ValueError(f"unknown entry kind {entry.kind!r} for {entry.name}")
    if entry.name in TABLE and _AS_DECLARED.get(entry.name, TABLE[entry.name]) != entry:
        raise ValueError(f"{entry.name} is registered twice ({TABLE[entry.name].kind} and {entry.kind})")
    if entry.name not in TABLE:
        _note_registrant(entry.name)
    _AS_DECLARED[entry.name] = entry
    if entry.kind == "adapter":
        from ._numpy_aliases import with_aliases  # axis=/keepdims= as torch's parser takes
        entry = entry._replace(impl=with_aliases(entry.name, entry.impl))
    TABLE[entry.name] = entry


def alias(torch_name: str, paddle_path: str, note: str = "") -> None:
    _register(Entry(torch_name, "alias", paddle_path, note))


def torch_function(torch_name: str, note: str = "") -> Callable:
    """Decorator: ``@torch_function("torch.empty")`` registers the function as that name, as
    it is (on Paddle 2.6 through ``zero_size.guard``: torch's results where 2.6 kernels refuse
    0-size operands; the function itself on 3.x).  Its entry's kind is ``adapter``.  Math ops
    use ``_opbase.opmath_function`` instead, which adds torch's CPU half-precision rule."""
    def deco(fn):
        from .zero_size import guard  # lazy: Paddle layer at facade load
        from ._autocast import wrap
        fn = wrap(torch_name, guard(fn, torch_name))  # torch's autocast policy, if listed
        _register(Entry(torch_name, "adapter", fn, note))
        return fn
    return deco


def type_(torch_name: str, cls, note: str = ""):
    _register(Entry(torch_name, "type", cls, note))
    return cls


def value(torch_name: str, obj, note: str = "") -> None:
    _register(Entry(torch_name, "value", obj, note))


def module(torch_name: str, note: str = "") -> None:
    _register(Entry(torch_name, "module", None, note))


def tensor_method(name: str, note: str = "") -> Callable:
    """Decorator: ``@tensor_method("numel")`` gives ``Tensor.numel`` torch semantics in scope.

    Decorate a function, or a ``property`` (put ``@tensor_method`` above ``@property``)."""
    def deco(impl):
        full = f"torch.Tensor.{name}"
        if full in TENSOR_TABLE:
            raise ValueError(f"{full} is registered twice")
        _note_registrant(full)
        if isinstance(impl, types.FunctionType) and (name.endswith("__") or
                                                     not name.endswith("_")):
            # Paddle 2.6 only: empty results' gradient edges (in-place forms return self)
            from .zero_size import cutting_empty_grads  # lazy: Paddle layer at facade load
            impl = cutting_empty_grads(impl)
        elif isinstance(impl, property) and impl.fset is None and impl.fget is not None:
            from .zero_size import cutting_empty_grads  # lazy: Paddle layer at facade load
            # (x.H, x.mH of empty tensors)
            impl = property(cutting_empty_grads(impl.fget), doc=impl.__doc__)
        if isinstance(impl, types.FunctionType):
            from ._numpy_aliases import with_aliases  # axis=/keepdims= (torch's parser)
            impl = with_aliases(full, impl)
        TENSOR_TABLE[full] = Entry(full, "adapter", impl, note)
        return impl
    return deco


# op()'s out= and in-place forms follow torch's out=/in-place rules (cast checks, resizing, the
# in-place target checks), which need the tensor level above the registry: _opbase provides
# them when it loads (registered late, so the registry imports nothing above it).  Every area
# that declares out=/inplace= ops imports _opbase first.
_FORMS: dict[str, Callable] = {}


def provide_forms(*, with_out: Callable, make_inplace: Callable) -> None:
    """Called once by ``_opbase``: the builders of op()'s ``out=`` and in-place forms."""
    _FORMS.update(with_out=with_out, make_inplace=make_inplace)


def _form(name: str, arg: str) -> Callable:
    try:
        return _FORMS[name]
    except KeyError:
        raise AreaError(f"op(..., {arg}) needs torchproxy.facade._opbase loaded (it provides "
                        f"the {name} form): import _opbase in the declaring area") from None


def op(torch_name: str, *, method=False, inplace=False, out=False, note: str = ""):
    """Decorator: ONE declaration for a torch function and its Tensor forms.

        @op("torch.addcmul", method=True, inplace=True)
        def addcmul(input, tensor1, tensor2, *, value=1, out=None): ...

    registers ``torch.addcmul`` (the function), ``Tensor.addcmul`` (the same function: ``self``
    is ``input``) and ``Tensor.addcmul_`` (torch's in-place rules, see
    ``_opbase.make_inplace``: the result is cast to self's dtype, with torch's "result type X
    can't be cast to the desired output type Y" RuntimeError where torch refuses the cast, and
    written into self; self is returned).

    - ``method``: True (the same function under the same short name), a string (another
      method name) or a function (a method of its own, where torch's Tensor form takes other
      arguments: ``x.flip(0, 1)``).
    - ``inplace``: True (the generic in-place form ``<name>_``) or a function (a custom one).
    - ``out``: True when ``fn`` has no ``out=`` of its own and torch has one: the result is
      written into ``out`` by torch's rules (``_opbase.write_out``); an ``_opbase.OutRule``:
      the same, after torch's stricter rules for this op (no overlap with the inputs, the
      input's dtype).
    - ``note``: the caveat shown in the coverage file (docs/COVERAGE.md).
    Returns the registered function (with ``out=`` handling when asked)."""
    if not torch_name.startswith("torch."):
        raise ValueError(f"op() registers torch.* functions: {torch_name!r}")
    short = torch_name.rsplit(".", 1)[1]

    def deco(fn):
        from .zero_size import cutting_empty_grads  # lazy: Paddle layer at facade load
        impl = fn
        if out:
            impl = _form("with_out", "out=")(fn, None if out is True else out)
        impl = cutting_empty_grads(impl)  # Paddle 2.6 only: empty results' gradient edges
        plain = impl  # in-place forms are never autocast (torch: only out-of-place ops are)
        from ._autocast import wrap
        impl = wrap(torch_name, impl)  # torch's autocast policy, if the name is listed
        _register(Entry(torch_name, "adapter", impl, note))
        if callable(method):  # a method of its own (torch's Tensor form differs: x.flip(0, 1))
            tensor_method(short, note)(method)
        elif method:
            tensor_method(short if method is True else method, note)(impl)
        if inplace:
            if callable(inplace):
                ip = inplace
            else:
                ip = _form("make_inplace", "inplace=True")(f"{short}_", plain)
            tensor_method(f"{short}_", note)(ip)
        return impl
    return deco


def resolve_paddle(path: str):
    """'paddle.nn.functional.relu' -> the object (imports the longest importable prefix)."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(f"cannot resolve {path}")


class AreaError(ImportError):
    """An area module is missing, or its ``NAMES`` does not match what it registered."""


def manifest(text: str) -> tuple[str, ...]:
    """An area's ``NAMES`` from its manifest string: a word ending in ``:`` names a namespace,
    every other word a name in the namespace before it, so ``torch.Tensor: abs abs_`` is
    ``torch.Tensor.abs``, ``torch.Tensor.abs_``.  Line breaks do not matter; ``#`` starts a comment
    to the end of its line.  The manifest is data written once: a name listed twice, or a name
    before any namespace, is an error."""
    if "#" in text:
        text = "\n".join(line.partition("#")[0] for line in text.splitlines())
    names, prefix = [], None
    for word in text.split():
        if word[-1] == ":":
            prefix = word[:-1] + "."
        elif prefix is None:
            raise AreaError(f"manifest: {word!r} comes before any 'namespace:' word")
        else:
            names.append(prefix + word)
    if len(set(names)) != len(names):
        seen: set[str] = set()
        twice = sorted({n for n in names if n in seen or seen.add(n)})
        raise AreaError(f"manifest: names listed twice: {twice}")
    return tuple(names)


def format_names(names) -> str:
    """The ``NAMES = manifest(...)`` block for an area module (namespaces and names sorted,
    packed to 99 columns); the error for an area without NAMES prints it."""
    groups: dict[str, list[str]] = {}
    for n in names:
        prefix, _, leaf = n.rpartition(".")
        groups.setdefault(prefix, []).append(leaf)
    lines = ['NAMES = manifest("""']
    for prefix in sorted(groups):
        cur = f"    {prefix}:"
        for leaf in sorted(groups[prefix]):
            if len(cur) + 1 + len(leaf) > 99:
                lines.append(cur)
                cur = "       "
            cur += " " + leaf
        lines.append(cur)
    lines.append('""")')
    return "\n".join(lines)


def check_area(area: str) -> None:
    """An area's ``NAMES`` manifest must equal the names its import registered (``CONDITIONAL``
    lists those of NAMES registered on some Paddle versions only)."""
    mod = sys.modules[area]
    declared = getattr(mod, "NAMES", None)
    if not isinstance(declared, tuple):
        raise AreaError(f"{area} has no literal NAMES = manifest(...) of the torch names it "
                        f"registers; add:\n{format_names(REGISTERED_BY.get(area, ()))}")
    declared, got = set(declared), set(REGISTERED_BY.get(area, ()))
    conditional = set(getattr(mod, "CONDITIONAL", ()))
    extra, missing = sorted(got - declared), sorted(declared - got - conditional)
    if extra or missing or not conditional <= declared:
        raise AreaError(f"{area}: NAMES does not match its registrations: registered but not in "
                        f"NAMES: {extra}; in NAMES but not registered: {missing}"
                        + (f"; CONDITIONAL names not in NAMES: {sorted(conditional - declared)}"
                           if not conditional <= declared else ""))


_loaded = False


def load_table() -> dict[str, Entry]:
    """Import every area (a missing one is an error), then check each area's NAMES and that
    no module outside AREAS registered names."""
    global _loaded
    if not _loaded:
        for area in AREAS:
            try:
                importlib.import_module(area)
            except ModuleNotFoundError as e:
                if e.name == area:
                    raise AreaError(f"facade area {area} (listed in registry.AREAS) does not "
                                    "exist") from e
                raise
        for area in AREAS:
            check_area(area)
        strays = sorted(m for m in REGISTERED_BY if m not in AREAS)
        if strays:
            raise AreaError(f"modules outside registry.AREAS registered facade names: "
                            + "; ".join(f"{m}: {sorted(REGISTERED_BY[m])[:5]}" for m in strays))
        _loaded = True
    return TABLE

