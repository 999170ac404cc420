#!/usr/bin/env bash
# Load on a real slurmctld: held submissions from parallel sbatch clients through job_submit/jfp in
# annotate mode, first with its inputs left alone, then while its model bundle and jfp.conf are replaced
# every second. Counts what a site cares about: submissions accepted vs made, accepted jobs without jfp's
# annotation, error lines in slurmctld's log while the load ran, slurmctld alive, and its RSS and thread
# count before and after. Goals: 0 lost, 0 unannotated, 0 errors; a miss exits 1 (these are correctness,
# not timings). Full runs first put the same two phases through a slurmctld without job_submit plugins, so
# that jfp's share of the RSS growth is told apart from slurmctld's own job records.
#
#   bench/slurmctld_load.sh [--quick] [--jobs N] [--clients C]     (default 10,000 jobs, 8 clients;
#                                                                    --quick: 800, no bare slurmctld)
#
# Prints a table and one JSON object as its last line. Needs root (it starts Slurm's daemons).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
export JFP_SRCDIR=${JFP_SRCDIR:-$(dirname "$here")}
export JFP_BUILDDIR=${JFP_BUILDDIR:-$JFP_SRCDIR/build}
JOBS=10000 CLIENTS=8 BARE=yes
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) JOBS=800 BARE="" ;;
        --jobs) JOBS=$2; shift ;;
        --clients) CLIENTS=$2; shift ;;
        *) echo "usage: $0 [--quick] [--jobs N] [--clients C]" >&2; exit 2 ;;
    esac
    shift
done
# shellcheck source=../test/integration/lib.sh
. "$JFP_SRCDIR/test/integration/lib.sh"
[ "$(id -u)" = 0 ] || { echo "bench: needs root to start the throwaway cluster" >&2; exit 2; }

work=$(mktemp -d /tmp/jfp-bench-load.XXXXXX)
chmod 755 "$work"
CHURN=""
CLEANUP_HOOK='[ -n "$CHURN" ] && kill "$CHURN" 2>/dev/null; rm -rf "$work"'
make_site "$work/site" >/dev/null
chmod 755 "$work/site"
# A second, different model to swap with the first.
"$JFP" train --db "$work/site/history.db" --out "$work/site/model_b.json" --rounds 30 --nthread 2 --no-progress >/dev/null
cp "$work/site/model.json" "$work/site/model_a.json"
give_to_slurm_user "$work/site"  # slurmctld runs as SlurmUser: the site is its own

conf_text() {  # conf_text STATS_INTERVAL
    printf 'mode = annotate\nmodel = %s\nstore = %s\nfeature_log = %s\nreload_interval = 0.5\nstats_interval = %s\n' \
        "$work/site/model.json" "$work/site/history.db" "$work/site/features.db" "$1"
}
export JFP_SLURM_CONF_EXTRA="MaxJobCount=200000"
export JFP_CONF="$(conf_text 5)"

ctld_pid() { cat "$CLUSTER_DIR/run/slurmctld.pid"; }
proc_field() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$(ctld_pid)/status"; }
# settle: slurmctld may still be logging its own start (a clean start's missing state file is an error
# line): a job accepted and cancelled first means it is done.
settle() { scancel "$(submit --hold -o /dev/null --wrap true)"; sleep 1; }

# churn: every second, a new model bundle (alternating two) and a new jfp.conf, each replaced atomically
# as docs/admin-guide.md tells admins to publish them.
churn() {
    local n=0 m
    while true; do
        n=$((n + 1))
        if [ $((n % 2)) = 0 ]; then m=model_a.json; else m=model_b.json; fi
        install -m 644 "$work/site/$m" "$work/site/model.json.new" && mv "$work/site/model.json.new" "$work/site/model.json"
        conf_text $((5 + n % 2)) >"$CLUSTER_DIR/etc/jfp.conf.new"
        chmod 644 "$CLUSTER_DIR/etc/jfp.conf.new" && mv "$CLUSTER_DIR/etc/jfp.conf.new" "$CLUSTER_DIR/etc/jfp.conf"
        echo "$n" >"$work/churned"
        sleep 1
    done
}

# load PHASE: JOBS held jobs from CLIENTS sbatch loops; prints "accepted lost unannotated errors secs"
# (unannotated is 0 for the bare phases, which have no plugin to annotate).
load() {
    local phase=$1 per=$((JOBS / CLIENTS)) c mark t0 t1 accepted lost unannotated errors
    rm -f "$work"/client.*
    mark=$(wc -l <"$CTLD_LOG")
    t0=$(date +%s.%N)
    for c in $(seq 1 "$CLIENTS"); do
        (
            for i in $(seq 1 "$per"); do
                sbatch --hold --parsable -J "load_${phase}_${c}_$((i % 25))" -o /dev/null --wrap true 2>&1 || echo "sbatch failed"
            done >"$work/client.$c"
        ) &
    done
    wait
    t1=$(date +%s.%N)
    cat "$work"/client.* | grep -E '^[0-9]+' | cut -d';' -f1 | sort -u >"$work/ids.$phase"
    accepted=$(wc -l <"$work/ids.$phase")
    lost=$((per * CLIENTS - accepted))
    # Every accepted job, as slurmctld holds it, with jfp's annotation in its comment.
    squeue -h -u root -t PD -o '%i|%j|%k' | awk -F'|' -v p="load_${phase}_" 'index($2, p) == 1' >"$work/queue.$phase"
    unannotated=0
    case "$phase" in bare*) ;; *) unannotated=$(awk -F'|' '$3 !~ /jfp:p=[0-9.]+,(class=[A-Z_]+,)?model=/' "$work/queue.$phase" | wc -l) ;; esac
    [ "$(wc -l <"$work/queue.$phase")" = "$accepted" ] \
        || lost=$((lost + accepted - $(wc -l <"$work/queue.$phase")))
    errors=$(tail -n +"$((mark + 1))" "$CTLD_LOG" | grep -c -E 'error:|fatal:|internal fault' || true)
    tail -n +"$((mark + 1))" "$CTLD_LOG" | grep -E 'error:|fatal:|internal fault' | head -n 5 >"$work/errors.$phase" || true
    grep -hv -E '^[0-9]+' "$work"/client.* | sort | uniq -c | head -n 5 >"$work/failures.$phase" || true
    echo "$accepted $lost $unannotated $errors $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
}

clear_queue() {
    scancel -u root 2>/dev/null || true
    for _ in $(seq 1 600); do
        [ -z "$(squeue -h -t PD,R -o %i | awk 'NR == 1')" ] && return 0
        sleep 0.2
    done
}

# The same two phases through slurmctld alone: its RSS at the same three points.
if [ -n "$BARE" ]; then
    JFP_JOB_SUBMIT_PLUGINS="" cluster_start >/dev/null
    settle
    brss0=$(proc_field VmRSS)
    read -r bacc1 blost1 _ berr1 bsecs1 <<<"$(load bare1)"
    brss1=$(proc_field VmRSS)
    clear_queue
    read -r bacc2 blost2 _ berr2 bsecs2 <<<"$(load bare2)"
    brss2=$(proc_field VmRSS)
    clear_queue
    "$TESTCLUSTER" stop "$CLUSTER_DIR" >/dev/null
    cd "$work"  # cluster_start left us in the cluster's directory
    rm -rf "$CLUSTER_DIR"
    CLUSTER_DIR=""
fi

cluster_start >/dev/null
wait_log "loaded history of" 60
settle
rss0=$(proc_field VmRSS); thr0=$(proc_field Threads)
read -r acc1 lost1 unann1 err1 secs1 <<<"$(load steady)"
rss1=$(proc_field VmRSS); thr1=$(proc_field Threads)
clear_queue
churn &
CHURN=$!
read -r acc2 lost2 unann2 err2 secs2 <<<"$(load churn)"
kill "$CHURN" 2>/dev/null || true
wait "$CHURN" 2>/dev/null || true
CHURN=""
swaps=$(cat "$work/churned" 2>/dev/null || echo 0)
model_loads=$(grep -c "loaded model" "$CTLD_LOG" || true)
rss2=$(proc_field VmRSS); thr2=$(proc_field Threads)
alive=yes
kill -0 "$(ctld_pid)" 2>/dev/null && timeout 10 scontrol ping >/dev/null || alive=no
clear_queue

submitted=$((JOBS / CLIENTS * CLIENTS))
echo "slurmctld under load: $submitted held jobs per phase from $CLIENTS parallel sbatch clients, jfp in annotate mode"
printf '  %-34s %9s %6s %12s %7s %8s %10s %8s\n' phase accepted lost unannotated errors seconds "RSS KiB" threads
printf '  %-34s %9s %6s %12s %7s %8s %10s %8s\n' "before (model and history loaded)" - - - - - "$rss0" "$thr0"
printf '  %-34s %9s %6s %12s %7s %8s %10s %8s\n' "inputs left alone" "$acc1" "$lost1" "$unann1" "$err1" "$secs1" "$rss1" "$thr1"
printf '  %-34s %9s %6s %12s %7s %8s %10s %8s\n' "model + jfp.conf replaced every 1 s" "$acc2" "$lost2" "$unann2" "$err2" "$secs2" "$rss2" "$thr2"
if [ -n "$BARE" ]; then
    printf '  %-34s %9s %6s %12s %7s %8s %10s %8s\n' "bare slurmctld: started" - - - - - "$brss0" -
    printf '  %-34s %9s %6s %12s %7s %8s %10s %8s\n' "bare slurmctld: first phase" "$bacc1" "$blost1" - "$berr1" "$bsecs1" "$brss1" -
    printf '  %-34s %9s %6s %12s %7s %8s %10s %8s\n' "bare slurmctld: second phase" "$bacc2" "$blost2" - "$berr2" "$bsecs2" "$brss2" -
    echo "  jfp's share of slurmctld's RSS (KiB, with jfp minus bare at the same point): start $((rss0 - brss0)), after the first phase $((rss1 - brss1)), after the second $((rss2 - brss2))"
fi
echo "  replacements during the second phase: $swaps (model bundles loaded in all: $model_loads); slurmctld alive and answering: $alive"
for p in steady churn; do
    [ -s "$work/errors.$p" ] && { echo "  slurmctld errors ($p):"; sed 's/^/    /' "$work/errors.$p"; }
    [ -s "$work/failures.$p" ] && { echo "  sbatch failures ($p):"; sed 's/^/    /' "$work/failures.$p"; }
done
ok=yes
for v in "$lost1" "$unann1" "$err1" "$lost2" "$unann2" "$err2"; do [ "$v" = 0 ] || ok=no; done
[ "$alive" = yes ] || ok=no
[ "$swaps" -ge 2 ] || { echo "  the churn phase replaced the inputs only $swaps times" >&2; ok=no; }
bare_json=""
[ -n "$BARE" ] && bare_json=$(printf ', "load_bare_rss_kib_before": %d, "load_bare_rss_kib_after": %d, "load_jfp_rss_share_kib_before": %d, "load_jfp_rss_share_kib_after": %d' \
    "$brss0" "$brss2" $((rss0 - brss0)) $((rss2 - brss2)))
printf '{"load_jobs_per_phase": %d, "load_clients": %d, "load_lost": %d, "load_unannotated": %d, "load_errors": %d, "load_churn_replacements": %d, "load_rss_kib_before": %d, "load_rss_kib_after": %d, "load_threads_before": %d, "load_threads_after": %d%s, "load_ok": %s}\n' \
    "$submitted" "$CLIENTS" $((lost1 + lost2)) $((unann1 + unann2)) $((err1 + err2)) "$swaps" "$rss0" "$rss2" "$thr0" "$thr2" \
    "$bare_json" "$([ "$ok" = yes ] && echo true || echo false)"
[ "$ok" = yes ] || { echo "bench/slurmctld_load.sh: goals missed (0 lost, 0 unannotated, 0 errors, slurmctld alive)" >&2; exit 1; }
