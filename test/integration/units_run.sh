#!/usr/bin/env bash
# The jfp package's systemd units, run: no systemd runs here (no PID 1 of its own in a container or build
# root), so each service's ExecStart= commands run as systemd would run them (test/integration/run_unit.py:
# its Environment= defaults, then an EnvironmentFile the test writes as an admin writes /etc/default/jfp;
# systemd's word splitting and $VAR expansion; as the unit's User=, here the cluster's SlurmUser jfp-slurm)
# against a real cluster whose slurmdbd and slurmctld run as that SlurmUser, inside the units' file-system
# sandbox (ProtectSystem=strict with ReadWritePaths=/var/lib/jfp, PrivateTmp=, ProtectHome=, PrivateDevices=,
# NoNewPrivileges=), built by run_unit.py in a mount namespace; the seccomp filters are systemd-analyze's to
# check (test/source/units.sh). In order:
#   jfp-ingest.service   `jfp ingest --follow` keeps the store current: users' jobs reach it, and the
#                        plugin applies them; SIGTERM (systemctl stop) ends it.
#   jfp-monitor.service  `jfp monitor` on the window the unit computes; it judges (exit 0, or 2 on an alert).
#   jfp-retrain.service  train holding out the last 14 days, then publish through the gate (rules, and the
#                        model installed), as SlurmUser (the only test of publish run by SlurmUser): the new
#                        bundle replaces model.json, the old one is model.json.previous, both SlurmUser's,
#                        and the running plugin loads the new one.
#   jfp-prune.service    removes the old synthetic history (an age the env file sets), the plugin reloads
#                        the store whole and still scores from the history that is left.
# With JFP_INSTALLED (the 24.11 leg) the units are the installed ones, /usr/lib/systemd/system/jfp-*.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
"$TESTCLUSTER" users
export JFP_SLURM_USER=jfp-slurm
SU=$JFP_SLURM_USER

new_site
T=$W/test  # the test's own files (outputs, the env file): root's, left out of the ownership check at the end
mkdir "$T"
install -D -m 755 "$JFP" "$W/bin/jfp"
chown -R "$SU:" "$W"
chown root: "$T"
chmod 755 "$W"
if [ -n "${JFP_INSTALLED:-}" ]; then
    UNITS=/usr/lib/systemd/system
    [ -d "$UNITS" ] && [ -f "$UNITS/jfp-ingest.service" ] || UNITS=/lib/systemd/system
    prefix=jfp-
    REPLACE=(--replace "/var/lib/jfp=$W")
else
    UNITS="$JFP_SRCDIR/debian"
    prefix=jfp.jfp-
    REPLACE=(--replace "/usr/bin/jfp=$W/bin/jfp" --replace "/var/lib/jfp=$W")
fi
for u in ingest monitor retrain prune; do
    [ -f "$UNITS/$prefix$u.service" ] || fail "no $UNITS/$prefix$u.service"
done
# What an admin puts in /etc/default/jfp: a short ingest interval for a test, a small retrain, an age that
# removes the synthetic history of 2024 and keeps the jobs of today.
cat >"$T/default-jfp" <<'EOF'
JFP_INGEST_ARGS="--interval 2 --overlap 7200"
JFP_TRAIN_ARGS="--rounds 60 --nthread 2 --no-progress"
JFP_PRUNE_STORE=400d
EOF
# unit_cmd UNIT_FILE [run_unit.py options]: sets RUN to the command that runs UNIT_FILE's commands as
# SlurmUser, in its sandbox, with the test cluster visible. A simple command: `"${RUN[@]}" &` makes $! the
# run_unit.py that a SIGTERM must reach (a function run in the background would be a subshell's pid).
unit_cmd() {
    local file=$1
    shift
    RUN=(/usr/bin/python3 "$JFP_SRCDIR/test/integration/run_unit.py" "$file" --user "$SU"
        --env-file "$T/default-jfp" "${REPLACE[@]}" --visible "$CLUSTER_DIR" "$@")
}
unit() {  # unit NAME [run_unit.py options]: the service's commands
    local name=$1
    shift
    unit_cmd "$UNITS/$prefix$name.service" "$@"
    "${RUN[@]}"
}
start_site_cluster "mode = annotate
script_archive = $W/scripts.db"
# Waits for a writer (or a reader's WAL recovery) as the CLI and plugin do: sqlite3 alone gives up at once
# with "database is locked", which read as an empty count the moment slurmctld began reloading the store.
sqlq() { sql_read "$1" "$2" || true; }

# ---- users' jobs, then jfp-ingest.service
mkdir -p "$W/home"
chmod 1777 "$W/home"
ok=$(as_user jfp-usera sbatch --parsable -o /dev/null -J units_ok --wrap true | cut -d';' -f1)
bad=$(as_user jfp-userb sbatch --parsable -o /dev/null -J units_bad --wrap false | cut -d';' -f1)
wait_job "$ok" 120 >/dev/null
wait_job "$bad" 120 >/dev/null
wait_accounting_complete
unit_cmd "$UNITS/${prefix}ingest.service"
"${RUN[@]}" >"$T/ingest.out" 2>&1 &
ingest_pid=$!
# A failure before the service is stopped below must not leave it running.
CLEANUP_HOOK="kill $ingest_pid 2>/dev/null || true; pkill -P $ingest_pid 2>/dev/null || true; $CLEANUP_HOOK"
in_store() { [ "$(sqlq "$W/history.db" "SELECT count(*) FROM jobs WHERE job_key IN ('$ok', '$bad') AND end_time IS NOT NULL")" = 2 ]; }
wait_until 60 "jfp-ingest.service did not bring jobs $ok and $bad into the store: $(cat "$T/ingest.out")" in_store
expect_eq "$(sqlq "$W/history.db" "SELECT state FROM jobs WHERE job_key = '$bad'")" FAILED "job $bad's state in the store"
wait_log "applied [0-9]* changed jobs from $W/history.db" 30
ingest_child=$(pgrep -P "$ingest_pid" || true)  # jfp ingest --follow, run_unit.py's child
[ -n "$ingest_child" ] || fail "jfp-ingest.service runs no command: $(cat "$T/ingest.out")"
kill -TERM "$ingest_pid"
wait_until 15 "jfp-ingest.service did not stop on SIGTERM" '! running "$ingest_pid"'
rc=0
wait "$ingest_pid" || rc=$?
# Ended by SIGTERM is a clean stop to systemd (run_unit.py: 128 + 15); any other status is not.
expect_eq "$rc" 143 "jfp-ingest.service's status after SIGTERM ($(tail -n2 "$T/ingest.out"))"
# run_unit.py waits for the command it signalled: nothing of the service is left
! running "$ingest_child" ||
    fail "jfp ingest --follow (pid $ingest_child) still runs after jfp-ingest.service stopped: $(ps -o pid,args -p "$ingest_child")"
grep -q "jfp ingest --follow --interval 2 --overlap 7200" "$T/ingest.out" ||
    fail "jfp-ingest.service did not run jfp ingest --follow with JFP_INGEST_ARGS: $(head -n3 "$T/ingest.out")"
note "jfp-ingest.service: jobs $ok and $bad in the store $((SECONDS)) s into the test; the plugin applied them; stopped by SIGTERM"

# ---- jfp-monitor.service: judges the window (0), or alerts (2); never a usage error or a failure to read
rc=0
unit monitor >"$T/monitor.out" 2>&1 || rc=$?
case "$rc" in 0 | 2) ;; *) fail "jfp-monitor.service exited $rc: $(cat "$T/monitor.out")" ;; esac
grep -q -- "jobs scored since $(date -d '7 days ago' +%F)T00:00:00, 2 with an outcome (1 failed)" "$T/monitor.out" ||
    fail "jfp-monitor.service did not compute its window (7 days ago): $(head -n3 "$T/monitor.out")"
note "jfp-monitor.service: exit $rc; $(grep -m1 'scored since' "$T/monitor.out")"

# ---- jfp-retrain.service: train and publish as SlurmUser; the plugin loads the new model
old_id=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model_id"])' "$W/model.json")
# A blank JFP_TRAIN_HOLDOUT fails the unit, saying so, rather than train on every job (date -d " " is today).
{ cat "$T/default-jfp"; echo 'JFP_TRAIN_HOLDOUT=" "'; } >"$T/blank-holdout"
rc=0
unit retrain --env-file "$T/blank-holdout" >"$T/blank.out" 2>&1 || rc=$?
expect_eq "$rc" 1 "jfp-retrain.service's status with a blank JFP_TRAIN_HOLDOUT ($(tail -n2 "$T/blank.out"))"
grep -q "jfp-retrain: JFP_TRAIN_HOLDOUT is empty" "$T/blank.out" || fail "no message for a blank JFP_TRAIN_HOLDOUT: $(cat "$T/blank.out")"
[ ! -e "$W/model.new.json" ] || fail "a blank JFP_TRAIN_HOLDOUT still trained: $(cat "$T/blank.out")"
# root published by hand once: its lock file (root's, 0644) must not lock SlurmUser out.
install -m 644 /dev/null "$W/model.json.lock"
unit retrain >"$T/retrain.out" 2>&1 || fail "jfp-retrain.service failed: $(cat "$T/retrain.out")"
new_id=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model_id"])' "$W/model.json")
[ "$new_id" != "$old_id" ] || fail "jfp-retrain.service left model $old_id in place: $(cat "$T/retrain.out")"
expect_eq "$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model_id"])' "$W/model.json.previous")" \
    "$old_id" "the model kept as model.json.previous"
for f in model.json model.json.previous; do
    expect_eq "$(stat -c %U "$W/$f")" "$SU" "the owner of $f after SlurmUser's publish"
done
# make_site's model was trained on every job: only jobs since its training window are unseen by both, and
# publish says what it compared on, or why it did not (model_gate.sh tests the comparison itself).
grep -Eq "not compared with the installed model $old_id: [0-9]+ failed jobs since .* \(neither trained on them\)|against the installed model $old_id on the [0-9]+ jobs" "$T/retrain.out" ||
    fail "jfp publish did not say why it did not compare with the installed model: $(cat "$T/retrain.out")"
# The bundle published holds out the last 14 days (JFP_TRAIN_HOLDOUT): its training cutoff is that day.
/usr/bin/python3 -c 'import json,sys; c = json.load(open(sys.argv[1]))["training"]["cutoff"]; sys.exit(not c.startswith(sys.argv[2]))' \
        "$W/model.json" "$(date -d '14 days ago' +%F)" ||
    fail "jfp-retrain.service did not hold out the last 14 days (JFP_TRAIN_HOLDOUT): $(head -n5 "$T/retrain.out")"
wait_log "loaded model $new_id" 30
note "jfp-retrain.service: published $new_id over $old_id (kept as .previous), both $SU's; slurmctld loaded it"

# ---- the sandbox holds: the same unit without ReadWritePaths= (nor PrivateTmp=, which would hide the
# test's site under /tmp) finds the site read-only through ProtectSystem=strict alone, and fails saying why
# and what to change (not only SQLite's "attempt to write a readonly database")
grep -v '^ReadWritePaths=\|^PrivateTmp=' "$UNITS/${prefix}prune.service" >"$T/no-rw.service"
unit_cmd "$T/no-rw.service"
rc=0
"${RUN[@]}" >"$T/no-rw.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "jfp-prune.service without ReadWritePaths= succeeded: ProtectSystem=strict did not make $W read-only: $(cat "$T/no-rw.out")"
grep -q "$W/features.db: .*readonly database: the file system holding $W/features.db is mounted read-only here (under systemd.*add $W there)" "$T/no-rw.out" ||
    fail "jfp-prune.service without ReadWritePaths= did not fail saying the file system is read-only: $(cat "$T/no-rw.out")"
note "a unit without ReadWritePaths= fails: $(grep -m1 'mounted read-only' "$T/no-rw.out")"

# ---- jfp-prune.service: the synthetic history of 2024 goes; today's jobs stay; the plugin reloads whole
before=$(sqlq "$W/history.db" "SELECT count(*) FROM jobs WHERE user IS NOT NULL")
unit prune >"$T/prune.out" 2>&1 || fail "jfp-prune.service failed: $(cat "$T/prune.out")"
after=$(sqlq "$W/history.db" "SELECT count(*) FROM jobs WHERE user IS NOT NULL")
[ "$after" -lt "$before" ] || fail "jfp-prune.service removed nothing ($before jobs before, $after after): $(cat "$T/prune.out")"
expect_eq "$(sqlq "$W/history.db" "SELECT count(*) FROM jobs WHERE job_key IN ('$ok', '$bad')")" 2 "today's jobs after the prune"
expect_contains "$(cat "$T/prune.out")" "jfp prune feature-log: removed 0 rows" "jfp-prune.service's feature-log step"
expect_contains "$(cat "$T/prune.out")" "jfp scripts prune: removed 0 submissions" "jfp-prune.service's script-archive step"
wait_log "changed: loading it whole, as jobs were pruned from it" 30
wait_log "loaded history of $after jobs" 30
# root's 'doomed' (its last runs failed minutes ago) still scores above 'steady': the history left is used.
score_doomed_and_steady
scancel "$DOOMED_ID" "$STEADY_ID"
note "jfp-prune.service: $before -> $after jobs; slurmctld reloaded the store whole; doomed $PD > steady $PS after"

# Everything the units wrote is SlurmUser's: none of them ran as root.
others=$(find "$W" \( -path "$W/home" -o -path "$T" -o -path "$W/model.json.lock" \) -prune -o ! -user "$SU" -print)
[ -z "$others" ] || fail "files in the site directory not owned by $SU: $others"
note "every file the units wrote is $SU's"
