#!/usr/bin/env bash
# jfp monitor on a real cluster run: the plugin scores real jobs (feature log on), they run and complete
# or fail, their outcomes are ingested back with `jfp ingest --from-sacct`, and `jfp monitor` joins the two:
# live precision and recall at the deployed threshold, calibration, drift, and exit 2 on alert.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster

start_site_cluster "mode = annotate"
base=$SITE_CONF

# The deployed threshold: halfway between what 'doomed' and 'steady' score.
score_doomed_and_steady
scancel "$DOOMED_ID" "$STEADY_ID"
mid=$MID
set_conf "$base
mode = annotate
threshold = $mid"
sleep 1
since=$(date +%Y-%m-%dT%H:%M:%S)
sleep 1

ids=()
for i in 1 2 3 4 5 6; do
    ids+=("$(submit -J doomed -o /dev/null --wrap 'exit 1')")
    ids+=("$(submit -J steady -o /dev/null --wrap true)")
done
for id in "${ids[@]}"; do wait_job "$id" 120 >/dev/null; done
wait_until 60 "the feature log did not reach 12 rows scored at threshold $mid" \
    '[ "$(sqlite3 "$W/features.db" "SELECT count(*) FROM scored WHERE threshold > $mid - 0.00005 AND threshold < $mid + 0.00005" 2>/dev/null || echo 0)" -ge 12 ]'
wait_accounting_complete
"$JFP" ingest --from-sacct --db "$W/history.db" >/dev/null
# The plugin follows the ingest by applying only what it changed: these jobs ended after all it had.
wait_log "applied [0-9]* changed jobs from $W/history.db"
grep -q "loading it whole" "$CTLD_LOG" && fail "an ingest of jobs that just ended made the plugin reload all history: $(grep -m1 'loading it whole' "$CTLD_LOG")"

rc=0
"$JFP" monitor --db "$W/history.db" --feature-log "$W/features.db" --model "$W/model.json" --since "$since" \
    --period day --min-flagged 1 --max-psi 1000 --json >"$W/mon.json" || rc=$?
expect_eq "$rc" 0 "monitor exit status with nothing to alert on"
python3 - "$W/mon.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
t = m["total"]
assert t["scored"] == 12, f"scored {t['scored']}, expected the 12 jobs"
assert t["with_outcome"] == 12, f"{t['with_outcome']} with an outcome, expected 12"
assert t["failed"] == 6, f"failed {t['failed']}, expected 6"
assert t["flagged"] == 6 and t["true_positives"] == 6, f"flagged {t['flagged']}, caught {t['true_positives']}: expected the 6 doomed"
assert t["precision"] == 1.0 and t["recall"] == 1.0, t
assert abs(t["observed_failure_rate"] - 0.5) < 1e-9, t
assert 0 < t["mean_predicted"] < 1, t
assert len(m["periods"]) >= 1 and sum(p["scored"] for p in m["periods"]) == 12, m["periods"]
assert 0 < len(m["drift"]) < 52 and all(d["psi"] >= 0 for d in m["drift"]), "one PSI per feature the model uses"
assert not any(d["feature"].startswith("script_") for d in m["drift"]), "script features are unknown in training"
assert m["alerts"] == [], m["alerts"]
print(f"# monitor: 12 scored, precision {t['precision']}, recall {t['recall']}, predicted {t['mean_predicted']:.3f} "
      f"vs observed {t['observed_failure_rate']:.3f}; largest drift {m['drift'][0]['feature']} {m['drift'][0]['psi']:.2f}")
PY
# Alerts: a precision target the run cannot meet, and the default drift limit (12 of root's jobs are
# nothing like the synthetic training window).
rc=0
out=$("$JFP" monitor --db "$W/history.db" --feature-log "$W/features.db" --model "$W/model.json" --since "$since" \
    --min-flagged 1 --min-precision 1.01 --max-psi 1000) || rc=$?
expect_eq "$rc" 2 "monitor exit status below the precision target"
expect_contains "$out" "ALERT: live precision 1.000 is below 1.010 (6 of 6 flagged jobs failed)" "precision alert"
rc=0
out=$("$JFP" monitor --db "$W/history.db" --feature-log "$W/features.db" --model "$W/model.json" --since "$since") || rc=$?
expect_eq "$rc" 2 "monitor exit status past the drift limit"
expect_contains "$out" "drifted: PSI" "drift alert"
expect_contains "$out" "too few to judge precision" "too few flagged jobs are not judged"
printf '%s\n' "$out" | sed 's/^/# /'

# jfp report takes the same inputs and adds the live section.
"$JFP" report --db "$W/history.db" --model "$W/model.json" --after 2024-01-10 --feature-log "$W/features.db" \
    --since "$since" -o "$W/report.html" >/dev/null
grep -q '<table id="live">' "$W/report.html" || fail "the report has no live section"
grep -q '<tr><td>all</td><td>12</td><td>12</td><td>6</td><td>6</td><td>1.000</td><td>1.000</td>' "$W/report.html" ||
    fail "the report's live totals differ from jfp monitor's: $(grep -o '<tr><td>all</td>[^/]*' "$W/report.html")"
grep -q '<table id="drift">' "$W/report.html" || fail "the report has no drift table"

# What the plugin scores after applying the ingest equals what a full load of the same store gives:
# the same two jobs scored now, then with a copy of the store (a new path: loaded whole).
p_inc_d=$(p_of "$(comment_of "$(submit --hold -J doomed --wrap true)")")
p_inc_s=$(p_of "$(comment_of "$(submit --hold -J steady --wrap true)")")
sqlite3 "$W/history.db" ".backup '$W/copy.db'"
set_conf "$base
mode = annotate
store = $W/copy.db"
wait_log "loaded history of [0-9]* jobs .* from $W/copy.db"
p_full_d=$(p_of "$(comment_of "$(submit --hold -J doomed --wrap true)")")
p_full_s=$(p_of "$(comment_of "$(submit --hold -J steady --wrap true)")")
expect_eq "$p_full_d" "$p_inc_d" "doomed's p after the incremental update vs a full load"
expect_eq "$p_full_s" "$p_inc_s" "steady's p after the incremental update vs a full load"
note "incremental update vs full load: doomed p=$p_inc_d / $p_full_d, steady p=$p_inc_s / $p_full_s"
