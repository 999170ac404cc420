#!/usr/bin/env bash
# The quality floor on a real trace and the learning-curve cells (issue 26): CTC-SP2 (test/data, every clone
# has it) and a synthetic trace-style workload, trained on their earliest 10%, 30% and 70% of labelled jobs
# and evaluated on the rest (scripts/learning-curve). In every cell what jfp train ships must rank failures
# at least as well as the best history rule (PR-AUC, equal to three decimals counts as equal), and stay above
# a floor a little under the figures measured when it was set (docs/model.md, "Learning curve"). Floors are
# regression guards, not targets to tune to.
set -euo pipefail
: "${JFP_BUILDDIR:?run through make check (JFP_BUILDDIR unset)}"
: "${JFP_SRCDIR:?run through make check (JFP_SRCDIR unset)}"
W=$(mktemp -d /tmp/jfp-quality.XXXXXX)
trap 'rm -rf "$W"' EXIT

# cell -> PR-AUC floor (measured 2026-11-26: CTC 0.434 / 0.507 / 0.518, synth 0.244 / 0.245 / 0.370)
declare -A floor=([CTC-SP2/0.1]=0.41 [CTC-SP2/0.3]=0.48 [CTC-SP2/0.7]=0.49 [synth/0.1]=0.22 [synth/0.3]=0.22 [synth/0.7]=0.33)
# CTC-SP2 at 0.7; measured 0.050 with XGBoost 1.7.4 (Debian 12), 0.026 with 3.0.0 (Debian 13): the recall at
# one precision rests on the few highest scores, and moves more between releases than PR-AUC does.
RECALL_AT_P90_FLOOR=0.02
RULE_ORDER_SLACK=0.03

JFP_LC_SETS="CTC-SP2-1996-3.1-cln synth" JFP_LC_TSV="$W/cells.tsv" JFP_LC_PRECISION_TSV="$W/precision.tsv" JFP_TRACES_DIR=/nonexistent \
    "$JFP_SRCDIR/scripts/learning-curve" "$JFP_BUILDDIR"
[ "$(wc -l <"$W/cells.tsv")" = 6 ] || { echo "FAIL: expected 6 learning-curve cells, got: $(cat "$W/cells.tsv")"; exit 1; }
bad=0
while IFS=$'\t' read -r set frac shipped pr rp best; do
    cell="$set/$frac"
    f=${floor[$cell]:?no floor for $cell}
    # A tree ships only when it beats every rule, and must after the cutoff too. Among the rules, the one the
    # whole window before the cutoff ranks best ships; after it, the rules' order can turn: CTC-SP2 at 10%,
    # 'narrowest history' 0.541 against 'user rate' 0.314 on validation, 0.455 against 0.480 on the 69,500
    # jobs after (docs/model.md, "Learning curve"). No choice made before the cutoff can see that, so a rule
    # is held within RULE_ORDER_SLACK of the best rule, not to it.
    slack=0.0005
    [ "${shipped%% *}" = rule ] && slack=$RULE_ORDER_SLACK
    if ! awk -v m="$pr" -v b="$best" -v s="$slack" 'BEGIN { exit !(m >= b - s) }'; then
        echo "FAIL: $cell: what shipped ($shipped) has PR-AUC $pr, below the best rule's $best (slack $slack)"; bad=1
    fi
    if ! awk -v v="$pr" -v f="$f" 'BEGIN { exit !(v >= f) }'; then
        echo "FAIL: $cell: PR-AUC $pr is below the floor $f"; bad=1
    fi
    if [ "$cell" = CTC-SP2/0.7 ] && ! awk -v v="$rp" -v f="$RECALL_AT_P90_FLOOR" 'BEGIN { exit !(v >= f) }'; then
        echo "FAIL: $cell: recall at precision 0.9 $rp is below the floor $RECALL_AT_P90_FLOOR"; bad=1
    fi
    echo "# $cell: $shipped, PR-AUC $pr (best rule $best, floor $f), recall at precision 0.9 $rp"
done <"$W/cells.tsv"

# A threshold that claims its target precision (its lower confidence bound reached it on validation, on the
# whole window and on each half) must hold it on the later jobs, within 0.02 (issue 35; docs/model.md,
# "Claimed and realized precision": the point estimate claimed CTC-SP2/0.3 and got 0.857).
while IFS=$'\t' read -r set frac target reached claimed lower realized flagged tp; do
    cell="$set/$frac"
    if [ "$reached" != yes ]; then
        echo "# $cell: no precision claimed (no threshold's bound reached $target on the window and both halves): realized $realized over $flagged flagged"
        continue
    fi
    f=$(awk -v t="$target" 'BEGIN { printf "%.2f", t - 0.02 }')
    if ! awk -v r="$realized" -v f="$f" 'BEGIN { exit !(r >= f) }'; then
        echo "FAIL: $cell: the threshold claimed precision $target (validation $claimed, lower bound $lower) and got $realized on $flagged later jobs flagged (floor $f)"; bad=1
    fi
    echo "# $cell: claimed $target (validation $claimed, lower bound $lower), realized $realized on $flagged flagged (goal $f)"
done <"$W/precision.tsv"
[ "$(wc -l <"$W/precision.tsv")" = 6 ] || { echo "FAIL: expected 6 claimed-vs-realized cells: $(cat "$W/precision.tsv")"; exit 1; }
# (Measured on XGBoost 1.7.4: CTC-SP2/0.3 claims. A release whose trees claim nothing is said, not failed:
# claiming less is the honest side.)
grep -q "	yes	" "$W/precision.tsv" || echo "# no cell claimed its target precision here: no realized precision to hold"
exit "$bad"
