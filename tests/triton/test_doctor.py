"""`torchproxy doctor` on this (CPU) machine, and its architecture logic with given inputs."""
from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys

import pytest

from torchproxy.commands import doctor

paddle = pytest.importorskip("paddle")


def _run(*args, env_extra=None):
    import os
    env = dict(os.environ, **(env_extra or {}))
    proc = subprocess.run([sys.executable, "-m", "torchproxy", "doctor", *args],
                          capture_output=True, text=True, timeout=120, env=env)
    return proc


def test_json_report_matches_this_machine():
    proc = _run("--json", env_extra={"TRITON_INTERPRET": "1"})
    report = json.loads(proc.stdout)
    assert report["paddle"]["version"] == paddle.__version__
    assert report["paddle"]["build"] == ("CUDA" if paddle.is_compiled_with_cuda() else "CPU")
    has_gpu = paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0
    assert report["gpu"]["present"] == has_gpu
    import triton
    assert report["triton"]["version"] == triton.__version__
    assert report["triton"]["interpreter"] is True
    assert report["torch"]["installed"] is True
    assert report["torch"]["version"] == importlib.metadata.version("torch")
    assert proc.returncode == (1 if report["problems"] else 0)


def test_text_report_names_interpreter_off():
    proc = _run(env_extra={"TRITON_INTERPRET": "0"})
    assert f"Paddle       {paddle.__version__}" in proc.stdout
    assert "interpreter off" in proc.stdout


@pytest.mark.parametrize("cap,archs,expected", [
    ((9, 0), [61, 70, 75, 80, 86], False),           # paddlepaddle-gpu 2.6.2 on an H100/H200
    ((8, 6), [61, 70, 75, 80, 86], True),
    ((9, 0), ["sm_80", "sm_90"], True),
    ((8, 9), ["sm_80", "compute_80"], True),           # PTX of the same major: driver JIT
    ((9, 0), ["sm_80", "compute_80"], False),          # PTX of an older major does not count
    ((9, 0), None, None),                              # Paddle 2.6 does not record its archs
])
def test_arch_in_build(cap, archs, expected):
    assert doctor.arch_in_build(cap, archs) is expected


def test_problem_text_when_gpu_kernels_do_nothing(monkeypatch):
    """The sm_90 situation, reported as a problem (exit 1), not discovered as zeros."""
    monkeypatch.setattr(paddle, "is_compiled_with_cuda", lambda: True)
    monkeypatch.setattr(paddle.device.cuda, "device_count", lambda: 1)

    class Props:
        name, major, minor = "NVIDIA H200", 9, 0

    monkeypatch.setattr(paddle.device.cuda, "get_device_properties", lambda i: Props)
    monkeypatch.setattr(doctor, "gpu_op_works",
                        lambda device=0: (False, "x * 3 on the GPU gave [0.0, 0.0, 0.0] instead "
                                                 "of [3, 6, 9]"))
    report = doctor.collect()
    assert report["gpu"]["arch"] == "sm_90" and report["gpu"]["paddle_kernels_work"] is False
    assert any("do not run on this sm_90 GPU" in p for p in report["problems"])
    text = doctor._fmt(report)
    assert "Paddle GPU kernels: DO NOT WORK" in text and "PROBLEM:" in text
