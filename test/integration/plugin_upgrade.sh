#!/usr/bin/env bash
# An upgrade of the plugin under a running slurmctld: slurmctld loads plugins only at start, so it keeps
# the job_submit_jfp.so it loaded, replaced on disk, with no word in its log. jfp check says so and names the
# remedy, and after a restart it runs the installed file. The file is replaced as dpkg and rpm replace it:
# a new file renamed over the old, whose mapping then reads "(deleted)".
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster

start_site_cluster "mode = annotate"
pid=$(cat "$CLUSTER_DIR/run/slurmctld.pid")
out=$(site_check)
expect_contains "$out" "slurmctld (pid $pid) runs the installed " "jfp check before the upgrade"
case "$out" in *"has since been replaced"*) fail "a fresh slurmctld reported as running a replaced plugin: $out" ;; esac

so=$(grep -o '/[^ ]*/job_submit_jfp\.so' "/proc/$pid/maps" | head -n1)
[ -n "$so" ] || fail "slurmctld (pid $pid) does not map job_submit_jfp.so: $(grep -c . "/proc/$pid/maps") mappings"
if [ "$so" != "$CLUSTER_DIR/plugins/job_submit_jfp.so" ]; then
    # The installed package's file is every concurrent test cluster's: replacing it would change theirs.
    note "slurmctld runs the installed package's $so: the replacement is tested where the cluster has its own copy"
    exit 0
fi
cp -p "$so" "$so.dpkg-new"
mv -f "$so.dpkg-new" "$so"
grep -q "job_submit_jfp\.so (deleted)$" "/proc/$pid/maps" || fail "the replaced plugin is not shown deleted in slurmctld's map"
out=$(site_check)
expect_contains "$out" "slurmctld (pid $pid) runs the job_submit_jfp.so it loaded at start, which has since been replaced ($so (deleted))" \
    "jfp check after the upgrade"
expect_contains "$out" "restart slurmctld (systemctl restart slurmctld) to load the installed plugin" "the remedy"
printf '%s\n' "$out" | grep -m1 "has since been replaced" | sed 's/^/# /'

restart_runs_installed "$pid" "$so"
note "plugin upgrade: the replaced plugin reported, the restarted slurmctld runs the installed one"
