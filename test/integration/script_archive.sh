#!/usr/bin/env bash
# The script archive on a real cluster (docs/admin-guide.md, "The script archive"): scripts of several
# shapes come back from `jfp scripts show JOBID` byte for byte, for queued jobs (through scontrol) and ended
# ones (through the store); the environment is kept when asked; the same script submitted many times is
# stored once; `jfp scripts diff --last-ok` shows what changed between a failed run and the last completed
# one; a full disk drops scripts without touching a submission; restarts of slurmctld keep the archive.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
if [ -z "${JFP_FAULT_NS:-}" ]; then
    command -v unshare >/dev/null || fail "unshare (util-linux) is needed for the full-disk case"
    prop=private  # inside a release root "/" cannot be made private, and mounts already propagate nowhere
    unshare --mount --propagation private true 2>/dev/null || prop=unchanged
    exec env JFP_FAULT_NS=1 unshare --mount --propagation "$prop" bash "$0" "$@"
fi

# As Debian runs Slurm: slurmctld as an unprivileged SlurmUser, which owns the site directory.
"$TESTCLUSTER" users
export JFP_SLURM_USER=jfp-slurm
new_site
chown -R "$JFP_SLURM_USER:" "$W"
CLEANUP_HOOK='umount -l "$W/full" 2>/dev/null || true; '"$CLEANUP_HOOK"
A=$W/scripts.db
archive_conf() {  # archive_conf ARCHIVE: the lines past SITE_CONF
    printf 'mode = annotate\nscript_archive = %s\nscript_archive_env = yes\n' "$1"
}
conf() { printf '%s\n%s\n' "$SITE_CONF" "$(archive_conf "$1")"; }
start_site_cluster "$(archive_conf "$A")"
wait_log "archiving job scripts in $A"
scripts() { "$JFP" scripts "$@" --archive "$A" --db "$W/history.db"; }

# archived ID: waits until the plugin's writer has stored the job's submission.
archived() {
    local t
    t=$(token_of_job "$1")
    [ -n "$t" ] || fail "job $1 carries no jfp token"
    # The archive's writer runs at a lower priority, off the submit path: on a busy machine it lags.
    wait_until 60 "job $1 (token $t) was not archived" \
        '[ "$(sql_read "$A" "SELECT count(*) FROM submissions WHERE token = '"'$t'"'" 2>/dev/null || echo 0)" = 1 ]'
}

# ---- shapes: sh, python, bytes 0x01-0xff after the shebang, 1 MiB, a tab-and-trailing-space line
mkdir -p "$W/in"
printf '#!/bin/sh\n#SBATCH -J shape_sh\necho "from sh"\n' >"$W/in/sh"
printf '#!/usr/bin/env python3\n#SBATCH -J shape_py\nimport os\nprint(os.environ.get("SLURM_JOB_ID"))\n' >"$W/in/py"
python3 - "$W/in/bin" "$W/in/big" "$W/in/ws" <<'PY'
import sys
open(sys.argv[1], "wb").write(b"#!/bin/bash\n#SBATCH -J shape_bin\n: '" + bytes(b for b in range(1, 256) if b != 39) + b"'\ntrue\n")
lines, n = [b"#!/bin/bash\n#SBATCH -J shape_big\n"], 0
while sum(map(len, lines)) < (1 << 20):
    lines.append(b"# line %d of a generated workflow: srun ./step --in data/%08d.h5 --out out/%08d.h5\n" % (n, n * 7, n * 13)); n += 1
open(sys.argv[2], "wb").write(b"".join(lines))
open(sys.argv[3], "wb").write(b"#!/bin/bash\n#SBATCH -J shape_ws\n\techo tab \t \necho end   \n")
PY
declare -A ID TOK
for s in sh py bin big ws; do
    ID[$s]=$(submit --hold -o /dev/null "$W/in/$s")
done
for s in sh py bin big ws; do
    archived "${ID[$s]}"
    TOK[$s]=$(token_of_job "${ID[$s]}")
    scripts show -q "${ID[$s]}" >"$W/out.$s" || fail "jfp scripts show ${ID[$s]} ($s) failed"
    # The archive keeps a script's first 64 KiB (docs/admin-guide.md, "Why 64 KiB").
    head -c 65536 "$W/in/$s" | cmp - "$W/out.$s" || fail "the $s script did not come back byte for byte"
done
note "5 shapes (sh, python, bytes 0x01-0xff, the first 64 KiB of $(stat -c %s "$W/in/big") bytes, whitespace) back byte for byte from a queued job"
# The fingerprint `jfp scripts show` gives is the one slurmctld's plugin logged for the job, and --identity
# prints the same commands for the archived job as for its file.
for s in bin ws sh; do
    wait_until 30 "the feature log lacks ${ID[$s]}'s fingerprint" \
        '[ -n "$(sql_read "$W/features.db" "SELECT script_fp FROM scored WHERE token = '"'${TOK[$s]}'"'" 2>/dev/null)" ]'
    logged=$(sql_read "$W/features.db" "SELECT script_fp FROM scored WHERE token = '${TOK[$s]}'")
    shown=$(scripts show "${ID[$s]}" 2>&1 >/dev/null | sed -n 's/^# script fingerprint [0-9a-f]\{16\} (script_fp \(-\{0,1\}[0-9]*\) .*/\1/p')
    expect_eq "$shown" "$logged" "the fingerprint jfp scripts show gives for the $s script"
    scripts show -q --identity "${ID[$s]}" >"$W/ident.job"
    "$JFP" scripts show -q --identity --file "$W/in/$s" >"$W/ident.file"
    cmp "$W/ident.job" "$W/ident.file" || fail "the $s script's identity differs between its job and its file"
done
note "the plugin's fingerprints of 3 shapes as jfp scripts show gives them; --identity of the sh script: $(tr '\n' '|' <"$W/ident.job")"
scripts show "${ID[big]}" >/dev/null 2>"$W/show.err"
grep "only its first 65536 of $(stat -c %s "$W/in/big") bytes are kept here" "$W/show.err" >/dev/null ||
    fail "jfp scripts show did not say the big script is a head: $(cat "$W/show.err")"
grep "sacct -j ${ID[big]} --batch-script" "$W/show.err" >/dev/null || fail "jfp scripts show did not say where the whole script is"
# The environment as sbatch sent it.
scripts show -q --env "${ID[sh]}" >"$W/env.sh"
grep -qx "JFP_ARCHIVE_PROBE=42" "$W/env.sh" && fail "the probe variable should not be there yet"
e=$(JFP_ARCHIVE_PROBE=42 submit --hold -o /dev/null "$W/in/sh")
archived "$e"
# (Into a file: grep -q stops reading at the match, and under pipefail the writer's SIGPIPE fails the pipe.)
scripts show -q --env "$e" >"$W/env.probe"
grep -qx "JFP_ARCHIVE_PROBE=42" "$W/env.probe" || fail "the submit environment was not kept"
# sbatch refuses these before the plugin sees them: nothing of them can reach the archive.
printf '#!/bin/sh\r\necho dos\r\n' >"$W/in/crlf"
sbatch --hold -o /dev/null "$W/in/crlf" >/dev/null 2>&1 && note "this sbatch accepts CRLF scripts" || note "sbatch refuses CRLF scripts itself"
: >"$W/in/empty"
sbatch --hold -o /dev/null "$W/in/empty" >/dev/null 2>&1 && fail "sbatch accepted an empty script"

# ---- dedup: the same script 30 times is one stored script
script_blobs() { sql_read "$A" "SELECT count(*) FROM blobs WHERE hash IN (SELECT script_hash FROM submissions)"; }
before=$(script_blobs)
for i in $(seq 1 30); do last=$(submit --hold -o /dev/null -J same "$W/in/py"); done
archived "$last"
expect_eq "$(sql_read "$A" "SELECT count(DISTINCT script_hash) FROM submissions WHERE name = 'same'")" 1 "distinct scripts among 30 identical submissions"
expect_eq "$(sql_read "$A" "SELECT count(*) FROM submissions WHERE name = 'same'")" 30 "submissions archived"
expect_eq "$(script_blobs)" "$before" "stored scripts after resubmitting an archived one"
scripts stats --json >"$W/stats.json"
python3 - "$W/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["submissions"] == 36 and s["unique_scripts"] == 5 and s["with_environment"] == 36, s
# 30 more copies of the python script: submitted bytes grew, unique bytes did not
assert s["script_bytes_submitted"] - s["unique_script_bytes"] >= 30 * 60, s
assert s["dedup_ratio"] > 1.0 and s["stored_bytes"] < s["blob_bytes"], s
PY
expect_eq "$(stat -c %a "$A")" 600 "the archive's mode (scripts may hold secrets)"
scancel -u root
clear_queue() { wait_until 60 "the queue did not empty after scancel" '[ -z "$(squeue -h -o %i | head -n1)" ]'; }
clear_queue

# ---- a completed run, then a failed run of the same name with one line changed: diff --last-ok
printf '#!/bin/bash\n#SBATCH -J pipeline\nINPUT=data/run1.h5\necho "processing $INPUT"\ntrue\n' >"$W/in/ok"
printf '#!/bin/bash\n#SBATCH -J pipeline\nINPUT=data/run2.h5\necho "processing $INPUT"\nexit 3\n' >"$W/in/bad"
ok=$(submit -o /dev/null "$W/in/ok")
expect_eq "$(wait_job "$ok" 120)" COMPLETED "the good run"
bad=$(submit -o /dev/null "$W/in/bad")
expect_eq "$(wait_job "$bad" 120)" FAILED "the changed run"
# Jobs of the other shapes run to the end too, for the parity check below.
ran=("$ok" "$bad")
for s in sh py bin ws; do ran+=("$(submit -o /dev/null "$W/in/$s")"); done
for id in "${ran[@]}"; do wait_job "$id" 120 >/dev/null; done
wait_accounting_complete
"$JFP" ingest --trusted-export -q --from-sacct --db "$W/history.db" --overlap 7200
scripts show -q "$bad" | cmp - "$W/in/bad" || fail "an ended job's script (through the store) differs"
scripts diff "$bad" --last-ok >"$W/diff.txt"
grep -q "^-INPUT=data/run1.h5" "$W/diff.txt" || fail "diff --last-ok lacks the old line: $(cat "$W/diff.txt")"
grep -q "^+exit 3" "$W/diff.txt" || fail "diff --last-ok lacks the new line: $(cat "$W/diff.txt")"
grep -q "^--- job $ok " "$W/diff.txt" || fail "diff --last-ok should compare with job $ok: $(head -n2 "$W/diff.txt")"
scripts find --state FAILED --name pipeline --json >"$W/find.json"
python3 - "$W/find.json" "$bad" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
assert [r["job_id"] for r in rows] == [sys.argv[2]], rows
assert rows[0]["state"] == "FAILED", rows
PY
out=$("$JFP" scripts show 999999 --archive "$A" --db "$W/history.db" 2>&1) && fail "an unknown job id should fail"
expect_contains "$out" "job 999999 is unknown" "unknown job id message"
note "diff --last-ok of failed job $bad against completed job $ok shows the changed lines"

# ---- parity: the script features the trainer computes from the archive are those the plugin logged
wait_until 60 "the feature log did not reach the 40 jobs scored so far" \
    '[ "$(sql_read "$W/features.db" "SELECT count(*) FROM scored" 2>/dev/null || echo 0)" -ge 40 ]'
"$JFP" parity --db "$W/history.db" --feature-log "$W/features.db" --script-archive "$A" --json >"$W/parity.json"
"$JFP" parity --db "$W/history.db" --feature-log "$W/features.db" --json >"$W/parity-noarchive.json"
python3 - "$W/parity.json" "$W/parity-noarchive.json" <<'PY'
import json, sys
p, q = (json.load(open(f)) for f in sys.argv[1:3])
assert p["jobs"] >= 6, p["jobs"]
script = [k for k in p["features"] if k.startswith("script_")]
assert len(script) >= 10, script
bad = {k: p["features"][k] for k in script if p["features"][k]["differ"]}
assert not bad, f"script features differ between the plugin and the archive: {bad}"
# Every one compared agrees (script_missing_modules is not compared: the index at submission is not kept).
assert all(p["features"][k]["agree"] == p["jobs"] for k in script if p["features"][k]["compared"]), p
assert not p["features"]["script_missing_modules"]["compared"], p["features"]["script_missing_modules"]
# Without the archive the same jobs have no script features: the check above is not vacuous.
assert q["features"]["script_bytes"]["differ"] == q["jobs"], q["features"]["script_bytes"]
print(f"# parity: {p['jobs']} jobs, all {len(script)} script features equal between the plugin's log and the archive")
PY

# ---- a full disk: submissions are untouched, the drop is logged, the archive recovers
mkdir -p "$W/full"
mount -t tmpfs -o size=512k tmpfs "$W/full"
chown "$JFP_SLURM_USER:" "$W/full"
set_conf "$(conf "$W/full/scripts.db")"
wait_log "archiving job scripts in $W/full/scripts.db"
# Sixteen distinct scripts: the archive keeps each one's first 64 KiB (~48 KiB as stored), 768 KiB in all.
python3 - "$W/in" <<'PY'
import os, sys, base64
for i in range(1, 17):
    open(os.path.join(sys.argv[1], "noise%d" % i), "wb").write(b"#!/bin/bash\n#SBATCH -J noise\n: '" + base64.b64encode(os.urandom(600 * 1024)) + b"'\n")
PY
mark=$(wc -l <"$CTLD_LOG")
ids=()
for i in $(seq 1 16); do
    id=$(submit --hold -o /dev/null "$W/in/noise$i") || fail "a submission failed with the archive's disk full"
    ids+=("$id")
    expect_contains "$(comment_of "$id")" "jfp:p=" "job $id annotated with the archive's disk full"
done
wait_until 60 "no log line about the archive on a full disk" 'tail -n +"$((mark + 1))" "$CTLD_LOG" | grep "script archive" >/dev/null'
timeout 10 scontrol ping >/dev/null || fail "slurmctld does not answer with the archive's disk full"
scancel -u root
clear_queue
umount -l "$W/full"
note "16 submissions of distinct 800 KB scripts with the archive on a 512 KiB tmpfs: all accepted and annotated, the drop logged"

# ---- restarts keep the archive, and archiving goes on after them
set_conf "$(conf "$A")"
n0=$(sql_read "$A" "SELECT count(*) FROM submissions")
restart() {  # slurmctld restarted, and the plugin in it archiving again
    local mark
    mark=$(wc -l <"$CTLD_LOG")
    "$TESTCLUSTER" restart-ctld "$CLUSTER_DIR" >/dev/null
    wait_until 60 "the restarted plugin did not say it archives in $A" \
        'tail -n +"$((mark + 1))" "$CTLD_LOG" | grep "archiving job scripts in $A" >/dev/null'
}
restart
restart
r=$(submit --hold -o /dev/null "$W/in/ws")
archived "$r"
expect_eq "$(sql_read "$A" "SELECT count(*) FROM submissions")" "$((n0 + 1))" "submissions after two restarts and one more job"
scripts show -q --token "${TOK[big]}" >"$W/out.big2"
head -c 65536 "$W/in/big" | cmp - "$W/out.big2" || fail "the 1 MiB script's head differs after two restarts"
scancel -u root
clear_queue
note "two slurmctld restarts: the archive kept its $n0 submissions and took the next"

# ---- rotation (docs/examples/jfp.logrotate) and removal under the running plugin
# rotate_now FILE: the shipped recipe, pointed at this site, forced (logrotate renames FILE to FILE.1);
# where logrotate is not installed (the release roots), the same rename by mv.
rotate_now() {
    if command -v logrotate >/dev/null; then
        sed -e "s#/var/lib/jfp/features.db /var/lib/jfp/scripts.db#$1#" -e "s#su slurm slurm#su $JFP_SLURM_USER $JFP_SLURM_USER#" \
            "$JFP_SRCDIR/docs/examples/jfp.logrotate" >"$W/logrotate.conf"
        logrotate -f -s "$W/logrotate.state" "$W/logrotate.conf" || fail "logrotate with the shipped recipe failed"
    else
        mv "$1" "$1.1"
    fi
}
held_deleted() {  # files of the site slurmctld still holds open though they were removed
    local pid
    pid=$(cat "$CLUSTER_DIR/run/slurmctld.daemon.pid")
    find "/proc/$pid/fd" -lname "$W/*(deleted)" 2>/dev/null | wc -l
}
F=$W/features.db
wait_until 30 "the feature log has no rows yet" '[ "$(db_count "$F" scored)" -gt 0 ]'
n_arch=$(db_count "$A" submissions)
n_feat=$(db_count "$F" scored)
rotate_now "$A"
rotate_now "$F"
[ -e "$A.1" ] && [ -e "$F.1" ] || fail "rotation left no $A.1 and $F.1"
wait_log "script archive $A was removed or renamed (rotated?) while slurmctld held it open" 30
wait_log "feature log $F was removed or renamed (rotated?) while slurmctld held it open" 30
r=$(submit --hold -o /dev/null "$W/in/sh")
archived "$r"
expect_eq "$(stat -c '%a %U' "$A")" "600 $JFP_SLURM_USER" "the mode and owner of the archive begun after rotation"
expect_eq "$(db_count "$A.1" submissions)" "$n_arch" "submissions in the rotated archive (its WAL moved into it)"
wait_until 30 "the feature log begun after rotation has no row" '[ "$(db_count "$F" scored)" -gt 0 ]'
[ "$(db_count "$F.1" scored)" -ge "$n_feat" ] || fail "the rotated feature log lost rows: $(db_count "$F.1" scored) < $n_feat"
scripts show -q --token "$(token_of_job "$r")" | cmp - "$W/in/sh" || fail "a script archived after rotation differs"
note "rotated ($(command -v logrotate >/dev/null && echo "logrotate, the shipped recipe" || echo "mv: no logrotate here")): the old files whole ($n_arch submissions, $n_feat+ rows), new ones 0600 taking the next job"
# Removed outright: slurmctld lets go of them (the space is freed) and starts new ones.
rm -f "$A" "$A-wal" "$A-shm" "$F" "$F-wal" "$F-shm"
wait_until 30 "slurmctld still holds removed files open" '[ "$(held_deleted)" = 0 ]'
r=$(submit --hold -o /dev/null "$W/in/sh")
archived "$r"
wait_until 30 "no new feature log after removal" '[ "$(db_count "$F" scored)" -gt 0 ]'
scancel "$r"
note "removed: no descriptor left on the deleted files, new archive and feature log take the next job"

# ---- retention: a dry run counts, a prune of everything older than now empties the archive
n=$(sql_read "$A" "SELECT count(*) FROM submissions")
expect_contains "$(scripts prune --older-than 1d --dry-run)" "would remove 0 submissions" "dry run, nothing a day old"
sleep 1
expect_contains "$(scripts prune --older-than 0d --vacuum)" "removed $n submissions" "prune of everything"
scripts stats --json | python3 -c 'import json, sys; s = json.load(sys.stdin); assert s["submissions"] == 0 and s["blob_bytes"] == 0, s'
out=$(scripts prune --older-than 3x 2>&1) && fail "a bad age should fail"
expect_contains "$out" "expected 90d, 12w, 36h" "bad --older-than message"
note "prune: $n submissions and every stored script removed, the file vacuumed"
