#!/usr/bin/env bash
# Training beyond one machine: jfp export-features, then tools/train/jfp-train-dask on a Dask LocalCluster. With
# one worker and deterministic settings it trains jfp train's model exactly (same rounds, threshold and
# scores); with two its bundle loads in jfp eval (reference rows reproduce in jfp's tree walk), is useful
# after the cutoff, and a real slurmctld loads it and scores submissions with it. The Python trainer's
# threshold and metrics are checked against jfp's own on the same scores. The PR-AUC comparison over seeds
# is bench/dask_parity.sh's (one run of either trainer moves with its seed). A training that stalls (a worker
# kept busy) is abandoned after --stall-timeout and trained again on a new LocalCluster; so is one whose
# worker is killed mid-training.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
if ! /usr/bin/python3 -c 'import dask.dataframe, distributed, xgboost.dask, pandas' 2>/dev/null; then
    why="the Python stack of jfp-train-dask is missing (python3-dask python3-distributed python3-xgboost python3-pandas)"
    if [ -n "${JFP_REQUIRE_CLUSTER:-}" ]; then echo "ERROR: $why; scripts/install-deps installs it" >&2; exit 99; fi
    echo "SKIP: $why"; exit 77
fi

new_site
db="$W/history.db"
export JFP  # jfp-train-dask runs $JFP finish-bundle: the threshold and the bundle are jfp's

# ---- the export: CSV parts and a manifest; a second export into it is refused, not merged
"$JFP" export-features --db "$db" --train-fraction 0.7 --rows-per-part 4000 -o "$W/features" | sed 's/^/# /'
parts=$(ls "$W/features"/part-*.csv | wc -l)
[ "$parts" -ge 3 ] || fail "expected several CSV parts of 4000 rows, found $parts"
if out=$("$JFP" export-features --db "$db" --train-fraction 0.7 -o "$W/features" 2>&1); then
    fail "a second export into the same directory was accepted"
fi
expect_contains "$out" "--replace" "the refusal says how to overwrite"
[ "$(ls "$W/features"/part-*.csv | wc -l)" = "$parts" ] || fail "the refused export changed the directory"

# ---- bad input to the trainer: clear errors, exit 1, nothing written
if out=$("$JFP_TRAIN_DASK" --features "$W" --out "$W/none.json" 2>&1); then fail "a directory without a manifest was accepted"; fi
expect_contains "$out" "jfp export-features" "no-manifest message names the command that writes one"
cp -r "$W/features" "$W/cut"
head -n 100 "$W/cut/part-00001.csv" >"$W/cut/part-00001.csv.new" && mv "$W/cut/part-00001.csv.new" "$W/cut/part-00001.csv"
if out=$("$JFP_TRAIN_DASK" --features "$W/cut" --out "$W/none.json" 2>&1); then fail "a truncated export was accepted"; fi
expect_contains "$out" "incomplete or was changed" "truncated export"
[ ! -e "$W/none.json" ] || fail "a failed training wrote a bundle"
rm -rf "$W/cut"

# ---- the two trainers on the same split. One worker with deterministic settings must give jfp train's
# model exactly; two workers a model as good within the noise of one run (the mean over seeds is
# bench/dask_parity.sh's: docs/model.md).
det="--subsample 1 --colsample 1"
tree="--kind tree"  # jfp train: the tree model, whichever the rules would choose (jfp-train-dask writes only trees)
"$JFP" train --db "$db" --out "$W/local.json" --train-fraction 0.7 --nthread 2 $det $tree --no-progress | sed 's/^/# local: /'
"$JFP_TRAIN_DASK" --features "$W/features" --out "$W/dask1.json" --workers 1 $det 2>"$W/dask.err" >/dev/null ||
    { cat "$W/dask.err" >&2; fail "jfp-train-dask (1 worker) failed"; }
t0=$SECONDS
"$JFP_TRAIN_DASK" --features "$W/features" --out "$W/dask.json" --workers 2 --stall-timeout 120 2>"$W/dask.err" |
    sed 's/^/# dask: /' || { cat "$W/dask.err" >&2; fail "jfp-train-dask failed"; }
note "jfp-train-dask on 2 workers took $((SECONDS - t0)) s (LocalCluster start included)"
! grep "training again" "$W/dask.err" >/dev/null || note "(its first training stalled: the tool trained again, as it should)"

# ---- a stalled training (one worker kept busy, as a hung worker is: xgboost.dask's peers wait on it) is
# abandoned after --stall-timeout with its LocalCluster, and trained again on a new one
t0=$SECONDS
JFP_TRAIN_DASK_FAULT=stall-once "$JFP_TRAIN_DASK" --features "$W/features" --out "$W/stalled.json" --workers 2 \
    --stall-timeout 20 2>"$W/stall.err" >/dev/null || { cat "$W/stall.err" >&2; fail "a stalled training was not retried"; }
expect_contains "$(cat "$W/stall.err")" "a training gave no result in 20 s; training again on a new local cluster" \
    "the stalled training's message"
python3 -c "import json,sys; b = json.load(open(sys.argv[1])); assert b['failure_model'] and b['class_model']" \
    "$W/stalled.json" || fail "the retried training wrote no complete bundle"
note "a stalled training: abandoned after 20 s and trained again, $((SECONDS - t0)) s in all"
# A worker that dies mid-training (SIGKILL, as the kernel's OOM killer sends): its peer's allreduce fails at
# once (XGBoost 3.x: "Poll error condition", CI's 26.05 leg met it) or waits (1.7); either way the training is
# done again on a new LocalCluster.
t0=$SECONDS
JFP_TRAIN_DASK_FAULT=kill-worker-once "$JFP_TRAIN_DASK" --features "$W/features" --out "$W/killed.json" --workers 2 \
    --stall-timeout 60 2>"$W/kill.err" >/dev/null || { cat "$W/kill.err" >&2; fail "a training whose worker died was not retried"; }
expect_contains "$(cat "$W/kill.err")" "(fault injection) killing worker" "the fault was injected"
expect_contains "$(grep '^jfp-train-dask: a training' "$W/kill.err")" "training again on a new local cluster" \
    "the message of a training whose worker died"
python3 -c "import json,sys; b = json.load(open(sys.argv[1])); assert b['failure_model'] and b['class_model']" \
    "$W/killed.json" || fail "the training after a worker died wrote no complete bundle"
note "a worker killed mid-training: $(grep -o "said: [A-Za-z ]*\|gave no result in [0-9]* s" "$W/kill.err" | head -1); trained again, $((SECONDS - t0)) s in all"
# The same model with a threshold that reaches its target precision: both threshold rules get checked.
"$JFP" train --db "$db" --out "$W/local-p50.json" --train-fraction 0.7 --nthread 2 $det $tree --target-precision 0.5 \
    --no-progress >/dev/null
cutoff=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['training']['cutoff'])" "$W/local.json")
for m in local dask1 dask; do
    "$JFP" eval --db "$db" --model "$W/$m.json" --after "$cutoff" --json >"$W/eval-$m.json" ||
        fail "jfp eval refused the $m bundle"
done

# -B: loading the tool as a module must not leave a __pycache__ beside it (in the source tree).
/usr/bin/python3 -B - "$W" "$JFP_TRAIN_DASK" <<'PY'
import importlib.machinery, importlib.util, json, os, sys
import numpy as np, pandas as pd, xgboost as xgb

w, tool = sys.argv[1], sys.argv[2]
local, dask1, dask = (json.load(open(os.path.join(w, f"{m}.json"))) for m in ("local", "dask1", "dask"))
el, e1, ed = (json.load(open(os.path.join(w, f"eval-{m}.json"))) for m in ("local", "dask1", "dask"))

# Same split, same rows.
for b in (dask1, dask):
    assert b["training"]["rows"] == local["training"]["rows"], (b["training"]["rows"], local["training"]["rows"])
    for k in ("cutoff", "validation_start", "train_window", "validation_window"):
        assert b["training"][k] == local["training"][k], k
    assert b["training"]["trainer"]["engine"] == "xgboost.dask"
    assert b["feature_schema"] == local["feature_schema"]
    assert len(b["reference_rows"]) == 32 and b["class_model"] is not None
assert dask["training"]["trainer"]["cluster"]["local_workers"] == 2
assert el["jobs"] == ed["jobs"] == e1["jobs"] and el["jobs"] > 1000, (el["jobs"], ed["jobs"])

# One worker: jfp train's model, so the same rounds, threshold, metrics and scores after the cutoff.
assert dask1["training"]["best_iteration"] == local["training"]["best_iteration"]
assert abs(dask1["threshold"] - local["threshold"]) < 1e-7, (dask1["threshold"], local["threshold"])
for k in ("pr_auc", "roc_auc", "precision", "recall"):
    assert abs(dask1["validation_metrics"][k] - local["validation_metrics"][k]) < 1e-9, k
    assert abs(e1["model"][k] - el["model"][k]) < 1e-9, (k, e1["model"][k], el["model"][k])
print(f"# 1 worker, deterministic: the same model as jfp train ({local['training']['best_iteration']} rounds, "
      f"PR-AUC after the cutoff {el['model']['pr_auc']:.4f} both)")

# Two workers: a useful model on the same jobs (one run moves with its seed as jfp train's does).
base = ed["failures"] / ed["jobs"]
print(f"# 2 workers: after the cutoff ({ed['jobs']} jobs, {base:.1%} failed) PR-AUC {ed['model']['pr_auc']:.4f}, "
      f"ROC-AUC {ed['model']['roc_auc']:.4f}; jfp train {el['model']['pr_auc']:.4f} / {el['model']['roc_auc']:.4f}")
assert ed["model"]["roc_auc"] > 0.75 and ed["model"]["pr_auc"] > 2 * base, ed["model"]

# The threshold is jfp's: the tool has no rule of its own, and jfp finish-bundle, given jfp train's own model's
# scores on the exported validation rows, chooses jfp train's threshold and metrics.
loader = importlib.machinery.SourceFileLoader("jfp_train_dask", tool)
spec = importlib.util.spec_from_loader("jfp_train_dask", loader)
mod = importlib.util.module_from_spec(spec)
loader.exec_module(mod)
assert not hasattr(mod, "choose_threshold") and not hasattr(mod, "write_atomically")
manifest = json.load(open(os.path.join(w, "features", "manifest.json")))
names = manifest["feature_schema"]["names"]
frames = [pd.read_csv(os.path.join(w, "features", p), dtype={n: "float32" for n in names}, keep_default_na=False,
                      na_values={n: [""] for n in names}, float_precision="round_trip") for p in manifest["parts"]]
val = pd.concat(frames)
val = val[val["split"] == "validation"]
assert len(val) == local["training"]["rows"]["validation"]
booster = xgb.Booster()
booster.load_model(bytearray(json.dumps(local["failure_model"]).encode()))
scores = booster.predict(xgb.DMatrix(val[names].to_numpy(np.float32), missing=np.nan)).astype(np.float32)
labels = val["label"].to_numpy().astype(np.int64)
p50 = json.load(open(os.path.join(w, "local-p50.json")))
assert p50["threshold_choice"]["target_reached"], "precision 0.5 should be reachable"
for bundle in (local, p50):
    draft = {k: v for k, v in bundle.items() if k not in ("threshold", "validation_metrics")}
    draft["threshold_choice"] = {"source": "validation"}
    out = os.path.join(w, "finished.json")
    finished = mod.finish_bundle(np, os.environ["JFP"], draft, scores, labels, out)
    assert abs(finished["threshold"] - bundle["threshold"]) < 1e-7, (finished["threshold"], bundle["threshold"])
    assert finished["threshold_choice"]["target_reached"] == bundle["threshold_choice"]["target_reached"]
    for k in ("pr_auc", "roc_auc", "precision", "recall", "f1"):
        assert abs(finished["validation_metrics"][k] - bundle["validation_metrics"][k]) < 1e-9, k
print(f"# jfp finish-bundle on jfp train's scores of {len(val)} validation rows: its threshold "
      f"{finished['threshold']:.4f}, PR-AUC {finished['validation_metrics']['pr_auc']:.4f}")
PY

# ---- a real slurmctld loads the Dask-trained bundle and scores with it
dask_id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['model_id'])" "$W/dask.json")
export JFP_CONF="model = $W/dask.json
store = $db
mode = annotate"
cluster_start
wait_log "loaded history of"
grep -q "loaded model $dask_id" "$CTLD_LOG" || fail "slurmctld's log does not show model $dask_id loaded"
d=$(submit --hold -J doomed --wrap true)
s=$(submit --hold -J steady --wrap true)
cd_=$(comment_of "$d"); cs=$(comment_of "$s")
[ "$(model_of "$cd_")" = "$dask_id" ] || fail "the annotation names model '$(model_of "$cd_")', expected $dask_id: $cd_"
pd=$(p_of "$cd_"); ps=$(p_of "$cs")
note "the Dask-trained model in slurmctld: p(doomed)=$pd p(steady)=$ps"
awk -v a="$pd" -v b="$ps" 'BEGIN { exit !(a > b + 0.05) }' || fail "doomed ($pd) should score clearly above steady ($ps)"
scancel "$d" "$s"
