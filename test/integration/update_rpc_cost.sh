#!/usr/bin/env bash
# One scontrol update of an array whose tasks were split into job records of their own calls job_modify once
# per record, in one RPC, under slurmctld's job write lock. On a real slurmctld, as an ordinary user, in
# annotate mode:
#   - the update reaches every record (jfp counts N updated records), and jfp's own time for that one RPC, in
#     the metrics file's jfp_update_seconds histogram, is within 5 ms;
#   - the update's time shows in the metrics (per RPC and per record), in the plugin's stats line and in
#     jfp status;
#   - each record keeps its own comment: one record's annotation is not written into the next one's.
# N is JFP_UPDATE_RECORDS (1000 by default: MaxArraySize allows 1001 tasks).
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
"$TESTCLUSTER" users
export JFP_SLURM_USER=jfp-slurm
A=jfp-usera
N=${JFP_UPDATE_RECORDS:-1000}

new_site
mkdir -p "$W/home"
chmod 1777 "$W/home"
# update_budget_ms = 0: every record judged, so that jfp's time for all of them is what is measured (the
# budget's own test: redteam48_update_names.sh).
start_site_cluster "mode = annotate
metrics_file = $W/jfp.prom
metrics_interval = 1
stats_interval = 1
update_budget_ms = 0"
# metric NAME [LABEL]: a sample's value in the plugin's metrics file (0 when absent): the one named NAME whose
# labels hold LABEL (the cluster label as the plugin wrote it, whatever scontrol calls the cluster).
CLUSTER_NAME=$(scontrol show config | awk '$1 == "ClusterName" { print $3 }')
wait_until 30 "the plugin wrote no metrics file" '[ -s "$W/jfp.prom" ]'

# The array, held, then split: updating all tasks but the last gives each of them a record of its own.
j=$(as_user "$A" sbatch --parsable --hold -o /dev/null -J steady -t 30 --comment=mine --array=0-$((N - 1)) --wrap true | cut -d';' -f1)
as_user "$A" scontrol update JobId="${j}_0-$((N - 2))" TimeLimit=29
# The split's own RPC is counted once the plugin has seen no record for half a second.
wait_until 30 "the split's update is not in the metrics" '[ "$(metric jfp_update_seconds_count)" -ge 1 ]'
sleep 1.5
rpcs0=$(metric jfp_update_seconds_count)
fast0=$(metric jfp_update_seconds_bucket 'le="0.005"')
records0=$(metric jfp_jobs_total 'decision="updated"')
mark=$(wc -l <"$CTLD_LOG")
# What the stats lines since the mark say of updates: RPCs, records, and the largest per-RPC max (us).
update_stats() {
    local new
    new=$(tail -n +"$((mark + 1))" "$CTLD_LOG" | grep "stats: .*updates: " || true)
    printf '%s %s %s\n' "$(grep -o '[0-9]* RPCs\? ended' <<<"$new" | awk '{ s += $1 } END { print s + 0 }')" \
        "$(grep -o 'updates: [0-9]* job records\?' <<<"$new" | awk '{ s += $2 } END { print s + 0 }')" \
        "$(grep -o 'per RPC p50 [0-9.]* us, max [0-9.]* us' <<<"$new" | awk '$7 > m { m = $7 } END { print m + 0 }')"
}

# The update under test: one RPC over the whole array; up to three of them (time limits 20, 19, 18), and the
# least of their times must be within 5 ms: noise on a shared machine (the legs run three at a time) only
# adds time, and one run in seven went past 5 ms on a busy 2-core machine (docs/performance.md).
fast=0
for tl in 20 19 18; do
    rpcs0=$(metric jfp_update_seconds_count)
    fast0=$(metric jfp_update_seconds_bucket 'le="0.005"')
    records0=$(metric jfp_jobs_total 'decision="updated"')
    mark=$(wc -l <"$CTLD_LOG")
    as_user "$A" scontrol update JobId="$j" TimeLimit=$tl
    expect_eq "$(squeue -h -r -j "$j" -o %l | sort -u)" "$tl:00" "the time limit of every task of $j after the update"
    wait_until 30 "the update's RPC is not in the metrics" '[ "$(metric jfp_update_seconds_count)" -gt "$rpcs0" ]'
    sleep 1.5
    expect_eq "$(metric jfp_update_seconds_count)" "$((rpcs0 + 1))" "update RPCs counted for one scontrol update"
    expect_eq "$(metric jfp_jobs_total 'decision="updated"')" "$((records0 + N))" "records jfp judged in that RPC"
    [ "$(metric jfp_update_record_seconds_count)" -ge "$((records0 + N))" ] ||
        fail "jfp_update_record_seconds counts $(metric jfp_update_record_seconds_count) records, fewer than the $((records0 + N)) judged"
    wait_until 30 "the stats lines do not show the update" 'read -r u r _ <<<"$(update_stats)"; [ "$u" -ge 1 ] && [ "$r" -ge "$N" ]'
    read -r u r max_us <<<"$(update_stats)"
    expect_eq "$u $r" "1 $N" "update RPCs and records in the stats lines"
    note "N=$N, TimeLimit=$tl: jfp's time for the update RPC: $max_us us (stats line)"
    if [ "$(metric jfp_update_seconds_bucket 'le="0.005"')" = "$((fast0 + 1))" ]; then
        fast=1
        break
    fi
done
[ "$fast" = 1 ] || fail "none of three $N-record update RPCs was within 5 ms of jfp's time (the last: $max_us us)"
# jfp status reads the same file: the updates are on their own line.
"$JFP" status --conf "$CLUSTER_DIR/etc/jfp.conf" >"$W/status.txt" || fail "jfp status: $(cat "$W/status.txt")"
expect_contains "$(cat "$W/status.txt")" "update RPCs reaching" "jfp status shows the updates"
note "jfp status: $(grep 'update RPCs' "$W/status.txt")"

# Each record's comment is the user's with its own annotation, once: not the one before it's, and not growing.
while read -r c; do
    [ "$(grep -o 'jfp:p=' <<<"$c" | wc -l)" -eq 1 ] && [ "${c%% *}" = mine ] || fail "a task of $j has the comment '$c'"
    grep -q 'jfp;p=' <<<"$c" && fail "a task of $j carries another record's annotation: '$c'"
done < <(squeue -h -r -j "$j" -o %k | sort -u)
note "comments after the update: $(squeue -h -r -j "$j" -o %k | sort | uniq -c | head -n3)"
scancel "$j"
