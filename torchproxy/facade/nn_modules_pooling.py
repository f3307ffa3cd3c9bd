"""``torch.nn`` pooling modules: max/avg/lp/adaptive/fractional pools.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn: AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d
        AdaptiveMaxPool2d AdaptiveMaxPool3d AvgPool1d AvgPool2d AvgPool3d FractionalMaxPool2d
        FractionalMaxPool3d LPPool1d LPPool2d LPPool3d MaxPool1d MaxPool2d MaxPool3d MaxUnpool1d
        MaxUnpool2d MaxUnpool3d
""")

from .nn import Module
from .nn_functional import _ntuple
from .nn_functional_pooling import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d,
                                    adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d,
                                    avg_pool1d, avg_pool2d, avg_pool3d, fractional_max_pool2d,
                                    fractional_max_pool3d, lp_pool1d, lp_pool2d, lp_pool3d,
                                    max_pool1d, max_pool2d, max_pool3d, max_unpool1d,
                                    max_unpool2d, max_unpool3d)
from .nn_modules import _export, _tuple


# -- pooling ------------------------------------------------------------------------------------
def _maxpool_cls(nd):
    fn = {1: max_pool1d, 2: max_pool2d, 3: max_pool3d}[nd]

    class MaxPool(Module):
        def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                     ceil_mode=False):
            super().__init__()
            self.kernel_size = kernel_size
            self.stride = stride if stride is not None else kernel_size
            self.padding, self.dilation = padding, dilation
            self.return_indices, self.ceil_mode = return_indices, ceil_mode

        def forward(self, input):
            return fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                      ceil_mode=self.ceil_mode, return_indices=self.return_indices)
    MaxPool.__name__ = MaxPool.__qualname__ = f"MaxPool{nd}d"
    return _export(MaxPool)


MaxPool1d, MaxPool2d, MaxPool3d = _maxpool_cls(1), _maxpool_cls(2), _maxpool_cls(3)


def _maxunpool_cls(nd):
    fn = {1: max_unpool1d, 2: max_unpool2d, 3: max_unpool3d}[nd]

    class MaxUnpool(Module):
        def __init__(self, kernel_size, stride=None, padding=0):
            super().__init__()
            self.kernel_size = _tuple(kernel_size, nd)
            self.stride = _tuple(stride if stride is not None else kernel_size, nd)
            self.padding = _tuple(padding, nd)

        def forward(self, input, indices, output_size=None):
            return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)

        def extra_repr(self):
            return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"
    MaxUnpool.__name__ = MaxUnpool.__qualname__ = f"MaxUnpool{nd}d"
    return _export(MaxUnpool)


MaxUnpool1d, MaxUnpool2d, MaxUnpool3d = _maxunpool_cls(1), _maxunpool_cls(2), _maxunpool_cls(3)


@_export
class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _tuple(kernel_size, 1)
        self.stride = _tuple(stride if stride is not None else kernel_size, 1)
        self.padding = _tuple(padding, 1)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                             self.count_include_pad)


def _avgpool_cls(nd):
    fn = {2: avg_pool2d, 3: avg_pool3d}[nd]

    class AvgPool(Module):
        def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                     count_include_pad=True, divisor_override=None):
            super().__init__()
            self.kernel_size = kernel_size
            self.stride = stride if stride is not None else kernel_size
            self.padding, self.ceil_mode = padding, ceil_mode
            self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

        def forward(self, input):
            return fn(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                      self.count_include_pad, self.divisor_override)
    AvgPool.__name__ = AvgPool.__qualname__ = f"AvgPool{nd}d"
    return _export(AvgPool)


AvgPool2d, AvgPool3d = _avgpool_cls(2), _avgpool_cls(3)


def _adaptive_cls(nd, kind):
    if kind == "avg":
        fn = {1: adaptive_avg_pool1d, 2: adaptive_avg_pool2d, 3: adaptive_avg_pool3d}[nd]

        class Pool(Module):
            def __init__(self, output_size):
                super().__init__()
                self.output_size = output_size

            def forward(self, input):
                return fn(input, self.output_size)
        Pool.__name__ = Pool.__qualname__ = f"AdaptiveAvgPool{nd}d"
    else:
        fn = {1: adaptive_max_pool1d, 2: adaptive_max_pool2d, 3: adaptive_max_pool3d}[nd]

        class Pool(Module):
            def __init__(self, output_size, return_indices=False):
                super().__init__()
                self.output_size, self.return_indices = output_size, return_indices

            def forward(self, input):
                return fn(input, self.output_size, self.return_indices)
        Pool.__name__ = Pool.__qualname__ = f"AdaptiveMaxPool{nd}d"
    return _export(Pool)


AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d = (_adaptive_cls(n, "avg") for n in (1, 2, 3))
AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d = (_adaptive_cls(n, "max") for n in (1, 2, 3))


def _fmp_cls(nd):
    fn = {2: fractional_max_pool2d, 3: fractional_max_pool3d}[nd]

    class FractionalMaxPool(Module):
        def __init__(self, kernel_size, output_size=None, output_ratio=None,
                     return_indices=False, _random_samples=None):
            super().__init__()
            self.kernel_size, self.return_indices = kernel_size, return_indices
            self.output_size, self.output_ratio = output_size, output_ratio
            self.register_buffer("_random_samples", _random_samples)
            if output_size is None and output_ratio is None:
                raise ValueError(f"FractionalMaxPool{nd}d requires specifying either an "
                                 "output size, or a pooling ratio")
            if output_size is not None and output_ratio is not None:
                raise ValueError("only one of output_size and output_ratio may be specified")
            if output_ratio is not None:
                r = _ntuple(1, nd) if False else (
                    output_ratio if isinstance(output_ratio, (list, tuple)) else (output_ratio,) * nd)
                if not all(0 < v < 1 for v in r):
                    raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

        def forward(self, input):
            return fn(input, self.kernel_size, self.output_size, self.output_ratio,
                      self.return_indices, _random_samples=self._random_samples)
    FractionalMaxPool.__name__ = FractionalMaxPool.__qualname__ = f"FractionalMaxPool{nd}d"
    return _export(FractionalMaxPool)


FractionalMaxPool2d, FractionalMaxPool3d = _fmp_cls(2), _fmp_cls(3)


def _lppool_cls(nd):
    fn = {1: lp_pool1d, 2: lp_pool2d, 3: lp_pool3d}[nd]

    class LPPool(Module):
        def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
            super().__init__()
            self.norm_type, self.kernel_size = norm_type, kernel_size
            self.stride, self.ceil_mode = stride, ceil_mode

        def forward(self, input):
            return fn(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)
    LPPool.__name__ = LPPool.__qualname__ = f"LPPool{nd}d"
    return _export(LPPool)


LPPool1d, LPPool2d, LPPool3d = _lppool_cls(1), _lppool_cls(2), _lppool_cls(3)
