#!/usr/bin/env bash
# issue 19's bench check on a quiet host: this tree vs c99441d (the tree of the issue's figures),
# same bench scripts, alternating rounds
set -uo pipefail
bash gpu/run_host_cost.sh stage >/dev/null 2>&1
(cd /tmp/dw && for first in *.whl.part.00; do [ -e "$first" ] || continue; base=${first%.part.00}; cat "$base".part.* > "$base" && rm -f "$base".part.*; done)
[ -f /tmp/site/.installed ] || { python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site /tmp/dw/*.whl && touch /tmp/site/.installed; }
export PYTHONPATH=/tmp/site
python3 setup.py build_ext --inplace -q >/dev/null 2>&1
(cd .hc_c994 && python3 setup.py build_ext --inplace -q >/dev/null 2>&1)
for i in 1 2 3; do
  for tree in c99441d now; do
    d=.; [ $tree = c99441d ] && d=.hc_c994
    echo "== round $i tree $tree: bench/hook_import.py"; (cd $d && PYTHONPATH=/tmp/site:. timeout 120 python3 bench/hook_import.py 2>&1 | grep -v "^W1126")
    echo "== round $i tree $tree: bench/unscoped_paddle.py"; (cd $d && PYTHONPATH=/tmp/site:. timeout 200 python3 bench/unscoped_paddle.py 2>&1 | grep -v "^W1126\|ccache\|warnings.warn")
  done
done
