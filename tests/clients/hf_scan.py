"""``torchproxy scan`` over the Hugging Face transformers files issue 25 names (the installed,
pinned release), as one report, and which of its missing names the two tiny models
(hf_transformers.py: GPT-2 and Llama forward/backward/AdamW/generate, padded batches, both
attention implementations, save/load) reach at run time: none may be.

    python tests/clients/hf_scan.py            # print the report
    python tests/clients/hf_scan.py --write    # docs/results/hf-transformers-scan.md

The files are copied (nothing imported) under one directory, keeping their paths inside the
transformers package, so one scan counts each torch name once.  NOT_REACHED holds each missing
name with why the models never touch it (tests/clients/test_hf_transformers.py fails when the
scan's missing names and NOT_REACHED differ either way).
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RESULTS = os.path.join(ROOT, "docs", "results", "hf-transformers-scan.md")
COMMAND = "python tests/clients/hf_scan.py --write"

# issue 25's list: transformers' core files and the two model packages
FILES = ("modeling_utils.py", "pytorch_utils.py", "modeling_outputs.py", "cache_utils.py",
         "masking_utils.py", "generation/utils.py", "utils/generic.py", "utils/import_utils.py",
         "integrations/sdpa_attention.py", "models/gpt2", "models/llama")

# missing name -> why the two models never reach it at run time (evidence: the call site)
NOT_REACHED = {
    "torch.musa": "import_utils.is_torch_musa_available() returns False before touching it "
                  "unless the torch_musa package is installed; real torch without that plug-in "
                  "has no torch.musa either (AttributeError on both)",
    "torch.npu": "import_utils.is_torch_npu_available(): only after find_spec('torch_npu'); "
                 "real torch without the plug-in has no torch.npu either",
    "torch.hpu": "import_utils.is_torch_hpu_available(): only after find_spec("
                 "'habana_frameworks'); hasattr(torch, 'hpu') is False on real torch's CPU "
                 "build too",
    "torch.mlu": "import_utils.is_torch_mlu_available(): only after find_spec('torch_mlu'); "
                 "real torch without the plug-in has no torch.mlu either",
    "torch.Tensor.storage": "pytorch_utils.id_tensor_storage calls .storage() only on a "
                            "DTensor (isinstance(x, DTensor) is False for every facade "
                            "tensor); other tensors go through storage_ptr/untyped_storage",
    "torch.Tensor.dequantize": "cache_utils' QuantoQuantizedLayer/HQQQuantizedLayer, made only "
                               "for a quantized KV cache (cache_implementation='quantized' with "
                               "optimum-quanto or hqq): their quantized tensors' own method",
    "torch.nn.Module.smart_apply": "not a torch name: transformers probes "
                                   "hasattr(torch.nn.Module, 'smart_apply') and then assigns "
                                   "its own smart_apply to the class (modeling_utils, "
                                   "initialize_weights), which works on the facade's Module",
}


def _transformers_dir() -> str:
    spec = importlib.util.find_spec("transformers")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("transformers is not installed")
    return list(spec.submodule_search_locations)[0]


def stage(dest: str) -> str:
    """Copy FILES under ``dest/transformers`` (their package paths kept); that directory."""
    src, out = _transformers_dir(), os.path.join(dest, "transformers")
    for rel in FILES:
        s, d = os.path.join(src, rel), os.path.join(out, rel)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        if os.path.isdir(s):
            shutil.copytree(s, d, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(s, d)
    return out


def report():
    """The scan Report of the staged files."""
    from torchproxy.scan import scan
    with tempfile.TemporaryDirectory(prefix="hf-scan-") as tmp:
        rep = scan(stage(tmp))
    rep.target = "transformers (issue 25's files)"
    return rep


def missing_names(rep) -> list[str]:
    from torchproxy.scan import MISSING
    return sorted({n.name for n in rep.names if n.status == MISSING} |
                  {a["name"] for a in rep.attributes})


def render_md(rep) -> str:
    import transformers
    from torchproxy.scan.text import render
    miss = missing_names(rep)
    rows = [f"| `{m}` | {NOT_REACHED.get(m, '**not classified: may be reached**')} |"
            for m in miss]
    text = render(rep, None).replace(rep.root, "transformers")
    return "\n".join([
        "# `torchproxy scan` over Hugging Face transformers' core files and models (issue 25)",
        "",
        f"Generated by `{COMMAND}` (transformers {transformers.__version__}); do not edit by "
        "hand.  Files: " + ", ".join(f"`{f}`" for f in FILES) + ", scanned as one tree.",
        "",
        f"**{len(miss)} missing names (and attributes the facade lacks); reached at run time "
        f"by the tiny GPT-2 / Llama runs (tests/clients/hf_transformers.py): "
        f"{sum(m not in NOT_REACHED for m in miss)}.**",
        "",
        "| missing | why the two models do not reach it |",
        "| --- | --- |",
        *rows,
        "",
        "## The scan's report",
        "",
        "```",
        text,
        "```",
        "",
    ])


def main(argv) -> int:
    rep = report()
    md = render_md(rep)
    if "--write" in argv:
        with open(RESULTS, "w") as f:
            f.write(md)
        print(f"wrote {RESULTS}")
    else:
        print(md)
    unclassified = [m for m in missing_names(rep) if m not in NOT_REACHED]
    if unclassified:
        print(f"missing names not in NOT_REACHED: {unclassified}", file=sys.stderr)
    return 1 if unclassified else 0


if __name__ == "__main__":
    sys.path.insert(0, ROOT)
    sys.exit(main(sys.argv[1:]))
