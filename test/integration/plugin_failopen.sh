#!/usr/bin/env bash
# Fail open: whatever is wrong with jfp's inputs, jobs are submitted untouched and slurmctld says why.
# Then the same slurmctld, given good inputs, does reject: the passes above were jfp failing open, not jfp
# doing nothing. Also: job_modify re-scores an `scontrol update` and neutralises forged annotations.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster

new_site
cp "$W/model.json" "$W/good.json"
echo '{"format": "jfp-model-bundle", "trees": [' >"$W/model.json"  # a truncated bundle
strict="mode = reject
reject_privileged = yes
reject_below_target = yes
threshold = 0.0
min_history = 0
reload_interval = 0.3
model = $W/model.json
store = $W/history.db
feature_log = $W/features.db"
export JFP_CONF="$strict"
cluster_start

put() {  # put SRC DEST MODE: replace DEST atomically, already with its final mode
    install -m "$3" "$1" "$2.new" && mv "$2.new" "$2"
}

passes() {  # passes WHAT: a job is accepted with its comment untouched
    local out id
    out=$(sbatch --parsable --hold -J doomed --comment "mine $1" --wrap true 2>&1) || fail "$1: job refused: $out"
    id=${out%%;*}
    expect_eq "$(comment_of "$id")" "mine $1" "$1: comment"
    scancel "$id"
}

# 1. a corrupt model
passes "corrupt model"
wait_log "model $W/model.json not used: $W/model.json: not a model bundle"

# 2. a good model that anyone could have written
put "$W/good.json" "$W/model.json" 666
wait_log "writable by group or others"
passes "world-writable model"

# 3. a model trained on another feature schema
/usr/bin/python3 - "$W/good.json" "$W/model.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["feature_schema"]["names"][0] = "some_other_feature"
json.dump(b, open(sys.argv[2] + ".tmp", "w"))
PY
put "$W/model.json.tmp" "$W/model.json" 644
wait_log "feature schema mismatch"
passes "schema mismatch"

# 4. a model whose trees do not reproduce XGBoost's own reference predictions
/usr/bin/python3 - "$W/good.json" "$W/model.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
t = b["failure_model"]["learner"]["gradient_booster"]["model"]["trees"][0]
t["split_conditions"] = [v + 1.0 if isinstance(v, (int, float)) else v for v in t["split_conditions"]]  # "-Infinity" stays
json.dump(b, open(sys.argv[2] + ".tmp", "w"))
PY
put "$W/model.json.tmp" "$W/model.json" 644
wait_log "reference row"
passes "tampered model"

# 5. an invalid jfp.conf from the start of another slurmctld is "plugin off"; here a broken edit keeps
#    the last good config (still reject, still no usable model)
printf 'mode = sometimes\n' >"$CLUSTER_DIR/etc/jfp.conf"
wait_log "invalid value 'sometimes' for mode"
passes "invalid config"

# 6. a config writable by others is refused
printf '%s\nmode = reject\n' "$strict" >"$W/conf.tmp"
put "$W/conf.tmp" "$CLUSTER_DIR/etc/jfp.conf" 666
wait_log "jfp.conf is writable by group or others"
passes "world-writable config"
chmod 644 "$CLUSTER_DIR/etc/jfp.conf"

# 7. a store that is not a store: scoring goes on without history (logged), nothing breaks
echo "garbage" >"$W/broken.db"
set_conf "$strict
store = $W/broken.db
mode = annotate"
wait_log "history store $W/broken.db not used"

# 8. odd requests pass
for args in "-t UNLIMITED" "--mem=0" "--array=0-0" "-J $(printf 'n\xc3\xa4me')" "--ntasks=2 --cpus-per-task=1" "--gres=gpu:0"; do
    out=$(sbatch --parsable --hold $args --wrap true 2>&1) || fail "odd request '$args' refused: $out"
    scancel "${out%%;*}"
done
grep -q "internal fault" "$CTLD_LOG" && fail "internal fault logged: $(grep 'internal fault' "$CTLD_LOG" | head -n1)"

# Now good inputs: the same slurmctld rejects (threshold 0).
grep -q "loaded model" "$CTLD_LOG" && fail "a model was loaded although none was usable"
put "$W/good.json" "$W/model.json" 644
set_conf "$strict"
wait_log "loaded model"
if out=$(sbatch --hold -J doomed --wrap true 2>&1); then fail "with a good model, threshold 0 must reject: $out"; fi
expect_contains "$out" "jfp: job rejected" "rejection once inputs are good"
note "fail-open cases passed; good inputs reject"

# ---- job_modify: an update is re-scored once the store knows the job (jfp ingest --from-sacct)
set_conf "$strict
mode = reject
threshold = 1.0
threshold.partition.long = 0.0
min_history = 0"
blocker=$(submit --exclusive -J blocker --wrap 'sleep 300')
wait_until 60 "the blocker job did not start" '[ "$(squeue -h -j "$blocker" -o %t)" = R ]'
target=$(submit --exclusive -J target --wrap true)   # pending (Resources): eligible, so sacct lists it
sleep 1
site_jfp ingest --from-sacct --db "$W/history.db" --overlap 7200 | sed 's/^/# /'
sql_read "$W/history.db" "SELECT job_key, job_id, state, jfp_token FROM jobs WHERE name IN ('target', 'blocker')" | sed 's/^/# /'
[ -n "$(sql_read "$W/history.db" "SELECT token FROM queue_tokens WHERE job_id='$target'")" ] \
    || fail "the pending job's token did not reach the store (queue_tokens)"
# The plugin has the pending job's token once it logs the ingest with the queued jobs' tokens (sacct 22.05
# lists neither job yet, 24.11 lists both as changed jobs). The held jobs submitted while no model was
# usable carry tokens too (a job gets one whenever the plugin is on), so the count is at least 2.
wait_log "applied [0-9]* changed jobs from $W/history.db .*; \\([2-9]\\|[1-9][0-9][0-9]*\\) queued job tokens)"
if out=$(scontrol update jobid="$target" partition=long 2>&1); then fail "moving the job to partition long (threshold 0) must be refused: $out"; fi
note "update refused: $out"
grep -q "update user=root name='target'.*action=reject" "$CTLD_LOG" || fail "the update was not re-scored"
scontrol update jobid="$target" timelimit=5 || fail "an update within policy was refused"
scontrol update jobid="$target" comment='jfp:p=0.000,class=FAILED,model=forged'
expect_contains "$(comment_of "$target")" "jfp;p=0.000" "a forged annotation set by scontrol update is neutralised"
scancel "$target" "$blocker"
