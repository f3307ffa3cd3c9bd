"""TorchCodec (paddlecodec 0.2.0's prebuilt libraries) decoding on CPU into Paddle tensors.

Each test runs ``client_decode.py`` (unmodified torch-style TorchCodec code, in torchproxy's
scope, through the ABI shim) in a subprocess on a video FFmpeg generates here, and compares
every result with FFmpeg's own decode of the same file (rgb24 frames / f32 samples read with
numpy): pixels and samples must be equal, indices and timestamps exact.
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from codec_shared import (AUDIO_VIDEO, FPS, HEIGHT, ROOT, SAMPLE_RATE, SECONDS, VIDEOS, WIDTH,
                      generate)

CLIENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "client_decode.py")
N = FPS * SECONDS


def _compat_available() -> bool:
    from torchproxy.facade.cpp_extension import compat_available
    return compat_available()


def ffmpeg_frames(ffmpeg, path):
    """FFmpeg's decode to rgb24, as torchcodec lays frames out: (N, 3, H, W) uint8."""
    raw = subprocess.run([ffmpeg, "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt",
                          "rgb24", "-"], capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, HEIGHT, WIDTH, 3).transpose(0, 3, 1, 2)


def ffmpeg_samples(ffmpeg, path):
    raw = subprocess.run([ffmpeg, "-v", "error", "-i", path, "-vn", "-f", "f32le", "-acodec",
                          "pcm_f32le", "-"], capture_output=True, check=True).stdout
    return np.frombuffer(raw, "<f4")[None, :]  # mono: (channels, samples)


def run_client(site, path, out, audio=False):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, site]))
    cmd = [sys.executable, CLIENT, path, out] + (["--audio"] if audio else [])
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)


def decode(site, path, tmp_path, audio=False):
    out = str(tmp_path / "out.npz")
    proc = run_client(site, path, out, audio)
    # a crash (negative return code: a signal) is a failure like any other
    assert proc.returncode == 0, (f"client exited with {proc.returncode}:\n"
                                  f"{proc.stdout[-2000:]}\n{proc.stderr[-6000:]}")
    with np.load(out) as f:
        return {k: f[k] for k in f.files}


def check_video(res, ref):
    assert ref.shape == (N, 3, HEIGHT, WIDTH)
    assert int(res["len"]) == N and int(res["num_frames"]) == N
    assert float(res["fps"]) == FPS
    # frames are Paddle tensors, torch.uint8 and torch.Tensor under the facade
    assert list(res["types"]) == ["paddle.Tensor", "True", "True"]
    for key in ("index_0", "index_last", "slice_all", "slice_step", "frames_at", "in_range",
                "played_at", "played_back", "played_range"):
        assert res[key].dtype == np.uint8, key
    np.testing.assert_array_equal(res["index_0"], ref[0])
    np.testing.assert_array_equal(res["index_last"], ref[-1])
    np.testing.assert_array_equal(res["slice_all"], ref)
    np.testing.assert_array_equal(res["slice_step"], ref[1:N:3])
    np.testing.assert_array_equal(res["frames_at"], ref[[N - 1, 0, 5, 5]])
    np.testing.assert_array_equal(res["frames_at_pts"], np.array([N - 1, 0, 5, 5]) / FPS)
    np.testing.assert_array_equal(res["in_range"], ref[2:N:4])
    # seeking: frame i is played during [i/fps, (i+1)/fps)
    np.testing.assert_array_equal(res["played_at"], ref[7])
    assert float(res["played_at_pts"]) == pytest.approx(7 / FPS, abs=1e-9)
    np.testing.assert_array_equal(res["played_back"], ref[1])
    np.testing.assert_array_equal(res["played_range"], ref[3:9])
    # out of range: torchcodec's own message (C++ std::out_of_range, raised as RuntimeError
    # through Paddle's operator call)
    assert res["oob_error"][0] == "RuntimeError"
    assert res["oob_error"][1] == f"Invalid frame index={N} for streamIndex=0; must be less than {N}"
    np.testing.assert_allclose(res["mean_f32"], ref[0:4].astype(np.float32).mean(axis=(2, 3)),
                               rtol=1e-6)


def unavailable(site, path, tmp_path) -> bool:
    """On a Paddle without the compat C++ API (2.6 .. 3.2) the client fails with the shim's
    clear error (checked here); True then."""
    if _compat_available():
        return False
    proc = run_client(site, path, str(tmp_path / "out.npz"))
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "ShimUnavailable: torchproxy.abi_shim needs Paddle's torch-compatible C++ API" \
        in proc.stderr
    return True


@pytest.mark.parametrize("name", sorted(VIDEOS))
def test_video(name, ffmpeg, paddlecodec_site, video_dir, tmp_path):
    path = generate(ffmpeg, video_dir, *VIDEOS[name])
    if unavailable(paddlecodec_site, path, tmp_path):
        return
    check_video(decode(paddlecodec_site, path, tmp_path), ffmpeg_frames(ffmpeg, path))


def test_audio_and_video(ffmpeg, paddlecodec_site, video_dir, tmp_path):
    path = generate(ffmpeg, video_dir, *AUDIO_VIDEO, audio=True)
    if unavailable(paddlecodec_site, path, tmp_path):
        return
    res = decode(paddlecodec_site, path, tmp_path, audio=True)
    check_video(res, ffmpeg_frames(ffmpeg, path))
    ref = ffmpeg_samples(ffmpeg, path)
    assert ref.shape == (1, SAMPLE_RATE * SECONDS)
    assert int(res["audio_rate"]) == SAMPLE_RATE
    assert res["audio"].dtype == np.float32
    np.testing.assert_array_equal(res["audio"], ref)
    np.testing.assert_array_equal(res["audio_part"],
                                  ref[:, SAMPLE_RATE // 2:SAMPLE_RATE])
