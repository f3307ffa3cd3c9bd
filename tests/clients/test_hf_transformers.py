"""Hugging Face transformers (pinned, installed by ./dev), unmodified, under the facade in global
mode vs real torch (hf_transformers.py): tiny GPT-2 and Llama, forward/loss/gradients, 5 AdamW
steps, greedy generate, save_pretrained (safetensors) read back; each side in its own
heap-checked process.  A crash of either child is a failure naming the signal."""
from __future__ import annotations

import pytest

import hf_transformers as hf

pytest.importorskip("torch")
pytest.importorskip("paddle")
transformers = pytest.importorskip("transformers")
if transformers.__version__ != hf.VERSION:
    pytest.skip(f"transformers {transformers.__version__} installed; the test pins {hf.VERSION} "
                "(./dev setup installs it)", allow_module_level=True)


def _facade_has(name: str) -> bool:
    from torchproxy.facade import registry
    return name in registry.load_table()


# model -> (torch name its forward needs, why it is missing); strict: the test fails once the
# name lands, so this entry is removed then (llama's torch.autocast landed: empty)
NEEDS: dict = {}


@pytest.mark.parametrize("model", hf.MODELS)
def test_tiny_model_matches_real_torch(model, request):
    need = NEEDS.get(model)
    if need and not _facade_has(need[0]):
        request.applymarker(pytest.mark.xfail(reason=need[1], strict=True,
                                              raises=hf.wp.ChildFailed))
    rep = hf.compare_cached(model)
    bad = hf.failures(rep)
    assert not bad, f"{model}: {'; '.join(bad)}"


@pytest.mark.parametrize("model", hf.MODELS)
def test_from_pretrained_matches_real_torch(model, request):
    need = NEEDS.get(model)
    # from_pretrained builds the model on torch's meta device (init_empty_weights,
    # torch.empty(..., device="meta"), load_state_dict(assign=True)): the facade's meta tensors
    # (paddle_shims.meta_tensor; tests/facade/test_meta_device.py)
    if need and not _facade_has(need[0]):
        request.applymarker(pytest.mark.xfail(reason=need[1], strict=True,
                                              raises=hf.wp.ChildFailed))
    rep = hf.compare_cached(model)
    bad = hf.from_pretrained_failures(rep)
    assert not bad, f"{model}: {'; '.join(bad)}"


def test_scan_missing_names_are_none_the_models_reach():
    """``torchproxy scan`` over issue 25's transformers files (hf_scan.py): every missing name
    is one hf_scan.NOT_REACHED explains (the models never touch it: the tiny-model runs above
    trace the facade and fail on any missing name touched), and every entry there is still
    missing (a name the facade gained leaves the list)."""
    import hf_scan
    missing = hf_scan.missing_names(hf_scan.report())
    assert set(missing) == set(hf_scan.NOT_REACHED), (
        f"not explained: {sorted(set(missing) - set(hf_scan.NOT_REACHED))}; no longer "
        f"missing: {sorted(set(hf_scan.NOT_REACHED) - set(missing))}")
