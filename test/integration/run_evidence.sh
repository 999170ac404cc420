#!/usr/bin/env bash
# Runs that count, on a real slurmctld (issue 48, class 2): an ordinary user whose 'doomed' failed six times
# cannot launder that history with an array of 20 tasks that each exit in a second, under the same name;
# another user whose six failures were followed by six completed hour-long runs is answered by them. By job
# counts both histories end in completions (the red team's array took p from 0.85 to 0.11); the model
# reads runs. The model is hand-written (message_model.py: un_streak >= 2.5 adds 2.0 to the margin), so the
# scores are the same on every Slurm and XGBoost release.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
"$TESTCLUSTER" users

W=$(mktemp -d /tmp/jfp-runs.XXXXXX)
chmod 755 "$W"
CLEANUP_HOOK='[ -n "${JFP_KEEP_CLUSTER:-}" ] || rm -rf "$W"'
trap 'eval "$CLEANUP_HOOK"' EXIT

handwritten_model "$W"

# Both users: 'doomed' failed six times (one CPU, a minute each). Then jfp-usera ran one array of 20 tasks
# of 'doomed' that each completed in a second; jfp-userb ran 'doomed' six more times, 4 CPUs for an hour,
# and each completed.
now=$(date +%s)
ua=$(id -u jfp-usera)
ub=$(id -u jfp-userb)
row() {  # row ID JOBID USER UID START SECONDS STATE CPUS
    echo "$1|$2|$3|$4|$3|debug|normal|doomed|$(date -d @"$5" +%FT%T)|$(date -d @"$5" +%FT%T)|$(date -d @$(($5 + $6)) +%FT%T)|$7|0:0|$8|1|100M|02:00:00|$6"
}
{
    echo "JobIDRaw|JobID|User|UID|Account|Partition|QOS|JobName|Submit|Start|End|State|ExitCode|ReqCPUS|ReqNodes|ReqMem|Timelimit|ElapsedRaw"
    for i in 1 2 3 4 5 6; do
        row $((970000 + i)) $((970000 + i)) jfp-usera "$ua" $((now - 40000 + i * 300)) 60 FAILED 1
        row $((971000 + i)) $((971000 + i)) jfp-userb "$ub" $((now - 40000 + i * 300)) 60 FAILED 1
        row $((972000 + i)) $((972000 + i)) jfp-userb "$ub" $((now - 30000 + i * 3700)) 3600 COMPLETED 4
    done
    for i in $(seq 1 20); do row $((973000 + i)) "973000_$i" jfp-usera "$ua" $((now - 600 + i)) 1 COMPLETED 1; done
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

# as USER OUT ERR NAME: USER's held sbatch of NAME; its stdout and stderr in files; its status.
as() {
    (cd /tmp && runuser -u "$1" -- sbatch --hold -o /dev/null -J "$4" --wrap true) >"$2" 2>"$3"
}

# jfp-usera: the 20 cheap completions are one run that weighs 20 x 1/60 of a full one: 'doomed' is refused.
if as jfp-usera "$W/out" "$W/err" doomed; then
    fail "jfp-usera's doomed was accepted after 20 one-second array tasks: $(cat "$W/out" "$W/err")"
fi
note "jfp-usera: $(head -n1 "$W/err")"
expect_contains "$(cat "$W/err")" "'doomed'" "jfp-usera's refusal names the job"
# The message quotes job counts, which stay true: 6 of the 26 runs failed, none of the last ten.
expect_contains "$(cat "$W/err")" "6 of your 26 earlier runs of 'doomed' failed" "jfp-usera's refusal quotes the counts"

# jfp-userb: six completed 4-CPU hours answer six failed CPU-minutes: 'doomed' is accepted.
as jfp-userb "$W/out" "$W/err" doomed || fail "jfp-userb's doomed was refused after six completed hours: $(cat "$W/err")"
grep -q "^Submitted batch job" "$W/out" || fail "jfp-userb's doomed got no job id: $(cat "$W/out")"
note "jfp-userb: accepted"

# Neither user's history is the other's: a first run of a new name is judged alike for both.
as jfp-usera "$W/out" "$W/err" fresh || fail "jfp-usera's first run of 'fresh' was refused: $(cat "$W/err")"
grep "internal fault" "$CTLD_LOG" >/dev/null && fail "the plugin reported an internal fault: $(grep 'internal fault' "$CTLD_LOG" | head -n1)"
note "runs that count: 20 one-second tasks did not launder six failures; six real completions answered them"
