#!/usr/bin/env bash
# Build .hc_base/ (ignored): this checkout's torchproxy/ as it is now (helpers' work in progress
# included, so that before and after differ by issue 26's changes only), with the torchproxy/
# part of the given commits reversed, plus what building the C dispatcher needs.
#   bash gpu/make_host_cost_baseline.sh <commit> [<commit>...]     (from the project root)
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 COMMIT..." >&2; exit 2; }
excl=$(git rev-parse --git-path info/exclude)
grep -qxF "/.hc_base/" "$excl" 2>/dev/null || echo "/.hc_base/" >> "$excl"
rm -rf .hc_base && mkdir -p .hc_base
git ls-files -co --exclude-standard -- torchproxy setup.py pyproject.toml \
  | grep -v '\.so$' | tar -cf - -T - | tar -xf - -C .hc_base
# newest first, so each reversal meets the text its commit left
for c in $(printf '%s\n' "$@" | tac); do
  git show --format= "$c" -- torchproxy/ | patch -R -p1 -s -d .hc_base
done
echo "$(git rev-parse --short HEAD) working tree, with torchproxy/ of $* reversed" > .hc_base/BASELINE
du -sh .hc_base; cat .hc_base/BASELINE
