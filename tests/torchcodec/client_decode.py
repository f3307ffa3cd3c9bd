"""A TorchCodec client, unmodified torch-style code, run under torchproxy (in scope).

Run as ``python client_decode.py VIDEO OUT.npz [--audio] [VIDEO OUT.npz [--audio] ...]``
with paddlecodec on PYTHONPATH (one process decodes every video: each process pays Paddle's
import and the shim's load): it loads torchproxy's ABI shim for paddlecodec's libraries,
decodes each video with ``torchcodec.decoders.VideoDecoder`` (indexing, slicing,
get_frames_at, get_frames_in_range, seeking by time) and, with --audio, its audio with
``AudioDecoder``, and saves every result as numpy arrays, plus the type and dtype each call
returned, for the test to compare with FFmpeg's own decode.  A separate process: a crash in
native code is a failed test, never the test runner's death.  A video whose decode raises gets
its traceback in OUT.npz.error instead, the others are still decoded, and the exit status is 3.
"""
import sys
import traceback

import numpy as np

import torchproxy

torchproxy.enable(scope={"torchcodec", "__main__"})

import torchproxy.abi_shim  # noqa: E402

torchproxy.abi_shim.load_torchcodec()

import torch  # noqa: E402  (the facade: this module is in scope)
from torchcodec.decoders import AudioDecoder, VideoDecoder  # noqa: E402


def _np(t):
    return t.numpy()


def main(video, out, audio):
    res = {}
    dec = VideoDecoder(video)
    n = len(dec)
    res["len"] = np.array(n)
    res["num_frames"] = np.array(dec.metadata.num_frames)
    res["fps"] = np.array(dec.metadata.average_fps)
    first = dec[0]
    res["types"] = np.array([type(first).__module__ + "." + type(first).__name__,
                             str(first.dtype == torch.uint8),
                             str(isinstance(first, torch.Tensor))])
    res["index_0"] = _np(first)
    res["index_last"] = _np(dec[-1])
    res["slice_all"] = _np(dec[:])
    res["slice_step"] = _np(dec[1:n:3])
    batch = dec.get_frames_at([n - 1, 0, 5, 5])
    res["frames_at"] = _np(batch.data)
    res["frames_at_pts"] = _np(batch.pts_seconds)
    rng = dec.get_frames_in_range(2, n, 4)
    res["in_range"] = _np(rng.data)
    # seeking by time: frame i is shown during [i/fps, (i+1)/fps)
    fps = dec.metadata.average_fps
    frame = dec.get_frame_played_at(7.5 / fps)
    res["played_at"] = _np(frame.data)
    res["played_at_pts"] = np.array(frame.pts_seconds)
    back = dec.get_frame_played_at(1.2 / fps)  # seeking backwards after a forward seek
    res["played_back"] = _np(back.data)
    played = dec.get_frames_played_in_range(3 / fps, 9 / fps)
    res["played_range"] = _np(played.data)
    try:
        dec[n]
    except Exception as e:  # noqa: BLE001  (the test checks the type and message)
        res["oob_error"] = np.array([type(e).__name__, str(e)])
    # the decoded frames are Paddle tensors: torch ops of the facade run on them
    res["mean_f32"] = _np(dec[0:4].float().mean(dim=(2, 3)))
    if audio:
        adec = AudioDecoder(video)
        samples = adec.get_all_samples()
        res["audio"] = _np(samples.data)
        res["audio_rate"] = np.array(samples.sample_rate)
        res["audio_part"] = _np(adec.get_samples_played_in_range(0.5, 1.0).data)
    np.savez(out, **res)


def jobs(args):
    """(video, out, audio) per ``VIDEO OUT [--audio]`` group of the command line."""
    out = []
    for a in args:
        if a == "--audio":
            out[-1][2] = True
        elif out and out[-1][1] is None:
            out[-1][1] = a
        else:
            out.append([a, None, False])
    if not out or out[-1][1] is None:
        sys.exit("usage: client_decode.py VIDEO OUT.npz [--audio] [VIDEO OUT.npz [--audio] ...]")
    return out


if __name__ == "__main__":
    failed = False
    for video, out, audio in jobs(sys.argv[1:]):
        try:
            main(video, out, audio)
        except Exception:  # noqa: BLE001  (that video's test reports it; the others go on)
            failed = True
            with open(out + ".error", "w") as f:
                f.write(traceback.format_exc())
    sys.exit(3 if failed else 0)
