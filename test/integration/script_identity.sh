#!/usr/bin/env bash
# A renamed copy of a failing script keeps the script's history (issue 48, class 1), on a real slurmctld: an
# ordinary user's script fails three times as 'attempt'; `jfp ingest` joins each job's script fingerprint
# from the plugin's feature log; the same script with other comments and spacing, submitted as
# 'totally_new', is refused on those failures ("your last 3 runs of this script failed"), and another
# script under a new name is a first run. The model is hand-written (message_model.py: un_streak >= 2.5
# adds 2.0, a first run 0.5), so the scores are the same on every release.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
"$TESTCLUSTER" users

W=$(mktemp -d /tmp/jfp-ident.XXXXXX)
chmod 755 "$W"
CLEANUP_HOOK='[ -n "${JFP_KEEP_CLUSTER:-}" ] || rm -rf "$W"'
trap 'eval "$CLEANUP_HOOK"' EXIT

handwritten_model "$W"
# The store starts with one unrelated job, so the plugin has a history to load and reload.
seed_store "$W"

mkdir -p "$W/in"
printf '#!/bin/bash\n#SBATCH -t 5\n# reads the input\nINPUT=/nonexistent/input.h5\ncat "$INPUT" > /dev/null\nexit 2\n' >"$W/in/broken.sh"
# The copy: other comments and directives, other spacing, the same commands.
printf '#!/bin/sh\n#SBATCH -t 10\n\n   INPUT=/nonexistent/input.h5   # same input\ncat  "$INPUT"  > /dev/null\n\nexit 2\n' >"$W/in/copy.sh"
printf '#!/bin/bash\necho fine\n' >"$W/in/other.sh"
chmod 644 "$W/in"/*

site_to_slurm_user
base="model = $W/model.json
store = $W/history.db
feature_log = $W/features.db
reload_interval = 0.3
reject_below_target = yes"
export JFP_CONF="$base
mode = annotate"
cluster_start
wait_log "loaded history of"
wait_log "loaded model handwritten-messages"

# as_usera OUT ERR ARGS...: jfp-usera's sbatch; its stdout and stderr in files; its status.
as_usera() {
    local out=$1 err=$2
    shift 2
    (cd /tmp && runuser -u jfp-usera -- sbatch -o /dev/null "$@") >"$out" 2>"$err"
}
job_id_in() { sed -n 's/^Submitted batch job //p' "$1"; }

# ---- three real failures of broken.sh as 'attempt'
ids=()
for i in 1 2 3; do
    as_usera "$W/out" "$W/err" -J attempt "$W/in/broken.sh" || fail "attempt $i was refused in annotate mode: $(cat "$W/err")"
    ids+=("$(job_id_in "$W/out")")
done
for id in "${ids[@]}"; do expect_eq "$(wait_job "$id" 120)" FAILED "attempt $id"; done
wait_accounting_complete
# The plugin logged each submission's fingerprint; ingest joins it by the job's token.
wait_until 30 "the feature log lacks the attempts' fingerprints" \
    '[ "$(sql_read "$W/features.db" "SELECT count(*) FROM scored WHERE name = '"'attempt'"' AND script_fp IS NOT NULL" 2>/dev/null || echo 0)" = 3 ]'
n=$(grep -c "applied .* changed jobs" "$CTLD_LOG" || true)
site_jfp ingest -q --from-sacct --db "$W/history.db" --feature-log "$W/features.db" --overlap 7200
expect_eq "$(sql_read "$W/history.db" "SELECT count(DISTINCT script_fp) FROM jobs WHERE name = 'attempt'")" 1 "one fingerprint for the three attempts"
expect_eq "$(sql_read "$W/history.db" "SELECT count(*) FROM jobs WHERE name = 'attempt' AND script_fp IS NOT NULL")" 3 "the attempts' fingerprints in the store"
wait_until 30 "the plugin did not apply the ingested jobs" '[ "$(grep -c "applied .* changed jobs" "$CTLD_LOG" || true)" -gt "$n" ]'

set_conf "$base
mode = reject
threshold = 0.7"

# ---- the copy under a new name: refused on the script's history
if as_usera "$W/out" "$W/err" -J totally_new "$W/in/copy.sh"; then
    fail "the renamed copy of a failing script was accepted: $(cat "$W/out" "$W/err")"
fi
note "copy as totally_new: $(head -n1 "$W/err")"
expect_contains "$(cat "$W/err")" "your last 3 runs of this script failed" "the refusal says whose history"
expect_contains "$(cat "$W/err")" "-o JobID,JobName,State,ExitCode,End" "the sacct hint lists the day's jobs with their names"

# ---- another script under a new name: a first run (p 0.62 under 0.7)
as_usera "$W/out" "$W/err" -J brand_new "$W/in/other.sh" || fail "another script under a new name was refused: $(cat "$W/err")"
scancel -u jfp-usera
grep "internal fault" "$CTLD_LOG" >/dev/null && fail "the plugin reported an internal fault: $(grep 'internal fault' "$CTLD_LOG" | head -n1)"
note "a renamed copy of a failing script kept the script's history; another script under a new name did not"
