"""More pytorch/examples programs for whole_programs.py (pinned at its EXAMPLES_COMMIT): mnist,
vae, dcgan, super_resolution, fast_neural_style's TransformerNet, mnist_rnn, regression.

The example files run unmodified.  What the harness provides, on both sides alike:
- data: torchvision is not installed in these venvs (and real torchvision cannot run on the
  facade), so ``_torchvision_standin`` puts a ``torchvision`` module in ``sys.modules`` whose
  datasets are small synthetic ones from numpy (MNIST-like 28x28 images, FakeData), whose
  transforms are torchvision's ToTensor / Normalize / Compose restated with torch ops, and
  whose ``utils.save_image`` records the tensor it is given (the eval values) instead of
  writing a PNG.
- weights: real torch's, as for the other programs (``wp._same_weights``: both sides build
  under the same seed, the facade side then loads real torch's state_dict); where a script
  builds its model at its top level, through the script's own loading option (dcgan's
  ``--netG``/``--netD``) or ``_torch_weights_at_construction`` (regression's ``fc``).
- nothing else: the random numbers the programs draw (VAE's ``randn_like`` noise,
  regression's ``randn`` targets and batches), their dropout masks (mnist's Dropout,
  mnist_rnn's Dropout2d) and their shuffled loaders' orders are each side's own: the facade's
  CPU random numbers are torch's (facade/torch_cpu_rng.py), so the same seeds give the same
  draws.  (Until the facade had them, the harness replaced ``torch.randn`` by a shared numpy
  stream, set dropout to 0 and served samples in call order.)  One exception: regression's
  script never seeds (real torch seeds its global stream at random at start-up), so the harness
  seeds it on both sides.
- the loss curve: a recording wrapper around the loss function or module the program calls
  (the value it returns is the program's own, unchanged), where the program only prints it
  rounded.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import runpy
import sys
import types

import whole_programs as wp


# ---------------------------------------------------------------- what the harness provides

def _digits(n, seed, size=28):
    """MNIST-like uint8 images: class k is a bright bar at row 2k+4 (k < 5) or column
    2(k-5)+4, over noise; labels cycle through the 10 classes in a seeded order."""
    import numpy as np
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n)
    x = rng.integers(0, 60, (n, size, size)).astype(np.float64)
    for i, k in enumerate(labels):
        if k < 5:
            x[i, 2 * k + 4:2 * k + 6, 4:24] += 180
        else:
            x[i, 4:24, 2 * (k - 5) + 4:2 * (k - 5) + 6] += 180
    return np.clip(x, 0, 255).astype(np.uint8), labels.astype(np.int64)


class _Samples:
    """A map-style dataset of (image, target) pairs, transformed on access."""

    def __init__(self, items, transform=None):
        self.items, self.transform = items, transform

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        img, target = self.items[idx]
        return (self.transform(img) if self.transform else img), target


def _torchvision_standin(torch, mnist_sizes=(64, 32), fake_size=16, saved=None):
    """A ``torchvision`` for both children: synthetic datasets, transforms restated from
    torchvision 0.2x with torch ops, save_image appending the tensor's values to ``saved``."""
    import numpy as np

    class ToTensor:
        # torchvision.transforms.functional.to_tensor: HxW(xC) uint8 -> CxHxW float / 255
        def __call__(self, pic):
            arr = np.array(pic, dtype=np.uint8, copy=True)
            if arr.ndim == 2:
                arr = arr[:, :, None]
            img = torch.from_numpy(arr).permute((2, 0, 1)).contiguous()
            return img.to(dtype=torch.get_default_dtype()).div(255)

    class Normalize:
        # torchvision.transforms.functional.normalize (inplace=False): clone, sub_, div_
        def __init__(self, mean, std):
            self.mean, self.std = mean, std

        def __call__(self, t):
            t = t.clone()
            mean = torch.as_tensor(self.mean, dtype=t.dtype).view(-1, 1, 1)
            std = torch.as_tensor(self.std, dtype=t.dtype).view(-1, 1, 1)
            return t.sub_(mean).div_(std)

    class Compose:
        def __init__(self, transforms):
            self.transforms = transforms

        def __call__(self, x):
            for t in self.transforms:
                x = t(x)
            return x

    def MNIST(root, train=True, transform=None, target_transform=None, download=False):
        imgs, labels = _digits(mnist_sizes[0] if train else mnist_sizes[1],
                               seed=21 if train else 22)
        return _Samples(list(zip(imgs, labels.tolist())), transform)

    def FakeData(size=fake_size, image_size=(3, 224, 224), num_classes=10, transform=None,
                 target_transform=None, random_offset=0):
        rng = np.random.default_rng(23 + random_offset)
        c, h, w = image_size
        imgs = rng.integers(0, 256, (size, h, w, c)).astype(np.uint8)
        return _Samples([(im, int(k)) for im, k in
                             zip(imgs, rng.integers(0, num_classes, size))], transform)

    def save_image(tensor, fp, **kwargs):
        if saved is not None:
            saved.extend(tensor.detach().flatten().tolist())

    tv = types.ModuleType("torchvision")
    tv.datasets = types.ModuleType("torchvision.datasets")
    tv.datasets.MNIST, tv.datasets.FakeData = MNIST, FakeData
    tv.transforms = types.ModuleType("torchvision.transforms")
    tv.transforms.ToTensor, tv.transforms.Normalize = ToTensor, Normalize
    tv.transforms.Compose = Compose
    tv.utils = types.ModuleType("torchvision.utils")
    tv.utils.save_image = save_image
    for name in ("", ".datasets", ".transforms", ".utils"):
        sys.modules["torchvision" + name] = tv if not name else getattr(tv, name[1:])
    return tv


@contextlib.contextmanager
def _patched(owner, name, value):
    old = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, old)


def _recording(fn, out):
    """fn, whose every result's ``.item()`` is appended to ``out``; the result is returned
    unchanged."""
    def wrapper(*args, **kwargs):
        r = fn(*args, **kwargs)
        out.append(r.item())
        return r
    return wrapper


class _Namespace:
    """A module's stand-in that forwards every attribute to it, except those given."""

    def __init__(self, target, **overrides):
        self._target, self._overrides = target, overrides

    def __getattr__(self, name):
        if name in self._overrides:
            return self._overrides[name]
        return getattr(self._target, name)


def _argv(*args):
    return _patched(sys, "argv", list(args))


# ---------------------------------------------------------------- mnist, mnist_rnn

def run_mnist(torch, side, workdir, src, rnn=False, batch=16, epochs=2):
    """mnist/main.py (or mnist_rnn/main.py): Net, train() and test() unmodified, main()'s
    logic restated (its argparse and downloads): the two MNIST loaders (train without
    shuffle, test; mnist_rnn: both shuffled), Adadelta (lr 1.0; mnist_rnn 0.1), StepLR
    (gamma 0.7) over ``epochs`` epochs of 4 batches.  The curve: every F.nll_loss call
    (train's mean losses, test's summed ones); eval: the trained model's log-probabilities
    on the test set."""
    tv = _torchvision_standin(torch, mnist_sizes=(4 * batch, 2 * batch))
    M = wp._load_module("mnist_rnn_main" if rnn else "mnist_main",
                        os.path.join(src, "main.py"))
    model = wp._same_weights(torch, side, workdir, M.Net)
    device = torch.device("cpu")
    losses = []
    M.F = _Namespace(M.F, nll_loss=_recording(M.F.nll_loss, losses))
    args = argparse.Namespace(log_interval=10, dry_run=False)  # what train()/test() read
    transform = tv.transforms.Compose([tv.transforms.ToTensor(),
                                       tv.transforms.Normalize((0.1307,), (0.3081,))])
    test_set = tv.datasets.MNIST('../data', train=False, transform=transform)
    train_loader = torch.utils.data.DataLoader(
        tv.datasets.MNIST('../data', train=True, download=True, transform=transform),
        batch_size=batch, shuffle=rnn)
    test_loader = torch.utils.data.DataLoader(test_set, batch_size=batch, shuffle=rnn)
    optimizer = torch.optim.Adadelta(model.parameters(), lr=0.1 if rnn else 1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    with contextlib.redirect_stdout(io.StringIO()):
        for epoch in range(1, epochs + 1):
            M.train(args, model, device, train_loader, optimizer, epoch)
            if rnn:
                M.test(args, model, device, test_loader)
            else:
                M.test(model, device, test_loader)
            scheduler.step()
    model.eval()
    x = torch.stack([test_set[i][0] for i in range(len(test_set))])
    with torch.no_grad():
        out = model(x)
    return {"losses": losses, "check": "eval",
            "values": [scheduler.get_last_lr()[0]] + out.flatten().tolist()}


# ---------------------------------------------------------------- vae

def run_vae(torch, side, workdir, src, batch=16, epochs=2):
    """vae/main.py unmodified, imported with its argv (``--batch-size 16 --epochs 2``): its
    top level parses them, builds the loaders, the VAE and Adam; its ``train``/``test``
    run as they are and its ``__main__`` block (train, test, decode 64 latents,
    save_image) is restated.  The curve: every loss_function call (train's, then test's);
    eval: every save_image tensor (test's reconstructions, the decoded samples)."""
    saved = []
    _torchvision_standin(torch, mnist_sizes=(4 * batch, 2 * batch), saved=saved)
    with _argv("main.py", "--batch-size", str(batch), "--epochs", str(epochs)):
        with contextlib.redirect_stdout(io.StringIO()):
            M = wp._load_module("vae_main", os.path.join(src, "main.py"))
        wp._same_weights(torch, side, workdir, lambda: M.model)  # Adam holds these parameters
        losses = []
        M.loss_function = _recording(M.loss_function, losses)
        with contextlib.redirect_stdout(io.StringIO()):
            for epoch in range(1, M.args.epochs + 1):
                M.train(epoch)
                M.test(epoch)
                with torch.no_grad():
                    sample = torch.randn(64, 20).to(M.device)
                    sample = M.model.decode(sample).cpu()
                    M.save_image(sample.view(64, 1, 28, 28),
                                 'results/sample_' + str(epoch) + '.png')
    return {"losses": losses, "check": "eval", "values": saved}


# ---------------------------------------------------------------- dcgan

def run_dcgan(torch, side, workdir, src, batch=8, steps=2):
    """dcgan/main.py run whole as ``__main__`` (runpy) with ``--dataset fake`` at small
    sizes (nz 16, ngf = ndf = 8, 64x64 images as its five-layer nets require, one epoch of
    ``steps`` batches): its Generator (ConvTranspose2d, BatchNorm2d) and Discriminator,
    BCELoss, the two Adam optimizers, label.fill_, fake.detach(), its checkpoints.  Real
    torch's initial weights reach the facade through the script's own ``--netG``/``--netD``
    (written by a first real-torch run with ``--niter 0``).  The curve: every BCELoss call
    (errD_real, errD_fake, errG per batch); eval: the save_image tensors (the real batch and
    netG(fixed_noise) at batch 0), the checkpoints the script saved, and the trained nets in
    eval mode on fixed_noise.

    Two batches: with its own draws (the script's seed, its torch.randn latents, its shuffled
    loader) this small GAN amplifies float32 rounding from the third batch on, real torch
    against itself with its oneDNN convolutions turned off (torch.backends.mkldnn.enabled =
    False: another valid float32 summation order) differing by 6.6e-7 at the 8th loss, 1.2e-5
    at the 9th and 2.3e-3 at the 15th (6 batches), the facade against real torch the same; over
    two batches both stay within 1.2e-7."""
    saved = []
    _torchvision_standin(torch, fake_size=batch * steps, saved=saved)
    out = os.path.join(workdir, "out")
    g0, d0 = os.path.join(workdir, "netG0.pt"), os.path.join(workdir, "netD0.pt")
    argv = ["main.py", "--dataset", "fake", "--batchSize", str(batch), "--imageSize", "64",
            "--nz", "16", "--ngf", "8", "--ndf", "8", "--workers", "0", "--outf", out,
            "--manualSeed", "1"]
    quiet = contextlib.redirect_stdout(io.StringIO())
    path = os.path.join(src, "main.py")
    if side == "torch":
        with _argv(*argv, "--niter", "0"), quiet:
            g = runpy.run_path(path, run_name="__main__")
        torch.save(g["netG"].state_dict(), g0)
        torch.save(g["netD"].state_dict(), d0)
    losses = []

    class BCELoss(torch.nn.BCELoss):
        def forward(self, input, target):
            return _recording(super().forward, losses)(input, target)

    with _argv(*argv, "--niter", "1", "--netG", g0, "--netD", d0), \
            _patched(torch.nn, "BCELoss", BCELoss), contextlib.redirect_stdout(io.StringIO()):
        g = runpy.run_path(path, run_name="__main__")
    values = list(saved)
    for name in ("netG_epoch_0.pth", "netD_epoch_0.pth"):
        for v in torch.load(os.path.join(out, name)).values():
            values += v.flatten().tolist()
    netG, netD = g["netG"].eval(), g["netD"].eval()
    with torch.no_grad():
        fake = netG(g["fixed_noise"])
        values += fake.flatten().tolist() + netD(fake).tolist()
    return {"losses": losses, "check": "eval", "values": values}


# ---------------------------------------------------------------- super_resolution

def run_super_resolution(torch, side, workdir, src, batch=4, epochs=2, upscale=2):
    """super_resolution: model.py's Net (orthogonal_ init, PixelShuffle) unmodified and
    main.py's train/test/checkpoint restated (a script whose data.py downloads BSDS300):
    MSELoss, Adam lr 0.01 over ``epochs`` epochs of 4 shuffled batches of 8x8 -> 16x16
    Y-channel crops, test()'s PSNR, ``torch.save(model, ...)`` of the whole module; then
    super_resolve.py runs whole (runpy) on a 12x10 RGB PNG with that checkpoint
    (torch.load under serialization.safe_globals).  Eval: PSNRs, super_resolve.py's output
    tensor (which it scales in place through numpy()) and the PNG it wrote."""
    import numpy as np
    from math import log10
    from PIL import Image
    _torchvision_standin(torch)
    M = wp._load_module("model", os.path.join(src, "model.py"))
    rng = np.random.default_rng(51)

    def pairs(n):
        # smooth targets (sums of low-frequency waves) and their 2x2 box-downsampled inputs
        hi = np.zeros((n, 1, 8 * upscale, 8 * upscale), np.float32)
        yy, xx = np.mgrid[0:8 * upscale, 0:8 * upscale] / (8.0 * upscale)
        for i in range(n):
            a, b, c, d = rng.random(4)
            hi[i, 0] = 0.5 + 0.25 * np.sin(6 * a * xx + 3 * b) * np.cos(6 * c * yy + 3 * d)
        lo = hi.reshape(n, 1, 8, upscale, 8, upscale).mean((3, 5))
        return [(torch.from_numpy(lo[i]), torch.from_numpy(hi[i])) for i in range(n)]

    train_set = pairs(4 * batch)
    test_set = pairs(2 * batch)
    DataLoader = torch.utils.data.DataLoader
    training_data_loader = DataLoader(dataset=train_set, num_workers=0, batch_size=batch,
                                      shuffle=True)
    testing_data_loader = DataLoader(dataset=test_set, num_workers=0, batch_size=batch,
                                     shuffle=False)
    device = torch.device("cpu")
    model = wp._same_weights(torch, side, workdir, lambda: M.Net(upscale_factor=upscale))
    criterion = torch.nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    losses, psnrs = [], []
    for epoch in range(1, epochs + 1):
        for iteration, b in enumerate(training_data_loader, 1):  # main.py's train(epoch)
            input, target = b[0].to(device), b[1].to(device)
            optimizer.zero_grad()
            loss = criterion(model(input), target)
            losses.append(loss.item())
            loss.backward()
            optimizer.step()
        with torch.no_grad():  # test()
            for b in testing_data_loader:
                input, target = b[0].to(device), b[1].to(device)
                prediction = model(input)
                mse = criterion(prediction, target)
                psnrs.append(10 * log10(1 / mse.item()))
        model_out_path = os.path.join(workdir, "model_epoch_{}.pth".format(epoch))
        torch.save(model, model_out_path)  # checkpoint(epoch)
    img = (np.random.default_rng(52).random((10, 12, 3)) * 255).astype(np.uint8)
    Image.fromarray(img).save(os.path.join(workdir, "in.png"))
    out_png = os.path.join(workdir, "out.png")
    with _argv("super_resolve.py", "--input_image", os.path.join(workdir, "in.png"),
               "--model", model_out_path, "--output_filename", out_png), \
            contextlib.redirect_stdout(io.StringIO()):
        g = runpy.run_path(os.path.join(src, "super_resolve.py"), run_name="__main__")
    png = np.asarray(Image.open(out_png)).astype(float).flatten().tolist()
    # super_resolve.py scales ``out`` by 255 in place, through ``out[0].detach().numpy()`` (a
    # view of out's memory in torch); compared over 255, in Python floats: values of order 1,
    # as EVAL_TOL assumes (a copy instead of a view leaves them 255 times smaller)
    out = [v / 255.0 for v in g["out"].detach().flatten().tolist()]
    return {"losses": losses, "check": "eval", "values": psnrs + out + png}


# ---------------------------------------------------------------- fast_neural_style

def run_fast_neural_style(torch, side, workdir, src, batch=2, steps=6, size=16):
    """fast_neural_style: transformer_net.py's TransformerNet (ReflectionPad2d, 9x9 convs,
    InstanceNorm2d(affine), residual blocks, nearest interpolate upsampling) and utils.py's
    normalize_batch (an in-place div_ on the network's output) and gram_matrix (view,
    transpose, bmm), unmodified, trained by neural_style.py's train() loop restated with
    VGG16 (pretrained torchvision weights, not available here) replaced by the identity: the
    content loss is MSE between the normalized output and input, the style loss MSE between
    their Gram matrices and a style image's (weights 1 and 10).  Eval: stylize()'s no_grad
    output on a content image and the PNG utils.save_image writes.

    SGD (lr 1e-3, momentum 0.9), not neural_style.py's Adam: with Adam the curve is chaotic
    in float32.  Twenty bias vectors (every conv bias before an InstanceNorm, and the
    residual blocks' in2.bias, whose per-channel constants the next InstanceNorm removes)
    have a gradient that is zero mathematically and float32 rounding noise in practice
    (median relative error against float64 3e8); Adam scales that noise to steps of lr.
    Real torch against itself with every initial parameter moved one ulp: Adam 8.9e-3 apart
    at step 5, SGD 1.9e-6."""
    import numpy as np
    from PIL import Image
    T = wp._load_module("transformer_net", os.path.join(src, "transformer_net.py"))
    U = wp._load_module("utils", os.path.join(src, "utils.py"))
    rng = np.random.default_rng(61)
    yy, xx = np.mgrid[0:size, 0:size] / size

    def images(n):
        # smooth colour fields in [0, 255] (transforms.Lambda(lambda x: x.mul(255)))
        out = np.empty((n, 3, size, size), np.float32)
        for i in range(n):
            for c in range(3):
                a, b = rng.random(2) * 6
                out[i, c] = 127.5 + 110 * np.sin(a * xx + b * yy + c)
        return out

    xs, style, content = images(batch * steps), images(1), images(1)
    transformer = wp._same_weights(torch, side, workdir, T.TransformerNet)
    optimizer = torch.optim.SGD(transformer.parameters(), lr=1e-3, momentum=0.9)
    mse_loss = torch.nn.MSELoss()
    content_weight, style_weight = 1.0, 10.0
    style_t = torch.from_numpy(style).repeat(batch, 1, 1, 1)
    gram_style = [U.gram_matrix(y) for y in [U.normalize_batch(style_t)]]
    losses = []
    transformer.train()
    for batch_id in range(steps):
        x = torch.from_numpy(xs[batch_id * batch:(batch_id + 1) * batch].copy())
        n_batch = len(x)
        optimizer.zero_grad()
        y = transformer(x)
        y = U.normalize_batch(y)
        x = U.normalize_batch(x)
        features_y, features_x = [y], [x]  # vgg(y), vgg(x) in neural_style.py
        content_loss = content_weight * mse_loss(features_y[0], features_x[0])
        style_loss = 0.
        for ft_y, gm_s in zip(features_y, gram_style):
            gm_y = U.gram_matrix(ft_y)
            style_loss += mse_loss(gm_y, gm_s[:n_batch, :, :])
        style_loss *= style_weight
        total_loss = content_loss + style_loss
        total_loss.backward()
        optimizer.step()
        losses.append(total_loss.item())
    transformer.eval()
    with torch.no_grad():  # stylize()
        output = transformer(torch.from_numpy(content)).cpu()
    png = os.path.join(workdir, "styled.png")
    U.save_image(png, output[0])
    pixels = np.asarray(Image.open(png)).astype(float).flatten().tolist()
    return {"losses": losses, "check": "eval",
            "values": output.flatten().tolist() + pixels}


# ---------------------------------------------------------------- regression

def _torch_weights_at_construction(torch, side, workdir, cls):
    """cls, whose instances take real torch's initial parameters when constructed: both
    sides build each new instance under the same seed (so their streams stay together), the
    torch side saves its state_dict, the facade side loads it (for a model a script builds at
    its top level, between lines the harness cannot reach)."""
    count = [0]

    class Shared(cls):
        def __init__(self, *args, **kwargs):
            torch.manual_seed(count[0])
            super().__init__(*args, **kwargs)
            path = os.path.join(workdir, f"{cls.__name__}{count[0]}.pt")
            count[0] += 1
            if side == "torch":
                torch.save(self.state_dict(), path)
            else:
                self.load_state_dict(torch.load(path))

    Shared.__name__ = Shared.__qualname__ = cls.__name__
    return Shared


def run_regression(torch, side, workdir, src, max_steps=3000):
    """regression/main.py run whole as ``__main__`` (runpy): the polynomial target, its
    get_batch (randn, unsqueeze, cat of powers, mm, .item()), Linear ``fc``, smooth_l1_loss,
    the manual update ``param.data.add_(-0.1 * param.grad)``, until the loss is below 1e-3,
    then poly_desc's '{:+.2f}' formatting of 0-d tensors.  The curve: every smooth_l1_loss
    call (a run past ``max_steps`` is stopped as a failure); eval: the final loss, the step
    count, fc's weights and the target's.

    It runs under ``torch.set_default_dtype(torch.float64)``: in float32 its curve is chaotic
    (x**4 features of normal samples, lr 0.1, a stop test on one batch's loss): real torch
    against itself with fc.bias moved by one ulp leaves the 1e-5 bound at batch 93 and stops
    after 280 batches instead of 287, which is what the facade does (its first difference
    over 1e-5 at batch 91, 280 batches), so float32 compares rounding, not the facade."""
    F = torch.nn.functional
    losses = []

    recorded = _recording(F.smooth_l1_loss, losses)

    def smooth_l1_loss(*args, **kwargs):
        if len(losses) >= max_steps:
            raise RuntimeError(f"regression ran past {max_steps} steps without converging")
        return recorded(*args, **kwargs)

    Linear = _torch_weights_at_construction(torch, side, workdir, torch.nn.Linear)
    printed = io.StringIO()
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    torch.manual_seed(71)  # the script draws W_target from the unseeded global stream
    try:
        with _argv("main.py"), _patched(torch.nn, "Linear", Linear), \
                _patched(F, "smooth_l1_loss", smooth_l1_loss), \
                contextlib.redirect_stdout(printed):
            g = runpy.run_path(os.path.join(src, "main.py"), run_name="__main__")
    finally:
        torch.set_default_dtype(default)
    fc = g["fc"]
    values = [g["loss"], g["batch_idx"]] + fc.weight.detach().flatten().tolist() \
        + fc.bias.detach().tolist() + g["W_target"].flatten().tolist() \
        + g["b_target"].tolist()
    return {"losses": losses, "check": "eval", "values": values,
            "printed": printed.getvalue().splitlines()}


RUNNERS = {"mnist": run_mnist, "vae": run_vae, "dcgan": run_dcgan,
           "super_resolution": run_super_resolution,
           "fast_neural_style": run_fast_neural_style,
           "mnist_rnn": lambda *a: run_mnist(*a, rnn=True), "regression": run_regression}
FILES = {  # program -> {path in pytorch/examples: sha256}
    "mnist": {"mnist/main.py":
              "30a3359d1911d2d859dd090ce20be7ed132a33f508dc389f40366010b3e9ecc8"},
    "vae": {"vae/main.py": "366116e8252ac68ef1f180cce0b3c017f5a957595d863c8d4904210a80cdab6d"},
    "dcgan": {"dcgan/main.py":
              "4f6aef3527822a32bcca366e336e941a67d04081f66f568cc24a0a642b5f9555"},
    "super_resolution": {
        "super_resolution/model.py":
        "02edbd87555c4a99136572cc03e27a3b73ecef09127fb00c8ac2e3ac1f6c289c",
        "super_resolution/super_resolve.py":
        "bc3f58f5a5fa906d4820cee7fe73926e226fc536a5ce5b50e8d62e2b3b469989"},
    "fast_neural_style": {
        "fast_neural_style/neural_style/transformer_net.py":
        "cd280fd7b34895819a8d89ca4867b806c52d46b7311cf8c01cf865b3d77cf052",
        "fast_neural_style/neural_style/utils.py":
        "aa1029dcb69e6047dba590367bf29b45c7153c0f8245a1cceec28d10dd7ca9c5"},
    "mnist_rnn": {"mnist_rnn/main.py":
                  "ebd462cfda1fc8ace2160e8a99e6f97125802e645f924c049ed5e63a0666b019"},
    "regression": {"regression/main.py":
                   "87ba43405ca6df6ef1e24e6ee85bfb0cfff95df3bbaf5794d4662308184a90a0"},
}
IMPORT_ROOT = {"mnist": "mnist", "vae": "vae", "dcgan": "dcgan",
               "super_resolution": "super_resolution",
               "fast_neural_style": "fast_neural_style/neural_style", "mnist_rnn": "mnist_rnn",
               "regression": "regression"}
