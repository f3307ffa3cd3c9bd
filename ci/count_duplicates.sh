#!/bin/sh
# Counts the `duplicates` pairs (repeated runs of 6+ lines, same text or same shape) whose BOTH
# sides lie in the package or the matrix runner: torchproxy/ and compat_matrix/.  Issue 21's aim
# is at most 28 such pairs; tests/, bench/ and gpu/ are not counted (tests repeat snippets so
# that each reads on its own).  Prints the count, then the rows.  It needs the `duplicates`
# command on the PATH (a tool of the developers' workplace, not a pip package); it reads the
# working tree as it is:
#     sh ci/count_duplicates.sh
set -eu
cd "$(dirname "$0")/.."
command -v duplicates >/dev/null 2>&1 || {
    echo "ci/count_duplicates.sh needs the duplicates command on the PATH; it is not here" >&2
    exit 2
}
all=$(duplicates --most 200 --seconds 300)
rows=$(printf '%s\n' "$all" \
    | grep -E '^D[0-9]+ (torchproxy|compat_matrix)/[^ ]+ ~ (torchproxy|compat_matrix)/' || true)
if [ -n "$rows" ]; then n=$(printf '%s\n' "$rows" | wc -l); else n=0; fi
echo "pairs inside torchproxy/ and compat_matrix/: $n"
echo "(whole tree: $(printf '%s\n' "$all" | head -1))"
if [ -n "$rows" ]; then printf '%s\n' "$rows"; fi
printf '%s\n' "$all" | grep -E '^(left out|incomplete):' || true
