"""torch's CPU random numbers under the facade (facade/torch_cpu_rng.py): the same seed gives
the same tensors as real torch, bit for bit (rtol = atol = 0), through every sampler a training
program reaches: creation (rand, randn, randint, randperm...), in-place samplers (on strided
views too: torch fills them in memory order), nn.init, the layers' reset_parameters, dropout,
DataLoader shuffles; and torch.get_rng_state()'s bytes cross between the two sides.

The float normals are avx_mathfun's (torch's AVX2/AVX512 kernels): on a CPU without AVX2 and
FMA they are within an ulp, so the exact cases skip there rather than compare the wrong kernel.
"""
import threading

import numpy as np
import pytest

from difftest import check, load

torch = pytest.importorskip("torch")

from torchproxy.facade import torch_cpu_rng as trng  # noqa: E402

EXACT = dict(rtol=0, atol=0)

SAMPLES = {
    "randn_sizes": "torch.manual_seed(42); return torch.randn(3, 37), torch.randn(5), "
                   "torch.randn(15), torch.randn(16), torch.randn(20, dtype=torch.float64)",
    "randn_low_precision": "torch.manual_seed(42); return torch.randn(8192, dtype=torch.bfloat16), "
                           "torch.randn(37, dtype=torch.float16), torch.randn(7, dtype=torch.bfloat16)",
    "randn_complex": "torch.manual_seed(3); return torch.randn(9, dtype=torch.complex64)",
    "rand": "torch.manual_seed(1); return torch.rand(100), torch.rand(3, dtype=torch.bfloat16), "
            "torch.rand(40, dtype=torch.float16), torch.rand(6, dtype=torch.float64)",
    "like": "torch.manual_seed(1); x = torch.zeros(4, 5); return torch.rand_like(x), "
            "torch.randn_like(x), torch.randint_like(x, 3, 9)",
    "randint": "torch.manual_seed(2); return torch.randint(0, 10, (50,)), "
               "torch.randint(-3, 2**40, (4,)), torch.randint(5, (3, 3), dtype=torch.int32)",
    "randperm": "torch.manual_seed(3); return torch.randperm(100), torch.randperm(1), "
                "torch.randperm(7, dtype=torch.float32)",
    "uniform_normal_inplace": "torch.manual_seed(11); a = torch.empty(100).uniform_(-0.0883883, 0.0883883); "
                              "b = torch.empty(40).normal_(0.25, 1.5); c = torch.empty(3).normal_(2, 3); "
                              "return a, b, c",
    "strided_views": "torch.manual_seed(11); x = torch.empty(6, 5).t(); x.uniform_(-1, 1); "
                     "y = torch.empty(5, 4).t().normal_(); z = torch.empty(8, 8)[:, :3]; z.normal_(); "
                     "return x, y, z",
    "random_": "torch.manual_seed(14); return torch.empty(10, dtype=torch.int64).random_(), "
               "torch.empty(10).random_(5), torch.empty(10, dtype=torch.uint8).random_(3, 9), "
               "torch.empty(5, dtype=torch.bool).random_()",
    "bernoulli": "torch.manual_seed(7); return torch.bernoulli(torch.full((30,), 0.4)), "
                 "torch.empty(40).bernoulli_(0.3), torch.bernoulli(torch.rand(20, dtype=torch.float64)), "
                 "torch.empty(3, 4).bernoulli_(torch.tensor([0.1, 0.5, 0.7, 0.9]))",
    "normal": "torch.manual_seed(10); return torch.normal(torch.zeros(20), torch.ones(20) * 2), "
              "torch.normal(2.0, 3.0, size=(17,)), torch.normal(torch.ones(5), 0.5)",
    "multinomial": "torch.manual_seed(3); p = torch.softmax(torch.randn(4, 50), -1); "
                   "return torch.multinomial(p, 1), torch.multinomial(p, 5), torch.multinomial(p[0], 3), "
                   "p[1].multinomial(1), torch.multinomial(p.double(), 50)",
    "continuous": "torch.manual_seed(13); return torch.empty(20).exponential_(), torch.empty(7).cauchy_(), "
                  "torch.empty(7).log_normal_(), torch.empty(7).geometric_(0.3)",
    "init": "torch.manual_seed(12); w = torch.empty(16, 8); torch.nn.init.xavier_uniform_(w); "
            "v = torch.empty(16, 8); torch.nn.init.kaiming_normal_(v); u = torch.empty(20, 5); "
            "torch.nn.init.trunc_normal_(u, std=0.02); t = torch.empty(30); "
            "torch.nn.init.trunc_normal_(t, mean=0.5, a=-0.1, b=0.2); return w, v, u, t",
    "layers": "torch.manual_seed(4); ms = [torch.nn.Linear(64, 32), torch.nn.Conv2d(3, 8, 3), "
              "torch.nn.Embedding(10, 8, padding_idx=2), torch.nn.LSTM(4, 6), "
              "torch.nn.MultiheadAttention(8, 2), torch.nn.Linear(3, 2, dtype=torch.float64)]; "
              "return [p for m in ms for p in m.parameters()]",
    "dropout": "torch.manual_seed(6); return torch.nn.functional.dropout(torch.ones(100), 0.3), "
               "torch.nn.Dropout(0.5)(torch.ones(4, 30)), torch.nn.Dropout2d(0.5)(torch.ones(2, 6, 3, 3)), "
               "torch.nn.functional.dropout(torch.ones(50, dtype=torch.bfloat16), 0.1)",
    "generator": "g = torch.Generator().manual_seed(9); a = torch.rand(10, generator=g); "
                 "b = torch.randn(20, generator=g); return a, b, g.get_state(), g.initial_seed(), "
                 "torch.Generator().initial_seed()",
    "state_replay": "torch.manual_seed(8); torch.rand(3); torch.randn(1); s = torch.get_rng_state(); "
                    "a = torch.randn(9); torch.set_rng_state(s); b = torch.randn(9); "
                    "return s, a, b, torch.initial_seed()",
    "seeds": "out = []\n    for s in (-1, 2**64 - 1, 2**63, 0, 7.9):\n"
             "        torch.manual_seed(s); out += [torch.initial_seed(), torch.rand(2)]\n    return out",
    "dataloader": "torch.manual_seed(3); dl = torch.utils.data.DataLoader(list(range(23)), batch_size=4, "
                  "shuffle=True); g = torch.Generator().manual_seed(5); "
                  "dl2 = torch.utils.data.DataLoader(list(range(10)), batch_size=3, shuffle=True, generator=g); "
                  "s = torch.utils.data.RandomSampler(range(50), replacement=True, num_samples=70); "
                  "a, b = torch.utils.data.random_split(range(30), [0.6, 0.4]); "
                  "return [x for e in range(2) for x in dl], [x for x in dl2], list(s), list(a), list(b)",
}


@pytest.mark.skipif(not trng.EXACT_FLOAT_NORMAL,
                    reason="no AVX2+FMA here: torch's float normals are its DEFAULT kernel's")
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_cpu_draws_equal_real_torch(name):
    check("import torch\nimport torch.utils.data\ndef f():\n    " + SAMPLES[name] + "\n",
          **EXACT)


def _facade():
    return load("import torch\n", scoped=True).torch


def test_real_torch_state_restores_in_the_facade_and_back():
    """A state saved by real torch (a checkpoint's rng_state) continues there exactly, and the
    facade's state continues in real torch."""
    ft = _facade()
    torch.manual_seed(1234)
    torch.randn(7)          # leaves a cached normal sample in the state
    torch.rand(1000)        # past the first mt19937 block
    state = torch.get_rng_state()
    expected = [torch.randn(5).numpy(), torch.rand(33).numpy(), torch.randn(40).numpy()]

    ft.set_rng_state(ft.tensor(state.numpy()))
    got = [ft.randn(5).numpy(), ft.rand(33).numpy(), ft.randn(40).numpy()]
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)

    ft.manual_seed(99)
    ft.randn(3)
    fstate = ft.get_rng_state()
    assert tuple(fstate.shape) == (5056,) and "uint8" in str(fstate.dtype)
    torch.set_rng_state(torch.from_numpy(fstate.numpy().copy()))
    np.testing.assert_array_equal(torch.randn(21).numpy(), ft.randn(21).numpy())


def test_state_errors_are_torch_s():
    ft = _facade()
    with pytest.raises(RuntimeError) as real:
        torch.set_rng_state(torch.zeros(10, dtype=torch.uint8))
    with pytest.raises(RuntimeError) as ours:
        ft.set_rng_state(ft.zeros(10, dtype=ft.uint8))
    assert str(ours.value) == str(real.value).split("\n")[0].strip()
    for real_arg, our_arg in ((torch.zeros(5056, dtype=torch.int32), ft.zeros(5056, dtype=ft.int32)),
                              ([1, 2], [1, 2])):
        with pytest.raises(TypeError) as real:
            torch.Generator().set_state(real_arg)
        with pytest.raises(TypeError) as ours:
            ft.Generator().set_state(our_arg)
        assert str(ours.value) == str(real.value)
    for bad in (2 ** 64, -2 ** 63 - 1):
        with pytest.raises(ValueError) as real:
            torch.manual_seed(bad)
        with pytest.raises(ValueError) as ours:
            ft.manual_seed(bad)
        assert str(ours.value) == str(real.value)


def test_threads_draw_whole_blocks_of_one_stream():
    """torch's generator mutex: each draw takes one contiguous block of the stream, whatever the
    threads' interleaving; together they consume exactly the sequential stream."""
    ft = _facade()
    ft.manual_seed(5)
    threads, per, n = 4, 40, 64
    results, errors = [], []

    def work():
        try:
            for _ in range(per):
                results.append(ft.rand(n).numpy())
        except BaseException as e:  # noqa: BLE001
            errors.append(e)
    ts = [threading.Thread(target=work) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    after = ft.rand(3).numpy()
    torch.manual_seed(5)
    blocks = [torch.rand(n).numpy() for _ in range(threads * per)]
    assert sorted(b.tobytes() for b in results) == sorted(b.tobytes() for b in blocks)
    np.testing.assert_array_equal(after, torch.rand(3).numpy())


def test_paddle_generator_outside_the_scope_is_untouched():
    """CPU draws in the scope use torch's stream; a sampler that still runs on Paddle's generator
    (multinomial) seeds it from that stream for the call and restores it: Paddle code outside
    the scope keeps its own stream."""
    import paddle
    ft = _facade()
    paddle.seed(2024)
    expected = paddle.randn([6]).numpy()
    paddle.seed(2024)
    ft.rand(10)
    ft.multinomial(ft.tensor([0.2, 0.8]), 4, True)
    ft.nn.Linear(4, 4)
    np.testing.assert_array_equal(paddle.randn([6]).numpy(), expected)


def test_multinomial_follows_the_seed_and_the_saved_state():
    ft = _facade()
    probs = ft.tensor([0.1, 0.2, 0.3, 0.4])
    ft.manual_seed(3)
    s = ft.get_rng_state()
    a = ft.multinomial(probs, 50, True).numpy()
    b = ft.multinomial(probs, 50, True).numpy()
    ft.set_rng_state(s)
    np.testing.assert_array_equal(ft.multinomial(probs, 50, True).numpy(), a)
    assert not np.array_equal(a, b)


LAYERS_WITH_DROPOUT = {
    "sdpa": "torch.manual_seed(3); q = torch.randn(2, 2, 5, 4); return "
            "torch.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=0.3), "
            "torch.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=0.2, is_causal=True)",
    "mha": "torch.manual_seed(4); m = torch.nn.MultiheadAttention(8, 2, dropout=0.3); "
           "x = torch.randn(5, 3, 8); return m(x, x, x)",
    "lstm": "torch.manual_seed(5); m = torch.nn.LSTM(4, 6, num_layers=2, dropout=0.4); "
            "x = torch.randn(7, 3, 4); return m(x)[0]",
    "encoder_layer": "torch.manual_seed(6); m = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2); "
                     "x = torch.randn(5, 3, 8); return m(x)",
}




def _round_f32(exact):
    """The float32 nearest to a Fraction, ties to even (correct rounding, no double rounding)."""
    from fractions import Fraction
    f = np.float32(float(exact))
    best = None
    for cand in (np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))):
        d = abs(Fraction(float(cand)) - exact)
        key = (d, int(np.array(cand, np.float32).view(np.uint32)) & 1)
        if best is None or key < best[0]:
            best = (key, cand)
    return best[1]


def test_fmaf_rounds_once():
    """torch_cpu_rng.fmaf (the FMAs of torch's AVX2 kernels) is one correctly rounded float32
    fused multiply-add, also where float64 would round the sum onto a float32 midpoint."""
    from fractions import Fraction
    a = np.float32(2.0 ** -12 * (1 + 2.0 ** -23))
    b = np.float32(2.0 ** -12 * (1 - 2.0 ** -23))
    c = np.float32(1 + 2.0 ** -23)
    # exact a*b + c = 1 + 2^-23 + 2^-24 - 2^-70: below the midpoint; float64 rounds it onto it
    assert trng.fmaf(a, b, c) == c
    assert np.float32(np.float64(a) * np.float64(b) + np.float64(c)) != c  # the trap is real
    rng = np.random.default_rng(1)
    xs = [(rng.standard_normal(3) * 2.0 ** rng.integers(-30, 30, 3)).astype(np.float32)
          for _ in range(2000)]
    for x, y, z in xs:
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        assert trng.fmaf(x, y, z) == _round_f32(exact), (x, y, z)


def test_global_stream_starts_from_the_os_as_torch_s():
    """Real torch seeds its global CPU generator at start-up from the OS; a new Generator
    starts at torch's fixed default seed.  Two fresh interpreters: two different seeds."""
    import subprocess
    import sys
    code = ("import torchproxy; torchproxy.enable(scope=None); import torch; "
            "print(torch.initial_seed(), torch.Generator().initial_seed())")
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.split() for _ in range(2)]
    real = [subprocess.run([sys.executable, "-c", "import torch; print(torch.initial_seed(), "
                            "torch.Generator().initial_seed())"], capture_output=True,
                           text=True, check=True).stdout.split() for _ in range(2)]
    assert outs[0][0] != outs[1][0] and real[0][0] != real[1][0]
    assert outs[0][1] == outs[1][1] == real[0][1] == str(trng.DEFAULT_SEED)


DISTRIBUTIONS = {  # (each run after torch.manual_seed(3))
    "normal": "d = torch.distributions.Normal(torch.zeros(5), torch.ones(5) * 2); "
              "return d.sample((4,)), d.rsample()",
    "uniform": "d = torch.distributions.Uniform(torch.zeros(20), torch.ones(20) * 3); "
               "return d.sample(), d.sample((2,))",
    "bernoulli": "d = torch.distributions.Bernoulli(probs=torch.full((30,), 0.3)); "
                 "return d.sample(), d.sample((2,))",
    "mvn": "d = torch.distributions.MultivariateNormal(torch.zeros(3), torch.eye(3) * 2); "
           "return d.sample((5,))",
    "categorical": "d = torch.distributions.Categorical(probs=torch.tensor([0.1, 0.2, 0.7])); "
                   "return d.sample(), d.sample()",
}


ROUNDED = {**{f"dropout_{k}": v for k, v in LAYERS_WITH_DROPOUT.items()},
           **{f"distribution_{k}": "torch.manual_seed(3); " + v for k, v in DISTRIBUTIONS.items()}}


@pytest.mark.skipif(not trng.EXACT_FLOAT_NORMAL,
                    reason="no AVX2+FMA here: torch's float normals are its DEFAULT kernel's")
@pytest.mark.parametrize("name", sorted(ROUNDED))
def test_draws_inside_layers_and_distributions_are_torch_s(name):
    """Dropout inside attention, MultiheadAttention, stacked LSTMs and a Transformer layer draws
    torch's masks, and torch.distributions draw through rand / normal_ / bernoulli /
    multinomial as torch's do: the outputs then agree to the float32 rounding of the
    arithmetic around the draws (Paddle's)."""
    check("import torch\nimport torch.distributions\ndef f():\n    " + ROUNDED[name] + "\n")
