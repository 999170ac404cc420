#!/usr/bin/env bash
# Issue 48, class 9 (red team), class 4: an update RPC whose records are each judged in full, on the slowest
# name identity. Found at 6.8-7.3 ms of jfp's time for 1,000 records inside slurmctld 22.05, past the 5 ms
# issue 48 sets; now bounded by update_budget_ms (4 ms by default, jfp.conf(5)), whatever the records are.
#
# As an ordinary user, in annotate mode with the default budget: a held array of N tasks is split into records
# that alternate between two time limits (so no record is judged on the same inputs as the one before it, and
# the per-RPC reuse never applies), then ONE scontrol update renames the whole array to 85 x U+FDFA (a
# character NFKC expands to 18). jfp's time for that one RPC must stay within 5 ms (the budget and one
# record; the least of three such renames); every record is either judged or counted as past the budget, and
# slurmctld's log says so.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
"$TESTCLUSTER" users
export JFP_SLURM_USER=jfp-slurm
A=jfp-usera
N=${JFP_UPDATE_RECORDS:-1000}

new_site
mkdir -p "$W/home"
chmod 1777 "$W/home"
start_site_cluster "mode = annotate
metrics_file = $W/jfp.prom
metrics_interval = 1
stats_interval = 1"
wait_until 30 "the plugin wrote no metrics file" '[ -s "$W/jfp.prom" ]'

j=$(as_user "$A" sbatch --parsable --hold -o /dev/null -J steady -t 30 --array=0-$((N - 1)) --wrap true | cut -d';' -f1)
# Split every task but the last into a record of its own, then give the even ones another time limit.
as_user "$A" scontrol update JobId="${j}_0-$((N - 2))" TimeLimit=29
even=$(seq -s, 0 2 $((N - 2)))
as_user "$A" scontrol update JobId="${j}_[$even]" TimeLimit=28
note "time limits after the split: $(squeue -h -r -j "$j" -o %l | sort | uniq -c | tr '\n' ' ')"
wait_until 30 "the split's updates are not in the metrics" '[ "$(metric jfp_update_seconds_count)" -ge 2 ]'
# settle: until the update RPCs counted (all, and within 5 ms) stay the same for 3 s: an RPC is recorded half a
# second after its last record, by the background thread (each second), in the next metrics file (each second).
rpc_counts() { echo "$(metric jfp_update_seconds_count) $(metric jfp_update_seconds_bucket 'le="0.005"')"; }
settle() {
    local before now
    before=$(rpc_counts)
    for _ in $(seq 1 10); do
        sleep 3
        now=$(rpc_counts)
        [ "$now" = "$before" ] && return 0
        before=$now
    done
    fail "the update RPCs counted in the metrics did not settle: $now"
}
settle

fdfa=$(printf '\xef\xb7\xba%.0s' $(seq 85))
# Up to three renames (85 x U+FDFA, then shortened and ending in one or two ASCII letters): the least of
# their times must be within 5 ms. The budget is 4 ms and an RPC overshoots it by its last record, but noise on
# a shared machine (the legs run side by side) only adds time, and the metrics' buckets are coarse (about a
# sixth wider each: an RPC of 4.4 ms reads as "at most 5.08").
fast=0
for name in "$fdfa" "${fdfa%???}x" "${fdfa%??????}xy"; do
    mark=$(wc -l <"$CTLD_LOG")
    rpcs0=$(metric jfp_update_seconds_count)
    fast0=$(metric jfp_update_seconds_bucket 'le="0.005"')
    updated0=$(metric jfp_jobs_total 'decision="updated"')
    unjudged0=$(metric jfp_jobs_total 'decision="update_unjudged"')
    t0=$(date +%s%N)
    as_user "$A" scontrol update JobId="$j" Name="$name"
    t1=$(date +%s%N)
    wait_until 30 "the rename's RPC is not in the metrics" '[ "$(metric jfp_update_seconds_count)" -gt "$rpcs0" ]'
    settle
    max_us=$(tail -n +"$((mark + 1))" "$CTLD_LOG" | grep -o 'per RPC p50 [0-9.]* us, max [0-9.]* us' | awk '$7 > m { m = $7 } END { print m + 0 }')
    read -r rpcs1 fast1 <<<"$(rpc_counts)"
    note "N=$N records renamed to a U+FDFA name in $((rpcs1 - rpcs0)) RPC(s), $((fast1 - fast0)) of them within 5 ms: jfp's time $max_us us at most (stats line); scontrol took $(((t1 - t0) / 1000000)) ms"
    expect_eq "$((rpcs1 - rpcs0))" 1 "update RPCs counted for the one rename"
    if [ "$((fast1 - fast0))" = 1 ]; then
        fast=1
        break
    fi
done
scancel "$j"
[ "$fast" = 1 ] || fail "none of three rename RPCs over $N records was within 5 ms of jfp's time (the last: $max_us us)"
judged=$(($(metric jfp_jobs_total 'decision="updated"') - updated0))
unjudged=$(($(metric jfp_jobs_total 'decision="update_unjudged"') - unjudged0))
note "of the $N records: $judged judged, $unjudged past update_budget_ms"
expect_eq "$((judged + unjudged))" "$N" "records judged or counted as past the budget"
[ "$judged" -ge 1 ] || fail "no record of the rename was judged"
if [ "$unjudged" -gt 0 ]; then
    # Said once a minute at most: by this RPC's line, or by one of the split's updates (on a loaded machine
    # they can pass the budget too) a few seconds before it.
    said=$(grep -c "update of job '$j[^']*' by uid $(id -u "$A"): jfp's time for one update RPC (update_budget_ms = 4) was spent on its first [0-9]* job records" "$CTLD_LOG" || true)
    [ "$said" -ge 1 ] || fail "no log line says an update RPC's budget was spent"
    grep "update_budget_ms = 4" "$CTLD_LOG" | sed 's/^/# /'
    counted=$(tail -n +"$((mark + 1))" "$CTLD_LOG" | grep -o "job records ([0-9]* of them not judged: past update_budget_ms)" |
        awk '{ sub(/\(/, "", $3); s += $3 } END { print s + 0 }')
    expect_eq "$counted" "$unjudged" "records past the budget in the stats lines"
fi
