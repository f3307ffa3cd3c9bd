"""torch's CPU CTC loss for float32 log-probabilities, in torch's arithmetic (no registrations:
``nn_functional_loss.ctc_loss`` calls :func:`ctc_float32` for float32 inputs).

ATen's ``ctc_loss_cpu_template`` / ``ctc_loss_backward_cpu_template`` compute in the input's
scalar type: every log-sum-exp of the alpha/beta recursions, the log-likelihood and the gradient
``exp(lp) - exp(lcab + nll - lp)`` are float32 operations in a fixed order.  A float64
computation rounded at the end differs from it by a few float32 ulps of the *intermediate*
values, which shows in gradients near 1e-2 (ModuleInfo's CTCLoss sample: 1.5e-5 off).  Here each
operation is done in float64 and rounded to float32 right after, which gives float32 addition and
subtraction exactly and ``expf``/``logf`` correctly rounded (as glibc's are), in torch's order:

- alpha[t, s] = log(exp(l1 - m) + exp(l2 - m) + exp(l3 - m)) + m + lp[t, ext[s]], m the max of
  the present terms (0 when none);
- beta likewise, backwards; lcab[t, c] accumulates alpha + beta over the positions s of label c,
  s descending, by log(exp(a - M) + exp(b - M)) + M;
- grad[t, c] = exp(lp) - exp((lcab + nll) - lp)  (times the incoming gradient, by the caller).

Vectorised over the positions s (alpha, beta) and over time (the lcab accumulation); the loops
left are over time and over the extended target.
"""
from __future__ import annotations

import numpy as np

_NEG = -np.inf


def _r(a):
    """Round float64 values to float32 (and back to float64 for the next operation)."""
    return np.asarray(a, dtype=np.float64).astype(np.float32).astype(np.float64)


def _lse3(l1, l2, l3):
    """torch's 3-term log-sum-exp, rounded as float32 after every operation (m: the max of the
    terms, 0 where all are -inf)."""
    m = np.maximum(np.maximum(l1, l2), l3)
    m = np.where(m == _NEG, 0.0, m)
    acc = _r(_r(np.exp(_r(l1 - m))) + _r(np.exp(_r(l2 - m))))
    acc = _r(acc + _r(np.exp(_r(l3 - m))))
    return _r(_r(np.log(acc)) + m)


def ctc_float32(lp, targets, input_lengths, target_lengths, blank):
    """Per-sample negative log-likelihood [N] and d(nll_n)/d(lp) [T, N, C], both float32.
    ``lp``: float32 array [T, N, C]; ``targets``: one int array per sample."""
    T, N, C = lp.shape
    nll = np.zeros(N, dtype=np.float32)
    grad = np.zeros((T, N, C), dtype=np.float32)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for n in range(N):
            t_n, s_n = int(input_lengths[n]), int(target_lengths[n])
            if t_n == 0:
                nll[n] = 0.0 if s_n == 0 else np.inf
                continue
            L = 2 * s_n + 1
            ext = np.full(L, blank, dtype=np.int64)
            ext[1::2] = np.asarray(targets[n][:s_n], dtype=np.int64)
            x = lp[:t_n, n, :].astype(np.float64)  # exact float32 values
            xe = x[:, ext]                           # [t_n, L]
            skip = np.zeros(L, dtype=bool)          # s may come from s - 2
            skip[2:] = ext[2:] != ext[:-2]
            alpha = np.full((t_n, L), _NEG)
            alpha[0, 0] = xe[0, 0]
            if L > 1:
                alpha[0, 1] = xe[0, 1]
            neg1, neg2 = np.full(1, _NEG), np.full(2, _NEG)
            for t in range(1, t_n):
                a = alpha[t - 1]
                a2 = np.concatenate([neg1, a[:-1]])
                a3 = np.where(skip, np.concatenate([neg2, a[:-2]]), _NEG)
                alpha[t] = _r(_lse3(a, a2, a3) + xe[t])
            l1 = alpha[-1, -1]
            l2 = alpha[-1, -2] if s_n > 0 else _NEG
            m = max(l1, l2)
            m = 0.0 if m == _NEG else m
            ll = _r(_r(np.log(_r(_r(np.exp(_r(l1 - m))) + _r(np.exp(_r(l2 - m)))))) + m)
            nll[n] = -ll
            beta = np.full((t_n, L), _NEG)
            beta[-1, -1] = xe[-1, -1]
            if L > 1:
                beta[-1, -2] = xe[-1, -2]
            skip_b = np.zeros(L, dtype=bool)        # s may come from s + 2
            skip_b[:-2] = skip[2:]
            for t in range(t_n - 2, -1, -1):
                b = beta[t + 1]
                b2 = np.concatenate([b[1:], neg1])
                b3 = np.where(skip_b, np.concatenate([b[2:], neg2]), _NEG)
                beta[t] = _r(_lse3(b, b2, b3) + xe[t])
            lab = _r(alpha + beta)                   # [t_n, L]
            lcab = np.full((t_n, C), _NEG)
            for s in range(L - 1, -1, -1):           # torch's order: s descending
                c = ext[s]
                cur, new = lcab[:, c], lab[:, s]
                mx = np.maximum(cur, new)
                add = _r(_r(np.log(_r(_r(np.exp(_r(cur - mx))) + _r(np.exp(_r(new - mx)))))) + mx)
                lcab[:, c] = np.where(cur == _NEG, new, np.where(new == _NEG, cur, add))
            nl = float(nll[n])
            grad[:t_n, n, :] = _r(_r(np.exp(x)) - _r(np.exp(_r(_r(lcab + nl) - x))))
    return nll, grad
