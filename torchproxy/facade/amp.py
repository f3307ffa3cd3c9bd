"""``torch.amp.GradScaler`` / ``torch.cuda.amp.GradScaler`` (torch's loss scaling, on Paddle
tensors), and ``torch.onnx`` as an importable module (programs import it at the top; its
exporters are gaps).

torch's rules, kept here: ``GradScaler("cuda")`` without CUDA warns "torch.cuda.amp.GradScaler
is enabled, but CUDA is not available.  Disabling." and then every method is the identity
(``scale`` returns its argument, ``step`` calls ``optimizer.step()``, ``get_scale`` 1.0,
``state_dict`` {}); ``GradScaler("cpu")`` is enabled and scales on the CPU.  Enabled scaling
follows torch's amp_update_scale: ``unscale_`` multiplies each gradient by 1/scale and records
whether any is inf/NaN; ``step`` skips the optimizer step when one was; ``update`` backs the
scale off on a skipped step and grows it after ``growth_interval`` clean ones."""
from __future__ import annotations

import warnings

import paddle

from .autograd import grad_of
from .registry import module, torch_function, type_

from .registry import manifest

NAMES = manifest("""
    torch: onnx
    torch.amp: GradScaler
    torch.cuda.amp: GradScaler
""")


def _cuda_available() -> bool:
    from .cuda import is_available
    return is_available()


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not _cuda_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.")
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale, self._scale = init_scale, None
            self._growth_factor, self._backoff_factor = growth_factor, backoff_factor
            self._growth_interval, self._growth_tracker = growth_interval, 0
            self._found_inf: dict[int, bool] = {}   # id(optimizer) -> inf/NaN seen
            self._unscaled: set[int] = set()
            self._stepped: set[int] = set()

    def is_enabled(self):
        return self._enabled

    def _scale_value(self):
        if self._scale is None:
            self._scale = float(self._init_scale)
        return self._scale

    def scale(self, outputs):
        if not self._enabled:
            return outputs
        s = self._scale_value()
        if isinstance(outputs, paddle.Tensor):
            # torch multiplies by its 0-d float32 scale tensor: a tensor with dims keeps its
            # dtype, a 0-d float16/bfloat16 one promotes to float32 (torch's type promotion)
            dtype = outputs.dtype
            if outputs.ndim == 0 and dtype in (paddle.float16, paddle.bfloat16):
                dtype = paddle.float32
            return outputs.astype(dtype) * paddle.full([], s, dtype=dtype)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer):
        if not self._enabled:
            return
        key = id(optimizer)
        if key in self._unscaled:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if key in self._stepped:
            raise RuntimeError("unscale_() is being called after step().")
        inv = 1.0 / self._scale_value()
        found = False
        with paddle.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    g = grad_of(p)
                    if g is None:
                        continue
                    g.multiply_(paddle.to_tensor(inv, dtype=g.dtype))
                    if not bool(paddle.isfinite(g).all()):
                        found = True
        self._found_inf[key] = found
        self._unscaled.add(key)

    def step(self, optimizer, *args, **kwargs):
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        key = id(optimizer)
        if key in self._stepped:
            raise RuntimeError("step() has already been called since the last update().")
        if key not in self._unscaled:
            self.unscale_(optimizer)
        self._stepped.add(key)
        if not self._found_inf[key]:
            return optimizer.step(*args, **kwargs)
        return None

    def update(self, new_scale=None):
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale.item() if isinstance(new_scale, paddle.Tensor) else new_scale)
        else:
            if not self._found_inf:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(self._found_inf.values()):
                self._scale = self._scale_value() * self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale = self._scale_value() * self._growth_factor
                    self._growth_tracker = 0
        self._found_inf, self._unscaled, self._stepped = {}, set(), set()

    def get_scale(self):
        return self._scale_value() if self._enabled else 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        self._scale = float(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]


type_("torch.amp.GradScaler", GradScaler)


class CudaGradScaler(GradScaler):
    """``torch.cuda.amp.GradScaler``: deprecated in torch, always for device "cuda"."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)


CudaGradScaler.__name__ = CudaGradScaler.__qualname__ = "GradScaler"
type_("torch.cuda.amp.GradScaler", CudaGradScaler)

# torch.onnx: importable (pytorch/examples' word_language_model imports it at the top); its
# exporters are not provided (gaps.toml: torch.onnx.export)
module("torch.onnx")
