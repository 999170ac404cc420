#!/usr/bin/env bash
# job_submit/jfp scoring real submissions in a real slurmctld: annotate, warn, reject, override,
# exemptions, per-partition thresholds, hot reload, arrays, het jobs, srun/salloc, big and binary
# scripts, awkward comments, 550 concurrent submissions, the feature log, and training/serving parity.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster

start_site_cluster "mode = annotate"
base=$SITE_CONF
model1=$(grep -o 'loaded model [^ ]*' "$CTLD_LOG" | head -n1 | cut -d' ' -f3)
cp "$W/model.json" "$W/model1.json"  # for jfp simulate at the end: the model the early jobs were scored with
note "model $model1 loaded; $(grep -o 'loaded history of [0-9]* jobs' "$CTLD_LOG" | tail -n1)"
ids=()

# ---- annotate: the user's comment survives byte for byte, the annotation follows it
user_comment=$'keep | this "quoted" \'text\''
id=$(submit --hold -J steady --comment "$user_comment" --wrap true); early=("$id")
c=$(comment_of "$id")
expect_contains "$c" "$user_comment jfp:p=" "annotated comment"
[ "$(model_of "$c")" = "$model1" ] || fail "annotation names model '$(model_of "$c")', expected $model1: $c"
admin=$(scontrol show job "$id" | grep -o 'AdminComment=[^ ]*' | sed 's/^AdminComment=//')
[[ "$admin" =~ ^jfp:t=[0-9a-f]{16}$ ]] || fail "admin_comment should carry the join token, got '$admin'"
nl_id=$(submit --hold -J steady --comment $'line one\nline two | jfp:p=0.001,class=FAILED,model=forged' --wrap true)
early+=("$nl_id")
expect_contains "$(comment_of "$nl_id")" "jfp;p=0.001" "forged annotation neutralised"
[ "$(model_of "$(comment_of "$nl_id")")" = "$model1" ] || fail "the last annotation must be jfp's own"

# ---- the model tells doomed from steady: threshold halfway between
score_doomed_and_steady
early+=("$DOOMED_ID" "$STEADY_ID")
doomed_token=$(token_of_job "$DOOMED_ID")
steady_token=$(token_of_job "$STEADY_ID")
early_tokens=$(for id in "${early[@]}"; do token_of_job "$id"; done | paste -sd,)
mid=$MID
sleep 1  # whole seconds: the early jobs' submit times lie strictly before parity_until
parity_until=$(date +%Y-%m-%dT%H:%M:%S)
sleep 1

# ---- warn: message on sbatch's stderr, job accepted
set_conf "$base
mode = warn
threshold = $mid"
out=$(sbatch --hold -J doomed --wrap true 2>&1) || fail "warn mode must accept the job: $out"
expect_contains "$out" "sbatch: jfp: warning: this job $(likely "$PD")" "warning on sbatch's stderr"
expect_contains "$out" "'doomed'" "the warning names the job"
expect_contains "$out" "Submitted batch job" "warned job accepted"
ids+=("$(echo "$out" | sed -n 's/^Submitted batch job //p')")
out=$(sbatch --hold -J steady --wrap true 2>&1)
case "$out" in *jfp:*) fail "steady must not be warned: $out" ;; esac
ids+=("$(echo "$out" | sed -n 's/^Submitted batch job //p')")

# ---- root is warned, not rejected, by default (reject_privileged)
set_conf "$base
mode = reject
threshold = $mid"
out=$(sbatch --hold -J doomed --wrap true 2>&1) || fail "reject mode refused root's doomed without reject_privileged: $out"
expect_contains "$out" "sbatch: jfp: warning: this job $(likely "$PD")" "root warned"
ids+=("$(echo "$out" | sed -n 's/^Submitted batch job //p')")
wait_log "user=root name='doomed' .*action=warn privileged"

# ---- reject: message, non-zero exit; the override token; a first run is not rejected (root is subject
# to it from here on)
base="$base
reject_privileged = yes"
set_conf "$base
mode = reject
threshold = $mid
allow_override = yes"
if out=$(sbatch --hold -J doomed --wrap true 2>&1); then fail "reject mode accepted doomed: $out"; fi
expect_contains "$out" "sbatch: error: jfp: job rejected: it $(likely "$PD")" "rejection message"
expect_contains "$out" "your last 6 runs of 'doomed' failed" "the reason in plain words"
expect_contains "$out" "add 'jfp:override' to --comment" "how to override"
note "rejected: $(echo "$out" | head -n1 | cut -c1-200)"
out=$(sbatch --hold -J doomed --comment 'I fixed it jfp:override' --wrap true 2>&1) || fail "override refused: $out"
expect_contains "$out" "Submitted anyway because of 'jfp:override'" "override acknowledged"
ids+=("$(echo "$out" | sed -n 's/^Submitted batch job //p')")
grep -q "action=warn override" "$CTLD_LOG" || fail "the override is not in slurmctld's log"
out=$(sbatch --hold -J steady --wrap true 2>&1) || fail "steady rejected: $out"
ids+=("$(echo "$out" | sed -n 's/^Submitted batch job //p')")

# ---- exemptions
set_conf "$base
mode = reject
threshold = $mid
exempt_users = root"
out=$(sbatch --hold -J doomed --wrap true 2>&1) || fail "exempt user rejected: $out"
ids+=("$(echo "$out" | sed -n 's/^Submitted batch job //p')")

# ---- per-partition threshold: nothing rejected in debug, everything in long
set_conf "$base
mode = reject
threshold = 1.0
threshold.partition.long = 0.0
min_history = 0"
out=$(sbatch --hold -J doomed --wrap true 2>&1) || fail "threshold 1.0 in debug rejected: $out"
ids+=("$(echo "$out" | sed -n 's/^Submitted batch job //p')")
if out=$(sbatch --hold -p long -J steady --wrap true 2>&1); then fail "partition long (threshold 0) accepted: $out"; fi

# ---- hot reload of a new model while slurmctld runs
set_conf "$base
mode = annotate"
site_jfp train --db "$W/history.db" --out "$W/model.json" --nthread 2 --no-progress --kind rules >/dev/null
model2=$model1
new_model_seen() {  # submits a job; true once its annotation names another model than the first
    local id
    id=$(submit --hold -J steady --wrap true); ids+=("$id")
    model2=$(model_of "$(comment_of "$id")")
    [ "$model2" != "$model1" ]
}
wait_until 60 "the new model was not picked up" new_model_seen
note "hot reload: $model1 -> $model2"

# ---- the new model is a rules bundle (what jfp train writes when no tree model beats the rules): the
# plugin says which rule, rejects by it and gives the history it read as the reason
grep -q "loaded model $model2 (the rule '" "$CTLD_LOG" || fail "no load line for the rules bundle: $(grep 'loaded model' "$CTLD_LOG" | tail -n1)"
set_conf "$base
mode = reject"
if out=$(sbatch --hold -J doomed --wrap true 2>&1); then fail "the rules bundle accepted doomed: $out"; fi
expect_contains "$out" "your last 6 runs of 'doomed' failed" "the rule's reason"
out=$(sbatch --hold -J steady --wrap true 2>&1) || fail "the rules bundle rejected steady: $out"
ids+=("$(echo "$out" | sed -n 's/^Submitted batch job //p')")
note "rules bundle: $(grep -o "loaded model $model2 ([^,]*" "$CTLD_LOG" | head -n1)"
set_conf "$base
mode = annotate"

# ---- arrays, het jobs, big and binary scripts: all annotated
id=$(submit --hold --array=1-5 -J arr --wrap true); ids+=("$id")
expect_contains "$(comment_of "$id")" "jfp:p=" "array job annotated"
het=$(submit --hold "$JFP_SRCDIR/test/fixtures/het-job.sh"); ids+=("$het")
for comp in 0 1; do
    expect_contains "$(squeue -h -j "$het+$comp" -o %k)" "jfp:p=" "het component $comp annotated"
done
{ echo '#!/bin/bash'; head -c 4000000 /dev/zero | tr '\0' '#'; echo; echo true; } >"$W/big.sh"
id=$(submit --hold -J big "$W/big.sh"); ids+=("$id")
expect_contains "$(comment_of "$id")" "jfp:p=" "4 MB script annotated"
{ echo '#!/bin/bash'; head -c 20000 /dev/urandom | tr -d '\000\r'; echo; } >"$W/binary.sh"
id=$(submit --hold -J binary "$W/binary.sh"); ids+=("$id")
expect_contains "$(comment_of "$id")" "jfp:p=" "binary script annotated"

# ---- 550 concurrent submissions from 10 clients: none lost, all annotated
for client in $(seq 1 10); do
    ( for i in $(seq 1 55); do sbatch --parsable --hold -J "burst_$client" --comment "c$client $i" --wrap true; done ) \
        >"$W/burst.$client" 2>"$W/burst.$client.err" &
done
wait
burst_ids=$(cat "$W"/burst.[0-9]* | cut -d';' -f1)
n=$(echo "$burst_ids" | grep -c '^[0-9]')
expect_eq "$n" 550 "accepted concurrent submissions"
annotated=$(squeue -h -o '%j %k' | grep '^burst_' | grep -c 'jfp:p=')
expect_eq "$annotated" 550 "annotated concurrent submissions"
grep -v '^$' "$W"/burst.*.err && fail "sbatch printed errors during the burst"

# ---- srun and salloc (no script), run to completion
# The ids from the jobs themselves: slurmdbd may not have a job's record (or only its "allocation" row)
# when srun and salloc return.
sid=$(srun -J interactive_srun -n1 sh -c 'echo "$SLURM_JOB_ID"' | tr -dc '0-9') || fail "srun failed"
aid=$(salloc -J interactive_salloc -n1 sh -c 'echo "$SLURM_JOB_ID"' 2>/dev/null | tr -dc '0-9') || fail "salloc failed"
[ -n "$sid" ] && [ -n "$aid" ] || fail "srun or salloc did not give its job id (srun '$sid', salloc '$aid')"
wait_job "$sid" >/dev/null
wait_job "$aid" >/dev/null
expect_contains "$(sacct_field "$sid" Comment)" "jfp:p=" "srun job annotated"
expect_contains "$(sacct_field "$aid" Comment)" "jfp:p=" "salloc job annotated"

# ---- the feature log holds a row per scored job
scancel $burst_ids "${ids[@]}" 2>/dev/null || true
# The early jobs run now (held, cancelled jobs never become eligible and sacct leaves them out).
scontrol release "${early[@]}"
for id in "${early[@]}"; do wait_job "$id" 120 >/dev/null; done
sleep 1
rows=$(sql_read "$W/features.db" "SELECT count(*) FROM scored")
[ "$rows" -ge 570 ] || fail "feature log has $rows rows, expected at least 570"
grep -q "internal fault" "$CTLD_LOG" && fail "the plugin reported an internal fault: $(grep 'internal fault' "$CTLD_LOG" | head -n1)"

# ---- the metrics file: Prometheus' text format, as prometheus_client's parser reads it (where installed),
# counters that match what happened, and jfp status reading it
set_conf "$base
mode = annotate
metrics_file = $W/jfp.prom
metrics_interval = 1"
wait_until 30 "no metrics file" '[ -s "$W/jfp.prom" ]'
/usr/bin/python3 - "$W/jfp.prom" "$model2" "$rows" <<'PY'
import sys
text, model, rows = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3])
try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    text_string_to_metric_families = None
    print("# prometheus_client is not installed here: the file was checked by its lines only")
samples = {}
if text_string_to_metric_families:
    for fam in text_string_to_metric_families(text):  # raises on a malformed line
        for s in fam.samples:
            samples[(s.name, tuple(sorted((k, v) for k, v in s.labels.items() if k != "cluster")))] = s.value
else:
    assert "# EOF" not in text, "an OpenMetrics-only line, which node_exporter refuses"
    for line in text.splitlines():
        if line.startswith("#"): continue
        name_labels, value = line.rsplit(" ", 1)
        name, _, labels = name_labels.partition("{")
        kv = tuple(sorted(tuple(p.split("=", 1)) for p in labels.rstrip("}").split(",") if p and not p.startswith("cluster=")))
        samples[(name, tuple((k, v.strip('"')) for k, v in kv))] = float(value)
scored = samples[("jfp_jobs_total", (("decision", "scored"),))]
assert scored >= rows, f"jfp_jobs_total{{decision=scored}} {scored} < the feature log's {rows} rows"
assert samples[("jfp_jobs_total", (("decision", "rejected"),))] >= 1, "the rejections are not counted"
assert samples[("jfp_submit_seconds_count", ())] >= scored, "the latency histogram counts fewer submissions than were scored"
info = [k for k in samples if k[0] == "jfp_model_info"]
assert info and ("model", model) in info[0][1], f"jfp_model_info names {info}, expected model {model}"
assert samples[("jfp_history_jobs", ())] > 20000, "the history size"
print(f"# metrics: {len(samples)} samples parsed; scored {scored:.0f}, model {model}")
PY
"$JFP" status --conf "$CLUSTER_DIR/etc/jfp.conf" >"$W/status.txt" || fail "jfp status: $(cat "$W/status.txt")"
expect_contains "$(cat "$W/status.txt")" "model     $model2" "jfp status names the model"
note "jfp status: $(sed -n 4p "$W/status.txt" | cut -c1-150)"

# ---- training/serving parity: what the plugin logged equals what sacct rebuilds (held jobs
# submitted before any test job ended, so both saw the same history)
wait_accounting_complete
sacct --allusers --parsable2 $SACCT_WINDOW --format="$SACCT_FORMAT" >"$W/export.txt"
cp "$W/history.db" "$W/parity.db"
"$JFP" ingest --trusted-export -q --strict --db "$W/parity.db" "$W/export.txt"
"$JFP" parity --db "$W/parity.db" --feature-log "$W/features.db" --before "$parity_until" | tee "$W/parity.txt"
"$JFP" parity --db "$W/parity.db" --feature-log "$W/features.db" --before "$parity_until" --json >"$W/parity.json"
/usr/bin/python3 - "$W/parity.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["jobs"] == 4, f"expected the 4 early jobs, got {p['jobs']}"
script_only = {n for n in p["features"] if n.startswith("script_")}
bad = {n: f for n, f in p["features"].items() if f["differ"] and n not in script_only}
assert not bad, "features differ between plugin and sacct: " + json.dumps(bad, indent=1)
print(f"# parity: {p['jobs']} jobs, every non-script feature agrees")
PY

# ---- jfp simulate agrees with the plugin: the early jobs replayed through the policy they met (annotate),
# and through warn at the midpoint threshold, give the scores and decisions the plugin logged
printf '%s\nmode = annotate\n' "$SITE_CONF" >"$W/sim.conf"
sim() { "$JFP" simulate --conf "$W/sim.conf" --db "$W/parity.db" --model "$W/model1.json" --after 1970-01-01 --jobs "$1" "${@:2}" >/dev/null; }
sim "$W/sim-annotate.csv"
printf 'threshold = %s\n' "$mid" >>"$W/sim.conf"
sim "$W/sim-warn.csv" --mode warn
sql_read -csv "$W/features.db" "SELECT token, p_fail, action, user, name FROM scored" >"$W/logged.csv"
/usr/bin/python3 - "$W/logged.csv" "$W/sim-annotate.csv" "$W/sim-warn.csv" "$mid" "$doomed_token" "$steady_token" "$early_tokens" <<'PY'
import csv, sys
early = set(sys.argv[7].split(","))
logged = {r[0]: r for r in csv.reader(open(sys.argv[1])) if r[0] in early}
actions = {0: "none", 1: "annotate", 2: "warn", 3: "reject"}
mid, doomed, steady = float(sys.argv[4]), sys.argv[5], sys.argv[6]
ann = {r["token"]: r for r in csv.DictReader(open(sys.argv[2])) if r["token"] in logged}
warn = {r["token"]: r for r in csv.DictReader(open(sys.argv[3])) if r["token"] in logged}
assert len(ann) == len(early) == 4 and doomed in ann and steady in ann, f"the early jobs are not all in the replay: {sorted(ann)} of {sorted(early)}"
for t, r in ann.items():
    lp, la = float(logged[t][1]), actions[int(logged[t][2])]
    assert abs(float(r["p_fail"]) - lp) < 1e-4, f"job {r['JobIDRaw']}: simulate p={r['p_fail']}, the plugin logged {lp}"
    assert r["action"] == la, f"job {r['JobIDRaw']}: simulate {r['action']}, the plugin did {la}"
assert warn[doomed]["action"] == "warn" and warn[steady]["action"] == "none", \
    f"at threshold {mid}: doomed {warn[doomed]['action']}, steady {warn[steady]['action']}"
print(f"# simulate: {len(ann)} jobs, the plugin's scores and decisions; at threshold {mid} doomed warned, steady not")
PY
"$JFP" train --db "$W/parity.db" --feature-log "$W/features.db" --out "$W/model3.json" --rounds 10 --nthread 2 --no-progress \
    | grep 'logged vectors'
