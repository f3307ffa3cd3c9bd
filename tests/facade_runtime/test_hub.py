"""torch.hub.load_state_dict_from_url / torch.utils.model_zoo.load_url / get_dir / set_dir: the
same snippet under real torch and under the facade, on a checkpoint real torch saved, served by
a file:// URL (urllib's handler: no network)."""
from __future__ import annotations

import hashlib
import os

import numpy as np
import pytest

from difftest import load

torch = pytest.importorskip("torch")

SNIPPET = '''
import os
import torch
from torch.utils import model_zoo

def fetch(url, model_dir, check_hash, via_model_zoo=False):
    f = model_zoo.load_url if via_model_zoo else torch.hub.load_state_dict_from_url
    sd = f(url, model_dir=model_dir, check_hash=check_hash, progress=False)
    return {k: v.numpy() for k, v in sd.items()}, sorted(os.listdir(model_dir))

def hub_dirs(new_dir):
    before = torch.hub.get_dir()
    torch.hub.set_dir(new_dir)
    try:
        return before, torch.hub.get_dir()
    finally:
        torch.hub.set_dir(before)
'''


@pytest.fixture
def checkpoint(tmp_path):
    sd = {"w": torch.arange(6, dtype=torch.float32).reshape(2, 3), "b": torch.tensor([1, 2, 3])}
    raw = tmp_path / "raw.pt"
    torch.save(sd, raw)
    digest = hashlib.sha256(raw.read_bytes()).hexdigest()
    good = tmp_path / f"ckpt-{digest[:8]}.pt"
    bad = tmp_path / "ckpt-deadbeef.pt"  # a name whose hash prefix the content does not have
    good.write_bytes(raw.read_bytes())
    bad.write_bytes(raw.read_bytes())
    return good, bad


@pytest.mark.parametrize("via_model_zoo", [False, True])
def test_load_state_dict_from_url_matches_torch(tmp_path, checkpoint, via_model_zoo):
    good, _ = checkpoint
    mods = {scoped: load(SNIPPET, scoped=scoped) for scoped in (False, True)}
    results = {scoped: mods[scoped].fetch(good.as_uri(), str(tmp_path / f"hub-{scoped}"), True,
                                          via_model_zoo) for scoped in mods}
    good.unlink()  # a second call must read its cached copy
    again = {scoped: mods[scoped].fetch(good.as_uri(), str(tmp_path / f"hub-{scoped}"), True,
                                        via_model_zoo) for scoped in mods}
    for res in (results, again):
        (real_sd, real_files), (fac_sd, fac_files) = res[False], res[True]
        assert real_files == fac_files == [good.name]
        assert sorted(real_sd) == sorted(fac_sd) == ["b", "w"]
        for k in real_sd:
            assert real_sd[k].dtype == fac_sd[k].dtype
            np.testing.assert_array_equal(real_sd[k], fac_sd[k])


def test_check_hash_mismatch_raises_like_torch(tmp_path, checkpoint):
    _, bad = checkpoint
    errors = {}
    for scoped in (False, True):
        mod = load(SNIPPET, scoped=scoped)
        out = tmp_path / f"hub-{scoped}"
        with pytest.raises(RuntimeError) as e:
            mod.fetch(bad.as_uri(), str(out), True)
        errors[scoped] = str(e.value)
        assert os.listdir(out) == []  # the partial download is removed, nothing cached
    assert errors[False] == errors[True]
    assert errors[True].startswith('invalid hash value (expected "deadbeef", got "')


def test_get_dir_set_dir_like_torch(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    real = load(SNIPPET, scoped=False).hub_dirs(str(tmp_path / "x"))
    fac = load(SNIPPET, scoped=True).hub_dirs(str(tmp_path / "x"))
    assert real == fac == (str(tmp_path / "home" / "hub"), str(tmp_path / "x"))
