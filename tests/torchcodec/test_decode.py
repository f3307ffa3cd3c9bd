"""TorchCodec (paddlecodec 0.2.0's prebuilt libraries) decoding on CPU into Paddle tensors.

``client_decode.py`` (unmodified torch-style TorchCodec code, in torchproxy's scope, through
the ABI shim) runs in one subprocess over every video FFmpeg generates here (once per module: a
process per video paid Paddle's import and the shim's load each time); each test compares its
video's results with FFmpeg's own decode of the same file (rgb24 frames / f32 samples read with
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


def run_client(site, jobs):
    """``jobs``: (video, out, audio) triples, decoded by one client process."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, site]))
    cmd = [sys.executable, CLIENT]
    for path, out, audio in jobs:
        cmd += [path, out] + (["--audio"] if audio else [])
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)


@pytest.fixture(scope="module")
def decoded(ffmpeg, paddlecodec_site, video_dir, tmp_path_factory):
    """name -> (video path, client output), and the client's process: every video (and the
    audio one, "audio_and_video") decoded by one client run."""
    videos = {name: (generate(ffmpeg, video_dir, *VIDEOS[name]), False) for name in VIDEOS}
    videos["audio_and_video"] = (generate(ffmpeg, video_dir, *AUDIO_VIDEO, audio=True), True)
    out_dir = tmp_path_factory.mktemp("decoded")
    outs = {name: (path, str(out_dir / f"{name}.npz")) for name, (path, _) in videos.items()}
    proc = run_client(paddlecodec_site, [(path, outs[name][1], audio)
                                         for name, (path, audio) in sorted(videos.items())])
    return outs, proc


def decode(decoded, name):
    """The client's results for video ``name``, or None on a Paddle without the compat C++
    API (2.6 .. 3.2), where the client must fail with the shim's clear error (checked here)."""
    outs, proc = decoded
    if not _compat_available():
        assert proc.returncode == 1, proc.stderr[-3000:]
        assert "ShimUnavailable: torchproxy.abi_shim needs Paddle's torch-compatible C++ API" \
            in proc.stderr
        return None
    out = outs[name][1]
    # 3: some video raised (its traceback in OUT.error); anything else, a crash (a negative
    # return code: a signal) included, is a failure of every test
    assert proc.returncode in (0, 3), (f"client exited with {proc.returncode}:\n"
                                       f"{proc.stdout[-2000:]}\n{proc.stderr[-6000:]}")
    if os.path.exists(out + ".error"):
        with open(out + ".error") as f:
            raise AssertionError(f"client failed on {name}:\n{f.read()[-6000:]}")
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


@pytest.mark.parametrize("name", sorted(VIDEOS))
def test_video(name, ffmpeg, decoded):
    res = decode(decoded, name)
    if res is not None:
        check_video(res, ffmpeg_frames(ffmpeg, decoded[0][name][0]))


def test_audio_and_video(ffmpeg, decoded):
    res = decode(decoded, "audio_and_video")
    if res is None:
        return
    path = decoded[0]["audio_and_video"][0]
    check_video(res, ffmpeg_frames(ffmpeg, path))
    ref = ffmpeg_samples(ffmpeg, path)
    assert ref.shape == (1, SAMPLE_RATE * SECONDS)
    assert int(res["audio_rate"]) == SAMPLE_RATE
    assert res["audio"].dtype == np.float32
    np.testing.assert_array_equal(res["audio"], ref)
    np.testing.assert_array_equal(res["audio_part"],
                                  ref[:, SAMPLE_RATE // 2:SAMPLE_RATE])
