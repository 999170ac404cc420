#!/usr/bin/env bash
# The plugin package's removal script (debian/slurm-job-submit-jfp.prerm; jfp.spec's %preun says the same)
# warns exactly when slurm.conf still names jfp in JobSubmitPlugins, and never fails the removal.
set -euo pipefail
src=${JFP_SRCDIR:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
grep -v '#DEBHELPER#' "$src/debian/slurm-job-submit-jfp.prerm" >"$work/prerm"
fails=0
check() {  # check WANT CONF-LINE [ACTION]
    local want=$1 line=$2 action=${3:-remove} out rc=0
    printf 'ClusterName=c\n%s\nNodeName=n1\n' "$line" >"$work/slurm.conf"
    out=$(SLURM_CONF="$work/slurm.conf" sh "$work/prerm" "$action" 2>&1) || rc=$?
    [ "$rc" = 0 ] || { echo "FAIL: prerm $action exited $rc with '$line'"; fails=$((fails + 1)); }
    if grep -q "still names jfp" <<<"$out"; then got=warn; else got=quiet; fi
    [ "$got" = "$want" ] || { echo "FAIL: prerm $action with '$line': $got, expected $want"; fails=$((fails + 1)); }
}
check warn 'JobSubmitPlugins=jfp'
check warn 'JobSubmitPlugins=lua,jfp'
check warn 'jobsubmitplugins = job_submit/jfp , lua'
check warn '  JobSubmitPlugins=jfp # the failure predictor'
check quiet 'JobSubmitPlugins=lua'
check quiet 'JobSubmitPlugins=jfpx,lua'
check quiet '#JobSubmitPlugins=jfp'
check quiet 'JobSubmitPlugins=lua # was jfp'
check quiet 'JobSubmitPlugins=jfp' upgrade
[ "$fails" = 0 ] || exit 1
echo "PASS: the removal script warns exactly when slurm.conf names jfp"
