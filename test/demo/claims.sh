#!/usr/bin/env bash
# The demo shows what happens: runs scripts/demo with the jfp built in JFP_DEMO_BUILD (scripts/test passes
# the 22.05 leg's package build tree) and holds what it printed to slurmctld's own log:
#   - every summary row: REJECTED exactly when slurmctld logged action=reject for that submission, and the
#     logged action the row shows is the one in the log (as many reject lines as REJECTED rows);
#   - the reject section refuses wrf_run, with a reason and the way out (jfp:override) in sbatch's error,
#     and the override row is accepted and logged as an override;
#   - what it says about the model's target ("did NOT reach" or "reached") is what the plugin's loaded-model
#     line says.
# Run as root on the host: scripts/test runs it once, after the legs.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${JFP_DEMO_BUILD:?set JFP_DEMO_BUILD to a directory where jfp is built}
work=$(mktemp -d /tmp/jfp-demo-claims.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: demo claims: $*" >&2; exit 1; }

JFP_DEMO_BUILD="$build" JFP_DEMO_KEEP_LOG="$work/slurmctld.log" "$top/scripts/demo" >"$work/out" 2>&1 ||
    { tail -n 40 "$work/out" >&2; fail "scripts/demo exited $?"; }
out=$(sed 's/\x1b\[[0-9;]*m//g' "$work/out")
log="$work/slurmctld.log"
[ -s "$log" ] || fail "the demo kept no slurmctld log"

rows=$(awk '/^== 10\. Summary/ { on = 1; getline; next } on && /^feature log:/ { on = 0 } on && NF' <<<"$out")
[ "$(wc -l <<<"$rows")" -ge 8 ] || fail "expected at least 8 summary rows, got: $rows"
rejected=0
while IFS= read -r row; do
    result=$(cut -c46-73 <<<"$row" | sed 's/ *$//')
    logged=$(cut -c75- <<<"$row")
    case "$result" in
        REJECTED*) rejected=$((rejected + 1))
                   [ "${logged%% *}" = reject ] || fail "a REJECTED row whose logged action is '$logged': $row" ;;
        accepted*) [ "${logged%% *}" != reject ] || fail "an accepted row logged as a reject: $row" ;;
        *) fail "a summary row with no result: $row" ;;
    esac
done <<<"$rows"
in_log=$(grep -c 'job_submit/jfp: submit .* action=reject ' "$log" || true)
[ "$in_log" = "$rejected" ] || fail "$rejected REJECTED rows, but slurmctld logged $in_log rejects"
# Each row's logged action, in order, is the sequence of the log's decision lines (rows with '-' have none).
want=$(awk '{ print substr($0, 75) }' <<<"$rows" | grep -v '^-$' || true)
got=$(grep 'job_submit/jfp: submit ' "$log" | sed 's/.* action=\(.*\) model=.*/\1/' | tail -n "$(grep -vc '^-$' <<<"$want")")
[ "$want" = "$got" ] || fail "the summary's logged actions are not slurmctld's: summary
$want
log
$got"

grep -E '^reject +wrf_run +REJECTED' <<<"$rows" >/dev/null || fail "the reject section did not refuse wrf_run: $rows"
grep -E '^reject +wrf_run with jfp:override +accepted .* warn override' <<<"$rows" >/dev/null ||
    fail "the override submission was not accepted as an override: $rows"
section=$(awk '/^== 7\. reject/ { on = 1 } /^== 8\./ { on = 0 } on' <<<"$out")
grep -q 'jfp:override' <<<"$(awk '/sbatch -J wrf_run$/ { on = 1; next } /^\$ sbatch/ { on = 0 } on' <<<"$section")" ||
    fail "the refusal does not tell the user the way out (jfp:override): $section"

# Deciding by waste: the large wrf_run refused with its cost, the small one accepted (warned as cheap when its
# p reached the threshold), each as slurmctld logged it.
grep -E '^waste +wrf_run, 2 CPUs for a day +REJECTED' <<<"$rows" >/dev/null || fail "the waste section did not refuse the large wrf_run: $rows"
grep -E '^waste +wrf_run, 1 CPU for a minute +accepted' <<<"$rows" >/dev/null || fail "the waste section refused the small wrf_run: $rows"
# The demo folds sbatch's words at 110 columns: the section as one line, its indents squeezed.
waste=$(awk '/^== 8\. decide_by = waste/ { on = 1 } /^== 9\./ { on = 0 } on' <<<"$out" | tr -s ' \n' '  ')
grep -q 'it asks for 48 core-hours and jfp puts its chance of failing at' <<<"$waste" ||
    fail "the large job's refusal does not say its cost: $waste"
if grep -E '^waste +wrf_run, 1 CPU for a minute +accepted .* warn' <<<"$rows" >/dev/null; then
    grep -q 'so a failure would waste little: it is not refused' <<<"$waste" || fail "the small job's warning does not say why it is not refused: $waste"
    grep -q 'job_submit/jfp: submit .*cost=0.0 .* cheap action=warn' "$log" || fail "slurmctld did not log the small job as cheap"
fi
grep -q 'job_submit/jfp: submit .*cost=48.0 .* action=reject' "$log" || fail "slurmctld did not log the large job's cost"

if grep -q 'did NOT reach its target' <<<"$section"; then
    grep -q 'loaded model.*NOT reached' "$log" || fail "the demo says the target was not reached; the plugin's model line does not"
else
    grep -q 'reached its target precision' <<<"$section" || fail "the reject section says nothing of the model's target"
    ! grep -q 'loaded model.*NOT reached' "$log" || fail "the demo says the target was reached; the plugin's model line says NOT reached"
fi
echo "demo claims: $(wc -l <<<"$rows") summary rows, $rejected refused, all as slurmctld logged them"
