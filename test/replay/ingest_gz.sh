#!/usr/bin/env bash
# jfp ingest reads FILE.gz through gzip: the same jobs as the plain file; a truncated one stops with an
# error naming the file and keeps what was read before the damage.
set -euo pipefail
: "${JFP_BUILDDIR:?run through make check (JFP_BUILDDIR unset)}"
JFP="$JFP_BUILDDIR/tools/jfp"
W=$(mktemp -d /tmp/jfp-gz.XXXXXX)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$JFP" synth --jobs 3000 --seed 4 -q -o "$W/s.txt"
gzip -c "$W/s.txt" >"$W/s.txt.gz"
"$JFP" ingest --trusted-export -q --db "$W/plain.db" "$W/s.txt"
"$JFP" ingest --trusted-export -q --db "$W/gz.db" "$W/s.txt.gz"
a=$(sqlite3 "$W/plain.db" "SELECT count(*), sum(outcome), sum(submit) FROM jobs")
b=$(sqlite3 "$W/gz.db" "SELECT count(*), sum(outcome), sum(submit) FROM jobs")
[ "$a" = "$b" ] || fail "the .gz ingest differs from the plain one: $b vs $a"

size=$(stat -c %s "$W/s.txt.gz")
head -c $((size / 2)) "$W/s.txt.gz" >"$W/cut.txt.gz"
rc=0
"$JFP" ingest --trusted-export -q --db "$W/cut.db" "$W/cut.txt.gz" 2>"$W/err" || rc=$?
[ "$rc" = 1 ] || fail "a truncated .gz must fail with status 1, got $rc"
grep -q "gzip -dc $W/cut.txt.gz exited with status 1: .*; the file is damaged or truncated; what was read before the damage is stored" "$W/err" ||
    fail "unclear error: $(cat "$W/err")"
kept=$(sqlite3 "$W/cut.db" "SELECT count(*) FROM jobs")
[ "$kept" -gt 0 ] || fail "nothing was kept from the readable half"
echo "# .gz ingest: $(echo "$a" | cut -d'|' -f1) jobs as from the plain file; truncated: status 1, $kept jobs kept"
