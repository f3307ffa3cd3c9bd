"""``torch.nn`` recurrent layers: ``RNN``/``LSTM``/``GRU`` (``RNNBase``, torch's flat weight names
and gate order, ``proj_size``, packed sequences) and the ``*Cell`` modules.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn: GRU GRUCell LSTM LSTMCell RNN RNNBase RNNCell
""")

import math

import paddle
import paddle.nn.functional as PF

from . import nn_init as init
from .nn import Module, _finish_layer, linear_kernel
from .nn_modules import _export, _param


# -- recurrent layers ---------------------------------------------------------------------------
_linear = linear_kernel  # (x @ w.T + b, the bias gradient summed as torch does)


def _rnn_cell(mode, x, hx, w_ih, w_hh, b_ih, b_hh, w_hr=None):
    """One step; hx is h (or (h, c) for LSTM). Returns the new state."""
    if mode == "LSTM":
        h, c = hx
        gates = _linear(x, w_ih, b_ih) + _linear(h, w_hh, b_hh)
        i, f, g, o = paddle.chunk(gates, 4, axis=-1)
        i, f, g, o = PF.sigmoid(i), PF.sigmoid(f), paddle.tanh(g), PF.sigmoid(o)
        c = f * c + i * g
        h = o * paddle.tanh(c)
        if w_hr is not None:
            h = paddle.matmul(h, w_hr, transpose_y=True)
        return h, c
    if mode == "GRU":
        gi = _linear(x, w_ih, b_ih)
        gh = _linear(hx, w_hh, b_hh)
        ir, iz, in_ = paddle.chunk(gi, 3, axis=-1)
        hr, hz, hn = paddle.chunk(gh, 3, axis=-1)
        r = PF.sigmoid(ir + hr)
        z = PF.sigmoid(iz + hz)
        n = paddle.tanh(in_ + r * hn)
        return (1 - z) * n + z * hx
    act = paddle.tanh if mode == "RNN_TANH" else PF.relu
    return act(_linear(x, w_ih, b_ih) + _linear(hx, w_hh, b_hh))


@_export
class RNNBase(Module):
    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be an integer greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than or equal to 1")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode != "LSTM" and proj_size:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        gate = {"LSTM": 4, "GRU": 3}.get(mode, 1) * hidden_size
        dirs = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            for d in range(dirs):
                in_size = input_size if layer == 0 else real_hidden * dirs
                sfx = "_reverse" if d == 1 else ""
                names = [f"weight_ih_l{layer}{sfx}", f"weight_hh_l{layer}{sfx}"]
                shapes = [[gate, in_size], [gate, real_hidden]]
                if bias:
                    names += [f"bias_ih_l{layer}{sfx}", f"bias_hh_l{layer}{sfx}"]
                    shapes += [[gate], [gate]]
                if proj_size > 0:
                    names.append(f"weight_hr_l{layer}{sfx}")
                    shapes.append([proj_size, hidden_size])
                for n, s in zip(names, shapes):
                    setattr(self, n, _param(s))
                self._flat_weights_names.extend(names)
        self.reset_parameters()
        _finish_layer(self, device, dtype)

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in self._flat_weights_names if n.endswith(sfx)]
                for sfx in ()]  # rarely used; kept for attribute presence

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self._flat_weights:
            init.uniform_(w, -stdv, stdv)

    def flatten_parameters(self):
        return None

    def _weights(self, layer, d):
        sfx = "_reverse" if d == 1 else ""
        g = lambda n: getattr(self, f"{n}_l{layer}{sfx}", None)  # noqa: E731
        return (g("weight_ih"), g("weight_hh"), g("bias_ih") if self.bias else None,
                g("bias_hh") if self.bias else None,
                g("weight_hr") if self.proj_size > 0 else None)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def forward(self, input, hx=None):
        from .nn_utils import PackedSequence, _pack_from_padded, _unpack_to_padded
        packed = isinstance(input, PackedSequence)
        if packed:
            x, lengths = _unpack_to_padded(input)  # [T, B, *] time-major
            batched = True
            sorted_idx, unsorted_idx = input.sorted_indices, input.unsorted_indices
        else:
            lengths = None
            batched = input.ndim == 3
            if input.ndim not in (2, 3):
                raise ValueError(f"{self.mode}: Expected input to be 2D or 3D, got "
                                 f"{input.ndim}D instead")
            x = input if batched else input.unsqueeze(1)
            if batched and self.batch_first:
                x = x.transpose([1, 0, 2])
        T, B = x.shape[0], x.shape[1]
        dirs = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        is_lstm = self.mode == "LSTM"
        if hx is None:
            h0 = paddle.zeros([self.num_layers * dirs, B, real_hidden], dtype=x.dtype)
            c0 = paddle.zeros([self.num_layers * dirs, B, self.hidden_size], dtype=x.dtype) \
                if is_lstm else None
        else:
            if is_lstm:
                h0, c0 = hx
            else:
                h0, c0 = hx, None
            if not batched:
                if h0.ndim != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but "
                                       f"got {h0.ndim}-D tensor")
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if c0 is not None else None
            elif h0.ndim != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                                   f"{h0.ndim}-D tensor")
            if packed and sorted_idx is not None:
                h0 = paddle.gather(h0, sorted_idx, axis=1)
                c0 = paddle.gather(c0, sorted_idx, axis=1) if c0 is not None else None
        if lengths is not None:
            mask = (paddle.arange(T).unsqueeze(1) < paddle.to_tensor(lengths).unsqueeze(0))
            mask = mask.astype(x.dtype).unsqueeze(-1)  # [T, B, 1]
        hn, cn = [], []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, d)
                idx = layer * dirs + d
                h = h0[idx]
                state = (h, c0[idx]) if is_lstm else h
                steps = range(T - 1, -1, -1) if d == 1 else range(T)
                ys = [None] * T
                for t in steps:
                    new = _rnn_cell(self.mode, layer_in[t], state, w_ih, w_hh, b_ih, b_hh, w_hr)
                    if lengths is not None:
                        m = mask[t]
                        if is_lstm:
                            new = (new[0] * m + state[0] * (1 - m), new[1] * m + state[1] * (1 - m))
                        else:
                            new = new * m + state * (1 - m)
                    state = new
                    y = state[0] if is_lstm else state
                    ys[t] = y * mask[t] if lengths is not None else y
                outs.append(paddle.stack(ys))
                if is_lstm:
                    hn.append(state[0])
                    cn.append(state[1])
                else:
                    hn.append(state)
            layer_out = outs[0] if dirs == 1 else paddle.concat(outs, axis=-1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                from .nn import dropout  # at::dropout between layers: torch's draws on the CPU
                layer_out = dropout(layer_out, self.dropout, True)
            layer_in = layer_out
        out = layer_in
        h_n = paddle.stack(hn)
        c_n = paddle.stack(cn) if is_lstm else None
        if packed:
            out = _pack_from_padded(out, input)
            if unsorted_idx is not None:
                h_n = paddle.gather(h_n, unsorted_idx, axis=1)
                c_n = paddle.gather(c_n, unsorted_idx, axis=1) if c_n is not None else None
        else:
            if batched and self.batch_first:
                out = out.transpose([1, 0, 2])
            if not batched:
                out = out.squeeze(1)
                h_n = h_n.squeeze(1)
                c_n = c_n.squeeze(1) if c_n is not None else None
        return (out, (h_n, c_n)) if is_lstm else (out, h_n)


@_export
class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        names = ["input_size", "hidden_size", "num_layers", "nonlinearity", "bias", "batch_first",
                 "dropout", "bidirectional", "device", "dtype"]
        for n, a in zip(names, args):
            kwargs[n] = a
        nl = kwargs.pop("nonlinearity", "tanh")
        if nl not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nl}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nl
        super().__init__("RNN_TANH" if nl == "tanh" else "RNN_RELU", **kwargs)


@_export
class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


@_export
class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


class _RNNCellBase(Module):
    _mode = "RNN_TANH"
    _gates = 1

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        g = self._gates * hidden_size
        self.weight_ih = _param([g, input_size])
        self.weight_hh = _param([g, hidden_size])
        if bias:
            self.bias_ih = _param([g])
            self.bias_hh = _param([g])
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()
        _finish_layer(self, device, dtype)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def _run(self, input, hx, mode):
        if input.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got "
                             f"{input.ndim}D instead")
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        n = x.shape[0]
        lstm = mode == "LSTM"
        if hx is None:
            z = paddle.zeros([n, self.hidden_size], dtype=x.dtype)
            hx = (z, z) if lstm else z
        elif not batched:
            hx = tuple(h.unsqueeze(0) for h in hx) if lstm else hx.unsqueeze(0)
        out = _rnn_cell(mode, x, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if not batched:
            out = tuple(o.squeeze(0) for o in out) if lstm else out.squeeze(0)
        return out


@_export
class RNNCell(_RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, device, dtype)

    def forward(self, input, hx=None):
        return self._run(input, hx, "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU")


@_export
class LSTMCell(_RNNCellBase):
    _gates = 4

    def forward(self, input, hx=None):
        return self._run(input, hx, "LSTM")


@_export
class GRUCell(_RNNCellBase):
    _gates = 3

    def forward(self, input, hx=None):
        return self._run(input, hx, "GRU")
