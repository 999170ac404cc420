#!/usr/bin/env bash
# The fault table (docs/testing.md): each row breaks one of the plugin's inputs on a real slurmctld in reject
# mode, with a threshold between two jobs' scores: root's 'doomed' (6 recent failures) is rejected when all is
# well, 'steady' (6 completions) is not. For each row:
#   - 'steady' is never rejected (nothing is rejected by accident), and 'doomed' gets the row's documented
#     answer: "passes" (the plugin fails open) or "rejected" (it keeps its last good state);
#   - slurmctld stays up and answers (scontrol ping, squeue) within 10 s;
#   - the fault is logged by exactly one line naming the file and what to do, however many jobs and reload
#     intervals pass;
#   - when the fault is removed the plugin recovers by itself and rejects 'doomed' again.
# Faults present before slurmctld starts are applied and then slurmctld is restarted, so no earlier good
# state exists. Runs in a private mount namespace (a read-only mount, a full tmpfs) that ends with the test.
# slurmctld as root here: the faults are planted with root's tools (sqlite3 holding the store's lock, files of
# other owners and modes, mounts), and what SlurmUser may open is this table's subject only where a row says
# so (the same faults under an unprivileged SlurmUser: adversarial.sh A7, script_archive.sh, units_run.sh).
export JFP_SLURM_USER=root
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
if [ -z "${JFP_FAULT_NS:-}" ]; then
    command -v unshare >/dev/null || fail "unshare (util-linux) is needed for the mount faults"
    # Inside a release root (a chroot, already in a private namespace: scripts/release-root) "/" is no
    # mount point and cannot be made private; its mounts already propagate nowhere.
    prop=private
    unshare --mount --propagation private true 2>/dev/null || prop=unchanged
    exec env JFP_FAULT_NS=1 unshare --mount --propagation "$prop" bash "$0" "$@"
fi

LOCKER=""
kill_locker() { if [ -n "$LOCKER" ]; then kill "$LOCKER" 2>/dev/null || true; wait "$LOCKER" 2>/dev/null || true; LOCKER=""; fi; }
new_site
CLEANUP_HOOK='kill_locker; umount -l "$W/full" 2>/dev/null || true; umount -l "$W/ro" 2>/dev/null || true; '"$CLEANUP_HOOK"
M=$W/model.json
S=$W/history.db
F=$W/features.db
cp "$M" "$W/good.json"
sqlite3 "$S" "VACUUM INTO '$W/good.db'"
# restore_store DEST: the good store at DEST, in WAL mode as jfp ingest leaves it (VACUUM INTO writes a
# rollback-journal file). Built aside and renamed into place: the plugin polls DEST every 0.3 s and, if it
# opened a half-made DEST, would hold the read lock that PRAGMA journal_mode needs ("database is locked").
restore_store() {
    rm -f "$1.new" "$1.new-wal" "$1.new-shm"
    sqlite3 "$W/good.db" "VACUUM INTO '$1.new'"
    sqlite3 "$1.new" "PRAGMA journal_mode=WAL" >/dev/null
    rm -f "$1-wal" "$1-shm"
    mv -f "$1.new" "$1"
}

conf_text() {  # conf_text MODE THRESHOLD [STORE] [FEATURE_LOG]
    printf 'mode = %s\nthreshold = %s\nreload_interval = 0.3\nreject_privileged = yes\nreject_below_target = yes\nmodel = %s\nstore = %s\nfeature_log = %s\n' \
        "$1" "$2" "$M" "${3:-$S}" "${4:-$F}"
}
export JFP_CONF="$(conf_text annotate 0.5)"
cluster_start
wait_log "loaded history of" 60
CONF=$CLUSTER_DIR/etc/jfp.conf
put() { install -m "${3:-644}" "$1" "$2.new" && mv "$2.new" "$2"; }
write_conf() { printf '%s\n' "$1" >"$CONF.new" && chmod 644 "$CONF.new" && mv "$CONF.new" "$CONF"; }

# The threshold: halfway between the two jobs' scores, read from their annotations.
score_doomed_and_steady
scancel "$DOOMED_ID" "$STEADY_ID"
HEALTHY=$(conf_text reject "$MID")

MARK=0
mark() { MARK=$(wc -l <"$CTLD_LOG"); }
since_mark() { tail -n +"$((MARK + 1))" "$CTLD_LOG"; }
# Error lines only: the plugin's init line also states what it runs with (e.g. "plugin is off: ...").
count_errors() { since_mark | grep -aF -- "error: " | grep -cF -- "$1" || true; }
wait_since() {  # wait_since TEXT [SECONDS]
    local deadline=$((SECONDS + ${2:-30}))
    while [ "$SECONDS" -lt "$deadline" ]; do
        since_mark | grep -aF -- "$1" >/dev/null && return 0
        sleep 0.2
    done
    fail "$ROW: no line with '$1' in slurmctld's log within ${2:-30} s; since the row began: $(since_mark | tail -n 5)"
}

decision() {  # decision NAME: prints passes or rejected (and cancels what passed)
    local out
    if out=$(sbatch --parsable --hold -J "$1" --wrap true 2>&1); then
        scancel "${out%%;*}"
        echo passes
    else
        case "$out" in *"jfp: job rejected"*) echo rejected ;; *) fail "$ROW: sbatch failed, not by jfp: $out" ;; esac
    fi
}

responsive() {
    local p
    p=$(cat "$CLUSTER_DIR/run/slurmctld.daemon.pid" 2>/dev/null || true)
    [ -n "$p" ] && running "$p" || fail "$ROW: slurmctld is not running"
    timeout 10 scontrol ping >/dev/null || fail "$ROW: slurmctld did not answer scontrol ping within 10 s"
    timeout 10 squeue -h >/dev/null || fail "$ROW: squeue did not answer within 10 s"
}

restart_ctld() { "$TESTCLUSTER" restart-ctld "$CLUSTER_DIR" >/dev/null; }

# Back to the healthy state: good files, healthy config, jobs decided as designed.
heal() {
    put "$W/good.json" "$M"
    [ -f "$S" ] || restore_store "$S"
    write_conf "$HEALTHY"
}

TABLE=""
# row ID WHEN DOOMED LOG_TEXT RECOVERY_TEXT DESCRIPTION: runs fault_ID then unfault_ID.
#   WHEN      start: the fault is in place when slurmctld starts; run: it appears while slurmctld runs
#   DOOMED    passes | rejected: what 'doomed' gets while the fault lasts
#   LOG_TEXT  text of the one line the fault must produce
row() {
    ROW=$1
    local when=$2 expect=$3 text=$4 recovery=$5 what=$6 expect_error=${7:-yes} i d line
    [ "$when" = start ] && "$TESTCLUSTER" stop-ctld "$CLUSTER_DIR"
    mark
    "fault_$ROW"
    [ "$when" = start ] && "$TESTCLUSTER" start-ctld "$CLUSTER_DIR" >/dev/null
    # A row whose store is sound decides with its history: wait until the new slurmctld has loaded it.
    if [ "$when" = start ] && [ "$expect" = rejected ]; then wait_since "loaded history of" 60; fi
    # Some faults show only when a job is scored (the feature log): submit until the line comes.
    local deadline=$((SECONDS + 30))
    until since_mark | grep -aF -- "$text" >/dev/null; do
        [ "$SECONDS" -lt "$deadline" ] || wait_since "$text" 0
        [ "$(decision steady)" = passes ] || fail "$ROW: steady was rejected while the fault lasted"
        sleep 0.3
    done
    for i in 1 2 3; do
        [ "$(decision steady)" = passes ] || fail "$ROW: steady was rejected while the fault lasted"
        d=$(decision doomed)
        [ "$d" = "$expect" ] || fail "$ROW: doomed $d, expected $expect while the fault lasts"
        responsive
        sleep 0.7  # more than two reload intervals each time
    done
    if [ "$expect_error" = yes ]; then
        [ "$(count_errors "$text")" = 1 ] || fail "$ROW: $(count_errors "$text") error lines with '$text', expected exactly 1: $(since_mark | grep -aF -- "$text")"
    fi
    since_mark | grep -a "internal fault" >/dev/null && fail "$ROW: internal fault logged: $(since_mark | grep -a 'internal fault' | head -n1)"
    line=$(since_mark | grep -aF -- "$text" | head -n1 | sed 's/^\[[^]]*\] //')
    note "$ROW: $line"
    printf '%s' "$line" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1 || fail "$ROW: the log line is not valid UTF-8"
    printf '%s' "$line" | LC_ALL=C grep -q $'[\x01-\x1f\x7f]' && fail "$ROW: control characters in the log line"
    mark
    "unfault_$ROW"
    [ "$recovery" = - ] || wait_since "$recovery" 40
    [ "$(decision doomed)" = rejected ] || fail "$ROW: after the fault was removed, doomed was not rejected"
    [ "$(decision steady)" = passes ] || fail "$ROW: after the fault was removed, steady was rejected"
    responsive
    TABLE="$TABLE| $ROW | $what | $when | $expect | ${line//|/\\|} | yes |\n"
}

heal
wait_log "reloaded $CONF: mode=reject"
[ "$(decision doomed)" = rejected ] || fail "healthy: doomed must be rejected at threshold $MID"
[ "$(decision steady)" = passes ] || fail "healthy: steady must pass at threshold $MID"

# ---- the model bundle, broken before slurmctld starts: no good model exists, every job passes unscored
fault_M1() { rm -f "$M"; }
unfault_M1() { heal; }
row M1 start passes "model $M not used: missing" "loaded model" "model missing" no  # a site waiting for its first model: said, not an error
fault_M2() { head -c 3000 "$W/good.json" >"$M"; }
unfault_M2() { heal; }
row M2 start passes "model $M not used: $M: not a model bundle" "loaded model" "model truncated"
fault_M3() { sed 's/"trees"/"tr\x01\xffes"/' "$W/good.json" | tr '[' '{' >"$M"; }
unfault_M3() { heal; }
row M3 start passes "model $M not used: $M: not a model bundle" "loaded model" "model corrupt JSON"
fault_M4() {
    /usr/bin/python3 - "$W/good.json" "$M" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["feature_schema"]["names"][5] = "a_feature_from_elsewhere"
json.dump(b, open(sys.argv[2], "w"))
PY
}
unfault_M4() { heal; }
row M4 start passes "model $M not used: $M: feature schema mismatch" "loaded model" "model of another feature schema"
fault_M5() { put "$W/good.json" "$M"; chown nobody "$M"; }
unfault_M5() { chown root "$M"; }
row M5 start passes "model $M not used: refused: $M is owned by uid" "loaded model" "model owned by a non-root user"
fault_M6() { put "$W/good.json" "$M" 664; }
unfault_M6() { chmod 644 "$M"; }
row M6 start passes "model $M not used: refused: $M is writable by group or others" "loaded model" "model group-writable"

# ---- jfp.conf, broken before slurmctld starts: the plugin stays off, every job passes
fault_C1() { head -c 4096 /dev/urandom >"$CONF"; }
unfault_C1() { write_conf "$HEALTHY"; }
row C1 start passes "config $CONF not used" "loaded history of" "jfp.conf binary garbage"
fault_C2() { write_conf "$HEALTHY
colour = blue"; }
unfault_C2() { write_conf "$HEALTHY"; }
row C2 start passes "unknown key 'colour'" "loaded history of" "jfp.conf unknown key"
fault_C3() { write_conf "$HEALTHY
threshold = 2"; }
unfault_C3() { write_conf "$HEALTHY"; }
row C3 start passes "invalid value '2' for threshold" "loaded history of" "jfp.conf bad value"
fault_C4() { { printf '%s\n' "$HEALTHY"; head -c 10000000 /dev/zero | tr '\0' '#'; echo; } >"$CONF"; }
unfault_C4() { write_conf "$HEALTHY"; }
row C4 start passes "larger than 1 MiB" "loaded history of" "jfp.conf of 10 MB"
fault_C5() { write_conf "$HEALTHY"; chown nobody "$CONF"; }
unfault_C5() { chown root "$CONF"; }
row C5 start passes "config $CONF not used (refused: $CONF is owned by uid" "loaded history of" "jfp.conf owned by a non-root user"
fault_C6() { write_conf "$HEALTHY"; chmod 666 "$CONF"; }
unfault_C6() { chmod 644 "$CONF"; }
row C6 start passes "jfp.conf is writable by group or others" "loaded history of" "jfp.conf writable by others"

# ---- the history store
# Deleted while slurmctld runs: the last history loaded is kept, decisions do not change.
fault_S1() { rm -f "$S" "$S-wal" "$S-shm"; }
unfault_S1() { restore_store "$S"; }
row S1 run rejected "history store $S not used: missing" "loaded history of" "store deleted while running"
# Corrupt before start: no history at all, so reject mode only warns (no-history).
fault_S2() { head -c 65536 /dev/urandom >"$S"; rm -f "$S-wal" "$S-shm"; }
unfault_S2() { restore_store "$S"; }
row S2 start passes "history store $S not used" "loaded history of" "store corrupt"
# On a read-only file system before start: the same. The fault is removed by unmounting.
RO=$W/ro
mkdir -p "$RO"
restore_store "$RO/history.db"
fault_S3() {
    write_conf "$(conf_text reject "$MID" "$RO/history.db")"
    mount --bind "$RO" "$RO" && mount -o remount,bind,ro "$RO"
}
unfault_S3() { umount "$RO"; }
row S3 start passes "its directory $RO is not writable" "loaded history of" "store on a read-only file system"
heal
# Locked by another writer (BEGIN EXCLUSIVE held) through a restart, then a commit elsewhere.
fault_S4() {
    /usr/bin/python3 -c '
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
c.execute("UPDATE jobs SET name = name WHERE rowid = 1")
print("locked", flush=True)
time.sleep(600)' "$S" >"$W/locker.out" &
    LOCKER=$!
    wait_until 30 "S4: the locker did not take the lock" 'grep -q locked "$W/locker.out"'
}
unfault_S4() { kill_locker; }
row S4 start rejected "loaded history of" - "store locked by another writer (BEGIN EXCLUSIVE)" no

# ---- the feature log on a full file system: decisions do not change; the log line says what to do
FULL=$W/full
mkdir -p "$FULL"
mount -t tmpfs -o size=256k tmpfs "$FULL"
fault_F1() {
    write_conf "$(conf_text reject "$MID" "$S" "$FULL/features.db")"
    dd if=/dev/zero of="$FULL/filler" bs=4k 2>/dev/null || true
}
unfault_F1() { rm -f "$FULL/filler"; }
row F1 start rejected "feature log" - "feature log on a full disk"
# Recovery means rows reach the log again.
logged_after_decision() {  # true once a row reached the feature log; else submits one more job
    [ "$(sql_read "$FULL/features.db" 'SELECT count(*) FROM scored' 2>/dev/null || echo 0)" -gt 0 ] && return 0
    decision doomed >/dev/null
    return 1
}
wait_until 60 "F1: nothing reached the feature log after space was freed" logged_after_decision
mark
heal
wait_since "reloaded $CONF"
umount -l "$FULL"  # the plugin's earlier feature log writer may still hold its file there

# ---- slurmctld restarted while the background thread loads a large history
BIG=$W/big.db
restore_store "$BIG"
"$JFP" synth --jobs 150000 --seed 5 -q -o "$W/big.txt"
"$JFP" ingest --trusted-export -q --db "$BIG" "$W/big.txt"
fault_R1() { write_conf "$(conf_text reject "$MID" "$BIG")"; }
unfault_R1() { :; }
mark
fault_R1
wait_since "loaded history of"
for ROW in R1 R2; do
    mark
    if [ "$ROW" = R1 ]; then restart_ctld; scontrol reconfigure; else restart_ctld; restart_ctld; fi
    responsive
    # While the history loads, jobs pass (no history: warned at most); then doomed is rejected again.
    deadline=$((SECONDS + 60))
    until [ "$(decision doomed)" = rejected ]; do
        [ "$SECONDS" -lt "$deadline" ] || fail "$ROW: doomed not rejected within 60 s of the restart"
        sleep 0.5
    done
    [ "$(decision steady)" = passes ] || fail "$ROW: steady rejected after the restart"
    since_mark | grep -a "internal fault" >/dev/null && fail "$ROW: internal fault logged"
    line=$(since_mark | grep -aF "loaded history of" | tail -n1 | sed 's/^\[[^]]*\] //')
    note "$ROW: $line"
    if [ "$ROW" = R1 ]; then
        TABLE="$TABLE| R1 | \`scontrol reconfigure\` while a 150k-job history loads | run | rejected (after the load) | $line | yes |\n"
    else
        TABLE="$TABLE| R2 | slurmctld stopped (SIGTERM) while a 150k-job history loads, and started again | run | rejected (after the load) | $line | yes |\n"
    fi
done

# ---- a fault that keeps changing: the model rewritten with other garbage 12 times in 6 s is one line
# (the same kind of fault with other details is said at most once a minute), and a recovery is at once.
ROW=M7
mark
for i in $(seq 1 12); do
    head -c $((3000 + i * 97)) "$W/good.json" >"$W/cut.json"
    put "$W/cut.json" "$M"
    sleep 0.5
done
wait_since "not a model bundle"
n=$(count_errors "model $M not used")
expect_eq "$n" 1 "M7: error lines for a model rewritten broken 12 times in 6 s"
put "$W/good.json" "$M"
wait_since "loaded model"
[ "$(decision doomed)" = rejected ] || fail "M7: doomed not rejected once the model is whole again"
[ "$(decision steady)" = passes ] || fail "M7: steady rejected"
TABLE="$TABLE| M7 | model rewritten, truncated at another byte, 12 times in 6 s | run | rejected (last model kept) | one line: not a model bundle ...; the next such within a minute are held and the latest said after it with a count | yes |\n"

printf '\n| row | fault | when | doomed while it lasts | the one log line | recovers |\n|---|---|---|---|---|---|\n%b' "$TABLE"
note "fault table: every row passed"
