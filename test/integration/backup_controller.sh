#!/usr/bin/env bash
# A backup controller, as a site runs one (issue 36 item 1): two slurmctld with host names and addresses of
# their own (testcluster JFP_BACKUP_CTLD), StateSaveLocation and jfp's files shared. An ordinary user's
# stream of submissions goes on through `scontrol takeover`, the primary's return, and a SIGKILL of the
# primary. The controller that takes over scores the next request from the same model and history as the
# one before (feature-log rows equal but for the clock's features, and equal p where those are equal); every job slurmctld
# kept has its feature-log row and its archived script, all in the one feature log and archive (but for a job the
# primary took as it was SIGKILLed: its writers' queue dies with it).
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
export JFP_BACKUP_CTLD=1
new_site
start_site_cluster "mode = annotate
script_archive = $W/scripts.db"
CTLD_B_LOG="$CLUSTER_DIR/log/slurmctld-b.log"
wait_until 60 "the backup's jfp did not load the history" 'grep -q "loaded history of" "$CTLD_B_LOG"'
host=$(hostname -s)
active() { local p; p=$(scontrol ping 2>/dev/null || true); [[ "$p" == *"$1 is UP"* ]]; }
# The backup stands by (UP in scontrol ping) until it takes control; its log says when it took it (22.05:
# "BackupController... taking over", later "taking over" too) and when it went back to standby.
standbys() { grep -c "running in background mode" "$CTLD_B_LOG" || true; }
stream_len() { wc -l <"$STREAM"; }
# resumed_after N0 T0: waits for the stream's next acknowledged job after N0; RESUMED: the seconds since T0.
resumed_after() { wait_until 120 "no job was accepted after the change" "[ \$(stream_len) -gt $1 ]"; RESUMED=$((SECONDS - $2)); }

# The same requests on whichever controller is active: root's 'doomed' and 'steady', annotated; prints the
# models named. Their feature-log rows are compared at the end.
# Each pair's job ids go to $PAIRS with the phase named ($1), for the account printed when a row is missing.
PAIRS="$W/pairs.txt"
score_pair() {
    local d s
    d=$(submit --hold -J doomed --wrap true); s=$(submit --hold -J steady --wrap true)
    echo "$1 $d $s $(date +%s.%N)" >>"$PAIRS"
    printf '%s %s' "$(comment_of "$d" | grep -o 'model=[^ ,]*')" "$(comment_of "$s" | grep -o 'model=[^ ,]*')"
}
reference=$(score_pair primary)
note "on the primary ($host): doomed, steady: $reference"
[[ "$reference" == model=*\ model=* ]] || fail "the primary's jfp did not annotate both: '$reference'"

# The stream: jfp-usera submits distinct scripts, retrying each until a controller accepts it (as sbatch's
# user would), and records the id it was given.
STREAM="$W/stream.ids"
: >"$STREAM"
chmod 666 "$STREAM"
stop_stream="$W/stream.stop"
(
    cd /tmp
    i=0
    while [ ! -e "$stop_stream" ] && [ "$i" -lt 400 ]; do
        i=$((i + 1))
        for _ in $(seq 1 120); do
            id=$(runuser -u jfp-usera -- sbatch --parsable --hold -J "stream$i" -o /dev/null --wrap "echo stream $i" 2>/dev/null | cut -d';' -f1) || id=""
            [[ "$id" =~ ^[0-9]+$ ]] && { echo "$id" >>"$STREAM"; break; }
            sleep 0.5
        done
        sleep 0.05
    done
) &
STREAM_PID=$!
CLEANUP_HOOK="touch '$stop_stream'; kill $STREAM_PID 2>/dev/null || true; $CLEANUP_HOOK"
wait_ids() { local n=$(( $(wc -l <"$STREAM") + $1 )); wait_until 120 "the stream stalled at $(wc -l <"$STREAM") jobs" "[ \$(wc -l <'$STREAM') -ge $n ]"; }

wait_ids 10
# 1. scontrol takeover: the primary hands over and exits; the backup's jfp scores from then on.
t0=$SECONDS; n0=$(stream_len)
scontrol takeover >/dev/null
wait_until 60 "the backup did not take over" 'active jfpctlb && ! active "$host"'
resumed_after "$n0" "$t0"
note "takeover: the stream's next job was accepted $RESUMED s after scontrol takeover"
wait_ids 10
on_backup=$(score_pair takeover)
[ "$on_backup" = "$reference" ] || fail "after takeover the backup scores '$on_backup', the primary scored '$reference'"

# 2. The primary returns (as an admin restores it) and takes control back.
sb=$(standbys)
"$TESTCLUSTER" start-ctld "$CLUSTER_DIR" >/dev/null
wait_until 60 "the primary did not take control back (the backup's log shows no return to standby)" '[ "$(standbys)" -gt "$sb" ]'
wait_until 60 "the primary's jfp did not load the history" '[ "$(grep -c "loaded history of" "$CTLD_LOG")" -ge 2 ]'
wait_ids 10
back=$(score_pair return)
[ "$back" = "$reference" ] || fail "the primary, back, scores '$back', it scored '$reference' before"
# The SIGKILL below takes whatever the primary's writers still queue (up to their 50 ms look): the pair just
# scored must be in the feature log first, or the phase it stands for has nothing to compare.
# count_in DB SQL [ARG...]: the one number SQL's query reads from DB (read-only), its ? bound to ARGs.
count_in() { /usr/bin/python3 -c 'import sqlite3, sys; print(sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True, timeout=30).execute(sys.argv[2], sys.argv[3:]).fetchone()[0])' "$@"; }
wait_until 30 "the primary's rows for the pair it scored on its return never reached the feature log" \
    '[ "$(count_in "$W/features.db" "SELECT count(*) FROM scored WHERE uid = 0")" -ge 6 ]'

# 3. The primary dies (SIGKILL, no shutdown at all): the backup takes over after SlurmctldTimeout.
score_pair before-kill >/dev/null
t0=$SECONDS; n0=$(stream_len)
kill -KILL "$(cat "$CLUSTER_DIR/run/slurmctld.pid")"
n_kill=$n0  # the stream's jobs around the kill: their rows may still have been queued in the primary's writers
resumed_after "$n0" "$t0"
note "SIGKILL: the stream's next job was accepted $RESUMED s after the primary died (SlurmctldTimeout=6)"
wait_ids 10
after_kill=$(score_pair after-kill)
[ "$after_kill" = "$reference" ] || fail "after the primary died the backup scores '$after_kill', the primary scored '$reference'"
touch "$stop_stream"
wait "$STREAM_PID" 2>/dev/null || true
# A barrier: each writer writes its queue in order, so once root's last job is in both files, every job
# acknowledged before it is too (or lost for a reason the check below names). Reading without it raced the
# active controller's writers (50 ms looks, nice 10) for the stream's and the last pair's rows.
bar=$(scontrol show job -o "$(submit --hold -J barrier --wrap true)" | grep -o 'jfp:t=[0-9a-f]\{16\}' | cut -d= -f2 || true)
[ -n "$bar" ] || fail "the barrier job has no jfp token"
wait_until 30 "the barrier's feature-log row never came" '[ "$(count_in "$W/features.db" "SELECT count(*) FROM scored WHERE token = ?" "$bar")" = 1 ]'
wait_until 30 "the barrier's archived script never came" '[ "$(count_in "$W/scripts.db" "SELECT count(*) FROM submissions WHERE token = ?" "$bar")" = 1 ]'

# Every job slurmctld kept: its token, its feature-log row, its archived script; one feature log, one archive.
scontrol show job -o >"$W/jobs.txt"
# The feature names in the feature log's order, from the X-macro that defines them.
sed -n '/^#define JFP_FEATURES/,/^$/p' "$JFP_SRCDIR/model/scoring/features.h" | grep -o 'X([a-z_0-9]*)' | sed 's/X(\(.*\))/\1/' >"$W/names.txt"
# What each controller's jfp said about its writers and its exit, printed when something was lost: which
# controller took the job, and whether its exit flush ran out of time or its archive refused a write.
writer_lines() {
    local f
    for f in "$CTLD_LOG" "$CTLD_B_LOG"; do
        echo "---- $f: jfp's writer and exit lines, and the stream's jobs ----"
        grep -E "job_submit/jfp: (exit|script archive|feature log|init|loaded history)|Running as primary|background mode|JobId=[0-9]+ .*jfp-usera|_slurm_rpc_submit_batch_job: JobId=" "$f" | tail -n 80 || true
    done
}
/usr/bin/python3 - "$STREAM" "$W/jobs.txt" "$W/features.db" "$W/scripts.db" "$W/names.txt" "$n_kill" "$CTLD_LOG" "$PAIRS" <<'PY' || { writer_lines >&2; fail "rows or scripts lost across the failovers (above)"; }
import re, sqlite3, sys
ids = [l.strip() for l in open(sys.argv[1]) if l.strip()]
jobs = {}
for line in open(sys.argv[2]):
    m = re.search(r"JobId=(\d+) JobName=(\S+)", line)
    t = re.search(r"jfp:t=([0-9a-f]{16})", line)
    if m: jobs[m.group(1)] = (m.group(2), t.group(1) if t else None)
kept = [i for i in ids if i in jobs]
lost_by_slurm = [i for i in ids if i not in jobs]
no_token = [i for i in kept if not jobs[i][1]]
assert not no_token, f"jobs without a jfp token: {no_token}"
db = sqlite3.connect(f"file:{sys.argv[3]}?mode=ro", uri=True, timeout=30)
rows = {r[0] for r in db.execute("SELECT token FROM scored")}
missing = [i for i in kept if jobs[i][1] not in rows]
arch = sqlite3.connect(f"file:{sys.argv[4]}?mode=ro", uri=True, timeout=30)
archived = {r[0] for r in arch.execute("SELECT token FROM submissions")}
unarchived = [i for i in kept if jobs[i][1] not in archived]
print(f"# stream: {len(ids)} jobs acknowledged, {len(kept)} kept by slurmctld, {len(lost_by_slurm)} lost by slurmctld's SIGKILL {lost_by_slurm}")
print(f"# feature log: {len(rows)} rows; kept jobs without a row: {missing}; without an archived script: {unarchived}")
assert len(ids) >= 40, f"only {len(ids)} jobs in the stream"
# A SIGKILL runs no exit flush: a job the primary acknowledged in its last moments, whose row and script its
# writers (nice 10, polling every 50 ms) still queued, loses them when slurmctld's own state save came in
# that moment too (a few per cent of runs on a loaded machine). Only the stream's jobs acknowledged just
# around the kill may lack them; any other is a loss.
n_kill = int(sys.argv[6])
# ...and only those the primary took (its log's submit line): one the backup took has no excuse.
took = set(re.findall(r"_slurm_rpc_submit_batch_job: JobId=(\d+)", open(sys.argv[7], errors="replace").read()))
at_kill = set(ids[max(0, n_kill - 3):n_kill + 1]) & took
lost_at_kill = sorted(set(missing + unarchived) & at_kill)
missing = [i for i in missing if i not in at_kill]
unarchived = [i for i in unarchived if i not in at_kill]
if lost_at_kill:
    print(f"# acknowledged by the primary as it was killed, kept by slurmctld, row or script still queued: {lost_at_kill}")
assert not missing, f"{len(missing)} kept jobs have no feature-log row: {missing}"
assert not unarchived, f"{len(unarchived)} kept jobs have no archived script: {unarchived}"
# root's 'doomed' and 'steady', scored before and after each change of controller: the same history (every
# feature but the clock's equal) and the same model (equal vectors, equal p).
import math, struct
clock = {"submit_hour", "submit_weekday", "un_hours_since_end", "un_hours_since_fail", "u_hours_since_end", "u_hours_since_fail"}
names = [l.strip() for l in open(sys.argv[5])]
assert len(names) > 40 and "un_hours_since_end" in names, f"feature names not read: {names}"
# Which phase's pair has its rows (a job's token is in slurmctld's comment while it keeps the job).
token_of = {i: t for i, (_, t) in jobs.items()}
scored_at = dict(db.execute("SELECT token, scored_at FROM scored WHERE uid = 0"))
for line in open(sys.argv[8]):
    phase, d, s, at = line.split()
    print(f"# {phase} at {at}: " + ", ".join(
        f"{i} token {token_of.get(i)} row {scored_at.get(token_of.get(i), 'none')}" for i in (d, s)))
print("# root's rows: " + ", ".join(f"{n}@{t}" for n, t in db.execute("SELECT name, scored_at FROM scored WHERE uid = 0 ORDER BY scored_at")))
for job in ("doomed", "steady"):
    seq = [(p, struct.unpack(f"{len(f)//4}f", f)) for p, f in
           db.execute("SELECT p_fail, features FROM scored WHERE name = ? AND uid = 0 ORDER BY scored_at", (job,))]
    # One per phase (a pair scored just before the SIGKILL may be lost with the jobs slurmctld lost).
    assert len(seq) >= 4, f"{job}: {len(seq)} rows, expected one per controller phase"
    same = lambda a, b: a == b or (math.isnan(a) and math.isnan(b))
    for (p0, x0), (p1, x1) in zip(seq, seq[1:]):
        moved = [names[i] for i in range(len(x0)) if not same(x0[i], x1[i])]
        assert set(moved) <= clock, f"{job}: features other than the clock's differ between controllers: {moved}"
        if not moved:
            assert p0 == p1, f"{job}: equal features scored {p0} and {p1}"
    print(f"# {job}: {len(seq)} rows across the controllers; only the clock's features move; p {min(p for p, _ in seq):.4f}..{max(p for p, _ in seq):.4f}")
PY
left=$(find "$W" -maxdepth 1 -name '*.db' -newer "$W/model.json" | sort | xargs -n1 basename | tr '\n' ' ')
[ "$left" = "features.db history.db scripts.db " ] || [ "$left" = "features.db scripts.db " ] || fail "the controllers wrote other databases: $left"
echo "PASS: a backup controller's jfp scores as the primary's did, through takeover, return and SIGKILL, and nothing is lost or split"
