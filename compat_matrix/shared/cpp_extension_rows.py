"""The GPU-only rows of torch C++/CUDA extension libraries (DeepEP, DeepGEMM, FlashMLA): what
they need and how each is fetched and built against Paddle's torch-compatible headers."""
from compat_matrix.spec import Library

NEEDS = "needs a Paddle 3.3+ CUDA build with the compat headers; sm_90"


def install(repo: str, sha: str, build: str) -> tuple:
    """Fetch the pinned commit, then build with torchproxy's build environment (Paddle's
    torch-compatible headers and libraries in place of torch's)."""
    name = repo.split("/")[1]
    return (f"git clone https://github.com/{repo} && git -C {name} checkout {sha}",
            f"cd {name} && python -m torchproxy.facade.cpp_extension -- {build}")


def gpu_only_library(name: str, module: str, install: tuple, missing: str, report: str) -> Library:
    """The row of a GPU-only C++ extension library: ``module`` is its import name (scope,
    requirement and import case at once); ``missing`` says what the compat headers lack (the
    n/a cells' detail, after NEEDS); ``report`` is the C++ porting report's summary."""
    return Library(name=name, scope=(module,), requires=(module,), imports=(module,),
                   install=install, devices=("gpu",), unavailable_reason=NEEDS + missing,
                   notes=report)
