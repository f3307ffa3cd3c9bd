"""Whole programs, unmodified, under the facade in global mode vs real torch (whole_programs.py):
nanoGPT model.py (its configure_optimizers AdamW, clip_grad_norm_, generate; and as train.py
runs it from torch.manual_seed alone, dropout and sampling included), minGPT's Trainer,
efficientnet-pytorch, pytorch-tcn and pytorch/examples (word_language_model's LSTM, GRU and
Transformer, time_sequence_prediction's LBFGS, gat, mnist, vae, dcgan, super_resolution,
fast_neural_style's TransformerNet, mnist_rnn, regression: wp_examples.py); same weights and
data, each side's own random draws (dropout, noise, shuffles: the facade's CPU numbers are
torch's), Paddle's default flags, each side in its own heap-checked process.  A crash of either
child is a failure naming the signal."""
from __future__ import annotations

import pytest

import whole_programs as wp

pytest.importorskip("torch")
pytest.importorskip("paddle")


@pytest.mark.parametrize("program", wp.PROGRAMS)
def test_whole_program_matches_real_torch(program, request):
    import paddle
    try:
        wp.source_dir(program)
    except wp.cs.SourcesMissing as e:
        pytest.skip(str(e))
    known = wp.KNOWN_FAILURES.get((program, paddle.__version__.split(".")[0]))
    if known:
        request.applymarker(pytest.mark.xfail(reason=known, strict=True,
                                              raises=(wp.ChildFailed, AssertionError)))
    report = wp.compare_cached(program)  # raises wp.ChildFailed (with signal and stderr) on a crash
    bad = wp.failures(report)
    assert not bad, (f"{program}: {'; '.join(bad)}\nreal torch {report['torch_losses']}\n"
                     f"facade     {report['facade_losses']}")
