#!/usr/bin/env bash
# Benchmark: slurmctld's submission rate through sbatch with JobSubmitPlugins empty, =jfp (annotate
# mode, a trained model and a history store) and =lua (one rule: the stock alternative), alternating
# in one throwaway cluster so that noise on the shared machine hits all three alike. Each run reads three
# figures: jobs per second, sdiag's mean time of the submission RPC (the whole handler, plugins included)
# and slurmctld's CPU per job (all its threads, jfp's writers included). bench/rate_stats.py compares each
# round's runs and reports means over rounds with 95% confidence intervals. Jobs are held (--hold):
# nothing runs, only submission is measured. Also slurmctld's RSS and thread count with no plugin and
# after jfp has loaded its model and history.
#
# The job list is held at a stated size, since what slurmctld does per submission grows with it (22.05's
# job_submit_lua rebuilds a Lua table of every job about once a second; slurmctld's own lists too): a
# queue of Q held jobs from another user stays all along, and a measured run's jobs, cancelled after it,
# are purged before the next run starts (MinJobAge=2, then slurmctld's purge every 10 s), so that no run
# pays for another's purge. Each run records the list's size at its end. (--quick does not wait.)
#
#   bench/slurmctld_throughput.sh [--quick] [--jobs N] [--rounds R] [--queue Q] [--clients C] [--perf FILE]
#
# --perf FILE: also a system-wide `perf record -g` of the last round's runs: jfp's into FILE, no plugin's
# into FILE.none and Lua's into FILE.lua (read each with `perf report -i FILE --comm slurmctld`; the
# runs submit the same jobs, so samples compare across them as CPU per job).
#
# Prints a table and one JSON object as its last line. Needs root (it starts Slurm's daemons).
set -euo pipefail
# (squeue's output goes through awk, not head: head exiting early makes squeue die of SIGPIPE, and
# pipefail turns that into a failure once the queue holds thousands of jobs.)

here=$(cd "$(dirname "$0")" && pwd)
export JFP_SRCDIR=${JFP_SRCDIR:-$(dirname "$here")}
export JFP_BUILDDIR=${JFP_BUILDDIR:-$JFP_SRCDIR/build}
JOBS=1000 ROUNDS=12 QUEUE=10000 CLIENTS=4 PERF="" SETTLE=1
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) JOBS=200 ROUNDS=3 QUEUE=1000 SETTLE="" ;;
        --jobs) JOBS=$2; shift ;;
        --queue) QUEUE=$2; shift ;;
        --rounds) ROUNDS=$2; shift ;;
        --clients) CLIENTS=$2; shift ;;
        --perf) PERF=$2; shift ;;
        *) echo "usage: $0 [--quick] [--jobs N] [--rounds R] [--queue Q] [--clients C] [--perf FILE]" >&2; exit 2 ;;
    esac
    shift
done
# shellcheck source=../test/integration/lib.sh
. "$JFP_SRCDIR/test/integration/lib.sh"
[ "$(id -u)" = 0 ] || { echo "bench: needs root to start the throwaway cluster" >&2; exit 2; }

work=$(mktemp -d /tmp/jfp-bench-ctld.XXXXXX)
chmod 755 "$work"
CLEANUP_HOOK="rm -rf '$work'"
make_site "$work/site" >/dev/null
# The measured jobs, a site's mix: 19 in 20 are an ordinary user's (RUN_USER), whose names completed
# their last ten runs, and scored below the threshold; 1 in 20 is root's, whose history fails half its jobs,
# and scored at or above it (its class trees walked, the class in its annotation). The run counts both.
RUN_USER=jfp-userb
"$TESTCLUSTER" users
run_uid=$(id -u "$RUN_USER")
{
    echo "JobIDRaw|JobID|User|UID|Account|Partition|QOS|JobName|Submit|Start|End|State|ExitCode|ReqCPUS|ReqNodes|ReqMem|Timelimit"
    now=$(date +%s) id=800000
    for c in $(seq 1 "$CLIENTS"); do
        for k in $(seq 0 19); do
            for run in $(seq 1 10); do
                t=$((now - 36000 + run * 3000 + k * 10 + c)) id=$((id + 1))
                echo "$id|$id|$RUN_USER|$run_uid|root|debug|normal|bench_${c}_$k|$(date -d @$t +%FT%T)|$(date -d @$((t + 5)) +%FT%T)|$(date -d @$((t + 300)) +%FT%T)|COMPLETED|0:0|1|1|100M|00:10:00"
            done
        done
    done
} >"$work/run_user.txt"
"$JFP" ingest --trusted-export -q --db "$work/site/history.db" "$work/run_user.txt"
chmod 755 "$work/site"
give_to_slurm_user "$work/site"  # slurmctld runs as SlurmUser: the site is its own

export JFP_JOB_SUBMIT_PLUGINS=""
# slurmctld's state (each job's script and environment files, its state saves) on tmpfs: on this machine's
# ext4 that work was 81 % of the RPC threads' time and moved a run's CPU per job by several hundred
# microseconds from one run to the next (docs/performance.md §2), which hid the plugins' few tens. A site
# keeps it on disk, where the plugins' share is smaller still.
state=$(mktemp -d /dev/shm/jfp-bench-state.XXXXXX)
give_to_slurm_user "$state"
CLEANUP_HOOK="$CLEANUP_HOOK; rm -rf '$state'"
export JFP_SLURM_CONF_EXTRA="MaxJobCount=200000
MinJobAge=2
StateSaveLocation=$state"
# As a site runs it: the feature log on (what the next model trains on), its writer's work counted.
export JFP_CONF="mode = annotate
model = $work/site/model.json
store = $work/site/history.db
feature_log = $work/site/features.db
stats_interval = 2"
cluster_start >/dev/null
conf="$CLUSTER_DIR/etc/slurm.conf"
# The one rule a site would write in Lua: note the job in its comment (what jfp's annotate mode does).
cat >"$CLUSTER_DIR/etc/job_submit.lua" <<'EOF'
function slurm_job_submit(job_desc, part_list, submit_uid)
    if job_desc.time_limit == slurm.NO_VAL then
        slurm.log_user("no --time given: the partition's default applies")
    end
    job_desc.comment = (job_desc.comment or "") .. " lua:checked"
    return slurm.SUCCESS
end
function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
    return slurm.SUCCESS
end
EOF

# A realistic batch script (about 3 KB): directives, modules, a launch line.
script="$work/job.sh"
{
    echo '#!/bin/bash'
    echo '#SBATCH -N 1'
    echo '#SBATCH -n 1'
    echo '#SBATCH -t 00:10:00'
    echo '#SBATCH -o /dev/null'
    echo 'set -euo pipefail'
    echo 'module load gcc/12 openmpi/4.1'
    for i in $(seq 1 60); do echo "# step $i: copy inputs, run the solver, keep the restart files"; done
    echo 'srun ./solver input.nml'
} >"$script"

ctld_pid() { cat "$CLUSTER_DIR/run/slurmctld.pid"; }
proc_field() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$(ctld_pid)/status"; }

# set_plugins VALUE: rewrite JobSubmitPlugins and reconfigure; slurmctld re-inits the plugins when the
# string changes (22.05, 23.02). For jfp, wait until the model and history are loaded.
set_plugins() {
    local v=$1 before
    before=$(grep -c "loaded history of" "$CTLD_LOG" || true)
    sed -i '/^JobSubmitPlugins=/d' "$conf"
    [ -n "$v" ] && echo "JobSubmitPlugins=$v" >>"$conf"
    scontrol reconfigure
    if [ "$v" = jfp ]; then
        local loaded=""
        for _ in $(seq 1 150); do
            [ "$(grep -c "loaded history of" "$CTLD_LOG" || true)" -gt "$before" ] && { loaded=1; break; }
            sleep 0.2
        done
        [ -n "$loaded" ] || fail "jfp did not load its history after reconfigure"
    fi
    sleep 1
}

# rpc_usec FIRST LAST: median and 90th percentile of the usec= slurmctld logs per job in
# _slurm_rpc_submit_batch_job, for those job ids. That timer restarts once the job write lock is held
# (proc_req.c, "Restart after we have locks"): it times job_allocate, not the job_submit plugins, which
# run before, under the read locks. The handler's whole time is sdiag's (submit_rpc_stats).
rpc_usec() {
    awk -v lo="$1" -v hi="$2" '/_slurm_rpc_submit_batch_job: JobId=/ {
            id = $0; sub(/.*JobId=/, "", id); sub(/ .*/, "", id)
            u = $0; sub(/.*usec=/, "", u)
            if (id + 0 >= lo && id + 0 <= hi) print u + 0
        }' "$CTLD_LOG" | sort -n |
        awk '{ v[NR] = $1 } END { if (NR == 0) print "0 0"; else printf "%d %d", v[int(NR * 0.5) + 1], v[int(NR * 0.9) + 1] }'
}

# submit_rpc_stats: sdiag's count and total microseconds of REQUEST_SUBMIT_BATCH_JOB since its last reset:
# slurmctld times the whole handler (slurmctld_req), job_submit plugins and lock waits included.
submit_rpc_stats() {
    sdiag | awk '$1 == "REQUEST_SUBMIT_BATCH_JOB" {
            c = $0; sub(/.*count:/, "", c); sub(/ .*/, "", c)
            t = $0; sub(/.*total_time:/, "", t); sub(/ .*/, "", t)
            print c + 0, t + 0; found = 1 }
        END { if (!found) print 0, 0 }'
}

# ctld_cpu_us: slurmctld's CPU so far in microseconds, all its threads, ended ones included. From a cgroup
# of its own when one can be made (to the microsecond), else from /proc (clock ticks: 10 ms).
CPU_CG=""
ctld_cgroup() {
    local base=/sys/fs/cgroup/unified cg
    [ -f $base/cgroup.procs ] || base=/sys/fs/cgroup
    [ -f $base/cgroup.procs ] || return 0
    cg="$base/jfp-bench.$$"
    mkdir "$cg" 2>/dev/null || return 0
    if ctld_pid >"$cg/cgroup.procs" 2>/dev/null && grep -q '^usage_usec' "$cg/cpu.stat" 2>/dev/null; then
        CPU_CG=$cg
        CLEANUP_HOOK="$CLEANUP_HOOK; for p in \$(cat '$cg/cgroup.procs' 2>/dev/null); do echo \$p >'$base/cgroup.procs'; done; rmdir '$cg' 2>/dev/null || true"
    else
        rmdir "$cg" 2>/dev/null || true
    fi
}
# machine_busy_us: the whole machine's busy CPU so far (every core: user, nice, system, irq, softirq,
# steal), in microseconds. Per job it is what a submission costs everything together, sbatch and munge
# included, without the idle gaps that make the rate of 4 clients on 2 cores noisy.
machine_busy_us() { awk -v t="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%d", ($2 + $3 + $4 + $7 + $8 + $9) * 1e6 / t }' /proc/stat; }

# jfp_threads_us: the CPU so far of jfp's own threads in slurmctld (jfp-background, and the writers when
# configured), in microseconds; 0 without jfp. Their work for a submission is off the RPC's path but on the
# machine's cores. A run's figure is the difference between its start and its end (the same threads: the
# plugin is not reloaded within a run; the history load at its start is not counted).
jfp_threads_us() { jfp_threads_by_name | awk '{ t += $2 } END { printf "%d\n", t }'; }
# jfp_threads_by_name: the same, a line per thread: its name and its CPU so far in microseconds.
jfp_threads_by_name() {
    local t name us
    for t in /proc/"$(ctld_pid)"/task/*; do
        name=$(cat "$t/comm" 2>/dev/null) || continue
        case "$name" in jfp-*) ;; *) continue ;; esac
        us=$(awk -v t="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%d", ($12 + $13) * 1e6 / t }' "$t/stat" 2>/dev/null || echo 0)
        echo "$name ${us:-0}"
    done
}
ctld_cpu_us() {
    if [ -n "$CPU_CG" ]; then awk '$1 == "usage_usec" { print $2 }' "$CPU_CG/cpu.stat"
    else awk -v t="$(getconf CLK_TCK)" '{ printf "%d", ($14 + $15) * 1e6 / t }' "/proc/$(ctld_pid)/stat"; fi
}

# submit_all N USER [MIX]: N held jobs from CLIENTS parallel sbatch loops, as USER; with MIX, one in 20 of
# each client's jobs (bench_C_0) comes from one more loop, root's (the site's mix above). Prints the seconds
# they took, sets ids.
submit_all() {
    local per=$(( $1 / CLIENTS )) c t0 t1 ok pids=()
    rm -f "$work"/client.*
    t0=$(date +%s.%N)
    for c in $(seq 1 "$CLIENTS"); do
        (
            runuser -u "$2" -- bash -c 'for i in $(seq 1 "$1"); do
                    [ -n "$4" ] && [ $((i % 20)) = 0 ] && continue
                    sbatch --hold -J "bench_${2}_$((i % 20))" "$3" || echo "sbatch failed" >&2
                done' _ "$per" "$c" "$script" "${3:-}" >"$work/client.$c" 2>&1
        ) &
        pids+=($!)
    done
    if [ -n "${3:-}" ]; then
        (
            for i in $(seq 20 20 "$per"); do
                for c in $(seq 1 "$CLIENTS"); do sbatch --hold -J "bench_${c}_0" "$script" || echo "sbatch failed" >&2; done
            done >"$work/client.0" 2>&1
        ) &
        pids+=($!)
    fi
    wait "${pids[@]}"  # the clients only: a profiler running beside them is not waited for
    t1=$(date +%s.%N)
    ok=$(cat "$work"/client.* | grep -c "^Submitted batch job" || true)
    [ "$ok" -eq $((per * CLIENTS)) ] || fail "only $ok of $((per * CLIENTS)) submissions succeeded: $(grep -hv '^Submitted' "$work"/client.* | head -3)"
    ids=$(cat "$work"/client.* | awk '/^Submitted batch job/ { print $4 }' | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo, hi }')
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'
}

# clear_queue: cancels the measured jobs (RUN_USER's and root's); the held queue (QUEUE_USER's) stays.
clear_queue() {
    scancel -u "$RUN_USER" 2>/dev/null || true
    scancel -u root 2>/dev/null || true
    for _ in $(seq 1 300); do
        [ -z "$(squeue -h -u "$RUN_USER,root" -t PD,R -o %i | awk 'NR == 1')" ] && return 0
        sleep 0.2
    done
}
# listed_jobs: how many jobs slurmctld lists (any state), the size Lua's table and slurmctld's lists have.
listed_jobs() { squeue -h -t all -o %i | wc -l; }
# settle: waits until the cancelled jobs of the runs before are purged and their state files removed (a
# second more), so that the next run starts with the held queue alone and pays for no earlier run's purge.
settle() {
    [ -n "$SETTLE" ] || return 0
    for _ in $(seq 1 60); do
        [ "$(listed_jobs)" -le "$QUEUE" ] && break
        sleep 0.5
    done
    sleep 1
}

# What loading jfp adds to slurmctld, read before any job exists: once runs have come and gone,
# slurmctld's own job records and glibc's trimming move its RSS by more than the plugin does.
rss_none=$(proc_field VmRSS); thr_none=$(proc_field Threads)
set_plugins jfp
rss_jfp=$(proc_field VmRSS); thr_jfp=$(proc_field Threads)
set_plugins ""
QUEUE_USER=jfp-usera
if [ "$QUEUE" -gt 0 ]; then
    qs=$(submit_all "$QUEUE" "$QUEUE_USER")
    echo "the held queue: $QUEUE jobs of $QUEUE_USER submitted in $qs s; $(listed_jobs) jobs listed" >&2
fi
ctld_cgroup
echo "slurmctld's CPU read from ${CPU_CG:-/proc/PID/stat (10 ms ticks: no cgroup could be made)}" >&2
runs="$work/runs.tsv"
echo "round config jobs seconds rpc_us locked_us cpu_us jfp_threads_us machine_us listed" >"$runs"
order=(none jfp lua)
# Round 0 warms the cluster up and is not counted: the first runs after its start read up to 9 times
# slower under the write lock (slurmdbd's first records, cold files).
for r in $(seq 0 "$ROUNDS"); do
    # Each round starts one further along, so no configuration always runs first after a reconfigure
    # (rounds a multiple of 3 give each configuration each place equally often).
    for o in 0 1 2; do
        k=${order[$(( (r - 1 + o) % 3 ))]}
        settle
        case $k in none) set_plugins "" ;; jfp) set_plugins jfp ;; lua) set_plugins lua ;; esac
        sdiag -r >/dev/null
        cpu0=$(ctld_cpu_us)
        busy0=$(machine_busy_us)
        threads0=$(jfp_threads_us)
        jfp_threads_by_name >"$work/threads0"
        perf_pid=""
        if [ -n "$PERF" ] && [ "$r" = "$ROUNDS" ]; then
            perf_out=$PERF
            [ "$k" = jfp ] || perf_out="$PERF.$k"
            perf record -a -g -o "$perf_out" -- sleep 600 >/dev/null 2>"$work/perf.err" &
            perf_pid=$!
            sleep 1
        fi
        submit_all "$JOBS" "$RUN_USER" mix >"$work/rate"
        if [ -n "$perf_pid" ]; then
            pkill -TERM -P "$perf_pid" sleep 2>/dev/null || true  # (a background job ignores SIGINT)
            wait "$perf_pid" || true
        fi
        sleep 0.5  # what jfp's writer threads do for these jobs counts as this run's CPU
        cpu1=$(ctld_cpu_us)
        busy1=$(machine_busy_us)
        threads1=$(jfp_threads_us)
        jfp_threads_by_name >"$work/threads1"
        read -r count total <<<"$(submit_rpc_stats)"
        [ "$count" -ge $((JOBS / CLIENTS * CLIENTS)) ] || fail "sdiag counted $count submissions, expected $((JOBS / CLIENTS * CLIENTS))"
        if [ "$k" = jfp ] && [ "$r" != 0 ]; then  # each of jfp's threads, CPU per job
            awk -v n="$count" 'NR == FNR { a[$1] = $2; next } { printf "%s %.2f\n", $1, ($2 - a[$1]) / n }' \
                "$work/threads0" "$work/threads1" >>"$work/thread_split"
        fi
        if [ "$k" = jfp ]; then
            last=$(squeue -h -u "$RUN_USER" -o "%i %k" --sort=-i | awk 'NR == 1')
            case "$last" in *"jfp:p="*) ;; *) fail "jfp did not annotate: $last" ;; esac
            # How many of the run's jobs were at or above the threshold (the class trees walked for them).
            [ "$r" = 0 ] || squeue -h -u "$RUN_USER,root" -o %k | awk '/jfp:p=/ { n++ } /jfp:p=[^ ]*,class=/ { f++ } END { print f + 0, n + 0 }' >>"$work/flagged"
        fi
        if [ "$k" = lua ]; then
            last=$(squeue -h -u "$RUN_USER" -o "%k" | awk 'NR == 1')
            case "$last" in *"lua:checked"*) ;; *) fail "the lua rule did not run: $last" ;; esac
        fi
        # shellcheck disable=SC2086
        read -r locked _ <<<"$(rpc_usec $ids)"
        awk -v r="$r" -v k="$k" -v n="$count" -v secs="$(cat "$work/rate")" -v tot="$total" -v l="$locked" \
            -v c="$((cpu1 - cpu0))" -v w="$((threads1 - threads0))" -v m="$((busy1 - busy0))" -v q="$(listed_jobs)" \
            'BEGIN { printf "%d %s %d %.4f %.2f %d %.2f %.2f %.2f %d\n", r, k, n, secs, tot / n, l, c / n, w / n, m / n, q }' >>"$runs.all"
        [ "$r" = 0 ] || tail -n1 "$runs.all" >>"$runs"
        clear_queue
    done
done

echo "slurmctld submission rate: $JOBS held jobs per run from $CLIENTS sbatch clients, $ROUNDS rounds alternating, beside a held queue of $QUEUE jobs"
echo "  runs (round config jobs seconds rpc_us locked_us cpu_us jfp_threads_us machine_us listed):"
sed 1d "$runs" | awk '{ printf "    %s\n", $0 }'
/usr/bin/python3 "$here/rate_stats.py" "$runs" >"$work/stats"
sed '$d' "$work/stats"
# The busiest interval's wall time of job_submit; of a sample of the same calls the thread's CPU time (the
# difference is time the thread waited for a core) and the tree walks' time in them: the in-place reference
# for jfp's own cost, as bench/hotpath's bare walk is with warm caches.
inside=$(grep -o 'stats: [0-9]* submissions.*max [0-9.]* us; on-CPU ([0-9]* sampled) p50 [0-9.]* us, p99 [0-9.]* us; their tree walks p50 [0-9.]* us, p99 [0-9.]* us' "$CTLD_LOG" |
    sort -t' ' -k2,2n | tail -n1 || true)
echo "  inside slurmctld, busiest ${inside:-stats: (no stats line)}"
split=$(awk '{ s[$1] += $2; n[$1]++ } END { for (k in s) printf "%s %.1f, ", k, s[k] / n[k] }' "$work/thread_split" 2>/dev/null | sed 's/, $//')
echo "  jfp's threads, CPU per job (mean over jfp's runs): ${split:-none}"
p50_inside=$(printf '%s' "$inside" | sed -n 's/.*job_submit p50 \([0-9.]*\) us.*/\1/p'); p50_inside=${p50_inside:-0}
p99_inside=$(printf '%s' "$inside" | sed -n 's/.*job_submit p50 [0-9.]* us, p99 \([0-9.]*\) us.*/\1/p'); p99_inside=${p99_inside:-0}
cpu50_inside=$(printf '%s' "$inside" | sed -n 's/.*sampled) p50 \([0-9.]*\) us.*/\1/p'); cpu50_inside=${cpu50_inside:-0}
cpu99_inside=$(printf '%s' "$inside" | sed -n 's/.*sampled) p50 [0-9.]* us, p99 \([0-9.]*\) us.*/\1/p'); cpu99_inside=${cpu99_inside:-0}
walk50_inside=$(printf '%s' "$inside" | sed -n 's/.*tree walks p50 \([0-9.]*\) us.*/\1/p'); walk50_inside=${walk50_inside:-0}
read -r flagged annotated <<<"$(awk '{ f += $1; n += $2 } END { print f + 0, n + 0 }' "$work/flagged" 2>/dev/null || echo 0 0)"
echo "  jfp's runs: $flagged of $annotated jobs at or above the threshold (their class trees walked too)"
flagged_share=$(awk -v f="$flagged" -v n="$annotated" 'BEGIN { if (n > 0) printf "%.4f", f / n; else print 0 }')
echo "  slurmctld RSS before any job: ${rss_none} kB without a plugin, ${rss_jfp} kB with jfp's model and history loaded; threads: $thr_none -> $thr_jfp"
# The summary's JSON plus what this script read itself.
/usr/bin/python3 - "$work/stats" <<EOF
import json, sys
out = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
out.update({"slurmctld_rss_kib": {"none": $rss_none, "jfp_loaded": $rss_jfp},
            "slurmctld_threads": {"none": $thr_none, "jfp_loaded": $thr_jfp},
            "slurmctld_jobs_per_run": $((JOBS / CLIENTS * CLIENTS)),
            "slurmctld_held_queue": $QUEUE,
            "slurmctld_jfp_flagged_share": $flagged_share,
            "job_submit_in_slurmctld_us": {"p50": $p50_inside, "p99": $p99_inside},
            "job_submit_in_slurmctld_cpu_us": {"p50": $cpu50_inside, "p99": $cpu99_inside},
            "tree_walks_in_slurmctld_p50_us": $walk50_inside})
print(json.dumps(out, sort_keys=True))
EOF
