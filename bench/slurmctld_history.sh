#!/usr/bin/env bash
# A big history inside a real slurmctld. A store of N synthetic jobs (default 10,000,000; --quick 50,000)
# is ingested; slurmctld starts with job_submit/jfp reading it and loads it on the plugin's background
# thread; 1,000 jobs that ended after everything in it are then ingested, as `jfp ingest --follow`
# brings them, and the plugin must apply only those. The same cluster run with the 20,000-job store of
# the integration tests is the reference: slurmctld's RSS with each store (the difference is what the
# history costs the controller) and job_submit's p50/p99 from the plugin's own stats line over the same
# held submissions (latency should not depend on the history's size).
#
#   bench/slurmctld_history.sh [--quick] [--jobs N]
#
# Prints a table and one JSON object as its last line. Needs root (it starts Slurm's daemons). Exits 1
# if the update after the ingest is not incremental (a full reload) or a submission goes unannotated.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export JFP_SRCDIR=${JFP_SRCDIR:-$(dirname "$here")}
export JFP_BUILDDIR=${JFP_BUILDDIR:-$JFP_SRCDIR/build}
JOBS=10000000 SUBMITS=300
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) JOBS=50000 SUBMITS=100 ;;
        --jobs) JOBS=$2; shift ;;
        *) echo "usage: $0 [--quick] [--jobs N]" >&2; exit 2 ;;
    esac
    shift
done
# shellcheck source=../test/integration/lib.sh
. "$JFP_SRCDIR/test/integration/lib.sh"
[ "$(id -u)" = 0 ] || { echo "bench: needs root to start the throwaway cluster" >&2; exit 2; }
work=$(mktemp -d /tmp/jfp-bench-history.XXXXXX)
chmod 755 "$work"
CLEANUP_HOOK='rm -rf "$work"'
make_site "$work/small" >/dev/null
chmod 755 "$work/small"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# The big store: synthetic jobs (sacct format), ingested as a site would.
# synth covers jobs/4000 days from --start: the workload ends a month ago, as an export would (jfp ingest
# refuses jobs that end after it began).
"$JFP" synth --jobs "$JOBS" --seed 5 -q --start "$(date -d "-$((JOBS / 4000 + 30)) days" +%F)" -o "$work/big.txt"
t0=$(now)
mkdir -p "$work/big"
"$JFP" ingest --trusted-export -q --db "$work/big/history.db" "$work/big.txt"
ingest_s=$(since "$t0")
jobs_in_store=$(sqlite3 "$work/big/history.db" "SELECT count(*) FROM jobs")
# slurmctld runs as SlurmUser: the stores become its own, and what writes them later runs as it too.
give_to_slurm_user "$work/small" "$work/big"
chmod 755 "$work/big"
SITE_JFP="$work/bin/jfp"
install -D -m 755 "$JFP" "$SITE_JFP"
# 1,000 jobs that ended after everything in it, in the same format.
python3 - "$work/big.txt" "$work/later.txt" <<'PY'
import datetime, sys
src, dst = sys.argv[1], sys.argv[2]
fmt = "%Y-%m-%dT%H:%M:%S"
with open(src) as f:
    header = f.readline().rstrip("\n").split("|")
    col = {k: i for i, k in enumerate(header)}
    rows, last = [], None
    for line in f:
        r = line.rstrip("\n").split("|")
        if r[col["End"]] and r[col["End"]] != "Unknown":
            e = datetime.datetime.strptime(r[col["End"]], fmt)
            last = e if last is None or e > last else last
        if "." not in r[col["JobIDRaw"]] and len(rows) < 1000:
            rows.append(r)
with open(dst, "w") as out:
    out.write("|".join(header) + "\n")
    for i, r in enumerate(rows):
        submit = last + datetime.timedelta(seconds=60 + i)
        r[col["JobIDRaw"]] = r[col["JobID"]] = str(900000000 + i)
        r[col["Submit"]] = submit.strftime(fmt)
        r[col["Start"]] = (submit + datetime.timedelta(seconds=5)).strftime(fmt)
        r[col["End"]] = (submit + datetime.timedelta(seconds=65)).strftime(fmt)
        r[col["ElapsedRaw"]] = "60"
        out.write("|".join(r) + "\n")
PY

ctld_pid() { cat "$CLUSTER_DIR/run/slurmctld.pid"; }
rss_mib() { awk '$1 == "VmRSS:" { printf "%.1f", $2 / 1024 }' "/proc/$(ctld_pid)/status"; }
conf_text() {  # conf_text STORE
    printf 'mode = annotate\nmodel = %s\nstore = %s\nreload_interval = 0.5\nstats_interval = 2\n' "$work/small/model.json" "$1"
}
export JFP_SLURM_CONF_EXTRA="MaxJobCount=100000"

# phase STORE: a cluster on STORE; prints "load_s load_log_ms rss_after_load p50 p99 unannotated".
# Called with its output redirected to a file, not in $(...): the cluster must outlive the call.
phase() {
    local store=$1 t_start load_ms mark p50 p99 unann rss i
    JFP_CONF=$(conf_text "$store")
    export JFP_CONF
    t_start=$(now)
    cluster_start >/dev/null
    wait_log "loaded history of" 600
    local load_s
    load_s=$(since "$t_start")
    load_ms=$(grep -m1 -o "loaded history of .* in [0-9]* ms" "$CTLD_LOG" | grep -o "[0-9]* ms$" | cut -d' ' -f1)
    sleep 3  # past one stats interval: the next stats line covers the submissions alone
    rss=$(rss_mib)
    mark=$(wc -l <"$CTLD_LOG")
    for i in $(seq 1 "$SUBMITS"); do
        sbatch --hold --parsable -J "app$((i % 40))" -o /dev/null --wrap true >/dev/null
    done
    for _ in $(seq 1 50); do
        tail -n +"$((mark + 1))" "$CTLD_LOG" | grep "stats: [0-9]* submissions" >/dev/null && break
        sleep 0.2
    done
    # The interval's lines together: the busiest one's p50 and p99 (one stats line per 2 s).
    read -r p50 p99 <<<"$(tail -n +"$((mark + 1))" "$CTLD_LOG" | grep -o 'stats: [0-9]* submissions.*p99 [0-9.]* us' |
        awk '{ n = $2; for (i = 1; i <= NF; i++) { if ($i == "p50") a = $(i + 1); if ($i == "p99") b = $(i + 1) } if (n > best) { best = n; p = a; q = b } }
             END { printf "%s %s", p, q }' | tr -d ',')"
    unann=$(squeue -h -u root -t PD -o '%k' | grep -Evc 'jfp:p=[0-9.]*,(class=[A-Z_]+,)?model=' || true)
    echo "$load_s $load_ms $rss ${p50:-nan} ${p99:-nan} $unann"
}

phase "$work/small/history.db" >"$work/phase.small"
read -r s_load s_ms s_rss s_p50 s_p99 s_unann <"$work/phase.small"
"$TESTCLUSTER" stop "$CLUSTER_DIR" >/dev/null
cd "$work"
rm -rf "$CLUSTER_DIR"
CLUSTER_DIR=""

phase "$work/big/history.db" >"$work/phase.big"
read -r b_load b_ms b_rss b_p50 b_p99 b_unann <"$work/phase.big"
# The next ingest: only its jobs are applied, not the store reloaded.
mark=$(wc -l <"$CTLD_LOG")
chmod 644 "$work/later.txt"
site_jfp ingest --trusted-export -q --db "$work/big/history.db" "$work/later.txt"
for _ in $(seq 1 300); do
    tail -n +"$((mark + 1))" "$CTLD_LOG" | grep -e "applied [0-9]* changed jobs from $work/big/history.db" -e "loading it whole" >/dev/null && break
    sleep 0.2
done
update_line=$(tail -n +"$((mark + 1))" "$CTLD_LOG" | grep -m1 -o "applied [0-9]* changed jobs from .* in [0-9]* ms" || true)
whole=$(tail -n +"$((mark + 1))" "$CTLD_LOG" | grep -m1 "loading it whole" || true)
update_ms=$(printf '%s' "$update_line" | grep -o "[0-9]* ms$" | cut -d' ' -f1)
applied=$(printf '%s' "$update_line" | awk '{ print $2 }')
rss_after_update=$(rss_mib)

# A restart: how long until the plugin's history is ready, from the snapshot jfp ingest keeps beside the
# store, and (the reference, same store, same run) by replaying the store with the snapshot moved away.
# restart_ready: "wall_ms plugin_ms rss_mib from_snapshot(0/1) first_job_annotated(0/1)"
restart_ready() {
    local mark t0 t1 line ms rss snap first
    "$TESTCLUSTER" stop-ctld "$CLUSTER_DIR" >/dev/null
    mark=$(wc -l <"$CTLD_LOG")
    t0=$(date +%s%N)
    "$TESTCLUSTER" start-ctld "$CLUSTER_DIR" >/dev/null
    for _ in $(seq 1 2400); do
        line=$(tail -n +"$((mark + 1))" "$CTLD_LOG" | grep -m1 "loaded history of" || true)
        [ -n "$line" ] && break
        sleep 0.05
    done
    t1=$(date +%s%N)
    [ -n "$line" ] || { echo "nan nan nan 0 0"; return; }
    ms=$(printf '%s' "$line" | grep -o "[0-9]* ms$" | cut -d' ' -f1)
    snap=0; case "$line" in *"its snapshot at change"*) snap=1 ;; esac
    # The first job after the restart: scored (annotated) as soon as slurmctld takes it.
    first=$(sbatch --hold --parsable -J restart_first -o /dev/null --wrap true)
    case "$(squeue -h -j "$first" -o '%k')" in *jfp:p=[0-9]*) first=1 ;; *) first=0 ;; esac
    sleep 2
    rss=$(rss_mib)
    echo "$(( (t1 - t0) / 1000000 )) $ms $rss $snap $first"
}
snapshot="$work/big/history.db.snapshot"
[ -s "$snapshot" ] || { echo "FAIL: jfp ingest left no snapshot at $snapshot" >&2; exit 1; }
restart_ready >"$work/ready.snap"
read -r r_wall r_ms r_rss r_snap r_first <"$work/ready.snap"
mv "$snapshot" "$work/snapshot.aside"
restart_ready >"$work/ready.replay"
read -r p_wall p_ms p_rss p_snap p_first <"$work/ready.replay"
mv "$work/snapshot.aside" "$snapshot"
snapshot_mib=$(du -m "$snapshot" | cut -f1)

printf '%-52s %12s %12s\n' "slurmctld + job_submit/jfp, store of" "20,000 jobs" "$jobs_in_store jobs"
printf '%-52s %12s %12s\n' "history load, slurmctld's log (ms)" "$s_ms" "$b_ms"
printf '%-52s %12s %12s\n' "from slurmctld start to history loaded (s)" "$s_load" "$b_load"
printf '%-52s %12s %12s\n' "slurmctld RSS after the load (MiB)" "$s_rss" "$b_rss"
printf '%-52s %12s %12s\n' "job_submit p50, plugin's stats line (us)" "$s_p50" "$b_p50"
printf '%-52s %12s %12s\n' "job_submit p99 (us)" "$s_p99" "$b_p99"
printf '%-52s %12s %12s\n' "submissions without jfp's annotation" "$s_unann" "$b_unann"
echo "ingest of the big store: ${ingest_s} s; then 1,000 later jobs: ${update_line:-no update line}"
echo "slurmctld RSS after that update: $rss_after_update MiB"
printf '%-52s %12s %12s\n' "restart of slurmctld, store of $jobs_in_store jobs" "snapshot" "replay (ref)"
printf '%-52s %12s %12s\n' "start-ctld to history loaded, wall (ms)" "$r_wall" "$p_wall"
printf '%-52s %12s %12s\n' "history load, slurmctld's log (ms)" "$r_ms" "$p_ms"
printf '%-52s %12s %12s\n' "slurmctld RSS after the load (MiB)" "$r_rss" "$p_rss"
printf '%-52s %12s %12s\n' "first job after the restart annotated (1 yes)" "$r_first" "$p_first"
echo "snapshot file: $snapshot_mib MiB"
rc=0
[ -n "$whole" ] && { echo "FAIL: the ingest of later jobs made the plugin reload all history: $whole" >&2; rc=1; }
[ -z "$update_line" ] && { echo "FAIL: no incremental update in slurmctld's log after the ingest" >&2; rc=1; }
[ "$r_snap" = 1 ] || { echo "FAIL: the restart did not load the history from its snapshot" >&2; rc=1; }
[ "$p_snap" = 0 ] || { echo "FAIL: the reference restart loaded a snapshot that was moved away" >&2; rc=1; }
[ "$r_first" = 1 ] || { echo "FAIL: the first job after the restart was not annotated" >&2; rc=1; }
[ "$s_unann" = 0 ] && [ "$b_unann" = 0 ] || { echo "FAIL: submissions without jfp's annotation ($s_unann, $b_unann)" >&2; rc=1; }
python3 - <<PY
import json
num = lambda v: None if v in ("", "nan") else float(v)
print(json.dumps({"ctld_history_jobs": int("$jobs_in_store"), "ctld_history_ingest_s": num("$ingest_s"),
                  "ctld_history_load_ms": num("$b_ms"), "ctld_history_load_small_ms": num("$s_ms"),
                  "ctld_history_rss_mib": num("$b_rss"), "ctld_history_rss_small_mib": num("$s_rss"),
                  "ctld_history_rss_added_mib": round(float("$b_rss") - float("$s_rss"), 1),
                  "ctld_history_update_1000_ms": num("${update_ms:-}"), "ctld_history_update_applied": num("${applied:-}"),
                  "ctld_history_submit_p50_us": num("$b_p50"), "ctld_history_submit_p99_us": num("$b_p99"),
                  "ctld_history_submit_p50_small_us": num("$s_p50"), "ctld_history_submit_p99_small_us": num("$s_p99"),
                  "ctld_history_rss_after_update_mib": num("$rss_after_update"),
                  "ctld_history_ready_ms": num("$r_wall"), "ctld_history_ready_replay_ms": num("$p_wall"),
                  "ctld_history_ready_load_ms": num("$r_ms"), "ctld_history_ready_replay_load_ms": num("$p_ms"),
                  "ctld_history_ready_rss_mib": num("$r_rss"), "ctld_history_ready_replay_rss_mib": num("$p_rss"),
                  "ctld_history_snapshot_mib": num("$snapshot_mib")}))
PY
exit "$rc"
