#!/usr/bin/env bash
# A quality regression guard on a real trace, not a tuned target: trains on CTC-SP2's earliest 70% of
# labelled jobs, evaluates on the last 30% (as scripts/trace-eval and the traces' README do), and fails if
# PR-AUC or recall at precision 0.9 falls below a floor a little under the figures measured when it was
# set (PR-AUC 0.518, recall at precision 0.9 0.050; 2026-11-23, XGBoost 1.7.4). Skips, saying so, where
# the traces are not beside the project.
set -euo pipefail
: "${JFP_BUILDDIR:?run through make check (JFP_BUILDDIR unset)}"
: "${JFP_SRCDIR:?run through make check (JFP_SRCDIR unset)}"
PR_AUC_FLOOR=0.49
RECALL_AT_P90_FLOOR=0.035
dir=$("$JFP_SRCDIR/scripts/traces-dir")
if [ ! -f "$dir/CTC-SP2-1996-3.1-cln.swf.gz" ]; then
    if [ -n "${JFP_REQUIRE_TRACES:-}" ]; then echo "ERROR: JFP_REQUIRE_TRACES is set but no traces were found (scripts/traces-dir)" >&2; exit 99; fi
    echo "SKIP: the real traces were not found (scripts/traces-dir; set JFP_TRACES_DIR)"
    exit 77
fi
out=$(JFP_TRACES_DIR="$dir" JFP_TRACES=CTC-SP2-1996-3.1-cln "$JFP_SRCDIR/scripts/trace-eval" "$JFP_BUILDDIR")
echo "$out"
row=$(echo "$out" | tail -n1)
pr=$(echo "$row" | awk -F'|' '{ gsub(/ /, "", $6); print $6 }')
rp=$(echo "$row" | awk -F'|' '{ gsub(/ /, "", $7); print $7 }')
awk -v v="$pr" -v f="$PR_AUC_FLOOR" 'BEGIN { exit !(v >= f) }' || { echo "FAIL: CTC-SP2 PR-AUC $pr is below the floor $PR_AUC_FLOOR"; exit 1; }
awk -v v="$rp" -v f="$RECALL_AT_P90_FLOOR" 'BEGIN { exit !(v >= f) }' ||
    { echo "FAIL: CTC-SP2 recall at precision 0.9 $rp is below the floor $RECALL_AT_P90_FLOOR"; exit 1; }
echo "# CTC-SP2: PR-AUC $pr (floor $PR_AUC_FLOOR), recall at precision 0.9 $rp (floor $RECALL_AT_P90_FLOOR)"
