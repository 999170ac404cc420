#!/usr/bin/env bash
# decide_by = waste on a real slurmctld: a job is refused for what its failure would waste (its chance of
# failing x what it asks for), not for its chance alone. In one jfp.conf (mode = reject), an ordinary
# user's likely failure asking for 48 core-hours is rejected with its cost, its expected waste and the
# budget; the same job name asking for one CPU-minute is warned and accepted ("so a failure would waste
# little"); a steady job as large passes without a word; slurmctld's log carries cost=/expected_waste=/
# budget= (and " cheap" for the small one); and on a partition with TRESBillingWeights the unit is
# billing-hours, memory billed at no less than the largest MaxRSS of the user's earlier runs of the job.
# Every figure is recomputed here from the p the plugin wrote to its feature log for that very submission.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
"$TESTCLUSTER" users
new_site

# jfp-usera's history: 'doomed' failed its last 6 runs minutes ago (asking for 4G, peaking at 3000M),
# 'steady' completed its last 6.
uid=$(id -u jfp-usera)
now=$(date +%s)
{
    echo "JobIDRaw|JobID|User|UID|Account|Partition|QOS|JobName|Submit|Start|End|State|ExitCode|ReqCPUS|ReqNodes|ReqMem|Timelimit|MaxRSS"
    for i in 1 2 3 4 5 6; do
        t=$((now - 3600 + i * 300))
        echo "$((950000 + i))|$((950000 + i))|jfp-usera|$uid|jfptest|debug|normal|doomed|$(date -d @$t +%FT%T)|$(date -d @$((t + 5)) +%FT%T)|$(date -d @$((t + 60)) +%FT%T)|FAILED|1:0|1|1|4G|00:10:00|3000M"
        echo "$((950100 + i))|$((950100 + i))|jfp-usera|$uid|jfptest|debug|normal|steady|$(date -d @$t +%FT%T)|$(date -d @$((t + 5)) +%FT%T)|$(date -d @$((t + 200)) +%FT%T)|COMPLETED|0:0|1|1|100M|00:10:00|50M"
    done
} >"$W/usera.txt"
"$JFP" ingest --trusted-export -q --db "$W/history.db" "$W/usera.txt"

# A second partition billed by TRES (a GiB of memory costs as much as a CPU).
export JFP_SLURM_CONF_EXTRA='PartitionName=billed Nodes=jfpnode Default=NO MaxTime=INFINITE DefaultTime=10 TRESBillingWeights="CPU=1.0,Mem=1G" State=UP'
start_site_cluster "mode = annotate"

# as_usera OUT ERR SBATCH-ARGS...: jfp-usera's sbatch (held); its stdout and stderr in files; its status.
as_usera() {
    local out=$1 err=$2
    shift 2
    (cd /tmp && runuser -u jfp-usera -- sbatch --hold -o /dev/null "$@") >"$out" 2>"$err"
}
job_id_in() { sed -n 's/^Submitted batch job //p' "$1"; }

# p_exact TOKEN: the p the plugin scored the submission with, as the float it computed with (the feature
# log holds it as a REAL; written off the submit path, so waited for).
p_exact() {
    local q="SELECT printf('%!.17g', p_fail) FROM scored WHERE token = '$1'" p=""
    wait_until 30 "no feature-log row for token $1" 'p=$(sql_read "$W/features.db" "$q" 2>/dev/null); [ -n "$p" ]'
    python3 -c 'import struct, sys; print(repr(struct.unpack("f", struct.pack("f", float(sys.argv[1])))[0]))' "$p"
}

# Shapes of the submissions: LARGE (2 CPUs for a day: 48 core-hours), SMALL (1 CPU for a minute), BILLED
# (LARGE with 1G on the billed partition).
LARGE=(-n 2 -t 1-00:00:00)
SMALL=(-n 1 -t 1)
BILLED=(-p billed -n 2 --mem=1G -t 1-00:00:00)
COST_LARGE=48
# Billed at CPU=1.0 per CPU and 1 per GiB, memory at no less than doomed's MaxRSS (3000M), not the 1G asked.
COST_BILLED=$(python3 -c 'print(repr((2 * 1.0 + 3000 * (1.0 / 1024)) * (1440 / 60.0)))')

# ---- calibration (annotate): each shape's p for this user; the threshold and budgets go between them
calibrate() {  # calibrate NAME ARGS...: prints the job's exact p
    local name=$1
    shift
    as_usera "$W/out" "$W/err" -J "$name" "$@" --wrap true || fail "annotate mode refused $name $*: $(cat "$W/err")"
    p_exact "$(token_of_job "$(job_id_in "$W/out")")"
}
p_dl=$(calibrate doomed "${LARGE[@]}")
p_ds=$(calibrate doomed "${SMALL[@]}")
p_sl=$(calibrate steady "${LARGE[@]}")
p_db=$(calibrate doomed "${BILLED[@]}")
note "p: doomed large $p_dl, doomed small $p_ds, steady large $p_sl, doomed billed $p_db"
read -r thr budget budget_billed < <(python3 - "$p_dl" "$p_ds" "$p_sl" "$p_db" "$COST_LARGE" "$COST_BILLED" <<'PY'
import sys
dl, ds, sl, db, cost, cost_b = map(float, sys.argv[1:])
low = min(dl, ds)
if not low > sl + 0.05:
    sys.exit(f"FAIL: jfp-usera's doomed (large {dl:.3f}, small {ds:.3f}) should score clearly above steady ({sl:.3f}): the test needs history to matter")
# The threshold halfway between the doomed and steady; the budget halfway between the large doomed's and the
# large steady's expected waste; the billed partition's budget half the billed doomed's (rejected by cost
# whatever its p).
print(f"{(low + sl) / 2:.4f} {(dl + sl) / 2 * cost:.1f} {db * cost_b / 2:.1f}")
PY
) || fail "calibration failed"
note "threshold=$thr waste_budget=$budget waste_budget.partition.billed=$budget_billed"

set_conf "$SITE_CONF
mode = reject
decide_by = waste
threshold = $thr
waste_budget = $budget
waste_budget.partition.billed = $budget_billed
allow_override = yes"

# expected KIND P COST UNIT BUDGET CLASS: the texts the plugin must write, computed as it computes them
# (model/policy/user_message.cc amount_text; model/runtime/engine.cc fill_outcome's log fields): lines
# "head", "tail" of the user's message, "log" the log line's fields, "over" 1 when over the budget.
expected() {
    python3 - "$@" <<'PY'
import sys
kind, p, cost, unit, budget, cls = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], float(sys.argv[5]), sys.argv[6]
priced = sys.argv[7] if len(sys.argv) > 7 else ""
def amount(v):
    if v == 0:
        return "0"
    if v < 0.01:
        return "under 0.01"
    if v < 10:
        return "%.2g" % v
    if v < 1000:
        s = "%.1f" % v
        return s[:-2] if s.endswith(".0") else s
    return f"{int('%.0f' % v):,}"
waste = p * cost
if kind == "reject":
    mem = f" (its memory priced at the {priced} its earlier runs used)" if priced else ""
    print(f"head=jfp: job rejected: it asks for {amount(cost)} {unit}{mem} and jfp puts its chance of failing at {'%.2f' % p} (most likely {cls}): an expected {amount(waste)} {unit} lost, at or over the budget of {amount(budget)}. Why: ")
    print("tail= To submit it anyway, add 'jfp:override' to --comment.")
else:
    likely = "will probably fail" if float('%.2f' % p) >= 0.5 else "may fail"
    print(f"head=jfp: warning: this job {likely} (p={'%.2f' % p}, most likely {cls}): ")
    print(f"tail= It asks for {amount(cost)} {unit}, so a failure would waste little: it is not refused.")
print("log= cost=%.1f expected_waste=%.1f budget=%.1f%s action=%s" % (cost, waste, budget, " cheap" if kind == "warn" else "", kind))
print("over=%d" % (waste >= budget))
PY
}
field() { sed -n "s/^$1=//p" <<<"$2"; }

# new_log_line SINCE NAME: the first line slurmctld logged after line SINCE for jfp-usera's NAME.
new_log_line() {
    local since=$1 pattern="submit user=jfp-usera name='$2' " line=""
    wait_until 10 "no log line for jfp-usera's $2" \
        'line=$(awk -v n="$since" -v p="$pattern" '"'"'NR > n && index($0, p) { print; exit }'"'"' "$CTLD_LOG"); [ -n "$line" ]'
    printf '%s\n' "$line"
}
log_lines() { wc -l <"$CTLD_LOG"; }

# check_message WHAT KIND COST UNIT BUDGET LOGLINE STDERR-TEXT [PRICED-MEM]: the message and the log line agree with the
# figures computed from the submission's own p.
check_message() {
    local what=$1 kind=$2 cost=$3 unit=$4 bud=$5 line=$6 msg=$7 priced=${8:-} token cls p exp head tail
    token=$(grep -o 'token=[0-9a-f]*' <<<"$line" | cut -d= -f2)
    cls=$(grep -o ' class=[A-Z_]*' <<<"$line" | cut -d= -f2)
    [ -n "$token" ] && [ -n "$cls" ] || fail "$what: no token or class in the log line: $line"
    p=$(p_exact "$token")
    exp=$(expected "$kind" "$p" "$cost" "$unit" "$bud" "$cls" "$priced")
    head=$(field head "$exp")
    tail=$(field tail "$exp")
    note "$what: p=$p, expected waste $(python3 -c "print($p * $cost)") $unit, budget $bud"
    case "$msg" in "$head"*) ;; *) fail "$what: the message should begin
'$head'
got
'$msg'" ;; esac
    case "$msg" in *"$tail") ;; *) fail "$what: the message should end '$tail', got '$msg'" ;; esac
    expect_contains "$msg" "your last 6 runs of 'doomed' failed" "$what: the reason"
    expect_contains "$line" "$(field log "$exp")" "$what: slurmctld's log line"
    [ "$(field over "$exp")" = "$([ "$kind" = reject ] && echo 1 || echo 0)" ] ||
        fail "$what: the plugin said $kind, but p x cost = $p x $cost against the budget $bud says otherwise"
}

# ---- the large likely failure: rejected, with its cost, expected waste and budget
n=$(log_lines)
if as_usera "$W/out" "$W/err" -J doomed "${LARGE[@]}" --wrap true; then
    fail "the large doomed job (48 core-hours) was accepted: $(cat "$W/out" "$W/err")"
fi
err=$(cat "$W/err")
note "large doomed: $err"
[ "$(sed -n 2p "$W/err")" = "sbatch: error: Batch job submission failed: Access/permission denied" ] ||
    fail "the rejection's second line: $err"
check_message "large doomed" reject "$COST_LARGE" core-hours "$budget" \
    "$(new_log_line "$n" doomed)" "$(sed -n '1s/^sbatch: error: //p' "$W/err")"

# ---- the same name written another way is the same job (issue 48: history keyed by the name's identity):
# case, a trailing blank, a tab, a zero-width space, full-width letters, a Cyrillic look-alike 'о'. Each is
# refused on doomed's history, as jfp-usera submits it; a name of its own is not.
for variant in DOOMED "doomed " $'doomed\t' $'doo\u200bmed' $'\uff44\uff4f\uff4f\uff4d\uff45\uff44' $'d\u043eomed'; do
    if as_usera "$W/out" "$W/err" -J "$variant" "${LARGE[@]}" --wrap true; then
        fail "'$variant', doomed written another way, was accepted: $(cat "$W/out" "$W/err")"
    fi
    expect_contains "$(cat "$W/err")" "your last 6 runs of" "'$variant' judged on doomed's history"
done
if ! as_usera "$W/out" "$W/err" -J brandnew "${LARGE[@]}" --wrap true; then
    fail "a name of its own was refused with doomed's request: $(cat "$W/err")"
fi
note "doomed written six other ways: each refused on doomed's history; brandnew accepted"

# ---- the small likely failure, same name: warned and accepted
n=$(log_lines)
as_usera "$W/out" "$W/err" -J doomed "${SMALL[@]}" --wrap true || fail "the small doomed job was rejected: $(cat "$W/err")"
small_id=$(job_id_in "$W/out")
[ -n "$small_id" ] || fail "the small doomed job got no job id: $(cat "$W/out")"
[ "$(wc -l <"$W/err")" = 1 ] || fail "the small doomed job's stderr should be one line: $(cat "$W/err")"
err=$(cat "$W/err")
note "small doomed: $err"
small_line=$(new_log_line "$n" doomed)
check_message "small doomed" warn "$(python3 -c 'print(repr(1 / 60.0))')" core-hours "$budget" \
    "$small_line" "$(sed -n '1s/^sbatch: //p' "$W/err")"
expect_contains "$small_line" " cheap action=warn" "the small job's log line"

# ---- the large steady job: p below the threshold and p x 48 under the budget; accepted without a word
n=$(log_lines)
as_usera "$W/out" "$W/err" -J steady "${LARGE[@]}" --wrap true || fail "the large steady job was rejected: $(cat "$W/err")"
steady_id=$(job_id_in "$W/out")
[ -n "$steady_id" ] || fail "the large steady job got no job id: $(cat "$W/out")"
[ ! -s "$W/err" ] || fail "the large steady job should get no message: $(cat "$W/err")"
p=$(p_exact "$(token_of_job "$steady_id")")
python3 -c 'import sys; p, t, b = map(float, sys.argv[1:]); sys.exit(not (p < t and p * 48 < b))' "$p" "$thr" "$budget" ||
    fail "the large steady job scored p=$p (threshold $thr, expected waste $p x 48 against $budget): the plugin should have acted"
sleep 0.5
if tail -n +$((n + 1)) "$CTLD_LOG" | grep "user=jfp-usera name='steady'" >/dev/null; then
    fail "slurmctld logged a decision for the steady job: $(tail -n +$((n + 1)) "$CTLD_LOG" | grep "name='steady'")"
fi
note "large steady: accepted silently, p=$p, expected waste $(python3 -c "print('%.1f' % ($p * 48))") core-hours < $budget"

# ---- the billed partition: billing-hours, memory at doomed's MaxRSS (3000M), not the 1G asked
n=$(log_lines)
if as_usera "$W/out" "$W/err" -J doomed "${BILLED[@]}" --wrap true; then
    fail "the billed doomed job was accepted: $(cat "$W/out" "$W/err")"
fi
err=$(cat "$W/err")
note "billed doomed: $err"
check_message "billed doomed" reject "$COST_BILLED" billing-hours "$budget_billed" \
    "$(new_log_line "$n" doomed)" "$(sed -n '1s/^sbatch: error: //p' "$W/err")" 3.0G

# ---- slurmctld's log, as a whole: the two rejections and the cheap warning, and the six rewrites of doomed
# refused; nothing else for jfp-usera (brandnew and steady silent)
decisions=$(grep " submit user=jfp-usera " "$CTLD_LOG" || true)
note "slurmctld logged:"
printf '%s\n' "$decisions" | sed 's/^.* submit user=/#   submit user=/'
expect_eq "$(grep -c . <<<"$decisions")" 9 "jfp-usera's logged decisions"
expect_eq "$(grep -c "action=reject" <<<"$decisions")" 8 "jfp-usera's logged rejections"
expect_eq "$(grep -c "name='doomed' .*cost=48.0 .* action=reject" <<<"$decisions")" 1 "the large job's rejection logged"
expect_eq "$(grep -c 'cost=48.0 .* action=reject' <<<"$decisions")" 7 "the large job's and its six rewrites' rejections logged"
expect_eq "$(grep -c 'cost=0.0 .* cheap action=warn' <<<"$decisions")" 1 "the small job's warning logged as cheap"
expect_eq "$(grep -c "cost=$(printf '%.1f' "$COST_BILLED") .* budget=$budget_billed action=reject" <<<"$decisions")" 1 "the billed job's rejection logged"
grep "internal fault" "$CTLD_LOG" >/dev/null && fail "the plugin reported an internal fault: $(grep 'internal fault' "$CTLD_LOG" | head -n1)"
note "waste policy: large rejected, small warned as cheap, steady silent, billing-hours on the billed partition"
