#!/usr/bin/env bash
# Bad input to the CLI: each case a clear error (what was wrong, what to do) and a non-zero exit, and a bad
# file among good ones loses none of the good files' rows.
set -euo pipefail
: "${JFP_BUILDDIR:?run through make check (JFP_BUILDDIR unset)}"
JFP="$JFP_BUILDDIR/tools/jfp"
W=$(mktemp -d /tmp/jfp-badcli.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"

fail() { echo "FAIL: $*" >&2; exit 1; }

# refused WHAT EXPECTED-TEXT CMD...: CMD exits non-zero, prints EXPECTED-TEXT on stderr, nothing on stdout
# that claims success, and takes less than 30 s.
refused() {
    local what=$1 expect=$2 rc=0
    shift 2
    timeout 30 "$@" >out.txt 2>err.txt || rc=$?
    [ "$rc" -ne 0 ] || fail "$what: exit status 0 (stdout: $(head -c 300 out.txt))"
    [ "$rc" -ne 124 ] || fail "$what: still running after 30 s"
    grep -qF -- "$expect" err.txt || fail "$what: expected '$expect' on stderr, got: $(head -c 600 err.txt)"
    grep -q "holds [0-9]* job" out.txt && fail "$what: reported an ingest: $(cat out.txt)"
    # Error text goes to a terminal: no raw control characters (tab and newline aside) and valid UTF-8.
    LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' err.txt && fail "$what: raw control characters in the message"
    iconv -f UTF-8 -t UTF-8 err.txt >/dev/null 2>&1 || fail "$what: the message is not valid UTF-8"
    echo "ok: $what (exit $rc): $(head -n1 err.txt | cut -c1-160)"
}

"$JFP" synth --jobs 2000 --seed 3 -q -o good.txt
lines=$(wc -l <good.txt)
half=$((lines / 2))
{ head -n1 good.txt; sed -n "2,${half}p" good.txt; } >first.txt
{ head -n1 good.txt; sed -n "$((half + 1)),\$p" good.txt; } >second.txt
: >empty.txt
# A byte that is no blank first: the reader passes over blank lines before a header, and random bytes
# starting with a newline (1 in 256) made the message name line 2.
{ printf '\001'; head -c 65535 /dev/urandom; } >garbage.bin
head -c 100000000 /dev/zero | tr '\0' x >long.txt            # a 100 MB single line, no newline
tail -n +2 good.txt >headerless.txt
mkdir adir

"$JFP" ingest --trusted-export -q --db store.db first.txt
count() { sqlite3 "$1" "SELECT count(*) FROM jobs"; }
before=$(count store.db)

refused "empty file" "empty.txt is empty" "$JFP" ingest --trusted-export --db store.db empty.txt
refused "empty stdin" "<stdin> is empty" "$JFP" ingest --trusted-export --db store.db - <empty.txt
refused "empty SWF file" "empty.txt is empty" "$JFP" ingest --trusted-export --db store.db --format swf empty.txt
refused "binary garbage" "garbage.bin:1: the first line is not a sacct header" "$JFP" ingest --trusted-export --db store.db garbage.bin
refused "binary garbage as SWF" "garbage.bin" "$JFP" ingest --trusted-export --db store.db --format swf garbage.bin
refused "100 MB single line" "long.txt:1: the first line is not a sacct header" "$JFP" ingest --trusted-export --db store.db long.txt
refused "headerless export without --format" "give the columns with jfp ingest --format=" "$JFP" ingest --trusted-export --db store.db headerless.txt
refused "a directory" "adir is a directory, not an export" "$JFP" ingest --trusted-export --db store.db adir
refused "a missing path" "cannot open missing.txt: No such file or directory" "$JFP" ingest --trusted-export --db store.db missing.txt
# A '|' export with a column users write (JobName here) is refused without --trusted-export: a name holding
# newlines and '|' can read as other users' jobs. The message says how to export safely; nothing is stored.
refused "a '|' export with JobName, untrusted" "column JobName is text users write" "$JFP" ingest --db store.db first.txt
"$JFP" ingest --db store.db first.txt 2>err.txt || true
grep -qF 'sacct --parsable2 --delimiter="$d"' err.txt || fail "the refusal does not say how to export safely: $(cat err.txt)"
grep -qF -- '--trusted-export' err.txt || fail "the refusal does not name --trusted-export: $(cat err.txt)"
[ "$(count store.db)" = "$before" ] || fail "refused inputs changed the store ($before jobs, now $(count store.db))"
# An empty metrics file (made before the plugin's first write, for node_exporter's link) is not a plugin with
# no model and no history: status says it has not been written yet, and exits non-zero.
refused "an empty metrics file" "the plugin has not written this metrics file yet" "$JFP" status --metrics empty.txt
# The same rows under a delimiter no user can type are read without the flag, and as the '|' export reads.
d="|$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')|"
awk -v d="$d" '{ gsub(/\|/, d); print }' first.txt >nonce.txt
"$JFP" ingest -q --db nonce.db --delimiter="$d" nonce.txt || fail "a random-delimiter export was refused"
[ "$(count nonce.db)" = "$(count store.db)" ] || fail "the random-delimiter export read $(count nonce.db) jobs, the '|' one $(count store.db)"

# A bad file between two good ones: both good files' rows are stored, the run exits non-zero and says which.
rc=0
"$JFP" ingest --trusted-export --db multi.db first.txt garbage.bin second.txt >out.txt 2>err.txt || rc=$?
[ "$rc" = 1 ] || fail "multi-file ingest with a bad file: exit $rc, expected 1"
grep -qF "1 of 3 files failed (garbage.bin); the other files' rows are stored" err.txt || fail "multi-file: $(cat err.txt)"
"$JFP" ingest --trusted-export -q --db whole.db good.txt
[ "$(count multi.db)" = "$(count whole.db)" ] || fail "multi-file: $(count multi.db) jobs stored, the good files hold $(count whole.db)"
[ "$(count whole.db)" -gt 1000 ] || fail "the synthetic export holds only $(count whole.db) jobs"
echo "ok: a bad file between two good ones: all $(count multi.db) jobs of the good files stored, exit 1"

# An SWF log given as a sacct export is recognised; a store that is not there is said to be missing.
{ zcat "$JFP_SRCDIR/test/data/CTC-SP2-1996-3.1-cln.swf.gz" || true; } | head -n 300 >ctc.swf  # zcat dies of SIGPIPE
refused "an SWF log without --format swf" "opens a Standard Workload Format log (Parallel Workloads Archive), not a sacct export; ingest it with jfp ingest --format swf" "$JFP" ingest --trusted-export --db swf.db ctc.swf
refused "a store that does not exist" "cannot open $W/nothing.db: no such file" "$JFP" train --db "$W/nothing.db" --out m.json

# A command line jfp cannot parse: exit 64 (EX_USAGE), apart from the codes of errors and alerts.
for args in "ingest --no-such-option" "ingest --db" "monitor --max-psi not-a-number --db x"; do
    rc=0
    # shellcheck disable=SC2086
    "$JFP" $args >out.txt 2>err.txt || rc=$?
    [ "$rc" = 64 ] || fail "jfp $args: exit $rc, expected 64 (a usage error): $(head -c 300 err.txt)"
done
"$JFP" ingest --help >out.txt || fail "jfp ingest --help failed"
echo "ok: usage errors exit 64, --help 0"

# --help reads on a 100-column terminal: no CLI11 markup, no line past 100 columns but one holding a word
# that cannot be broken (sacct's --format list).
"$JFP" --help >help.txt
for c in $(sed -n '/^Subcommands:/,$p' help.txt | awk '/^  [a-z]/ { print $1 }'); do
    "$JFP" "$c" --help >>help.txt || fail "jfp $c --help failed"
done
grep -n '{false}\|{true}\|[A-Z]:[A-Z]*[A-Z] in \[' help.txt && fail "CLI11 markup in --help (above)"
awk 'length > 100 { long = 0; for (i = 1; i <= NF; i++) if (length($i) > 60) long = 1; if (!long) { print; bad = 1 } } END { exit bad }' help.txt ||
    fail "--help lines past 100 columns (above)"
# The same layout on every CLI11 release (2.6 writes "OPTIONS:" and a usage line without "Usage:"): one usage
# line per command, and the headings jfp's formatter gives.
commands=$("$JFP" --help | sed -n '/^Subcommands:/,$p' | awk '/^  [a-z]/ { print $1 }' | wc -l)
[ "$commands" -ge 15 ] || fail "jfp --help lists $commands subcommands (expected every command): $(head -c 600 help.txt)"
[ "$(grep -c '^Usage: ' help.txt)" = $((commands + 1)) ] || fail "not one 'Usage:' line per command: $(grep -c '^Usage: ' help.txt) for $((commands + 1))"
grep -n '^[A-Z][A-Z]*:$\| $' help.txt && fail "capitalised headings or trailing spaces in --help (above)"
echo "ok: --help of $commands commands within 100 columns, no CLI11 markup"

# A store written by a newer jfp: every command refuses it and says to upgrade.
cp store.db newer.db
sqlite3 newer.db "PRAGMA user_version = 99"
refused "store from a newer schema (ingest)" "written by a newer jfp (store schema 99" "$JFP" ingest --trusted-export --db newer.db first.txt
refused "store from a newer schema (train)" "written by a newer jfp (store schema 99" "$JFP" train --db newer.db --out m.json
[ "$(sqlite3 newer.db 'PRAGMA user_version')" = 99 ] || fail "the newer store was rewritten"

# jfp prune: ages it cannot read, an age that would blind the history features, a store that is not there.
# None of them deletes anything.
jobs_before=$(count whole.db)
refused "prune, an age it cannot read" "--older-than 9x: expected 90d, 12w, 36h" "$JFP" prune store --db whole.db --older-than 9x
refused "prune, an age under 30 days" "would keep less than 30 days of history" "$JFP" prune store --db whole.db --older-than 10d
refused "prune feature-log, an age under 30 days" "would remove rows of jobs scored in the last 30 days" "$JFP" prune feature-log --feature-log whole.db --older-than 7d
refused "prune, no store there" "no history store at missing.db: nothing to prune" "$JFP" prune store --db missing.db --older-than 90d
[ ! -e missing.db ] || fail "jfp prune store created missing.db"
[ "$(count whole.db)" = "$jobs_before" ] || fail "a refused prune removed jobs"
# A dry run of a short age only counts: no --force needed, nothing removed.
"$JFP" prune store --db whole.db --older-than 10d --dry-run >out.txt 2>err.txt || fail "a dry run of 10d was refused: $(cat err.txt)"
grep -q "would remove" out.txt || fail "the dry run did not count: $(cat out.txt)"
[ "$(count whole.db)" = "$jobs_before" ] || fail "a dry run removed jobs"
refused "simulate --top 0" "--top: Value 0 not in range" "$JFP" simulate --db whole.db --after 2024-01-01 --top 0
grep -q "1000000" err.txt || fail "simulate --top 0: the message does not give the range: $(cat err.txt)"  # CLI11's wording varies

# A model of another feature schema: predict and eval refuse it, naming the difference.
"$JFP" train --db whole.db --out model.json --rounds 5 --nthread 2 --no-progress >/dev/null
after=$(sqlite3 whole.db "SELECT datetime(min(submit) + (max(submit) - min(submit)) * 0.7, 'unixepoch') FROM jobs" | tr ' ' T)
/usr/bin/python3 - <<'PY'
import json
b = json.load(open("model.json"))
b["feature_schema"]["names"][3] = "some_other_feature"
json.dump(b, open("renamed.json", "w"))
b = json.load(open("model.json"))
b["feature_schema"]["version"] += 1
json.dump(b, open("newer_schema.json", "w"))
PY
refused "predict, a model with another feature" "but feature 3 is 'some_other_feature' in the bundle" \
    "$JFP" predict --db whole.db --model renamed.json --after "$after" --output p.csv
refused "eval, a model of a newer feature schema" "feature schema mismatch: the bundle was trained on schema" \
    "$JFP" eval --db whole.db --model newer_schema.json --after "$after"
refused "predict, binary garbage as the model" "garbage.bin" \
    "$JFP" predict --db whole.db --model garbage.bin --after "$after" --output p.csv
# The same model unchanged works: the refusals above were the schema, not the command line.
"$JFP" predict --db whole.db --model model.json --after "$after" --output p.csv 2>err.txt || fail "predict with a good model: $(cat err.txt)"
[ "$(wc -l <p.csv)" -gt 100 ] || fail "predict with a good model wrote $(wc -l <p.csv) lines"
echo "ok: the unchanged model predicts"
