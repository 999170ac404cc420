#!/usr/bin/env bash
# Issue 48, class 9 (red team), class 1: renamed copies of a failing script that run the same commands but
# got a fingerprint of their own. All three are refused since 2026-11-30 (the ':' copy by
# model/script/script_normalizer.h: a null command goes where bash does not need it), and the script runs on
# every leg.
# Set-up as script_identity.sh (which this copies): jfp-usera's broken.sh fails three times as 'attempt',
# jfp ingest joins the fingerprints, reject mode at 0.7 with the hand-written model. Then each copy below,
# under a new name, must be refused on the script's history as script_identity.sh's respaced copy is:
#   glued:   'exit 2;#v2' for 'exit 2' (bash reads '#' after ';' as a comment)
#   noop:    a ':' line added
#   padded:  one comment line of 16 KiB first (the scanned head then holds no command: fingerprint 0)
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

# ---- control: the respaced copy is refused, as in script_identity.sh
if as_usera "$W/out" "$W/err" -J totally_new "$W/in/copy.sh"; then
    fail "control: the respaced copy was accepted: $(cat "$W/out" "$W/err")"
fi
note "control, respaced copy: $(head -n1 "$W/err")"

sed 's/^exit 2$/exit 2;#v2/' "$W/in/broken.sh" >"$W/in/glued.sh"
sed 's/^exit 2$/:\nexit 2/' "$W/in/broken.sh" >"$W/in/noop.sh"
{ printf '#!/bin/bash\n#'; head -c 16384 /dev/zero | tr '\0' x; printf '\n'; tail -n +2 "$W/in/broken.sh"; } >"$W/in/padded.sh"
chmod 644 "$W/in"/*
accepted=""
for v in glued noop padded; do
    if as_usera "$W/out" "$W/err" -J "fresh_$v" "$W/in/$v.sh"; then
        accepted+="$v "
        note "$v: accepted ($(cat "$W/out"))"
    else
        note "$v: $(head -n1 "$W/err")"
    fi
done
scancel -u jfp-usera
grep "job_submit/jfp: submit user=jfp-usera name='fresh_" "$CTLD_LOG" | sed 's/^.*submit user/submit user/' | while read -r l; do note "$l"; done
[ -z "$accepted" ] || fail "copies of the failing script accepted under a new name: $accepted"
