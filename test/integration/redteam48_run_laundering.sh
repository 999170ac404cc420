#!/usr/bin/env bash
# Issue 48, class 9 (red team), class 2: laundering costly failures with one instant failure. It failed on
# the code it was written against (332df47); the attack fails now, and it runs on every leg.
#
# A completed run weighs what it used against the LATEST failure's use (history_stats.h). jfp-usera's
# 'doomed' failed six times at 16 CPUs for an hour; then one run of it exited 1 at once, and three exited 0
# at once (about 4 core-seconds in all, e.g. sbatch doomed.sh --dry-run). The instant failure makes the
# instant completions weigh in full: the streak the model reads goes from 7 to 0 and 'doomed' is accepted.
# Control: jfp-userb's identical six failures followed by twenty instant completions (no instant failure
# first) stay refused, as run_evidence.sh shows for one-CPU failures. Same hand-written model as there.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
"$TESTCLUSTER" users

W=$(mktemp -d /tmp/jfp-launder.XXXXXX)
chmod 755 "$W"
CLEANUP_HOOK='[ -n "${JFP_KEEP_CLUSTER:-}" ] || rm -rf "$W"'
trap 'eval "$CLEANUP_HOOK"' EXIT

handwritten_model "$W"

now=$(date +%s)
ua=$(id -u jfp-usera)
ub=$(id -u jfp-userb)
row() {  # row ID JOBID USER UID START SECONDS STATE CPUS
    echo "$1|$2|$3|$4|$3|debug|normal|doomed|$(date -d @"$5" +%FT%T)|$(date -d @"$5" +%FT%T)|$(date -d @$(($5 + $6)) +%FT%T)|$7|0:0|$8|1|100M|02:00:00|$6"
}
{
    echo "JobIDRaw|JobID|User|UID|Account|Partition|QOS|JobName|Submit|Start|End|State|ExitCode|ReqCPUS|ReqNodes|ReqMem|Timelimit|ElapsedRaw"
    for i in 1 2 3 4 5 6; do
        row $((980000 + i)) $((980000 + i)) jfp-usera "$ua" $((now - 40000 + i * 3700)) 3600 FAILED 16
        row $((981000 + i)) $((981000 + i)) jfp-userb "$ub" $((now - 40000 + i * 3700)) 3600 FAILED 16
    done
    row 982001 982001 jfp-usera "$ua" $((now - 600)) 0 FAILED 1
    for i in 1 2 3; do row $((982100 + i)) $((982100 + i)) jfp-usera "$ua" $((now - 500 + i * 10)) 0 COMPLETED 1; done
    for i in $(seq 1 20); do row $((983000 + i)) $((983000 + i)) jfp-userb "$ub" $((now - 500 + i * 10)) 0 COMPLETED 1; done
} >"$W/history.txt"
"$JFP" ingest --trusted-export -q --db "$W/history.db" "$W/history.txt"

site_to_slurm_user
export JFP_CONF="model = $W/model.json
store = $W/history.db
reload_interval = 0.3
mode = reject
threshold = 0.7
reject_below_target = yes"
cluster_start
wait_log "loaded history of"
wait_log "loaded model handwritten-messages"

as() {
    (cd /tmp && runuser -u "$1" -- sbatch --hold -o /dev/null -J "$4" --wrap true) >"$2" 2>"$3"
}

if as jfp-userb "$W/out" "$W/err" doomed; then
    fail "control: jfp-userb's doomed was accepted after twenty instant completions: $(cat "$W/out")"
fi
note "control, jfp-userb (6 costly failures, 20 instant completions): $(head -n1 "$W/err")"

if as jfp-usera "$W/out" "$W/err" doomed; then
    scancel -u jfp-usera 2>/dev/null || true
    fail "jfp-usera's doomed (6 failed 16-CPU hours, then 1 instant failure and 3 instant completions) was accepted: $(cat "$W/out")"
fi
note "jfp-usera: $(head -n1 "$W/err")"
