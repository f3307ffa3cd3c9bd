"""facade.device.device_of_place on the place objects Paddle hands out.

A GPU run (gpu/nccl_check.sh on a lent 2x H100, Paddle GPU 2.6.2) found ``x.cuda()`` failing:
once the fast path had learnt the CUDA place type, a ``paddle.CUDAPlace`` (what ``.cuda()`` and
``to("cuda")`` build) reached ``gpu_device_id()``, which only the generic ``Place`` has; a
``CUDAPlace`` answers ``get_device_id()``.  CPU Paddle cannot construct a CUDAPlace, so the two
place shapes are stood in for by objects with exactly those methods.
"""
import pytest

pytest.importorskip("paddle")

from torchproxy.facade import device as dev  # noqa: E402


class _GenericCudaPlace:  # paddle.base.libpaddle.Place holding a GPU place
    def __init__(self, i):
        self.i = i

    def _type(self):
        return 12345

    def gpu_device_id(self):
        return self.i


class _CUDAPlace:  # paddle.CUDAPlace: get_device_id() only
    def __init__(self, i):
        self.i = i

    def _type(self):
        return 12345

    def get_device_id(self):
        return self.i


def test_a_cuda_place_and_a_generic_place_give_the_same_device(monkeypatch):
    monkeypatch.setitem(dev._KIND_OF_TYPE, 12345, "cuda")  # learnt, as after a first GPU tensor
    assert dev.device_of_place(_GenericCudaPlace(1)) == dev.device("cuda", 1)
    assert dev.device_of_place(_CUDAPlace(1)) == dev.device("cuda", 1)
    assert dev.device_of_place(_CUDAPlace(0)) == dev.device("cuda", 0)
