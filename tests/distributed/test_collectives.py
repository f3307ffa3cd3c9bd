"""torch.distributed over Gloo on CPU: every collective run by 2 (and 4) ranks under real
torch's Gloo (the oracle) and under the facade on Paddle's Gloo, the same inputs, compared
result by result (values, dtypes, shapes, exception types)."""
from __future__ import annotations

import numpy as np
import pytest

from distrun import launch

pytest.importorskip("torch")  # the oracle

# torch's Gloo has BAND/BOR/BXOR; Paddle's process groups have no bitwise reduction: the facade
# raises NotProvidedError naming the op (checked here, not compared); point-to-point in a group
# of more than 2 ranks raises too (Paddle's Gloo tags; the script only tries it on the facade)
FACADE_ONLY = {"raises/BAND": "NotProvidedError"}


def _compare(oracle, facade, where=""):
    assert type(oracle) is type(facade) or (isinstance(oracle, (int, float))
                                            and isinstance(facade, (int, float))), \
        f"{where}: {oracle!r} vs {facade!r}"
    if isinstance(oracle, dict) and set(oracle) == {"v", "dtype", "shape"}:
        assert (oracle["dtype"], oracle["shape"]) == (facade["dtype"], facade["shape"]), where
        np.testing.assert_allclose(np.array(facade["v"], dtype="float64"),
                                   np.array(oracle["v"], dtype="float64"), rtol=1e-6,
                                   err_msg=where)
    elif isinstance(oracle, dict):
        assert set(oracle) == set(facade), f"{where}: {set(oracle) ^ set(facade)}"
        for k in oracle:
            _compare(oracle[k], facade[k], f"{where}/{k}")
    elif isinstance(oracle, list):
        assert len(oracle) == len(facade), where
        for i, (a, b) in enumerate(zip(oracle, facade)):
            _compare(a, b, f"{where}[{i}]")
    else:
        assert oracle == facade, f"{where}: {oracle!r} vs {facade!r}"


@pytest.mark.parametrize("nprocs", [2, 4])
def test_every_collective_matches_torch_gloo(nprocs):
    torch_out = launch("collectives.py", nprocs, facade=False, timeout=180)
    facade_out = launch("collectives.py", nprocs, facade=True, timeout=240)
    for rank, (t, f) in enumerate(zip(torch_out, facade_out)):
        for k, v in FACADE_ONLY.items():
            assert f.pop(k) == v, (rank, k)
            t.pop(k)
        if nprocs > 2:
            # never reaches torch (whose send would wait for a recv that no rank posts)
            assert f.pop("raises/p2p_in_big_group") == "NotProvidedError"
        _compare(t, f, f"rank {rank}")
