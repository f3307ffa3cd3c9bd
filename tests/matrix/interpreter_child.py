"""Run a module of Triton kernels in a fresh Python process under Triton's CPU interpreter
(TRITON_INTERPRET is read when Triton is imported, and torchproxy's interpreter fixes are
process-wide), for the tests of torchproxy/integrations/triton_interpreter*.py."""
import json
import os
import subprocess
import sys
import textwrap

from matrix_testpaths import ROOT


def run_kernels(tmp_path, name: str, source: str, fix: bool, after: str = "") -> dict:
    """Write ``source`` as module ``name`` under ``tmp_path`` and call its ``run_all()`` in a
    child process, with torchproxy's interpreter fixes installed first when ``fix``; ``after``
    (code run with the result dict as ``res``) may add entries.  -> {"installed": the fixes'
    {name: installed} or None, **res}."""
    code = textwrap.dedent(f'''
        import json, sys
        sys.path.insert(0, {ROOT!r})
        from torchproxy.integrations import triton_interpreter as ti
        installed = ti.ensure_fixes() if {fix!r} else None
        import {name} as k
        res = k.run_all()
    ''') + textwrap.dedent(after) + \
        '\nprint("RESULT" + json.dumps({"installed": installed, **res}))\n'
    (tmp_path / f"{name}.py").write_text(source)
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(tmp_path))
    env.pop("TORCHPROXY_INTERPRETER_FIX", None)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=300)
    line = [x for x in r.stdout.splitlines() if x.startswith("RESULT")]
    assert line, r.stdout[-2000:] + r.stderr[-3000:]
    return json.loads(line[0][6:])
