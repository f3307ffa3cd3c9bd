"""torch's CPU random numbers, number for number: the mt19937 stream of torch's CPU generator
and the transforms of ATen's CPU sampling kernels, in numpy.

Why: a torch program seeds once (``torch.manual_seed(42)``) and then builds its model and its
inputs from the global stream; with Paddle's generator the same program draws other numbers, so
a result that depends on the draw (a test near its tolerance, a loss curve, a DataLoader's
shuffle order) differs from real torch's for reasons that are not the code under test.  With
this, the facade's CPU draws are real torch's: the same seed gives the same tensors.

What is reproduced, from ATen's sources (ATen/core/DistributionsHelper.h,
TransformationHelper.h, native/cpu/DistributionTemplates.h, avx_mathfun.h; torch 2.13):
- the generator: ``at::mt19937`` seeded by init_genrand with the seed's low 32 bits (written
  here in numpy; not numpy.random, which Paddle 2.6 crashes), ``random()`` one 32-bit draw, ``random64()``
  two (the first is the high word), the cached second Box-Muller sample, and the 5056-byte
  state of ``torch.get_rng_state()`` (so a state saved by real torch restores here);
- uniform (``rand``, ``uniform_``): 24 (float) or 53 (double) random bits, ``fma(x, to - from,
  from)`` in the op's math type, a value that rounds up to ``to`` becomes ``from``;
- normal (``randn``, ``normal_``): 16 or more contiguous elements take the vectorised
  Box-Muller of normal_fill (float: avx_mathfun's log256_ps/sincos256_ps, with the fused
  multiply-adds GCC emits for them; double: libm); fewer take the serial
  ``normal_distribution<double>`` with its cached sample;
- ``randint``/``random_``, ``bernoulli`` (tensor p and scalar p), ``randperm``, ``exponential_``.
Where real torch itself differs by machine, this follows x86-64 with AVX2 (torch's AVX2 and
AVX512 kernels; :data:`EXACT_FLOAT_NORMAL` is False elsewhere, where float normals are within an
ulp of torch's) and a non-Intel CPU for a scalar ``bernoulli_(p)``/dropout (on Intel CPUs torch
uses MKL's stream there: :data:`MKL_BERNOULLI`).

Everything here works on numpy arrays; facade/random.py makes tensors of them.
"""
from __future__ import annotations

import math
import threading
from fractions import Fraction

import numpy as np

DEFAULT_SEED = 67280421310721  # torch's default_rng_seed_val
STATE_BYTES = 5056  # sizeof(CPUGeneratorImplState)
_N = 624
_U64 = np.uint64

_f32 = np.float32


def _cpu_flags() -> set:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _cpu_vendor() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("vendor_id"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def _avx2_kernels() -> bool:
    """Whether real torch runs its AVX2 (or AVX512) distribution kernels here: an x86-64 CPU
    with AVX2 and FMA, unless ATEN_CPU_CAPABILITY asks for the default ones."""
    import os
    cap = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if cap == "default":
        return False
    flags = _cpu_flags()
    return "avx2" in flags and "fma" in flags


EXACT_FLOAT_NORMAL = _avx2_kernels()
MKL_BERNOULLI = _cpu_vendor() == "GenuineIntel"


class CPUStream:
    """One torch CPU generator: mt19937 state, seed, cached normal samples, a lock (torch's
    generator mutex: draws from several threads serialise)."""

    def __init__(self, seed: int = DEFAULT_SEED):
        self.lock = threading.RLock()
        self.manual_seed(seed)

    # -- seeding and state ---------------------------------------------------------------
    def manual_seed(self, seed: int) -> None:
        seed = check_seed(seed)
        with self.lock:
            self._key = _init_genrand(seed & 0xFFFFFFFF)  # as at::mt19937(seed)
            self._pos = _N
            self._seed = seed
            self._fresh = True  # torch's (left=1, next=0): no draw since seeding
            self.next_double_normal = None
            self.next_float_normal = None

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> np.ndarray:
        """torch's CPUGeneratorImplState bytes (torch.get_rng_state()'s uint8 tensor)."""
        with self.lock:
            pos = self._pos
            buf = bytearray(STATE_BYTES)
            if pos >= _N:
                left, nxt = 1, (0 if self._fresh else _N)
            else:
                left, nxt = _N + 1 - pos, pos
            np.frombuffer(buf, np.uint64, 1, 0)[0] = self._seed
            np.frombuffer(buf, np.int32, 2, 8)[:] = (left, 1)
            np.frombuffer(buf, np.uint64, 1, 16)[0] = nxt
            np.frombuffer(buf, np.uint64, _N, 24)[:] = self._key.astype(np.uint64)
            tail = 24 + 8 * _N  # normal_x, normal_y, normal_rho, normal_is_valid
            dn = self.next_double_normal
            np.frombuffer(buf, np.float64, 3, tail)[:] = (0.0, dn if dn is not None else 0.0, 0.0)
            np.frombuffer(buf, np.int32, 1, tail + 24)[0] = 1 if dn is not None else 0
            fn = self.next_float_normal
            np.frombuffer(buf, np.float32, 1, tail + 32)[0] = fn if fn is not None else 0.0
            buf[tail + 36] = 1 if fn is not None else 0
            return np.frombuffer(bytes(buf), np.uint8).copy()

    def set_state(self, data) -> None:
        """Restore from torch's state bytes, checked as torch 2.13 checks them (5056 bytes: the
        legacy 5048-byte state is refused there too)."""
        raw = np.ascontiguousarray(data, dtype=np.uint8).tobytes()
        if len(raw) != STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {STATE_BYTES} but found "
                               f"the input RNG state size to be {len(raw)}")
        seed = int(np.frombuffer(raw, np.uint64, 1, 0)[0])
        left, _seeded = (int(v) for v in np.frombuffer(raw, np.int32, 2, 8))
        nxt = int(np.frombuffer(raw, np.uint64, 1, 16)[0])
        key = np.frombuffer(raw, np.uint64, _N, 24).astype(np.uint32)
        tail = 24 + 8 * _N
        normal_y = float(np.frombuffer(raw, np.float64, 3, tail)[1])
        normal_valid = int(np.frombuffer(raw, np.int32, 1, tail + 24)[0])
        if not 1 <= left <= _N or nxt > _N:
            raise RuntimeError("The RNG state is invalid: mt19937 'left' must be in [1, 624] "
                               f"and 'next' in [0, 624] (got left={left}, next={nxt})")
        pos = _N if left == 1 else nxt
        with self.lock:
            self._key, self._pos, self._seed = key.copy(), pos, seed
            self._fresh = left == 1 and nxt == 0
            self.next_double_normal = normal_y if normal_valid else None
            self.next_float_normal = None
            if raw[tail + 36]:
                self.next_float_normal = float(np.frombuffer(raw, np.float32, 1, tail + 32)[0])

    # -- raw draws (callers hold self.lock for a whole op, as torch's kernels do) ----------
    def random(self, n: int) -> np.ndarray:
        """n draws of ``random()``: 32-bit values, as uint64."""
        n = int(n)
        self._fresh = False
        out = np.empty(n, np.uint32)
        done = 0
        while done < n:
            if self._pos >= _N:
                self._key = _twist(self._key)
                self._pos = 0
            take = min(n - done, _N - self._pos)
            out[done:done + take] = self._key[self._pos:self._pos + take]
            self._pos += take
            done += take
        return _temper(out).astype(_U64)

    def random64(self, n: int) -> np.ndarray:
        """n draws of ``random64()``: (first << 32) | second."""
        r = self.random(2 * int(n))
        return (r[0::2] << _U64(32)) | r[1::2]


def check_seed(seed) -> int:
    """torch.manual_seed's conversion: int(seed), negatives taken modulo 2**64, the range of an
    int64 or a uint64."""
    seed = int(seed)
    if seed < -0x8000_0000_0000_0000 or seed > 0xFFFF_FFFF_FFFF_FFFF:
        raise ValueError("Overflow when unpacking long long")
    return seed + (1 << 64) if seed < 0 else seed


# -- mt19937 (numpy, no numpy.random: importing numpy.random or zlib after Paddle 2.6 crashes,
#    Paddle 2.6's bundled zlib takes over their symbols) -------------------------------------
_UPPER, _LOWER, _MATRIX_A = np.uint32(0x80000000), np.uint32(0x7FFFFFFF), np.uint32(0x9908B0DF)


def _init_genrand(seed: int) -> np.ndarray:
    key = [0] * _N
    key[0] = seed & 0xFFFFFFFF
    for i in range(1, _N):
        prev = key[i - 1]
        key[i] = (1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF
    return np.array(key, np.uint32)


def _mix(a, b):
    """mt19937's twist of a word pair (upper bit of a, lower bits of b)."""
    y = (a & _UPPER) | (b & _LOWER)
    return (y >> np.uint32(1)) ^ ((b & np.uint32(1)) * _MATRIX_A)


def _twist(mt: np.ndarray) -> np.ndarray:
    """mt19937's next state, in the chunks whose inputs are all known: word i needs words i and
    i + 1 and the word 397 ahead, which is already the new one for i >= 227."""
    new = np.empty_like(mt)
    new[0:227] = mt[397:624] ^ _mix(mt[0:227], mt[1:228])
    new[227:454] = new[0:227] ^ _mix(mt[227:454], mt[228:455])
    new[454:623] = new[227:396] ^ _mix(mt[454:623], mt[455:624])
    new[623] = new[396] ^ _mix(mt[623:624], new[0:1])[0]
    return new


def _temper(y: np.ndarray) -> np.ndarray:
    y = y ^ (y >> np.uint32(11))
    y = y ^ ((y << np.uint32(7)) & np.uint32(0x9D2C5680))
    y = y ^ ((y << np.uint32(15)) & np.uint32(0xEFC60000))
    return y ^ (y >> np.uint32(18))


# -- uniform ---------------------------------------------------------------------------------
def _u24(stream, n):
    """uniform_real<float>(random(), 0, 1): 24 random bits."""
    return (stream.random(n) & _U64(0xFFFFFF)).astype(_f32) * _f32(2.0 ** -24)


def _u53(stream, n):
    return (stream.random64(n) & _U64((1 << 53) - 1)).astype(np.float64) * (2.0 ** -53)


def fmaf(a, b, c):
    """float32 fused multiply-add, correctly rounded: the product of two floats is exact in
    float64, so only the sum rounds twice (to float64, then to float32).  That differs from one
    rounding only where the float64 sum lands exactly on a float32 midpoint and was inexact:
    there (rare) the exact error (TwoSum) nudges it toward the true value first."""
    a, b, c = (np.asarray(v, _f32) for v in (a, b, c))
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape)
    p = a.astype(np.float64) * b
    s = np.ravel(p + c)
    mid = (s.view(np.uint64) & _U64((1 << 29) - 1)) == _U64(1 << 28)
    if mid.any():
        idx = np.flatnonzero(mid)
        pb = np.ravel(np.broadcast_to(p, shape))[idx]
        cb = np.ravel(np.broadcast_to(c, shape))[idx].astype(np.float64)
        sm = s[idx]
        bp = sm - cb
        err = (pb - bp) + (cb - (sm - bp))
        toward = np.where(err > 0, np.inf, -np.inf)
        s[idx] = np.where(err != 0, np.nextafter(sm, toward), sm)
    return s.astype(_f32).reshape(shape)


def _fma64(a: float, b: float, c: float) -> float:
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def uniform(stream, n, double, from_, to):
    """uniform_kernel's values in its math type (float32 for float/half/bfloat16, float64 for
    double), before the cast to the tensor's dtype; ``from_ == to`` clamping is the caller's
    (it depends on that cast)."""
    if double:
        x = _u53(stream, n)
        lo, hi = float(from_), float(to)
        if lo == 0.0 and hi == 1.0:
            return x
        if hi - lo == 1.0 or lo == 0.0:
            # exact product: x has 53 bits, (to - from) = 1 or from = 0 -> one rounding anyway
            return x * (hi - lo) + lo
        return np.array([_fma64(v, hi - lo, lo) for v in x.tolist()], np.float64)
    x = _u24(stream, n)
    lo, hi = _f32(from_), _f32(to)
    return fmaf(x, _f32(hi - lo), lo)


# -- normal ----------------------------------------------------------------------------------
_LOG_P = [7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
          1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
          3.3333331174E-1]


def _log256(x):
    """avx_mathfun.h's log256_ps on positive float32 (the (0, 1] of normal_fill), with the
    multiply-adds GCC contracts into FMAs in torch's AVX2 build."""
    x = np.maximum(x.astype(_f32), np.array(0x00800000, np.int32).view(_f32))
    bits = x.view(np.int32)
    e = ((bits.view(np.uint32) >> 23).astype(np.int32) - 0x7F).astype(_f32) + _f32(1)
    x = ((bits & ~0x7F800000) | np.array(0.5, _f32).view(np.int32)).view(_f32)
    mask = x < _f32(0.707106781186547524)
    tmp = np.where(mask, x, _f32(0))
    x = x - _f32(1)
    e = e - np.where(mask, _f32(1), _f32(0))
    x = x + tmp
    z = x * x
    y = np.full_like(x, _f32(_LOG_P[0]))
    for p in _LOG_P[1:]:
        y = fmaf(y, x, _f32(p))
    y = y * x
    y = fmaf(y, z, e * _f32(-2.12194440e-4))
    y = fmaf(z, _f32(-0.5), y)
    x = x + y
    return fmaf(e, _f32(0.693359375), x)


def _sincos256(x):
    """avx_mathfun.h's sincos256_ps on float32 in [0, 2*pi), FMAs as GCC emits them."""
    x = x.astype(_f32)
    sign_sin = x.view(np.uint32) & np.uint32(0x80000000)
    x = np.abs(x)
    j = (x * _f32(1.27323954473516)).astype(np.int32)  # cvttps: truncates
    j = (j + 1) & ~1
    y = j.astype(_f32)
    swap = ((j & 4) << 29).astype(np.uint32)
    poly = (j & 2) == 0
    x = fmaf(y, _f32(-0.78515625), x)
    x = fmaf(y, _f32(-2.4187564849853515625e-4), x)
    x = fmaf(y, _f32(-3.77489497744594108e-8), x)
    sign_cos = ((~(j - 2) & 4) << 29).astype(np.uint32)
    sign_sin = sign_sin ^ swap
    z = x * x
    c = fmaf(np.full_like(z, _f32(2.443315711809948E-005)), z, _f32(-1.388731625493765E-003))
    c = fmaf(c, z, _f32(4.166664568298827E-002))
    c = c * z
    c = fmaf(c, z, -(z * _f32(0.5)))
    c = c + _f32(1)
    s = fmaf(np.full_like(z, _f32(-1.9515295891E-4)), z, _f32(8.3321608736E-3))
    s = fmaf(s, z, _f32(-1.6666654611E-1))
    s = s * z
    s = fmaf(s, x, x)
    ysin2 = np.where(poly, s, _f32(0))
    ysin1 = np.where(poly, _f32(0), c)
    s, c = s - ysin2, c - ysin1
    sin = (ysin1 + ysin2).view(np.uint32) ^ sign_sin
    cos = (c + s).view(np.uint32) ^ sign_cos
    return sin.view(_f32), cos.view(_f32)


def _box_muller16_f32(u, mean, std):
    """NormalFill16<float> on rows of 16 uniforms (u: [k, 16] float32) -> [k, 16]."""
    u1 = _f32(1) - u[:, :8]
    u2 = u[:, 8:]
    if EXACT_FLOAT_NORMAL:
        radius = np.sqrt(_f32(-2) * _log256(u1))
        sin, cos = _sincos256(u2 * _f32(2.0 * math.pi))
    else:  # torch's DEFAULT kernel calls libm's float functions: within an ulp of these
        radius = np.sqrt(_f32(-2) * np.log(u1.astype(np.float64)).astype(_f32))
        theta = (2.0 * math.pi * u2.astype(np.float64)).astype(_f32).astype(np.float64)
        sin, cos = np.sin(theta).astype(_f32), np.cos(theta).astype(_f32)
    first, second = radius * cos, radius * sin
    if not (mean == 0 and std == 1):
        first, second = fmaf(first, _f32(std), _f32(mean)), fmaf(second, _f32(std), _f32(mean))
    return np.concatenate([first, second], axis=1)


def _box_muller16_f64(u, mean, std):
    """NormalFill16<double>: libm's log, cos and sin (Python's math module is libm)."""
    out = np.empty_like(u)
    for r in range(u.shape[0]):
        row = u[r].tolist()
        for j in range(8):
            radius = math.sqrt(-2 * math.log(1 - row[j]))
            theta = 2.0 * math.pi * row[j + 8]
            a, b = radius * math.cos(theta), radius * math.sin(theta)
            if not (mean == 0 and std == 1):
                a, b = _fma64(a, std, mean), _fma64(b, std, mean)
            out[r, j], out[r, j + 8] = a, b
    return out


def normal_fill(stream, n, kind, mean, std):
    """normal_fill: n >= 16 contiguous elements.  kind: "float" (the tensor is float32: all n
    uniforms first, then the rows), "reduced" (half/bfloat16: the rows' uniforms only, each row
    transformed in float32), "double".  A partial last row is redrawn: 16 fresh uniforms over
    the last 16 elements.  Values in the math type (float32 or float64)."""
    n = int(n)
    rows = n // 16
    draw, box_muller = (_u53, _box_muller16_f64) if kind == "double" else (_u24, _box_muller16_f32)
    if kind == "reduced":
        out = np.empty(n, _f32)
        first = draw(stream, rows * 16)
    else:
        first = draw(stream, n)
        out = first.copy()
    if rows:
        out[:rows * 16] = box_muller(first[:rows * 16].reshape(rows, 16), mean, std).ravel()
    if n % 16:
        out[n - 16:] = box_muller(draw(stream, 16).reshape(1, 16), mean, std)[0]
    return out


def normal_serial(stream, n, mean, std):
    """normal_distribution<double>, one element at a time (fewer than 16 elements or not
    contiguous): Box-Muller pairs with the second sample cached in the generator; float64.
    The pairs' uniforms are drawn in one call (the same stream order as one pair at a time)."""
    n = int(n)
    out = np.empty(n, np.float64)
    plain = mean == 0 and std == 1
    i = 0
    if n and stream.next_double_normal is not None:
        out[0], stream.next_double_normal = stream.next_double_normal, None
        i = 1
    pairs = (n - i + 1) // 2
    u = _u53(stream, 2 * pairs).tolist() if pairs else []
    for k in range(pairs):
        u1, u2 = u[2 * k], u[2 * k + 1]
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        out[i] = r * math.cos(theta)
        second = r * math.sin(theta)
        if i + 1 < n:
            out[i + 1] = second
        else:  # an odd count leaves the pair's second sample cached, as torch does
            stream.next_double_normal = second
        i += 2
    if not plain:
        out = np.array([_fma64(z, std, mean) for z in out.tolist()], np.float64)
    return out


# -- integers, bernoulli, permutations, exponential --------------------------------------------
_WIDE_OK = ("int64", "float64", "float32", "bfloat16")  # types that take random64 for wide ranges


def random_from_to(stream, n, low, high, dtype_name):
    """random_(from, to) / randint: (draw % range) + from; random64 for a range of 2**32 or more
    on int64, double, float and bfloat16 tensors."""
    span = int(high) - int(low)
    wide = span >= (1 << 32) and dtype_name in _WIDE_OK
    draws = stream.random64(n) if wide else stream.random(n)
    vals = draws % _U64(span)
    # torch adds in uint64 (wrapping) and reinterprets as int64
    with np.errstate(over="ignore"):
        return (vals + _U64(int(low) & 0xFFFF_FFFF_FFFF_FFFF)).view(np.int64)


_MANTISSA_BITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}
_INT_MAX = {"int64": (1 << 63) - 1, "int32": (1 << 31) - 1, "int16": (1 << 15) - 1,
            "int8": (1 << 7) - 1, "uint8": (1 << 8) - 1}


def random_default(stream, n, dtype_name):
    """random_() with no bounds: uniform_int<T> ([0, max] for integers, [0, 2**digits] for
    floating types, random64 for int64 and double)."""
    if dtype_name == "bool":
        return (stream.random(n) & _U64(1)).astype(np.bool_)
    wide = dtype_name in ("int64", "float64")
    draws = stream.random64(n) if wide else stream.random(n)
    if dtype_name in _MANTISSA_BITS:
        return (draws % _U64((1 << _MANTISSA_BITS[dtype_name]) + 1)).astype(np.int64)
    return (draws % _U64(_INT_MAX[dtype_name] + 1)).astype(np.int64)


def bernoulli_scalar(stream, n, p):
    """bernoulli_(p) with a float p (dropout's mask): bernoulli_distribution<double>, one
    53-bit uniform per element, 1 where it is below p."""
    return _u53(stream, n) < float(p)


def bernoulli_tensor(stream, probs):
    """bernoulli(p) / bernoulli_(p tensor), p already broadcast to the output's shape and
    flattened in its order: a double p compares 53-bit uniforms, any other p 24-bit floats."""
    if probs.dtype == np.float64:
        return _u53(stream, probs.size) < probs
    return _u24(stream, probs.size) < probs.astype(_f32)


def randperm(stream, n):
    """randperm_cpu for n < 2**32 / 20: r[i] swapped with r[i + random() % (n - i)]."""
    n = int(n)
    if n >= (2 ** 32 - 1) // 20:
        from ..errors import NotProvidedError
        raise NotProvidedError("torch.randperm(n) on the CPU for n >= 214748364 (torch's "
                               "random64 Fisher-Yates there is not reproduced)")
    r = list(range(n))
    if n > 1:
        raw = stream.random(n - 1).tolist()
        for i in range(n - 1):
            z = i + raw[i] % (n - i)
            r[i], r[z] = r[z], r[i]
    return np.array(r, np.int64)


def exponential(stream, n, lambd):
    """exponential_distribution<double>: -1/lambda * log1p(-u), u a 53-bit uniform."""
    u = _u53(stream, n)
    return np.array([(-1.0 / lambd) * math.log1p(-v) for v in u.tolist()], np.float64)
