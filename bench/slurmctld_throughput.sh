#!/usr/bin/env bash
# Benchmark: slurmctld's submission rate through sbatch with JobSubmitPlugins empty, =jfp (annotate
# mode, a trained model and a history store) and =lua (one rule: the stock alternative), alternating
# in one throwaway cluster so that noise on the shared machine hits all three alike. The reported ratio is
# the median over rounds of each round's jfp/none ratio. Jobs are held
# (--hold): nothing runs, only submission is measured. Also slurmctld's RSS and thread count with no
# plugin and after jfp has loaded its model and history.
#
#   bench/slurmctld_throughput.sh [--quick] [--jobs N] [--rounds R] [--clients C]
#
# Prints a table and one JSON object as its last line. Needs root (it starts Slurm's daemons).
set -euo pipefail
# (squeue's output goes through awk, not head: head exiting early makes squeue die of SIGPIPE, and
# pipefail turns that into a failure once the queue holds thousands of jobs.)

here=$(cd "$(dirname "$0")" && pwd)
export JFP_SRCDIR=${JFP_SRCDIR:-$(dirname "$here")}
export JFP_BUILDDIR=${JFP_BUILDDIR:-$JFP_SRCDIR/build}
JOBS=2000 ROUNDS=5 CLIENTS=4
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) JOBS=200 ROUNDS=1 ;;
        --jobs) JOBS=$2; shift ;;
        --rounds) ROUNDS=$2; shift ;;
        --clients) CLIENTS=$2; shift ;;
        *) echo "usage: $0 [--quick] [--jobs N] [--rounds R] [--clients C]" >&2; exit 2 ;;
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
chmod 755 "$work/site"
give_to_slurm_user "$work/site"  # slurmctld runs as SlurmUser: the site is its own

export JFP_JOB_SUBMIT_PLUGINS=""
export JFP_SLURM_CONF_EXTRA="MaxJobCount=200000"
export JFP_CONF="mode = annotate
model = $work/site/model.json
store = $work/site/history.db
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

# rpc_usec FIRST LAST: median and 90th percentile of slurmctld's own time per submission RPC (the usec=
# it logs for _slurm_rpc_submit_batch_job, which includes the job_submit plugins) for those job ids.
rpc_usec() {
    awk -v lo="$1" -v hi="$2" '/_slurm_rpc_submit_batch_job: JobId=/ {
            id = $0; sub(/.*JobId=/, "", id); sub(/ .*/, "", id)
            u = $0; sub(/.*usec=/, "", u)
            if (id + 0 >= lo && id + 0 <= hi) print u + 0
        }' "$CTLD_LOG" | sort -n |
        awk '{ v[NR] = $1 } END { if (NR == 0) print "0 0"; else printf "%d %d", v[int(NR * 0.5) + 1], v[int(NR * 0.9) + 1] }'
}

# submit_all N: N held jobs from CLIENTS parallel sbatch loops; prints jobs per second.
submit_all() {
    local n=$1 per=$(( $1 / CLIENTS )) c t0 t1 ok
    rm -f "$work"/client.*
    t0=$(date +%s.%N)
    for c in $(seq 1 "$CLIENTS"); do
        (
            for i in $(seq 1 "$per"); do
                sbatch --hold -J "bench_${c}_$((i % 20))" "$script" || echo "sbatch failed" >&2
            done >"$work/client.$c" 2>&1
        ) &
    done
    wait
    t1=$(date +%s.%N)
    ok=$(cat "$work"/client.* | grep -c "^Submitted batch job" || true)
    [ "$ok" -eq $((per * CLIENTS)) ] || fail "only $ok of $((per * CLIENTS)) submissions succeeded: $(grep -hv '^Submitted' "$work"/client.* | head -3)"
    ids=$(cat "$work"/client.* | awk '/^Submitted batch job/ { print $4 }' | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo, hi }')
    awk -v n="$ok" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", n / (b - a) }'
}

clear_queue() {
    scancel -u root 2>/dev/null || true
    for _ in $(seq 1 300); do
        [ -z "$(squeue -h -t PD,R -o %i | awk 'NR == 1')" ] && return 0
        sleep 0.2
    done
}

declare -A total_jobs total_time rpc_med round_rate
ratios_jfp="" ratios_lua=""
for k in none jfp lua; do total_jobs[$k]=0; total_time[$k]=0; done
rates=""
# What loading jfp adds to slurmctld, read before any job exists: once runs have come and gone,
# slurmctld's own job records and glibc's trimming move its RSS by more than the plugin does.
rss_none=$(proc_field VmRSS); thr_none=$(proc_field Threads)
set_plugins jfp
rss_jfp=$(proc_field VmRSS); thr_jfp=$(proc_field Threads)
set_plugins ""
order=(none jfp lua)
for r in $(seq 1 "$ROUNDS"); do
    # Each round starts one further along, so no configuration always runs first after a reconfigure.
    for o in 0 1 2; do
        k=${order[$(( (r - 1 + o) % 3 ))]}
        case $k in none) set_plugins "" ;; jfp) set_plugins jfp ;; lua) set_plugins lua ;; esac
        ids=""
        submit_all "$JOBS" >"$work/rate"
        rate=$(cat "$work/rate")
        if [ "$k" = jfp ]; then
            last=$(squeue -h -u root -o "%i %k" --sort=-i | awk 'NR == 1')
            case "$last" in *"jfp:p="*) ;; *) fail "jfp did not annotate: $last" ;; esac
        fi
        if [ "$k" = lua ]; then
            last=$(squeue -h -u root -o "%k" | awk 'NR == 1')
            case "$last" in *"lua:checked"*) ;; *) fail "the lua rule did not run: $last" ;; esac
        fi
        # shellcheck disable=SC2086
        read -r med p90 <<<"$(rpc_usec $ids)"
        rpc_med[$k]="${rpc_med[$k]:-} $med"
        rates="$rates $k:$rate(rpc ${med}us)"
        round_rate[$k]=$rate
        total_jobs[$k]=$(( ${total_jobs[$k]} + JOBS / CLIENTS * CLIENTS ))
        total_time[$k]=$(awk -v t="${total_time[$k]}" -v n="$((JOBS / CLIENTS * CLIENTS))" -v r="$rate" 'BEGIN { print t + n / r }')
        clear_queue
    done
    # The three runs of a round lie minutes apart at most: their ratio is less exposed to the machine's
    # drift than rates pooled over the whole benchmark.
    ratios_jfp="$ratios_jfp $(awk -v a="${round_rate[jfp]}" -v b="${round_rate[none]}" 'BEGIN { printf "%.4f", a / b }')"
    ratios_lua="$ratios_lua $(awk -v a="${round_rate[lua]}" -v b="${round_rate[none]}" 'BEGIN { printf "%.4f", a / b }')"
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# median over rounds of each run's median RPC time
rpc_of() { printf '%s\n' ${rpc_med[$1]} | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
rpc_none=$(rpc_of none); rpc_jfp=$(rpc_of jfp); rpc_lua=$(rpc_of lua)
rate_of() { awk -v n="${total_jobs[$1]}" -v t="${total_time[$1]}" 'BEGIN { printf "%.2f", n / t }'; }
none=$(rate_of none); jfp=$(rate_of jfp); lua=$(rate_of lua)
pooled_jfp=$(awk -v a="$jfp" -v b="$none" 'BEGIN { printf "%.4f", a / b }')
pooled_lua=$(awk -v a="$lua" -v b="$none" 'BEGIN { printf "%.4f", a / b }')
# shellcheck disable=SC2086
ratio_jfp=$(median $ratios_jfp)
# shellcheck disable=SC2086
ratio_lua=$(median $ratios_lua)

echo "slurmctld submission rate: $JOBS held jobs per run from $CLIENTS sbatch clients, $ROUNDS rounds alternating"
echo "  runs (jobs/s):$rates"
printf '  %-24s %10s %14s %14s\n' "JobSubmitPlugins" "jobs/s" "ratio (pooled)" "ratio (median of rounds)"
printf '  %-24s %10s %14s %14s\n' "(none)" "$none" "1.0000" "1.0000"
printf '  %-24s %10s %14s %14s\n' "jfp (annotate)" "$jfp" "$pooled_jfp" "$ratio_jfp"
printf '  %-24s %10s %14s %14s\n' "lua (one rule)" "$lua" "$pooled_lua" "$ratio_lua"
echo "  per-round ratios: jfp$ratios_jfp; lua$ratios_lua"
echo "  slurmctld's own time per submission RPC (median of run medians, usec as it logs them): none $rpc_none, jfp $rpc_jfp, lua $rpc_lua"
# The plugin's own stats lines: job_submit's time measured inside slurmctld (the busiest interval).
inside=$(grep -o 'stats: [0-9]* submissions.*max [0-9.]* us' "$CTLD_LOG" | sort -t' ' -k2,2n | tail -n1 || true)
echo "  inside slurmctld, busiest ${inside:-stats: (no stats line)}"
p50_inside=$(printf '%s' "$inside" | sed -n 's/.*p50 \([0-9.]*\) us.*/\1/p'); p50_inside=${p50_inside:-0}
p99_inside=$(printf '%s' "$inside" | sed -n 's/.*p99 \([0-9.]*\) us.*/\1/p'); p99_inside=${p99_inside:-0}
echo "  slurmctld RSS before any job: ${rss_none} kB without a plugin, ${rss_jfp} kB with jfp's model and history loaded; threads: $thr_none -> $thr_jfp"
printf '{"slurmctld_throughput_ratio": %s, "slurmctld_lua_ratio": %s, "slurmctld_throughput_ratio_pooled": %s, "slurmctld_jobs_per_s": {"none": %s, "jfp": %s, "lua": %s}, "slurmctld_rss_kib": {"none": %s, "jfp_loaded": %s}, "slurmctld_threads": {"none": %s, "jfp_loaded": %s}, "slurmctld_jobs_per_run": %s, "slurmctld_rounds": %s, "slurmctld_rpc_usec_median": {"none": %s, "jfp": %s, "lua": %s}, "job_submit_in_slurmctld_us": {"p50": %s, "p99": %s}}\n' \
    "$ratio_jfp" "$ratio_lua" "$pooled_jfp" "$none" "$jfp" "$lua" "$rss_none" "$rss_jfp" "$thr_none" "$thr_jfp" "$((JOBS / CLIENTS * CLIENTS))" "$ROUNDS" "$rpc_none" "$rpc_jfp" "$rpc_lua" "$p50_inside" "$p99_inside"
