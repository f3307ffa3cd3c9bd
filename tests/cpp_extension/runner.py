"""Build one extension source and run its cases, under real torch or under torchproxy.

    python runner.py torch|paddle SOURCE BUILD_DIR OUT.pkl

Runs in a subprocess of the tests: a libtorch extension and a Paddle one are never loaded into
one process.  Writes ``{"build_s": seconds, "results": {case: result}}`` where a result is
("ok", value) with tensors as ("tensor", numpy array, dtype name, shape) or ("error", type name,
first line of the message)."""
import os
import pickle
import sys
import textwrap
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cases import CASES, GROUPS  # noqa: E402

SCOPED = "tpx_cpp_cases"


def encode(v, torch):
    if isinstance(v, torch.Tensor):
        t = v.detach().cpu() if hasattr(v, "detach") else v
        return ("tensor", t.numpy().copy(), str(v.dtype).rsplit(".", 1)[-1], tuple(v.shape))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [encode(x, torch) for x in v])
    return ("value", v)


def main(side, source, build_dir, out):
    name = "tpx_" + os.path.splitext(os.path.basename(source))[0]
    if side == "paddle":
        import torchproxy
        torchproxy.enable(scope={SCOPED})
    mod = types.ModuleType(SCOPED)
    mod.__file__ = f"<{SCOPED}>"
    sys.modules[SCOPED] = mod
    exec("import torch\nimport torch.utils.cpp_extension\nimport numpy as np\n", mod.__dict__)
    torch = mod.torch
    os.makedirs(build_dir, exist_ok=True)  # torch.utils.cpp_extension.load needs it
    t0 = time.perf_counter()
    # -g0: the Paddle side builds through setuptools, whose flags carry Python's "-g" (a quarter
    # of aten_supplement.cpp's build there, in CI's time budget); real torch's load has no -g.
    # -O1 kept: -O0 saved nothing measurable on these pybind11-heavy sources
    m = torch.utils.cpp_extension.load(name, [source], build_directory=build_dir,
                                       extra_cflags=["-O1", "-g0"])
    build_s = time.perf_counter() - t0
    results = {}
    groups = GROUPS[os.path.basename(source)]
    for case, body in ((f"{g}/{c}", b) for g in groups for c, b in CASES[g].items()):
        body = "\n".join(line.strip() for line in body.splitlines())  # one level, no nesting
        src = "def case(m, torch, np):\n" + textwrap.indent(body, "    ") + "\n"
        exec(compile(src, f"<case {case}>", "exec"), mod.__dict__)
        try:
            results[case] = ("ok", encode(mod.case(m, torch, mod.np), torch))
        except Exception as e:  # the comparison is the point: record what was raised
            results[case] = ("error", type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
    with open(out, "wb") as f:
        pickle.dump({"build_s": build_s, "results": results}, f)


if __name__ == "__main__":
    main(*sys.argv[1:5])
