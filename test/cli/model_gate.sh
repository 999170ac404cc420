#!/usr/bin/env bash
# The model gate (issue 26): jfp train refuses a history with too few failures; jfp publish installs a
# bundle where jfp.conf's model points only when it ranks failures at least as well as the history rules
# (on the store's jobs after its training cutoff), keeps the model it replaces, rolls back and forth, and
# refuses corrupt bundles; jfp eval opens with the verdict.
set -euo pipefail
: "${JFP_BUILDDIR:?run through make check (JFP_BUILDDIR unset)}"
JFP="$JFP_BUILDDIR/tools/jfp"
W=$(mktemp -d /tmp/jfp-gate.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
# run RC CMD...: CMD exits with RC; its output is in out.txt / err.txt
run() {
    local want=$1 rc=0
    shift
    "$@" >out.txt 2>err.txt || rc=$?
    [ "$rc" -eq "$want" ] || fail "$* exited $rc, expected $want: $(cat out.txt err.txt | head -c 1500)"
}

# Six failures in a few hundred jobs: no bundle, the numbers and what to do.
python3 - >tiny.txt <<'PY'
import datetime
print("JobIDRaw|JobID|User|UID|JobName|Submit|Start|End|State")
t = datetime.datetime(2024, 3, 1)
for i in range(400):
    s = t + datetime.timedelta(minutes=10 * i)
    f = lambda d: d.strftime("%Y-%m-%dT%H:%M:%S")
    print(f"{i+1}|{i+1}|u{i%5}|{5000+i%5}|job{i%3}|{f(s)}|{f(s)}|{f(s + datetime.timedelta(minutes=5))}|{'FAILED' if i % 67 == 3 else 'COMPLETED'}")
PY
"$JFP" ingest --trusted-export -q --db tiny.db tiny.txt
run 1 "$JFP" train --db tiny.db --out tiny.json --no-progress
grep -q "too little evidence: the training window holds 400 jobs, 6 failed" err.txt || fail "no refusal with the numbers: $(cat err.txt)"
grep -q "no bundle was written" err.txt || fail "the refusal does not say nothing was written"
[ ! -e tiny.json ] || fail "a bundle was written from 6 failures"
ok "six failures: refused ($(head -c 100 err.txt))"

"$JFP" synth --jobs 8000 --seed 7 -q -o h.txt
"$JFP" ingest --trusted-export -q --db store.db h.txt 2>/dev/null
# --kind rules: the rules involve no XGBoost, so the verdicts below are the same on every release.
run 0 "$JFP" train --db store.db --out good.json --train-fraction 0.7 --nthread 2 --no-progress --kind rules
grep -q "^  chose           the rule '" out.txt || fail "train does not say what it chose: $(cat out.txt)"
ok "train: $(grep '^  chose' out.txt | cut -c1-160)"
# A bundle certain to lose: the same bundle with the weakest rule (the reference rows would no longer match).
python3 - good.json worse.json <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["kind"] = "rules"; b["rule"] = "last_outcome_user_name"; b["failure_model"] = None
b.pop("reference_rows", None)
b["model_id"] = "worse-" + b["model_id"]
json.dump(b, open(sys.argv[2], "w"))
PY

mkdir live
printf 'mode = warn\nmodel = %s/live/model.json\nstore = %s/store.db\n' "$W" "$W" >jfp.conf
export SLURM_CONF="$W/slurm.conf"  # jfp.conf beside it is the default --conf

run 0 "$JFP" eval --db store.db --model good.json --after "$(python3 -c "import json; print(json.load(open('good.json'))['training']['cutoff'])")"
grep -q "^verdict: fit for" <<<"$(head -n1 out.txt)" || fail "eval does not open with a fitting verdict: $(head -n3 out.txt)"
ok "eval: $(head -n1 out.txt | cut -c1-140)"

run 1 "$JFP" publish --rollback
grep -q "nothing to roll back to" err.txt || fail "rollback with nothing kept: $(cat err.txt)"

run 0 "$JFP" publish good.json
cmp -s good.json live/model.json || fail "publish did not install the bundle"
[ "$(stat -c %a live/model.json)" = 644 ] || fail "installed with mode $(stat -c %a live/model.json)"
[ ! -e live/model.json.previous ] || fail "a previous model out of nothing"
grep -q "no model was there before, so there is none to roll back to" out.txt || fail "the first publish: $(tail -n1 out.txt)"
grep -q "submitted since its training cutoff" out.txt || fail "not judged on the jobs after the cutoff: $(cat out.txt)"
ok "published: $(tail -n1 out.txt | cut -c1-140)"

run 1 "$JFP" publish worse.json
grep -q "^verdict: not fit to publish" out.txt || fail "no unfit verdict: $(cat out.txt)"
grep -q "refused: worse.json is not installed" err.txt || fail "no refusal: $(cat err.txt)"
cmp -s good.json live/model.json || fail "a refused bundle replaced the model"
ok "a bundle the rules beat is refused"

head -c 3000 good.json >cut.json
run 1 "$JFP" publish cut.json
grep -q "not a model bundle" err.txt || fail "a truncated bundle: $(cat err.txt)"
cmp -s good.json live/model.json || fail "a corrupt bundle replaced the model"
ok "a truncated bundle is refused"

run 0 "$JFP" publish worse.json --force
cmp -s worse.json live/model.json || fail "--force did not install"
cmp -s good.json live/model.json.previous || fail "the replaced model was not kept"
run 0 "$JFP" publish --rollback
cmp -s good.json live/model.json || fail "rollback did not restore the previous model"
cmp -s worse.json live/model.json.previous || fail "rollback lost the model it replaced"
run 0 "$JFP" publish --rollback
cmp -s worse.json live/model.json || fail "a second rollback did not undo the first"
ok "--force keeps the previous model; --rollback swaps them"

# The other commands take the store and model from the same jfp.conf (issue 27 item 4); flags still win.
cutoff=$(python3 -c "import json; print(json.load(open('good.json'))['training']['cutoff'])")
run 0 "$JFP" eval --after "$cutoff" --json
python3 -c "import json,sys; e = json.load(open('out.txt')); assert e['model_id'].startswith('worse-'), e['model_id']" ||
    fail "eval without --db/--model did not score jfp.conf's model"
run 0 "$JFP" eval --after "$cutoff" --json --model good.json
python3 -c "import json,sys; e = json.load(open('out.txt')); assert not e['model_id'].startswith('worse-'), e['model_id']" ||
    fail "--model did not win over jfp.conf"
SLURM_CONF=/nonexistent/slurm.conf run 64 "$JFP" eval --after "$cutoff"
grep -q "there is no /nonexistent/jfp.conf to take store from; give --db or --conf" err.txt || fail "no store, no jfp.conf: $(cat err.txt)"
ok "eval reads jfp.conf's store and model; flags win; without either, a usage error naming both"

# Against the model installed (issue 26's review): a weekly retrain that falls back to the rules must not replace
# a better tree. On these jobs the tree ranks failures far better than any rule (PR-AUC 0.38 vs 0.25 with
# XGBoost 1.7.4), so the rules bundle, fit by the rules gate, loses to the installed tree on the jobs after
# both training cutoffs.
run 0 "$JFP" train --db store.db --out tree.json --train-fraction 0.7 --nthread 2 --no-progress --kind tree
run 0 "$JFP" publish tree.json --target gate2.json
cmp -s tree.json gate2.json || fail "the tree was not installed: $(cat out.txt)"
run 1 "$JFP" publish good.json --target gate2.json
grep -q "^verdict: fit for" out.txt || fail "the rules bundle should pass the rules gate: $(cat out.txt)"
grep -q "against the installed model .* which neither trained on: PR-AUC .*: the installed model ranks failures better" out.txt ||
    fail "no comparison with the installed tree: $(cat out.txt err.txt)"
grep -q "refused: good.json is not installed" err.txt || fail "no refusal: $(cat err.txt)"
cmp -s tree.json gate2.json || fail "a bundle the installed model beats replaced it"
ok "$(grep 'against the installed' out.txt | cut -c1-170)"
run 0 "$JFP" publish good.json --target gate2.json --force
cmp -s good.json gate2.json || fail "--force did not install over a better installed model"
run 0 "$JFP" publish tree.json --target gate2.json
grep -q "against the installed model .*: at least as good" out.txt || fail "the tree over the rules: $(cat out.txt)"
cmp -s tree.json gate2.json || fail "the better tree was not installed over the rules bundle"
# The bundle already installed, published again: nothing changes (.previous still the rules bundle).
run 0 "$JFP" publish tree.json --target gate2.json
grep -q "is already installed as .*gate2.json: nothing to do" out.txt || fail "republishing: $(cat out.txt)"
cmp -s good.json gate2.json.previous || fail "republishing the installed bundle replaced .previous"
# A bundle trained on every job (no --before) has seen them all, none since: not compared, said so; the
# rules gate decides on jfp train's record.
run 0 "$JFP" train --db store.db --out all.json --nthread 2 --no-progress --kind rules
run 0 "$JFP" publish all.json --target gate2.json
grep -q "not compared with the installed model .*: 0 failed jobs since .* (neither trained on them)" out.txt ||
    fail "a bundle without a cutoff: $(cat out.txt)"
grep -q "since the end of its training window .*judging on jfp train's record instead" out.txt ||
    fail "a bundle without a cutoff is not judged on its record: $(cat out.txt)"
# jfp eval on jobs it learned from gives the same verdict as publish, and says why.
run 0 "$JFP" eval --db store.db --model all.json --after 2024-01-01
# A rules bundle's record is on every row before its cutoff (a rule has nothing fitted); a tree's on validation.
grep -Eq "^verdict: .* on its (validation window|training and validation windows) \(jfp train's record\)" out.txt || fail "eval in-sample: $(head -3 out.txt)"
grep -q "^(these jobs include jobs it learned from .*as jfp publish gives it" out.txt || fail "eval in-sample note: $(head -3 out.txt)"
ok "--force replaces a better installed model; a better candidate replaces a worse one; a bundle without a cutoff is not compared"

# Without a store to measure on, the bundle's own record decides; a bundle without one needs --force.
python3 -c "import json; b = json.load(open('good.json')); b.pop('model_choice'); json.dump(b, open('old.json', 'w'))"
run 1 "$JFP" publish old.json --target other.json --conf /nonexistent/jfp.conf
grep -q "/nonexistent/jfp.conf" err.txt || fail "a missing --conf is not named: $(cat err.txt)"
unset SLURM_CONF
mkdir etc && SLURM_CONF="$W/etc/slurm.conf" run 1 "$JFP" publish old.json --target other.json
grep -q "records no comparison with the history rules" err.txt || fail "an unjudged bundle: $(cat err.txt)"
SLURM_CONF="$W/etc/slurm.conf" run 0 "$JFP" publish good.json --target other.json
grep -q "validation window\|training window" out.txt || fail "not judged on its record: $(cat out.txt)"
ok "no store: judged on train's record; no record: refused"
echo "PASS"
