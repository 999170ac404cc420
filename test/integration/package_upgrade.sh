#!/usr/bin/env bash
# A real package upgrade under a running slurmctld (the installed leg only: scripts/leg-check runs it alone,
# after the other tests, since it replaces the plugin every test cluster there loads). The plugin package,
# repacked one version higher, goes in with dpkg -i: dpkg replaces job_submit_jfp.so and runs the package's
# postinst, which must say that slurmctld still runs the plugin it loaded at start and how to load the new
# one; jfp check says the same; after the restart it runs the installed plugin and scores jobs again.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
[ -n "${JFP_INSTALLED:-}" ] || { echo "ERROR: package_upgrade.sh tests the installed packages (JFP_INSTALLED)" >&2; exit 99; }
deb=${JFP_PLUGIN_DEB:?JFP_PLUGIN_DEB names the installed slurm-job-submit-jfp .deb}
[ -f "$deb" ] || { echo "ERROR: no package $deb" >&2; exit 99; }

start_site_cluster "mode = annotate"
pid=$(cat "$CLUSTER_DIR/run/slurmctld.pid")
grep -q " $PLUGIN_SO\$" "/proc/$pid/maps" || fail "slurmctld (pid $pid) does not run the installed $PLUGIN_SO"

# One version higher, as the next release's package would be: same files, a later Version.
up="$CLUSTER_DIR/upgrade"
mkdir -p "$up"
dpkg-deb -R "$deb" "$up/tree"
old=$(dpkg-deb -f "$deb" Version)
sed -i "s/^Version: .*/Version: $old+up1/" "$up/tree/DEBIAN/control"
dpkg --compare-versions "$old+up1" gt "$old" || fail "version $old+up1 does not sort after $old"
dpkg-deb -b --root-owner-group "$up/tree" "$up/next.deb" >/dev/null
out=$(dpkg -i "$up/next.deb" 2>&1) || fail "dpkg -i of the upgrade failed: $out"
printf '%s\n' "$out" | grep '^slurm-job-submit-jfp:' | sed 's/^/# /'
[ "$(dpkg-query -W -f='${Version}' slurm-job-submit-jfp)" = "$old+up1" ] || fail "the upgrade was not installed"
grep -q "job_submit_jfp\.so (deleted)$" "/proc/$pid/maps" || fail "dpkg did not replace the plugin slurmctld runs"
expect_contains "$out" "slurmctld (pid $pid) still runs the jfp plugin it loaded at start" "the package's word on the upgrade"
expect_contains "$out" "systemctl restart slurmctld" "the package's remedy"

out=$(site_check)
expect_contains "$out" "slurmctld (pid $pid) runs the job_submit_jfp.so it loaded at start, which has since been replaced" \
    "jfp check after the upgrade"

restart_runs_installed "$pid" "$PLUGIN_SO"
id=$(submit --hold -J after_upgrade --wrap true)
[ -n "$(p_of "$(comment_of "$id")")" ] || fail "no score in the annotation after the upgrade: $(comment_of "$id")"
scancel "$id"

# A second install of the same package (dpkg -i again, as a site's config management might) over the
# restarted slurmctld: the file is replaced again and the package says so again.
out=$(dpkg -i "$up/next.deb" 2>&1) || fail "reinstalling the package failed: $out"
expect_contains "$out" "slurmctld (pid $PID2) still runs the jfp plugin it loaded at start" "the word on a reinstall"
note "package upgrade $old -> $old+up1: postinst and jfp check named the restart; the restarted slurmctld scores"
