"""torch.save / torch.load in torch's zip format: real torch 2.13 writes, the facade reads onto
Paddle tensors, and the other way round, in one process; plus a process with no torch at all."""
import collections
import io
import json
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import paddle
import pytest

import torchproxy
from difftest import load as load_snippet
from torchproxy.facade import serialization_save as ser_save

torch = pytest.importorskip("torch")

# the facade's torch, as scoped code sees it
ft = load_snippet("import torch\nimport torch.serialization\nimport torch.nn\n", scoped=True).torch


def np_of(t):
    """numpy values of a torch or Paddle tensor (bfloat16/float8 via float32)."""
    if isinstance(t, torch.Tensor):
        t = t.detach()
        if t.dtype in (torch.bfloat16, getattr(torch, "float8_e4m3fn", None)):
            t = t.float()
        return t.numpy()
    name = str(t.dtype).split(".")[-1]
    if name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        t = t.astype("float32")
    return t.numpy()


def dtype_name(t):
    return str(t.dtype).split(".")[-1]


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 3)
        self.fc2 = torch.nn.Linear(3, 2, bias=False)
        self.register_buffer("steps", torch.tensor(7))
        self.register_buffer("scale", torch.arange(3, dtype=torch.bfloat16))


DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8",
          "bool", "complex64"]


def _torch_tensor(name):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, 4, generator=g) * 5
    if name == "bool":
        return x > 0
    if name == "complex64":
        return torch.complex(x, -x)
    return x.to(getattr(torch, name))


def torch_checkpoint():
    torch.manual_seed(0)
    base = torch.arange(24.0).reshape(4, 6)
    obj = {
        "model": Net().state_dict(),
        "by_dtype": {n: _torch_tensor(n) for n in DTYPES},
        "transposed": base.t(),               # non-contiguous view
        "row": base[2],                       # offset view of the same storage
        "strided": base[:, ::2],
        "base": base,
        "scalar": torch.tensor(3.25),         # 0-d
        "empty": torch.zeros(0, 3),
        "param": torch.nn.Parameter(torch.ones(2)),
        "frozen": torch.nn.Parameter(torch.ones(2), requires_grad=False),
        "grad": torch.ones(2, requires_grad=True),
        "nested": [1, (2.5, "s", None), {"deep": [torch.tensor([1, 2])]}],
        "meta": {"epoch": 3, "lr": 1e-3, "dtype": torch.float16, "device": torch.device("cpu"),
                 "size": torch.Size([2, 3]), "bytes": b"\x00\x01", "set": {1, 2}},
    }
    return obj


@pytest.fixture(scope="module")
def torch_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("ckpt") / "torch.pt"
    obj = torch_checkpoint()
    torch.save(obj, path)
    return path, obj


def _same(paddle_t, torch_t):
    assert isinstance(paddle_t, paddle.Tensor), type(paddle_t)
    assert dtype_name(paddle_t) == dtype_name(torch_t)
    assert list(paddle_t.shape) == list(torch_t.shape)
    np.testing.assert_array_equal(np_of(paddle_t), np_of(torch_t))
    assert (not paddle_t.stop_gradient) == torch_t.requires_grad


@pytest.mark.parametrize("how", ["path", "str", "file", "bytesio"])
def test_torch_writes_facade_reads(torch_file, how):
    path, obj = torch_file
    if how == "path":
        got = ft.load(path)
    elif how == "str":
        got = ft.load(str(path))
    elif how == "file":
        with open(path, "rb") as f:
            got = ft.load(f)
    else:
        got = ft.load(io.BytesIO(path.read_bytes()))
    assert isinstance(got["model"], collections.OrderedDict)
    assert list(got["model"]) == list(obj["model"])
    assert got["model"]._metadata == obj["model"]._metadata  # torch's state_dict version info
    for k, v in obj["model"].items():
        _same(got["model"][k], v)
    for n in DTYPES:
        _same(got["by_dtype"][n], obj["by_dtype"][n])
    for k in ("transposed", "row", "strided", "base", "scalar", "empty", "grad"):
        _same(got[k], obj[k])
    assert got["scalar"].shape == [] and float(got["scalar"]) == 3.25
    from torchproxy.facade.nn import Parameter
    assert isinstance(got["param"], Parameter) and not got["param"].stop_gradient
    assert isinstance(got["frozen"], Parameter) and got["frozen"].stop_gradient
    assert got["nested"][0] == 1 and got["nested"][1] == (2.5, "s", None)
    _same(got["nested"][2]["deep"][0], obj["nested"][2]["deep"][0])
    meta = got["meta"]
    assert meta["epoch"] == 3 and meta["lr"] == 1e-3 and meta["bytes"] == b"\x00\x01"
    assert meta["dtype"] == paddle.float16 and meta["dtype"] is ft.float16
    assert isinstance(meta["device"], ft.device) and str(meta["device"]) == "cpu"
    assert isinstance(meta["size"], ft.Size) and tuple(meta["size"]) == (2, 3)
    assert meta["set"] == {1, 2}


def test_views_of_one_storage_share_memory_after_load(torch_file):
    path, _ = torch_file
    got = ft.load(path)
    got["base"][2, 0] = -1.0          # write through the base ...
    assert float(got["row"][0]) == -1.0          # ... the row view sees it (torch: same storage)
    assert float(got["transposed"][0, 2]) == -1.0
    assert float(got["strided"][2, 0]) == -1.0
    assert got["transposed"].get_strides() == [1, 6]   # torch's strides, as saved


def test_state_dict_into_facade_module_and_forward_matches(torch_file):
    torch.manual_seed(1)
    tm = torch.nn.Linear(4, 3)
    buf = io.BytesIO()
    torch.save(tm.state_dict(), buf)
    buf.seek(0)
    fm = ft.nn.Linear(4, 3)
    fm.set_state_dict(ft.load(buf))
    x = np.random.default_rng(0).standard_normal((2, 4)).astype("float32")
    np.testing.assert_allclose(fm(paddle.to_tensor(x)).numpy(),
                               tm(torch.from_numpy(x)).detach().numpy(), rtol=1e-6, atol=1e-6)


def facade_checkpoint():
    w = paddle.to_tensor(np.arange(24, dtype="float32").reshape(4, 6))
    lin = ft.nn.Linear(3, 2)
    obj = {
        "model": lin.state_dict(),
        "base": w,
        "row": w[2],
        "transposed": paddle.transpose(w, [1, 0]),
        "by_dtype": {n: paddle.to_tensor(np_of(_torch_tensor(n))).astype(n)
                     if n != "bfloat16" else paddle.to_tensor(np_of(_torch_tensor(n))).astype("bfloat16")
                     for n in DTYPES},
        "scalar": paddle.to_tensor(np.float32(2.5)),
        "empty": paddle.zeros([0, 2]),
        "param": ft.nn.Parameter(paddle.ones([3])),
        "grad": paddle.ones([2]),
        "nested": [1, (2.0, "x"), {"k": paddle.to_tensor([1, 2, 3])}],
        "meta": {"dtype": ft.bfloat16, "device": ft.device("cpu"), "size": ft.Size([5])},
    }
    obj["grad"].stop_gradient = False
    return obj, lin


@pytest.mark.parametrize("weights_only", [True, False])
def test_facade_writes_torch_reads(tmp_path, weights_only):
    obj, lin = facade_checkpoint()
    path = tmp_path / "facade.pt"
    ft.save(obj, path)
    got = torch.load(path, weights_only=weights_only)
    for n in DTYPES:
        t = got["by_dtype"][n]
        assert dtype_name(t) == n
        np.testing.assert_array_equal(np_of(t), np_of(obj["by_dtype"][n]))
    for k in ("base", "row", "transposed", "scalar", "empty"):
        assert list(got[k].shape) == list(obj[k].shape)
        np.testing.assert_array_equal(got[k].numpy(), obj[k].numpy())
    # Paddle views of one allocation are saved as views of one storage, as torch does
    assert got["row"].untyped_storage().data_ptr() == got["base"].untyped_storage().data_ptr()
    assert got["transposed"].stride() == (1, 6)
    got["base"][2, 1] = 99.0
    assert got["row"][1].item() == 99.0
    assert isinstance(got["param"], torch.nn.Parameter) and got["param"].requires_grad
    assert got["grad"].requires_grad and not got["base"].requires_grad
    assert got["nested"][:2] == [1, (2.0, "x")] and got["nested"][2]["k"].tolist() == [1, 2, 3]
    assert got["meta"] == {"dtype": torch.bfloat16, "device": torch.device("cpu"),
                           "size": torch.Size([5])}
    # the facade module's state_dict loads into the torch module and computes the same
    tm = torch.nn.Linear(3, 2)
    tm.load_state_dict(got["model"])
    x = np.ones((1, 3), "float32")
    np.testing.assert_allclose(tm(torch.from_numpy(x)).detach().numpy(),
                               lin(paddle.to_tensor(x)).numpy(), rtol=1e-6)


def test_facade_round_trip_and_file_objects(tmp_path):
    obj, _ = facade_checkpoint()
    buf = io.BytesIO()
    ft.save(obj, buf)
    with open(tmp_path / "f.pt", "wb") as f:
        ft.save(obj, f)
    for src in (io.BytesIO(buf.getvalue()), tmp_path / "f.pt", str(tmp_path / "f.pt")):
        got = ft.load(src)
        for n in DTYPES:
            assert dtype_name(got["by_dtype"][n]) == n
            np.testing.assert_array_equal(np_of(got["by_dtype"][n]), np_of(obj["by_dtype"][n]))
        np.testing.assert_array_equal(got["transposed"].numpy(), obj["transposed"].numpy())
        assert got["meta"]["dtype"] is ft.bfloat16


def test_float8_both_ways(tmp_path):
    if not hasattr(paddle, "float8_e4m3fn"):
        buf = io.BytesIO()
        torch.save(torch.zeros(2, dtype=torch.float8_e4m3fn), buf)
        buf.seek(0)
        with pytest.raises(torchproxy.NotProvidedError, match="float8_e4m3fn"):
            ft.load(buf)
        return
    for name in ("float8_e4m3fn", "float8_e5m2"):
        vals = torch.tensor([0.0, -0.0, 0.5, -2.0, 448.0 if name.endswith("fn") else 57344.0,
                             0.001953125 if name.endswith("fn") else 1.52587890625e-05, 3.5])
        t = vals.to(getattr(torch, name))
        buf = io.BytesIO()
        torch.save(t, buf)
        buf.seek(0)
        got = ft.load(buf)
        assert dtype_name(got) == name
        np.testing.assert_array_equal(np_of(got), t.float().numpy())
        out = io.BytesIO()
        ft.save(got, out)
        out.seek(0)
        back = torch.load(out)
        assert back.dtype == t.dtype and torch.equal(back.view(torch.uint8), t.view(torch.uint8))


# -- map_location ------------------------------------------------------------------------------
@pytest.fixture
def cuda_file(tmp_path, monkeypatch):
    """A checkpoint whose storages say 'cuda:0' (written by the facade with the location
    rewritten: real torch's CPU build cannot make one)."""
    monkeypatch.setattr(ser_save, "_location_of", lambda place: "cuda:0")
    path = tmp_path / "cuda.pt"
    ft.save({"w": paddle.to_tensor([1.0, 2.0]), "n": 3}, path)
    monkeypatch.undo()
    return path


def _has_cuda():
    return paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0


def test_map_location_forms(cuda_file):
    if _has_cuda():
        pytest.skip("needs a CPU-only machine (the error without map_location)")
    # without map_location both refuse the CUDA checkpoint with torch's RuntimeError
    with pytest.raises(RuntimeError, match="map_location"):
        torch.load(cuda_file)
    with pytest.raises(RuntimeError, match="map_location"):
        ft.load(cuda_file)
    seen = []

    def keep(storage, location):
        seen.append(location)
        return storage

    for ml in ("cpu", ft.device("cpu"), {"cuda:0": "cpu"}, keep, lambda s, loc: s.cpu()):
        got = ft.load(cuda_file, map_location=ml)
        assert got["n"] == 3 and got["w"].place.is_cpu_place()
        np.testing.assert_array_equal(got["w"].numpy(), [1.0, 2.0])
    assert seen == ["cuda:0"]
    # the same file and map_locations in real torch
    for ml in ("cpu", torch.device("cpu"), {"cuda:0": "cpu"}, lambda s, loc: s):
        assert torch.load(cuda_file, map_location=ml)["w"].tolist() == [1.0, 2.0]
    # a callable returning None falls back to the saved location: torch's error again
    with pytest.raises(RuntimeError):
        torch.load(cuda_file, map_location=lambda s, loc: None)
    with pytest.raises(RuntimeError):
        ft.load(cuda_file, map_location=lambda s, loc: None)
    with pytest.raises(TypeError):
        ft.load(cuda_file, map_location=3.5)


# -- weights_only --------------------------------------------------------------------------------
class Custom:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, Custom) and other.v == self.v


def _custom_file(tmp_path):
    path = tmp_path / "custom.pt"
    torch.save({"obj": Custom(5), "w": torch.ones(2)}, path)
    return path


def test_weights_only_refuses_other_globals_like_torch(tmp_path):
    path = _custom_file(tmp_path)
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global") as te:
        torch.load(path)  # weights_only=True is the default
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global") as fe:
        ft.load(path)
    name = f"{Custom.__module__}.Custom"
    assert name in str(te.value) and name in str(fe.value)
    with pytest.raises(pickle.UnpicklingError):
        ft.load(path, weights_only=True)
    got = ft.load(path, weights_only=False)
    assert got["obj"] == Custom(5) and got["w"].numpy().tolist() == [1.0, 1.0]


def test_safe_globals_allow_a_class(tmp_path):
    path = _custom_file(tmp_path)
    with ft.serialization.safe_globals([Custom]):
        assert ft.load(path)["obj"] == Custom(5)
        assert Custom in ft.serialization.get_safe_globals()
    assert Custom not in ft.serialization.get_safe_globals()
    with pytest.raises(pickle.UnpicklingError):
        ft.load(path)
    ft.serialization.add_safe_globals([Custom])
    try:
        assert ft.load(path)["obj"] == Custom(5)
    finally:
        ft.serialization.clear_safe_globals()
    assert ft.serialization.get_safe_globals() == []


def test_blocked_module_and_reduce_payload_refused(tmp_path):
    """A pickle that would call os.system: both refuse it with weights_only (the default)."""
    payload = b"\x80\x02cos\nsystem\nq\x00X\x04\x00\x00\x00truet\x85R."
    buf = io.BytesIO()
    torch.save(torch.ones(1), buf)
    import zipfile
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for info in src.infolist():
            data = payload if info.filename.endswith("data.pkl") else src.read(info)
            z.writestr(info.filename, data)
    path = tmp_path / "evil.pt"
    path.write_bytes(out.getvalue())
    with pytest.raises(pickle.UnpicklingError, match="blocked"):
        torch.load(path)
    with pytest.raises(pickle.UnpicklingError, match="blocked"):
        ft.load(path)


def test_bad_inputs_give_clear_errors(tmp_path):
    legacy = tmp_path / "legacy.pt"
    torch.save(torch.ones(2), legacy, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="legacy"):
        ft.load(legacy)
    with pytest.raises(TypeError):
        ft.load(12)
    with pytest.raises(FileNotFoundError):
        ft.load(tmp_path / "missing.pt")
    with pytest.raises(torchproxy.NotProvidedError):
        ft.save(paddle.ones([1]), io.BytesIO(), pickle_protocol=4)


def test_module_object_pickle_is_refused_with_its_name(tmp_path):
    path = tmp_path / "model.pt"
    torch.save(torch.nn.Sequential(torch.nn.ReLU()), path)
    with pytest.raises(pickle.UnpicklingError):
        ft.load(path)                       # weights_only: not an allowed global
    with pytest.raises(torchproxy.NotProvidedError, match="torch.nn.modules"):
        ft.load(path, weights_only=False)   # torch.nn.modules.container.Sequential: a pickled module


def _super_resolution_net(nn):
    """super_resolution/model.py's Net, small: conv, relu, PixelShuffle."""
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.relu = nn.ReLU()
            self.conv1 = nn.Conv2d(1, 8, (3, 3), (1, 1), (1, 1))
            self.conv2 = nn.Conv2d(8, 4, (3, 3), (1, 1), (1, 1))
            self.pixel_shuffle = nn.PixelShuffle(2)

        def forward(self, x):
            return self.pixel_shuffle(self.conv2(self.relu(self.conv1(x))))
    return Net


TorchSRNet = _super_resolution_net(torch.nn)
TorchSRNet.__qualname__ = TorchSRNet.__name__ = "TorchSRNet"
FacadeSRNet = _super_resolution_net(ft.nn)
FacadeSRNet.__qualname__ = FacadeSRNet.__name__ = "FacadeSRNet"


@pytest.mark.parametrize("side", ["torch", "facade"])
def test_whole_module_saved_loads_weights_only_with_its_classes_allowed(side):
    """pytorch/examples super_resolution: main.py saves the whole model (torch.save(model)),
    super_resolve.py loads it under serialization.safe_globals([Net, ReLU, Conv2d,
    PixelShuffle]) with weights_only (the default).  The facade pickled each Module with
    Paddle's LayerObjectHelper in its state (refused as an unsupported global), and its
    torch.nn classes through pickling.new_instance (refused too).  Both sides now: the load
    gives the same module (parameters, training flag, output), and an allow-list without
    PixelShuffle is refused naming torch.nn.modules.pixelshuffle.PixelShuffle."""
    t = torch if side == "torch" else ft
    Net = TorchSRNet if side == "torch" else FacadeSRNet
    if side == "torch":
        torch.manual_seed(0)
        net = Net()
    else:  # real torch's weights, so the outputs compare across the two sides
        torch.manual_seed(0)
        net = Net()
        net.load_state_dict({k: ft.from_numpy(v.detach().numpy().copy())
                             for k, v in TorchSRNet().state_dict().items()})
    net.eval()
    buf = io.BytesIO()
    t.save(net, buf)
    nn = t.nn.modules
    allowed = [Net, nn.activation.ReLU, nn.conv.Conv2d, nn.pixelshuffle.PixelShuffle]
    buf.seek(0)
    with t.serialization.safe_globals(allowed):
        got = t.load(buf)
    assert type(got) is Net and got.training is False and got.conv1.training is False
    assert list(got.state_dict()) == ["conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias"]
    x = np.linspace(0, 1, 36, dtype="float32").reshape(1, 1, 6, 6)
    with t.no_grad():
        out = np_of(got(t.from_numpy(x)))
        assert np.array_equal(out, np_of(net(t.from_numpy(x))))
    torch.manual_seed(0)
    with torch.no_grad():
        want = TorchSRNet().eval()(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)
    got.train()
    assert got.relu.training is True
    buf.seek(0)
    with t.serialization.safe_globals(allowed[:3]):
        with pytest.raises(pickle.UnpicklingError,
                           match=r"GLOBAL torch\.nn\.modules\.pixelshuffle\.PixelShuffle was not an "
                                 "allowed global"):
            t.load(buf)


# -- no torch installed --------------------------------------------------------------------------
NO_TORCH = textwrap.dedent("""
    import sys, importlib.abc
    class NoTorch(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ImportError("torch is hidden in this process")
    sys.meta_path.insert(0, NoTorch())
    import numpy as np, paddle
    from torchproxy.facade import modules
    ft = modules.build()["torch"]
    src, dst = sys.argv[1], sys.argv[2]
    got = ft.load(src)
    w = got["model"]["fc1.weight"]
    assert isinstance(w, paddle.Tensor) and list(w.shape) == [3, 4]
    np.save(dst + ".npy", w.numpy())
    assert str(got["model"]["scale"].dtype).endswith("bfloat16")
    assert got["by_dtype"]["float16"].dtype == paddle.float16
    ft.save({"w": w * 2, "bf": got["model"]["scale"], "row": got["row"]}, dst)
    assert not any(m == "torch" or m.startswith("torch.") for m in sys.modules), "torch imported"
    print("ok")
""")


def test_no_torch_process_reads_and_writes(torch_file, tmp_path):
    path, obj = torch_file
    dst = tmp_path / "from_facade.pt"
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", NO_TORCH, str(path), str(dst)], env=env,
                       capture_output=True, text=True, timeout=240)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-3000:]
    np.testing.assert_array_equal(np.load(str(dst) + ".npy"),
                                  obj["model"]["fc1.weight"].detach().numpy())
    back = torch.load(dst)
    torch.testing.assert_close(back["w"], obj["model"]["fc1.weight"].detach() * 2)
    assert back["bf"].dtype == torch.bfloat16 and torch.equal(back["bf"], obj["model"]["scale"])
    assert torch.equal(back["row"], obj["row"])


# -- issue 19: saves write exactly the values; loads cannot reach memory or classes -------------
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checkpoint_fuzz  # noqa: E402  (same directory; heap-checked child runner and the fuzzer)

NEGATIVE_STRIDE_SAVE = """
import json, numpy as np
out = sys.argv[1]
base = paddle.arange(24, dtype="float32").reshape([4, 6])
views = {
    "rev": paddle.arange(6, dtype="float32")[::-1],        # stride (-1,), offset 5
    "rev2": base[::-1, 1:],                                 # strides (-6, 1)
    "both": base[::-2, ::-3],                               # strides (-12, -3)
    "row": base[2],                                         # offset 12, stride 1
    "one": base[3:, ::-1][:, :1],                           # a length-1 dim with stride -1
}
strides = {k: [int(s) for s in v.get_strides()] for k, v in views.items()}
torch.save(views, out)
after = {k: [int(s) for s in v.get_strides()] for k, v in views.items()}
values = {k: v.numpy().tolist() for k, v in views.items()}
base[0, 1] = 100.0  # rev2's last row: the saved views are still views of base
back = torch.load(out)
print(json.dumps({"strides": strides, "after": after, "shared": float(views["rev2"][-1, 0]),
                  "values": values,
                  "reloaded": {k: v.numpy().tolist() for k, v in back.items()}}))
"""


def test_save_of_negative_stride_views_writes_every_value(heap_checked):
    """Paddle's own slicing makes views with negative strides (torch cannot): torch.save wrote
    1 of 6 values of x[::-1] and a load read heap garbage.  Saved by the facade in a
    heap-checked child, loaded back there and by real torch here: the same values."""
    path, r = heap_checked["negative_strides"]
    assert r["returncode"] == 0, r["stderr"][-3000:]
    import json
    got = json.loads(r["stdout"].strip().splitlines()[-1])
    assert got["strides"]["rev"] == [-1] and got["strides"]["both"] == [-12, -3]
    # saving left the user's views alone (Paddle's contiguous() would rewrite them in place)
    assert got["after"] == got["strides"] and got["shared"] == 100.0
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    want = {"rev": np.arange(6, dtype=np.float32)[::-1], "rev2": base[::-1, 1:],
            "both": base[::-2, ::-3], "row": base[2], "one": base[3:, ::-1][:, :1]}
    real = torch.load(path)
    for k, v in want.items():
        assert got["values"][k] == v.tolist()
        assert got["reloaded"][k] == v.tolist(), k
        np.testing.assert_array_equal(real[k].numpy(), v)
        assert real[k].dtype == torch.float32


def _archive(tmp_path, pkl, records, name="crafted.pt"):
    """A torch zip archive around a hand-written pickle (records: data/<key> -> bytes)."""
    buf = io.BytesIO()
    torch.save(torch.ones(1), buf)
    entries = [(n, d) for n, d in checkpoint_fuzz.read_entries(io.BytesIO(buf.getvalue()))
               if "/data/" not in n]
    prefix = entries[0][0].split("/")[0]
    entries = [(n, pkl if n.endswith("data.pkl") else d) for n, d in entries]
    entries += [(f"{prefix}/data/{k}", v) for k, v in records.items()]
    path = tmp_path / name
    path.write_bytes(checkpoint_fuzz.zip_bytes(entries))
    return path


FLOATS4 = {"0": np.arange(1, 5, dtype="<f4").tobytes()}

LOAD_CHILD = """
import json, pickle
out = []
for path in sys.argv[1:]:
    try:
        t = torch.load(path)
        out.append(["ok", t.numpy().tolist()])
    except Exception as e:
        out.append(["raise", type(e).__name__, str(e)])
print(json.dumps(out))
"""


VIEWS = [
    (3, (64,), (-1,)),        # the file: 60 values from before the allocation
    (3, (4,), (-1,)),         # inside the storage, but torch refuses every negative stride
    (0, (2 ** 62,), (1,)), (0, (2,), (2 ** 62,)), (2 ** 62, (1,), (1,)),
    (-1, (1,), (1,)), (1, (4,), (1,)),
    (1, (3,), (1,)), (0, (2, 2), (1, 2)), (3, (1,), (-1,)),   # valid: loaded as torch does
]


def _alloc_pickle(cls, sizes):
    g = checkpoint_fuzz
    return g.PKL(g.G("torch", cls) + g.INTS(sizes) + b"R")


# weights_only allows torch.FloatTensor / torch.Tensor: a 30-byte file asked for 2**62 floats
# (a tensor over a tiny allocation before the fix)
ALLOCS = [("FloatTensor", [2 ** 62]), ("FloatTensor", [2 ** 31, 2 ** 31]), ("Tensor", [2 ** 62]),
          ("LongTensor", [2 ** 61]), ("ByteTensor", [2 ** 60]), ("FloatTensor", [0])]


# torch keeps sizes/strides as c10::SymInt: int64 values below -2**62 are reserved and refused
# even for 0 elements (checkpoint_fuzz --files 1000 --seed 29: the facade loaded one)
SYMINT_VIEWS = [((0, 3), (3, -2 ** 63)), ((0, 3), (-2 ** 62 - 1, 1)), ((0, 3), (3, -2 ** 62)),
                ((1, 2), (2, -2 ** 63))]


def _crafted_views(tmp):
    """The files of the two tests below: VIEWS and ALLOCS ("views"), SYMINT_VIEWS ("symints")."""
    g = checkpoint_fuzz
    pickles = [g.PKL(g.V2(offset, list(size), list(stride))) for offset, size, stride in VIEWS]
    pickles += [_alloc_pickle(cls, sizes) for cls, sizes in ALLOCS]
    assert len(pickles[len(VIEWS)]) <= 40
    return {"views": [_archive(tmp, pkl, FLOATS4, f"view{i}.pt")
                      for i, pkl in enumerate(pickles)],
            "symints": [_archive(tmp, g.PKL(g.V2(0, list(size), list(stride))), FLOATS4,
                                 f"symint{i}.pt")
                        for i, (size, stride) in enumerate(SYMINT_VIEWS)]}


@pytest.fixture(scope="module")
def crafted_loads(heap_checked):
    """[file, the facade's result] per crafted file, under "views" and "symints"."""
    files, r = heap_checked["crafted"]
    assert r["returncode"] == 0, r["stderr"][-3000:]
    import json
    got = json.loads(r["stdout"].strip().splitlines()[-1])
    paths = files["views"] + files["symints"]
    assert len(got) == len(paths)
    n = len(files["views"])
    return {"views": list(zip(files["views"], got[:n])),
            "symints": list(zip(files["symints"], got[n:]))}


def test_load_checks_views_against_their_storage(crafted_loads):
    """Crafted views of a storage of 4 floats, and allow-listed tensor constructors asked for
    sizes past int64 arithmetic or memory: real torch's result (values, or its exception type
    and message) against the facade's, loaded in a heap-checked child."""
    loads = crafted_loads["views"]
    assert len(loads) == len(VIEWS + ALLOCS)
    for case, (path, got) in zip(VIEWS + ALLOCS, loads):
        try:
            want = ["ok", torch.load(path).tolist()]
        except Exception as e:
            want = ["raise", type(e).__name__, str(e)]
        assert got == want, case


@pytest.mark.parametrize("size, stride", SYMINT_VIEWS)
def test_load_refuses_sizes_in_symints_reserved_range(crafted_loads, size, stride):
    path, got = crafted_loads["symints"][SYMINT_VIEWS.index((size, stride))]
    try:
        want = ["ok", torch.load(path).tolist()]
    except Exception as e:
        want = ["raise", type(e).__name__, str(e).rsplit(": ", 1)[-1]]
    if got[0] == "raise":
        got = got[:2] + [got[2].rsplit(": ", 1)[-1]]
    assert got == want


BUILD_CHILD = """
import collections, json, builtins
from torchproxy.facade import modules
from torchproxy.paddle_shims import EagerParamBase
facade = modules.build()["torch"]
owners = [paddle.Tensor, EagerParamBase, facade.device, facade.Size, facade.FloatTensor,
          collections.OrderedDict, builtins]
before = [dict(vars(o)) for o in owners]
out = []
for path in sys.argv[1:]:
    try:
        torch.load(path)
        out.append("loaded")
    except Exception as e:
        out.append(type(e).__name__)
after = [dict(vars(o)) for o in owners]
changed = [f"{getattr(o, '__name__', o)}.{k}" for o, b, a in zip(owners, before, after)
           for k in set(b) | set(a) if b.get(k, json) is not a.get(k, json)]
print(json.dumps({"results": out, "changed": changed,
                  "numel": paddle.ones([2, 3]).numel().item() if hasattr(
                      paddle.ones([2, 3]).numel(), "item") else paddle.ones([2, 3]).numel()}))
"""


def _build_attack_files(tmp):
    g = checkpoint_fuzz
    files = []
    targets = [("torch", "Tensor", "numel"), ("torch", "device", "__repr__"),
               ("torch", "Size", "numel"), ("torch", "FloatTensor", "__new__"),
               ("collections", "OrderedDict", "__setitem__"), ("builtins", "set", "add")]
    for i, (mod, name, attr) in enumerate(targets):
        files.append(_archive(tmp, g._build_attack(g.G(mod, name), attr), FLOATS4,
                              f"build{i}.pt"))
        # SETITEMS into the class, NEWOBJ/REDUCE of a function: refused too
        files.append(_archive(tmp, g.PKL(g.G(mod, name) + b"(" + g.U(attr) + b"Nu"),
                              FLOATS4, f"setitems{i}.pt"))
    return files


def test_weights_only_build_cannot_change_a_class(heap_checked):
    """The issue's 60-byte file (GLOBAL torch.Tensor; BUILD with state (None, {"numel":
    OrderedDict})) replaced paddle.Tensor.numel for the whole process; the same trick with
    torch.device.__repr__ and friends.  torch refuses each; so does the facade, and no class
    (nor builtins) changes."""
    files, r = heap_checked["build_attacks"]
    assert len(files[0].read_bytes()) < 1000
    for f in files:
        with pytest.raises(pickle.UnpicklingError):
            torch.load(f)
    assert r["returncode"] == 0, r["stderr"][-3000:]
    import json
    got = json.loads(r["stdout"].strip().splitlines()[-1])
    assert got["results"] == ["UnpicklingError"] * len(files)
    assert got["changed"] == []
    assert got["numel"] == 6   # unscoped Paddle numel still Paddle's


# One heap-checked child runs the scripts of the tests above (a child each paid Paddle's and
# torch's import under the heap checks, 10-20 s); each script gets its own globals and argv, and
# the BUILD attacks run first, in the state a fresh child has.  A crash fails them all.
MULTI_CHILD = """
import contextlib, io, json, traceback
_jobs = json.loads(sys.argv[1])
_base = dict(globals())
_out = {}
for _name, _code, _args in _jobs:
    sys.argv = [sys.argv[0]] + _args
    _buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(_buf):
            exec(compile(_code, "<" + _name + ">", "exec"), dict(_base))
        _out[_name] = {"returncode": 0, "stdout": _buf.getvalue(), "stderr": ""}
    except BaseException:
        _out[_name] = {"returncode": 1, "stdout": _buf.getvalue(),
                       "stderr": traceback.format_exc()}
print(json.dumps(_out))
"""


@pytest.fixture(scope="module")
def heap_checked(tmp_path_factory):
    """name -> (the test's files, its script's {"returncode", "stdout", "stderr"})."""
    tmp = tmp_path_factory.mktemp("heap_checked")
    build, crafted = _build_attack_files(tmp), _crafted_views(tmp)
    neg = tmp / "neg.pt"
    jobs = [("build_attacks", BUILD_CHILD, build),
            ("negative_strides", NEGATIVE_STRIDE_SAVE, [neg]),
            ("crafted", LOAD_CHILD, crafted["views"] + crafted["symints"])]
    r = checkpoint_fuzz.run_child(MULTI_CHILD, [json.dumps(
        [(name, code, [str(a) for a in args]) for name, code, args in jobs])])
    # a crash (or a hang's timeout) fails every test of the child
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    return {"build_attacks": (build, out["build_attacks"]),
            "negative_strides": (neg, out["negative_strides"]),
            "crafted": (crafted, out["crafted"])}


def test_fuzzed_checkpoints_sample():
    """A fixed-seed sample of checkpoint_fuzz (mutated real-torch and facade files plus the
    hand-built pickles): every facade load equals real torch's or raises, no class changes, no
    crash under glibc's heap checks.  Longer runs: python -m tests.facade_runtime.checkpoint_fuzz
    --files N."""
    rep = checkpoint_fuzz.run(files=100, seed=0)
    assert rep["crash"] is None, rep["crash"]
    assert rep["mismatches"] == [], rep["mismatches"][:5]
    assert rep["class_changes"] == [], rep["class_changes"][:5]
    # the sample exercises both outcomes: valid files load, crafted ones are refused
    assert rep["loaded"] >= 10 and rep["both_refused"] >= 100, rep
