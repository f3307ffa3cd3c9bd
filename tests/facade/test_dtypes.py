"""torch dtypes on the facade: names, attributes, finfo/iinfo, default dtype, promotion."""
import numpy as np
import paddle
import pytest

import torchproxy
from torchproxy.errors import NotProvidedError
from difftest import check, load
from _cases import F16, F32, I32, I64

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64", "complex64", "complex128", "half", "float", "double", "short", "int",
         "long", "cfloat", "cdouble"]
PADDLE3 = not paddle.__version__.startswith("2.")
if PADDLE3:
    NAMES += ["float8_e4m3fn", "float8_e5m2"]
FLOATISH = ["float16", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("attr", ["itemsize", "is_floating_point", "is_signed", "is_complex",
                                  "str(d).split('.')[-1]", "d == d", "hash(d) == hash(d)",
                                  "isinstance(d, torch.dtype)", "d.to_real()"])
def test_dtype_attributes(name, attr):
    expr = attr if "(" in attr or "=" in attr else f"d.{attr}"
    check(f"""
import torch
def f():
    d = torch.{name}
    return {expr}
""")


@pytest.mark.parametrize("a", ["float16", "bfloat16", "float32", "float64", "int32", "int64",
                               "uint8", "int8", "bool", "complex64"])
@pytest.mark.parametrize("b", ["float16", "bfloat16", "float32", "int64", "int8", "bool",
                               "complex128"])
def test_promote_types(a, b):
    check(f"import torch\ndef f():\n    return torch.promote_types(torch.{a}, torch.{b})\n")


@pytest.mark.parametrize("x", [F32, F16, I32, I64], ids=["f32", "f16", "i32", "i64"])
@pytest.mark.parametrize("expr", ["x.dtype == torch.float16", "x.dtype == torch.float32",
                                  "x.dtype in (torch.float16, torch.bfloat16)",
                                  "x.dtype is torch.int64 or x.dtype == torch.int64",
                                  "x.dtype != torch.int32", "str(x.dtype).split('.')[-1]",
                                  "torch.is_floating_point(x)", "x.is_floating_point()",
                                  "x.dtype.is_floating_point", "x.dtype.itemsize",
                                  "x.element_size()", "{torch.float32: 1}.get(x.dtype, 0)",
                                  "torch.is_tensor(x)", "torch.is_complex(x)"])
def test_tensor_dtype(x, expr):
    check(f"import torch\ndef f(x):\n    return {expr}\n", x)


@pytest.mark.parametrize("name", FLOATISH + ["float8_e4m3fn", "float8_e5m2"] * PADDLE3)
@pytest.mark.parametrize("attr", ["bits", "eps", "max", "min", "tiny", "smallest_normal",
                                  "resolution", "dtype"])
def test_finfo(name, attr):
    check(f"import torch\ndef f():\n    return torch.finfo(torch.{name}).{attr}\n", rtol=1e-6)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
@pytest.mark.parametrize("attr", ["bits", "max", "min", "dtype"])
def test_iinfo(name, attr):
    check(f"import torch\ndef f():\n    return torch.iinfo(torch.{name}).{attr}\n")


@pytest.mark.parametrize("expr", ["torch.finfo(torch.int32)", "torch.iinfo(torch.float32)",
                                  "torch.iinfo(torch.bool)", "torch.finfo().eps",
                                  "torch.finfo(torch.complex64).eps"])
def test_finfo_iinfo_edges(expr):
    check(f"import torch\ndef f():\n    return {expr}\n")


@pytest.mark.parametrize("d", ["torch.float64", "torch.float16", "torch.int64"])
def test_default_dtype(d):
    check(f"""
import torch
def f():
    before = torch.get_default_dtype()
    try:
        torch.set_default_dtype({d})
        return before, torch.get_default_dtype(), torch.empty(2).dtype, torch.tensor([1.5]).dtype, \\
            torch.arange(0.0, 1.0, 0.5).dtype, torch.full((1,), 2.0).dtype
    finally:
        torch.set_default_dtype(before)
""")


@pytest.mark.parametrize("name", ["complex32", "chalf", "qint8", "quint8", "bits8"])
def test_not_provided_dtypes_name_themselves(name):
    mod = load(f"import torch\ndef f():\n    return torch.{name}\n", scoped=True)
    with pytest.raises(NotProvidedError, match=f"torch.{name}"):
        mod.f()


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "uint32", "uint64"])
def test_dtype_tokens_on_paddle26_refuse_tensors(name):
    """Paddle 2.6 lacks them all, Paddle 3.0 to 3.2 lack uint32/uint64: the facade has a token
    (dict key, repr) that no creation accepts."""
    if hasattr(paddle, name):
        pytest.skip(f"Paddle {paddle.__version__} has paddle.{name}: a real dtype, no token")
    mod = load(f"""
import torch
def f():
    return repr(torch.{name}), {{torch.{name}: 1}}[torch.{name}], torch.{name}.itemsize
def g():
    return torch.empty(2, dtype=torch.{name})
""", scoped=True)
    assert mod.f()[:2] == (f"torch.{name}", 1)
    with pytest.raises(TypeError, match=name):
        mod.g()


@pytest.mark.parametrize("name", ["float8_e4m3fnuz", "float8_e5m2fnuz", "float4_e2m1fn_x2",
                                  "float8_e8m0fnu"])
def test_dtype_tokens_on_every_paddle_answer_probes_as_torch(name):
    """safetensors.torch probes getattr(torch, "float8_e4m3fnuz", None) ... at import and keys
    dicts by what it finds: the tokens answer as torch's dtypes do; no creation accepts them."""
    check(f"""
import torch
def f():
    d = getattr(torch, "{name}", None)
    return (d is not None, repr(d), {{d: 1}}[torch.{name}], d.itemsize, d.is_floating_point,
            d.is_complex, d == torch.float32)
""")
    mod = load(f"import torch\ndef g():\n    return torch.empty(2, dtype=torch.{name})\n",
               scoped=True)
    with pytest.raises(TypeError, match=name):
        mod.g()


def test_uint16_is_a_token_on_every_paddle():
    """paddle.uint16 is Paddle's legacy bfloat16 storage type, so torch.uint16 is a token
    (safetensors.torch keys a dict by it at import) that no creation accepts."""
    mod = load("""
import torch
def f():
    return repr(torch.uint16), {torch.uint16: 2}[torch.uint16], torch.uint16.itemsize, \\
        torch.uint16.is_floating_point, torch.uint16.is_signed, torch.uint16 == torch.bfloat16
def g():
    return torch.empty(2, dtype=torch.uint16)
""", scoped=True)
    import torch as real
    assert mod.f() == (repr(real.uint16), 2, real.uint16.itemsize,
                       real.uint16.is_floating_point, real.uint16.is_signed, False)
    with pytest.raises(TypeError, match="uint16"):
        mod.g()


def test_dtype_is_paddles_dtype():
    """The design decision (dtypes.py): the facade's dtypes are Paddle's own objects."""
    mod = load("import torch\ndef f():\n    return torch.float16, torch.float, torch.dtype\n",
               scoped=True)
    f16, f32, dtype_type = mod.f()
    assert f16 is paddle.float16 and f32 is paddle.float32
    assert dtype_type is type(paddle.float32)


def test_dtype_attributes_installed_and_removed():
    """Paddle's dtype type carries the torch attributes while installed, and loses them again."""
    load("def f(): pass", scoped=True)  # enables the proxy
    from torchproxy.facade import dtypes
    assert paddle.float16.itemsize == 2
    dtypes.uninstall()
    try:
        assert not hasattr(paddle.float32, "itemsize")
        assert not hasattr(paddle.float32, "is_floating_point")
    finally:
        dtypes.install()
    assert paddle.float32.itemsize == 4


@pytest.mark.parametrize("expr", [
    "str(torch.float16)", "repr(torch.float16)", "str(torch.bfloat16)", "repr(torch.long)",
    "str(x.dtype)", "repr(x.dtype)", "f'{x.dtype}'", "'%s' % x.dtype", "format(x.dtype, '')",
    "str([torch.float32, torch.int8])", "str({'d': torch.bool})", "torch.complex64.__str__()",
    "re.match(r'^torch\\.(\\w+)$', str(x.dtype)).group(1)",
    "[str(getattr(torch, n)) for n in ('uint8', 'int16', 'int32', 'float64', 'cdouble')]",
])
def test_dtype_text_is_torchs_in_scope(expr):
    """Suites parse ``^torch\\.(\\w+)$`` out of str(x.dtype): the text is torch's in scope."""
    check(f"import re\nimport torch\ndef f(x):\n    return {expr}\n", F32)


def test_dtype_text_is_paddles_outside_scope():
    """Paddle's own callers keep Paddle's text while the proxy is enabled; disable() restores
    the type's own __str__/__repr__."""
    mod = load("import torch\ndef f(d):\n    return str(d), repr(d)\n", scoped=True)
    assert mod.f(paddle.float16) == ("torch.float16", "torch.float16")
    assert str(paddle.float16) == "paddle.float16"
    assert repr(paddle.float16).startswith("<") and "16" in repr(paddle.float16)
    from torchproxy.facade import dtypes
    dtype_type = type(paddle.float32)
    installed = dtype_type.__dict__["__str__"], dtype_type.__dict__.get("__repr__")
    dtypes.uninstall()
    try:
        assert dtype_type.__dict__["__str__"] is installed[0].__wrapped__
        assert mod.f(paddle.float16)[0] == "paddle.float16"
    finally:
        dtypes.install()
    assert mod.f(paddle.float16) == ("torch.float16", "torch.float16")
