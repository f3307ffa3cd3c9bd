"""What the TorchCodec tests share: the videos FFmpeg generates for them (``testsrc``, and
``sine`` for audio; into a temporary directory: nothing third-party is committed) and where
paddlecodec comes from.  A uniquely named module: every test folder has its own conftest.py
(the fixtures are there).
"""
from __future__ import annotations

import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PADDLECODEC = "paddlecodec==0.2.0"
WIDTH, HEIGHT, FPS, SECONDS = 64, 48, 10, 2

#: name -> (file name, ffmpeg output options); every one decodes on FFmpeg 4..8's CPU decoders
VIDEOS = {
    "h264_yuv420p": ("h264.mp4", ["-c:v", "libx264", "-pix_fmt", "yuv420p"]),
    "h264_yuv444p": ("h264_444.mp4", ["-c:v", "libx264", "-pix_fmt", "yuv444p"]),
    "mpeg4": ("mpeg4.avi", ["-c:v", "mpeg4", "-q:v", "3"]),
    "vp9_yuv420p": ("vp9.webm", ["-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p"]),
    "mjpeg_yuvj422p": ("mjpeg.mkv", ["-c:v", "mjpeg", "-pix_fmt", "yuvj422p"]),
}
#: a video with a FLAC audio track (lossless: the decoded samples are exact)
AUDIO_VIDEO = ("av.mkv", ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "flac"])
SAMPLE_RATE = 16000


def generate(ffmpeg, directory, name, options, audio=False):
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        cmd = [ffmpeg, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
               f"testsrc=size={WIDTH}x{HEIGHT}:rate={FPS}:duration={SECONDS}"]
        if audio:
            cmd += ["-f", "lavfi", "-i",
                    f"sine=frequency=440:sample_rate={SAMPLE_RATE}:duration={SECONDS}"]
        subprocess.run(cmd + options + ["-shortest", path], check=True)
    return path
