"""extension-cpp's classic LLTM (``cpp/lltm.cpp`` at 1031028f, the last commit before
"Modernize extension-cpp" removed it), unmodified: built against real torch and against Paddle
through torchproxy (its torch::sigmoid/tanh/elu/addmm, Tensor::chunk/pow/exp/type_as/mm/t/sum
and the Tensor operators come from torchproxy's ATen supplement); forward and backward compared.

The file is fetched at test time (git mirror under $TORCHPROXY_GIT_MIRRORS, else GitHub's
archive of the commit) into build/cpp-extension-tests/lltm/, never committed."""
import os

import pytest

from cases import CASES
from cppext_shared import CACHE, check_case, needs_compat
from compat_matrix.specs.extension_cpp import SourceUnavailable, fetch_source

pytestmark = needs_compat

LLTM_SHA = "1031028f3b048fdea84372f3b81498db53d64d98"


def _lltm_source() -> str:
    work = os.path.join(CACHE, "lltm", LLTM_SHA[:12])
    try:
        src = fetch_source(os.path.join(work, "src"), sha=LLTM_SHA, marker="cpp/lltm.cpp")
    except SourceUnavailable as e:
        pytest.skip(str(e))
    return os.path.join(src, "cpp", "lltm.cpp")


@pytest.mark.parametrize("case", list(CASES["lltm"]))
def test_lltm_matches_torch(case):
    check_case(_lltm_source(), f"lltm/{case}", {})
