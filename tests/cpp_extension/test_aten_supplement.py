"""torchproxy's ATen supplement (torchproxy/include/torchproxy/aten): sources/aten_supplement.cpp,
one pybind11 function per torch::<fn>, at::Tensor method and operator expression, built against
real torch 2.13 CPU and against Paddle through torchproxy; each case (cases.py, group "aten")
compared on values, dtypes, shapes, error types and messages.  Also the generator of the
at::Tensor overlay (facade/cpp_extension.py, tensor_body_overlay) on the installed Paddle's header
and on headers it must refuse."""
import os

import pytest

from cases import CASES
from cppext_shared import check_case, needs_compat

pytestmark = needs_compat

# where the supplement answers differently from torch, with the reason (asserted: a known
# difference that disappears fails, so the list stays true)
KNOWN = {
    "aten/elu_int_error": "torch raises NotImplementedError (TORCH_CHECK_NOT_IMPLEMENTED); "
                          "Paddle's compat C++ exceptions all reach Python as RuntimeError "
                          "(same message)",
}


@pytest.mark.parametrize("case", list(CASES["aten"]))
def test_aten(case):
    check_case("aten_supplement.cpp", f"aten/{case}", KNOWN)


def _paddle_tensor_body() -> str:
    from torchproxy.facade.cpp_extension import compat_include_dir
    with open(os.path.join(compat_include_dir(), "ATen", "core", "TensorBody.h")) as f:
        return f.read()


def test_overlay_of_the_installed_paddle_header():
    """The generator reads the installed Paddle's class as it expects: the methods go inside
    ``class Tensor`` (before its closing brace), the definitions after the whole header, and
    Paddle's text is kept otherwise (the sync check: a Paddle that changes the class's shape
    or adds one of our methods makes this fail with OverlayError)."""
    from torchproxy.facade.cpp_extension import overlay_include_dir, tensor_body_overlay
    text = _paddle_tensor_body()
    out = tensor_body_overlay(text)
    inc = out.index("#include <torchproxy/aten/tensor_methods.inc>")
    cls = out.index("class Tensor : public TensorBase {")
    assert cls < inc < out.index("namespace torch {")
    assert out.rstrip().endswith("#include <torchproxy/aten/ops.h>")
    assert out.index("#include <torchproxy/aten/tensor_methods_prelude.h>") < cls
    stripped = (out.replace("\n#include <torchproxy/aten/tensor_methods.inc>\n", "")
                .replace("\n#include <torchproxy/aten/ops.h>\n", "")
                .replace("\n#include <torchproxy/aten/tensor_methods_prelude.h>\n", ""))
    stripped = stripped.split("do not edit\n", 1)[1]
    # Paddle's text is kept but for its Tensor::slice method, replaced by torch's (_SLICE)
    from torchproxy.facade.cpp_extension import _SLICE
    head = "at::Tensor slice(int64_t dim = 0,"
    pre, post = stripped.split(_SLICE)
    assert pre == text[:text.index(head)] and pre.endswith("  ")
    assert text.endswith(post) and len(text) - len(post) > text.index(head)
    with open(os.path.join(overlay_include_dir(), "ATen", "core", "TensorBody.h")) as f:
        assert f.read() == out


def test_overlay_refuses_a_class_that_already_has_a_method():
    from torchproxy.facade.cpp_extension import OverlayError, tensor_body_overlay
    text = _paddle_tensor_body().replace(
        "  int64_t numel() const", "  Tensor tanh() const { return *this; }\n  int64_t numel() const")
    with pytest.raises(OverlayError, match="already declares tanh"):
        tensor_body_overlay(text)


@pytest.mark.parametrize("change", ["no class", "two classes", "unbalanced"])
def test_overlay_refuses_an_unexpected_header(change):
    from torchproxy.facade.cpp_extension import OverlayError, tensor_body_overlay
    text = _paddle_tensor_body()
    head = "class Tensor : public TensorBase {"
    text = {"no class": text.replace(head, "class Tensor {"),
            "two classes": text + "\n" + head + "};\n",
            "unbalanced": text[:text.index(head)] + head + " {"}[change]
    with pytest.raises(OverlayError):
        tensor_body_overlay(text)


def test_torch_version_h_is_the_facades_version():
    """torchproxy/include/torch/version.h says the version torch.__version__ says under the
    facade (C++ and Python feature checks agree)."""
    import re
    from torchproxy.facade.core import TORCH_VERSION
    from torchproxy.facade.cpp_extension import INCLUDE_DIR
    with open(os.path.join(INCLUDE_DIR, "torch", "version.h")) as f:
        text = f.read()
    nums = [re.search(rf"#define TORCH_VERSION_{k} (\d+)", text).group(1)
            for k in ("MAJOR", "MINOR", "PATCH")]
    assert ".".join(nums) == TORCH_VERSION.split("+")[0]
    assert f'#define TORCH_VERSION "{TORCH_VERSION.split("+")[0]}"' in text
