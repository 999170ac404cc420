#!/usr/bin/env bash
# The plugin package's removal scripts (debian/slurm-job-submit-jfp.prerm and jfp.spec's %preun, a copy)
# warns exactly when slurm.conf still names jfp in JobSubmitPlugins, and never fails the removal.
set -euo pipefail
src=${JFP_SRCDIR:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
grep -v '#DEBHELPER#' "$src/debian/slurm-job-submit-jfp.prerm" >"$work/prerm"
# The rpm's copy: jfp.spec's %preun of the plugin package (rpm passes 0 on erase, 1 on upgrade).
awk '/^%preun -n slurm-job-submit-jfp/ { on = 1; next } on && /^%/ { exit } on' "$src/jfp.spec" >"$work/preun"
grep -q 'still names jfp' "$work/preun" || { echo "FAIL: no removal warning in jfp.spec's %preun"; exit 1; }
fails=0
check() {  # check WANT CONF-LINE [ACTION]: the deb's script, then the rpm's
    local want=$1 line=$2 action=${3:-remove} out rc=0
    printf 'ClusterName=c\n%s\nNodeName=n1\n' "$line" >"$work/slurm.conf"
    check_one "$want" "$line" "$action" "$work/prerm"
    check_one "$want" "$line" "$([ "$action" = remove ] && echo 0 || echo 1)" "$work/preun"
}
check_one() {
    local want=$1 line=$2 action=$3 script=$4 out rc=0
    out=$(SLURM_CONF="$work/slurm.conf" sh "$script" "$action" 2>&1) || rc=$?
    [ "$rc" = 0 ] || { echo "FAIL: $(basename "$script") $action exited $rc with '$line'"; fails=$((fails + 1)); }
    if grep -q "still names jfp" <<<"$out"; then got=warn; else got=quiet; fi
    [ "$got" = "$want" ] || { echo "FAIL: $(basename "$script") $action with '$line': $got, expected $want"; fails=$((fails + 1)); }
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
