"""Fixtures of the TorchCodec tests (what they share: codec_shared.py).

- FFmpeg comes from the system (``apt-get install -y ffmpeg``); without it every test here is
  skipped, saying so.
- paddlecodec 0.2.0 is pip-installed at test time into ``build/paddlecodec-0.2.0``
  (``TORCHPROXY_PADDLECODEC_SITE`` names another directory that has it).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from codec_shared import PADDLECODEC, ROOT


def _need_ffmpeg():
    if shutil.which("ffmpeg") is None:
        pytest.skip("ffmpeg is not installed (apt-get install -y ffmpeg libavcodec-dev ...): "
                    "the TorchCodec tests generate and decode videos with it")


@pytest.fixture(scope="session")
def ffmpeg():
    _need_ffmpeg()
    return shutil.which("ffmpeg")


@pytest.fixture(scope="session")
def paddlecodec_site():
    """A directory with paddlecodec's ``torchcodec`` package (installed here on first use)."""
    site = os.environ.get("TORCHPROXY_PADDLECODEC_SITE") or os.path.join(
        ROOT, "build", "paddlecodec-0.2.0")
    if not os.path.isfile(os.path.join(site, "torchcodec", "__init__.py")):
        proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                               "--target", site, PADDLECODEC], capture_output=True, text=True)
        assert proc.returncode == 0, f"pip install {PADDLECODEC} failed:\n{proc.stderr[-3000:]}"
    return site


@pytest.fixture(scope="session")
def video_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("torchcodec-videos"))
