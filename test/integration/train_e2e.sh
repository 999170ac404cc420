#!/usr/bin/env bash
# From a real sacct export of the throwaway cluster to a model that jfp eval scores: real jobs that
# succeed, fail while "broken" and recover, in waves so each wave sees the previous one's outcomes. The
# history before the cutoff holds 27 failures, too few for a tree model: jfp train writes the rules bundle
# a new cluster starts with (issue 26), and it must still rank the later failures. `recovered` fails the
# first five waves and then never again: the training window itself shows that a name's failure rate keeps
# accusing a job that has recovered, where its last run does not.
# A failure exits at once and a completion runs 3 s, as broken jobs usually die early: every completion
# then costs more than the failures before it and answers them in full in the run evidence
# (HistoryStats::completed_weight is 1), whatever the second each clock crossed. With every job at 2 s,
# Elapsed read 2 or 3 by load, a completion weighed 3/4 of a failure, and a streak of seven failures
# outlived it: that jitter moved the last run's rule PR-AUC from 0.626 to under 0.587 and the rate rule was
# chosen (ROC-AUC 0.533 on the later jobs; the 24.11 leg in CI, 2026-11-30). Before that, jobs that only
# exited (0 or 1 s) failed 5 of 7 runs on 24.11 the same way.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster

export JFP_JOB_SUBMIT_PLUGINS=""
# A wave's eight jobs run up to 3 s each: JFP_NODE_CPUS=8 runs them together (on the machine's 2 CPUs they ran in four rounds).
export JFP_NODE_CPUS=8
cluster_start

run_or_fail() {  # run_or_fail CODE: the --wrap of a job that exits CODE (0: runs 3 s and completes)
    if [ "$1" = 0 ]; then echo 'sleep 3'; else echo "exit $1"; fi
}
wave() {  # wave N: one job per application; the exit status depends on the wave
    local n=$1
    wave_ids=()
    wave_ids+=("$(submit -J good_a --wrap "$(run_or_fail 0)")")
    wave_ids+=("$(submit -J good_b --wrap "$(run_or_fail 0)")")
    wave_ids+=("$(submit -J broken_a --wrap "$(run_or_fail $(( n < 7 ? 1 : 0 )))")")
    wave_ids+=("$(submit -J broken_b --wrap "$(run_or_fail $(( n >= 4 && n < 9 ? 2 : 0 )))")")
    wave_ids+=("$(submit -J broken_c --wrap "$(run_or_fail $(( n >= 10 && n < 15 ? 1 : 0 )))")")
    wave_ids+=("$(submit -J flaky --wrap "$(run_or_fail $(( n % 5 == 0 ? 1 : 0 )))")")
    wave_ids+=("$(submit -J broken_d --wrap "$(run_or_fail $(( n >= 1 && n <= 6 ? 3 : 0 )))")")
    wave_ids+=("$(submit -J recovered --wrap "$(run_or_fail $(( n < 5 ? 1 : 0 )))")")
}
# Every job of the wave ended, by slurmctld's record of each (scontrol), not by an empty squeue: squeue
# printing nothing is also what a failed or not-yet-current listing looks like.
wave_ended() {
    local id s
    for id in "${wave_ids[@]}"; do
        s=$(scontrol -o show job "$id" 2>/dev/null) || return 1
        case "$s" in *"JobState=COMPLETED "* | *"JobState=FAILED "*) ;; *) return 1 ;; esac
    done
}
cut_time=""
for n in $(seq 0 17); do
    [ "$n" = 11 ] && { sleep 1; cut_time=$(date +%Y-%m-%dT%H:%M:%S); sleep 1; }
    wave "$n"
    wait_until 120 "wave $n's jobs did not all end" wave_ended
    sleep 1  # the next wave is submitted strictly after this one ended
done
wait_accounting_jobs 144
sacct --allusers --parsable2 $SACCT_WINDOW --format="$SACCT_FORMAT" >"$CLUSTER_DIR/export.txt"
jobs=$(grep -c '^[0-9]*|' "$CLUSTER_DIR/export.txt" || true)
[ "$jobs" -ge 137 ] || fail "expected 144 jobs in the export, found $jobs"
# The premise of every figure below: each wave was submitted after the one before it had ended, as sacct
# records it (a wave submitted early would hide its predecessor's outcomes from the history).
/usr/bin/python3 - "$CLUSTER_DIR/export.txt" <<'PY'
import sys
rows = [l.rstrip("\n").split("|") for l in open(sys.argv[1])]
h = rows[0]
jobs = sorted((r for r in rows[1:] if r[h.index("JobIDRaw")].isdigit()), key=lambda r: int(r[h.index("JobIDRaw")]))
waves = [jobs[i:i + 8] for i in range(0, len(jobs), 8)]
for a, b in zip(waves, waves[1:]):
    end = max(r[h.index("End")] for r in a)
    sub = min(r[h.index("Submit")] for r in b)
    assert sub > end, f"a wave was submitted at {sub}, before the wave before it ended ({end})"
# And the premise of the rule chosen: every completion took longer than every failure.
el = lambda state: [int(r[h.index("ElapsedRaw")]) for r in jobs if r[h.index("State")] == state]
assert max(el("FAILED")) < min(el("COMPLETED")), \
    f"a failure ran {max(el('FAILED'))} s, a completion {min(el('COMPLETED'))} s: the machine was too loaded for this test's timing"
print(f"# failures ran {min(el('FAILED'))}-{max(el('FAILED'))} s, completions {min(el('COMPLETED'))}-{max(el('COMPLETED'))} s")
PY

db="$CLUSTER_DIR/history.db"
model="$CLUSTER_DIR/model.json"
"$JFP" ingest --trusted-export --strict --db "$db" "$CLUSTER_DIR/export.txt"
"$JFP" train --db "$db" --out "$model" --before "$cut_time" --rounds 50 --nthread 1 --no-progress
"$JFP" eval --db "$db" --model "$model" --after "$cut_time"
"$JFP" eval --db "$db" --model "$model" --after "$cut_time" --json >"$CLUSTER_DIR/eval.json"
/usr/bin/python3 - "$CLUSTER_DIR/eval.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
assert e["jobs"] == 56, f"expected the 7 later waves x 8 jobs, got {e['jobs']}"
assert e["model_kind"] == "rules", f"27 failures gave a {e['model_kind']} model, not the rules bundle"
assert e["verdict"]["text"].startswith("verdict: "), e["verdict"]
assert e["failures"] > 0, "no failures after the cutoff"
m = e["model"]
for k in ("roc_auc", "pr_auc", "precision", "recall", "f1", "threshold"):
    assert k in m, k
b = e["baselines"]["last_outcome_user_name"]
# broken_c fails in a run of five: knowing the previous run failed is worth something, and the model
# sees the same history.
assert m["roc_auc"] > 0.6, f"model ROC-AUC {m['roc_auc']}"
print(f"# model ROC-AUC {m['roc_auc']:.3f} PR-AUC {m['pr_auc']:.3f}; last-outcome baseline PR-AUC {b['pr_auc']:.3f}")
PY
"$JFP" predict --db "$db" --model "$model" --after "$cut_time" --output "$CLUSTER_DIR/p.csv"
lines=$(($(wc -l <"$CLUSTER_DIR/p.csv") - 1))
expect_eq "$lines" 56 "predicted rows"
head -n 3 "$CLUSTER_DIR/p.csv" | sed 's/^/# /'
