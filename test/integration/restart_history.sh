#!/usr/bin/env bash
# A restarted slurmctld scores its first job with the history. jfp ingest keeps the store's snapshot beside
# it (STORE.snapshot, refreshed from the last one plus the changes, by SlurmUser as a site runs it); the
# plugin starts from it and applies the changes since; slurmctld's start waits for that load (start_wait),
# so an ordinary user's first job after the restart is judged on their history, not as a stranger's.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
"$TESTCLUSTER" users
new_site
uid=$(id -u jfp-usera)
doomed_and_steady jfp-usera "$uid" jfp-usera 950000 >"$W/usera.txt"
"$JFP" ingest -q --db "$W/history.db" "$W/usera.txt"
[ -s "$W/history.db.snapshot" ] || fail "jfp ingest wrote no snapshot beside the store ($(ls "$W"))"
start_site_cluster "mode = annotate"
as_usera() { (cd /tmp && runuser -u jfp-usera -- sbatch --parsable --hold -o /dev/null "$@") | cut -d';' -f1; }
p_job() { p_of "$(comment_of "$1")"; }

d1=$(as_usera -J doomed --wrap true)
s1=$(as_usera -J steady --wrap true)
PD1=$(p_job "$d1") PS1=$(p_job "$s1")
awk -v a="$PD1" -v b="$PS1" 'BEGIN { exit !(a > b + 0.05) }' ||
    fail "jfp-usera's doomed ($PD1) should score clearly above steady ($PS1): the test needs history to matter"
note "before the restart: p(doomed)=$PD1 p(steady)=$PS1"

# SlurmUser's ingest of later jobs brings the snapshot up to date from the last one, not from a replay.
now=$(date +%s)
{
    echo "JobIDRaw|JobID|User|UID|Account|Partition|QOS|JobName|Submit|Start|End|State|ExitCode|ReqCPUS|ReqNodes|ReqMem|Timelimit"
    for i in 1 2 3; do
        t=$((now - 120 + i * 10))
        echo "$((960000 + i))|$((960000 + i))|jfp-usera|$uid|jfp-usera|debug|normal|later|$(date -d @$t +%FT%T)|$(date -d @$((t + 1)) +%FT%T)|$(date -d @$((t + 5)) +%FT%T)|COMPLETED|0:0|1|1|100M|00:10:00"
    done
} >"$W/later.txt"
chmod 644 "$W/later.txt"
out=$(site_jfp ingest --db "$W/history.db" "$W/later.txt" 2>&1)
expect_contains "$out" "history snapshot $W/history.db.snapshot written from the last one and 3 changed jobs" "SlurmUser's ingest"
owner=$(stat -c %U "$W/history.db.snapshot")
expect_eq "$owner" "$JFP_SLURM_USER" "the snapshot's owner"
wait_log "applied 3 changed jobs from $W/history.db" 30
# The reference for after the restart: the same history (the 3 later jobs included), scored by this slurmctld.
# submit_hour is a feature: keep the reference and the first job after the restart in the same hour.
while [ "$(date +%M)" = 59 ]; do sleep 5; done
d1b=$(as_usera -J doomed --wrap true)
PD1b=$(p_job "$d1b")
note "after the 3 later jobs, before the restart: p(doomed)=$PD1b"

mark=$(wc -l <"$CTLD_LOG")
"$TESTCLUSTER" stop-ctld "$CLUSTER_DIR"
"$TESTCLUSTER" start-ctld "$CLUSTER_DIR" >/dev/null
d2=$(as_usera -J doomed --wrap true)  # the first job the restarted slurmctld takes
s2=$(as_usera -J steady --wrap true)
PD2=$(p_job "$d2") PS2=$(p_job "$s2")
since=$(tail -n +"$((mark + 1))" "$CTLD_LOG")
loaded=$(printf '%s\n' "$since" | grep -m1 "loaded history of" || true)
note "after the restart: p(doomed)=$PD2 p(steady)=$PS2; $loaded"
expect_contains "$loaded" "its snapshot at change" "the restarted plugin's history load"
printf '%s\n' "$since" | grep "slurmctld's start waited [0-9]* ms for the history" >/dev/null ||
    fail "slurmctld's start did not wait for the history: $(printf '%s\n' "$since" | grep jfp | head -n 20)"
awk -v a="$PD2" -v b="$PS2" 'BEGIN { exit !(a > b + 0.05) }' ||
    fail "the first jobs after the restart were scored without history: doomed $PD2, steady $PS2 (before: $PD1, $PS1)"
# Same history, same model: the same score, up to the clock's features (seconds apart). The reference is
# d1b, scored after the 3 later jobs: they are part of the history, and they move the user's rates.
awk -v a="$PD1b" -v b="$PD2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 0.05) }' ||
    fail "doomed scored $PD1b before the restart and $PD2 after, on the same history"
echo "PASS: the first job after a restart is scored with its history, loaded from the snapshot ($PD2 vs $PD1b before)"
