#!/usr/bin/env bash
# Shell patterns that made tests fail without a cause (docs/testing.md, "Flakes"):
#   - `CMD | grep -q PATTERN` under `set -o pipefail`: grep -q exits at its first match, CMD then gets SIGPIPE
#     on its next write, and the pipeline fails although the pattern was there (plugin_abi.sh's
#     "slurm_xfree should be left undefined" failure, issue 35). Search a variable (`grep -q P <<<"$v"`), or
#     let grep read everything (`CMD | grep P >/dev/null`).
#   - a bare `sqlite3 DB "SELECT ..."` in an integration test: on a store the plugin or a writer thread is
#     writing it fails with "database is locked" and reads as an empty answer (units_run.sh), and as root it
#     can leave root-owned -wal/-shm files beside SlurmUser's store. Use lib.sh's sql_read.
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
# Shell lines (not comments, not Python's sqlite3 module) that run the sqlite3 shell on a SELECT.
reads=$(grep -nE '(^|[^.[:alnum:]_])sqlite3[[:space:]][^|]*SELECT' test/integration/*.sh |
        grep -vE '^[^:]*:[0-9]+:[[:space:]]*#|:memory:|sql_read\(\)' || true)
if [ -n "$reads" ]; then
    echo "shell_pipes: a bare sqlite3 read in an integration test; use sql_read (lib.sh: read-only, waits out locks):" >&2
    printf '%s\n' "$reads" >&2
    exit 1
fi
echo "shell_pipes: no early-exiting grep -q at the end of a pipe in $(wc -w <<<"$files") scripts; every sqlite3 read in the integration tests through sql_read"
