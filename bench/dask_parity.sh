#!/usr/bin/env bash
# jfp-train-dask (2-worker LocalCluster) against jfp train on the same split: PR-AUC after the cutoff, scored
# by jfp eval, per training seed, on synthetic workloads; and the 1-worker deterministic run, which must
# give jfp train's model exactly. One run of either trainer moves with its seed (row/feature sampling, and
# for Dask which worker holds which rows), so the goal is on the mean over seeds (docs/model.md).
#
#   bench/dask_parity.sh [--quick]     full: 150,000 jobs x 2 workloads x 5 seeds; --quick: 20,000 x 1 x 2
# Last line: one JSON object.
set -euo pipefail
: "${JFP_BUILDDIR:?set JFP_BUILDDIR (bench/run does)}"
: "${JFP_SRCDIR:?set JFP_SRCDIR (bench/run does)}"
export JFP="$JFP_BUILDDIR/tools/jfp"  # jfp-train-dask runs $JFP finish-bundle
DASK="$JFP_SRCDIR/tools/train/jfp-train-dask"
jobs=150000 workloads="5 23" seeds="0 1 2 3 4"
[ "${1:-}" = --quick ] && { jobs=20000 workloads="5" seeds="0 1"; }
W=$(mktemp -d /tmp/jfp-bench-dask.XXXXXX)
trap 'rm -rf "$W"' EXIT

pr_auc() {  # pr_auc MODEL CUTOFF
    "$JFP" eval --db "$W/h.db" --model "$1" --after "$2" --json |
        /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["model"]["pr_auc"])'
}
field() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }

rows=""
printf '  %-9s %-5s %10s %10s %9s %8s %8s\n' workload seed local dask diff local_s dask_s
for ws in $workloads; do
    rm -rf "$W/h.db"* "$W/features"
    "$JFP" synth --jobs "$jobs" --seed "$ws" -q -o "$W/s.txt"
    "$JFP" ingest --trusted-export -q --db "$W/h.db" "$W/s.txt"
    "$JFP" export-features -q --db "$W/h.db" --train-fraction 0.7 --rows-per-part $((jobs / 5)) -o "$W/features"
    for seed in $seeds; do
        t0=$(date +%s.%N)
        "$JFP" train --db "$W/h.db" --out "$W/l.json" --train-fraction 0.7 --nthread 2 --seed "$seed" --no-progress >/dev/null
        t1=$(date +%s.%N)
        "$DASK" --features "$W/features" --out "$W/d.json" --workers 2 --seed "$seed" >/dev/null 2>"$W/dask.err" ||
            { cat "$W/dask.err" >&2; exit 1; }
        t2=$(date +%s.%N)
        cut=$(field "$W/l.json" "['training']['cutoff']")
        l=$(pr_auc "$W/l.json" "$cut"); d=$(pr_auc "$W/d.json" "$cut")
        line=$(/usr/bin/python3 -c "import sys; l,d,t0,t1,t2=map(float,sys.argv[1:]); print(f'{l} {d} {d-l} {t1-t0:.1f} {t2-t1:.1f}')" "$l" "$d" "$t0" "$t1" "$t2")
        rows="$rows$ws $seed $line\n"
        # shellcheck disable=SC2086
        printf '  %-9s %-5s %10.4f %10.4f %+9.4f %8s %8s\n' "$ws" "$seed" $line
    done
    # Deterministic settings and one worker: the same trees as jfp train.
    "$JFP" train --db "$W/h.db" --out "$W/l1.json" --train-fraction 0.7 --nthread 2 --subsample 1 --colsample 1 --no-progress >/dev/null
    "$DASK" --features "$W/features" --out "$W/d1.json" --workers 1 --subsample 1 --colsample 1 >/dev/null 2>"$W/dask.err" ||
        { cat "$W/dask.err" >&2; exit 1; }
    cut=$(field "$W/l1.json" "['training']['cutoff']")
    rows="$rows$ws exact $(pr_auc "$W/l1.json" "$cut") $(pr_auc "$W/d1.json" "$cut")\n"
done

printf '%b' "$rows" | /usr/bin/python3 -c '
import json, statistics, sys
runs, exact = [], []
for line in sys.stdin.read().split("\n"):
    f = line.split()
    if len(f) >= 4 and f[1] == "exact":
        exact.append(abs(float(f[2]) - float(f[3])))
    elif len(f) >= 7:
        runs.append((f[0], *map(float, f[2:7])))
local = [r[1] for r in runs]; dask = [r[2] for r in runs]
spread = max(max(r[1] for r in runs if r[0] == w) - min(r[1] for r in runs if r[0] == w) for w in {r[0] for r in runs})
out = {"dask_pr_auc_mean_diff": statistics.mean(dask) - statistics.mean(local),
       "dask_pr_auc_mean_abs_diff": abs(statistics.mean(dask) - statistics.mean(local)),
       "dask_pr_auc_max_abs_diff_one_run": max(abs(r[3]) for r in runs),
       "local_pr_auc_seed_spread": spread,
       "dask_1_worker_exact_max_abs_diff": max(exact),
       "local_train_s_mean": statistics.mean(r[4] for r in runs), "dask_train_s_mean": statistics.mean(r[5] for r in runs),
       "dask_runs": len(runs)}
print("  mean PR-AUC: jfp train %.4f, jfp-train-dask %.4f (difference %+.4f); jfp train alone moves %.4f with its seed;"
      " 1 worker, deterministic: |difference| %.2g" % (statistics.mean(local), statistics.mean(dask),
      out["dask_pr_auc_mean_diff"], spread, out["dask_1_worker_exact_max_abs_diff"]))
print(json.dumps(out))
'
