#!/usr/bin/env bash
# Shell patterns that made tests fail without a cause (docs/testing.md, "Flakes"):
#   - `CMD | grep -q PATTERN` under `set -o pipefail`: grep -q exits at its first match, CMD then gets SIGPIPE
#     on its next write, and the pipeline fails although the pattern was there (plugin_abi.sh's
#     "slurm_xfree should be left undefined" failure, issue 35). Search a variable (`grep -q P <<<"$v"`), or
#     let grep read everything (`CMD | grep P >/dev/null`).
# Checked in every shell script of the tests, the benchmarks and scripts/.
set -euo pipefail
: "${JFP_SRCDIR:?run through make check (JFP_SRCDIR unset)}"
cd "$JFP_SRCDIR"
files=$( { find test bench scripts -type f \( -name '*.sh' -o -path 'scripts/*' -o -name testcluster -o -name 'make-sacct-fixture' \);
          } | sort -u)
hits=""
for f in $files; do
    head -c 200 "$f" | grep -a '^#!.*\(ba\)\?sh' >/dev/null || continue
    h=$(grep -nE '\|[[:space:]]*grep[[:space:]]+(-[a-zA-Z]*q|--quiet)' "$f" | grep -v '^[0-9]*:[[:space:]]*#' || true)
    [ -z "$h" ] || hits="$hits$(sed "s|^|$f:|" <<<"$h")"$'\n'
done
if [ -n "$hits" ]; then
    echo "shell_pipes: an early-exiting grep -q ends a pipe; under pipefail that fails when grep exits first (search a variable, or drop -q and >/dev/null):" >&2
    printf '%s' "$hits" >&2
    exit 1
fi
echo "shell_pipes: no early-exiting grep -q at the end of a pipe in $(wc -w <<<"$files") scripts"
