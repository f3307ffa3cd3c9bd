"""Cost of nanoGPT's ``q = x[..., :C].view(B, T, nh, hs)`` with autograd, one run, one thread:

- facade: ``Tensor.view`` of the non-contiguous slice (an as_strided alias in a PyLayer whose
  backward is the reshaped gradient: paddle_shims.strided_view);
- Paddle: ``paddle.reshape`` of the same slice (a copy, Paddle's own backward);
- real torch (in a subprocess, unscoped).

    .venv/bin/python bench/view_autograd.py
"""
import subprocess
import sys
import time

B, T, C, NH = 8, 64, 192, 4
TORCH = f"""
import time, torch
torch.set_num_threads(1)
x = torch.randn({B}, {T}, {3 * C}, requires_grad=True)
def bench(fn, n=400):
    for _ in range(20): fn()
    t = time.perf_counter()
    for _ in range(n): fn()
    return (time.perf_counter() - t) / n * 1e6
def fb():
    x[..., :{C}].view({B}, {T}, {NH}, {C // NH}).sum().backward(); x.grad = None
print(bench(lambda: x[..., :{C}].view({B}, {T}, {NH}, {C // NH})), bench(fb))
"""


def bench(fn, n=400):
    for _ in range(20):
        fn()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n * 1e6


def main():
    import paddle
    import torchproxy
    torchproxy.enable(scope={"__main__"})
    import torch as facade  # the facade: this module is in scope
    x = paddle.randn([B, T, 3 * C])
    x.stop_gradient = False

    def view():
        return facade.Tensor.view(paddle.slice(x, [2], [0], [C]), B, T, NH, C // NH)

    def reshape():
        return paddle.reshape(paddle.slice(x, [2], [0], [C]), [B, T, NH, C // NH])

    def fb(make):
        def run():
            make().sum().backward()
            x.clear_gradient()
        return run

    rows = {"facade view": (bench(view), bench(fb(view))),
            "paddle reshape (copy)": (bench(reshape), bench(fb(reshape)))}
    out = subprocess.run([sys.executable, "-c", TORCH], capture_output=True, text=True,
                         check=True).stdout.split()
    rows["real torch view"] = (float(out[0]), float(out[1]))
    for name, (fwd, both) in rows.items():
        print(f"{name:24s} forward {fwd:8.1f} us   forward+backward {both:9.1f} us")


if __name__ == "__main__":
    main()
