#!/usr/bin/env bash
# A test's cluster goes with the test (testcluster's watcher), however the test ends: here its owner is
# killed with SIGKILL while a job runs, so no teardown of its own runs. Seen before the watcher: a leg
# stopped by hand, its checkout deleted, left slurmctld, slurmd, slurmdbd and munged running.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
"$TESTCLUSTER" users
D=$(mktemp -d /tmp/jfp-test.XXXXXX)
trap '"$TESTCLUSTER" kill "$D" >/dev/null 2>&1 || true; kill $owner 2>/dev/null || true; rm -rf "$D"' EXIT
sleep 600 &
owner=$!
JFP_CLUSTER_OWNER=$owner JFP_JOB_SUBMIT_PLUGINS="" "$TESTCLUSTER" start "$D" >/dev/null
. "$D/env"
holders() {  # the processes holding a file under the cluster's directory
    local f out=""
    for f in /proc/[0-9]*/fd; do
        case "$(ls -l "$f" 2>/dev/null)" in *" -> $D/"*) p=${f#/proc/}; out="$out ${p%/fd}" ;; esac
    done
    echo "$out"
}
(cd /tmp && runuser -u jfp-usera -- sbatch -o /dev/null --wrap 'sleep 300') >/dev/null
wait_until 60 "the job did not start" '[ "$(squeue -h -t R | wc -l)" -ge 1 ]'
before=$(holders)
n=$(wc -w <<<"$before")
[ "$n" -ge 5 ] || fail "expected the daemons and the job step among the holders of $D's files, found: $before"
note "$n processes hold the cluster's files: $(for p in $before; do cat /proc/$p/comm 2>/dev/null; done | sort | uniq -c | tr -s ' ' | tr '\n' ',')"
kill -KILL "$owner"
wait "$owner" 2>/dev/null || true
wait_until 60 "processes still hold the cluster's files after its owner died: $(holders)" '[ -z "$(holders | tr -d " ")" ]'
# A killed daemon is reaped by whoever adopted it; where that is a PID 1 that does not reap (a container's),
# it stays a zombie for a while: dead, holding nothing, so it counts as stopped (lib.sh's running).
for p in $before; do
    ! running "$p" || fail "process $p ($(cat /proc/$p/comm 2>/dev/null), state $(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f1-2)) outlived the cluster's owner"
done
echo "PASS: a cluster whose owner is killed leaves no process behind ($n stopped by the watcher)"
