#!/usr/bin/env bash
# A restarted slurmctld scores its first job with the history. jfp ingest keeps the store's snapshot beside
# it (STORE.snapshot, refreshed from the last one plus the changes, by SlurmUser as a site runs it); the
# plugin starts from it and applies the changes since; slurmctld's start waits for that load (start_wait),
# so an ordinary user's first job after the restart is judged on their history, not as a stranger's.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
"$TESTCLUSTER" users
new_site
uid=$(id -u jfp-usera)
doomed_and_steady jfp-usera "$uid" jfp-usera 950000 >"$W/usera.txt"
"$JFP" ingest --trusted-export -q --db "$W/history.db" "$W/usera.txt"
[ -s "$W/history.db.snapshot" ] || fail "jfp ingest wrote no snapshot beside the store ($(ls "$W"))"
start_site_cluster "mode = annotate"
as_usera() { (cd /tmp && runuser -u jfp-usera -- sbatch --parsable --hold -o /dev/null "$@") | cut -d';' -f1; }
p_job() { p_of "$(comment_of "$1")"; }

d1=$(as_usera -J doomed --wrap true)
s1=$(as_usera -J steady --wrap true)
PD1=$(p_job "$d1") PS1=$(p_job "$s1")
awk -v a="$PD1" -v b="$PS1" 'BEGIN { exit !(a > b + 0.05) }' ||
    fail "jfp-usera's doomed ($PD1) should score clearly above steady ($PS1): the test needs history to matter"
note "before the restart: p(doomed)=$PD1 p(steady)=$PS1"

# SlurmUser's ingest of later jobs brings the snapshot up to date from the last one, not from a replay.
now=$(date +%s)
{
    echo "JobIDRaw|JobID|User|UID|Account|Partition|QOS|JobName|Submit|Start|End|State|ExitCode|ReqCPUS|ReqNodes|ReqMem|Timelimit"
    for i in 1 2 3; do
        t=$((now - 120 + i * 10))
        echo "$((960000 + i))|$((960000 + i))|jfp-usera|$uid|jfp-usera|debug|normal|later|$(date -d @$t +%FT%T)|$(date -d @$((t + 1)) +%FT%T)|$(date -d @$((t + 5)) +%FT%T)|COMPLETED|0:0|1|1|100M|00:10:00"
    done
} >"$W/later.txt"
chmod 644 "$W/later.txt"
out=$(site_jfp ingest --trusted-export --db "$W/history.db" "$W/later.txt" 2>&1)
expect_contains "$out" "history snapshot $W/history.db.snapshot written from the last one and 3 jobs as they were ingested" "SlurmUser's ingest"
owner=$(stat -c %U "$W/history.db.snapshot")
expect_eq "$owner" "$JFP_SLURM_USER" "the snapshot's owner"
wait_log "applied 3 changed jobs from $W/history.db" 30
# The reference for after the restart: the same history (the 3 later jobs included), scored by this slurmctld
# and logged in the feature log, before slurmctld stops.
d1b=$(as_usera -J doomed --wrap true)
t1b=$(token_of_job "$d1b")
logged() { [ "$(sql_read "$W/features.db" "SELECT count(*) FROM scored WHERE token = '$1'" 2>/dev/null || echo 0)" = 1 ]; }
wait_until 60 "the feature log did not get the reference job $d1b" "logged $t1b"
note "after the 3 later jobs, before the restart: p(doomed)=$(p_job "$d1b")"

mark=$(wc -l <"$CTLD_LOG")
"$TESTCLUSTER" stop-ctld "$CLUSTER_DIR"
"$TESTCLUSTER" start-ctld "$CLUSTER_DIR" >/dev/null
d2=$(as_usera -J doomed --wrap true)  # the first job the restarted slurmctld takes
s2=$(as_usera -J steady --wrap true)
PD2=$(p_job "$d2") PS2=$(p_job "$s2")
since=$(tail -n +"$((mark + 1))" "$CTLD_LOG")
loaded=$(printf '%s\n' "$since" | grep -m1 "loaded history of" || true)
note "after the restart: p(doomed)=$PD2 p(steady)=$PS2; $loaded"
expect_contains "$loaded" "its snapshot at change" "the restarted plugin's history load"
printf '%s\n' "$since" | grep "slurmctld's start waited [0-9]* ms for the history" >/dev/null ||
    fail "slurmctld's start did not wait for the history: $(printf '%s\n' "$since" | grep jfp | head -n 20)"
awk -v a="$PD2" -v b="$PS2" 'BEGIN { exit !(a > b + 0.05) }' ||
    fail "the first jobs after the restart were scored without history: doomed $PD2, steady $PS2 (before: $PD1, $PS1)"
# Same history, same model: the same features. Compared on the vectors the plugin logged, without the
# features of the submission's own second (hours since the last end or failure, the hour and weekday): the
# restart takes seconds, which move them across the trees' splits, so p is not compared.
t2=$(token_of_job "$d2")
wait_until 60 "the feature log did not get the first job after the restart, $d2" "logged $t2"
/usr/bin/python3 - "$W/features.db" "$W/model.json" "$t1b" "$t2" <<'PY' || fail "doomed's history features differ before and after the restart (above)"
import json, sqlite3, struct, sys
db, model, before, after = sys.argv[1:5]
names = json.load(open(model))["feature_schema"]["names"]
rows = dict(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10).execute("SELECT token, features FROM scored"))
vec = lambda t: struct.unpack("<%df" % len(names), rows[t])
clock = lambda n: "hours_since" in n or n in ("submit_hour", "submit_weekday")
differ = [f"{n} {x} vs {y}" for n, x, y in zip(names, vec(before), vec(after))
          if not clock(n) and not (x == y or (x != x and y != y))]
for d in differ:
    print("differs:", d)
print(f"# before vs after the restart: {sum(not clock(n) for n in names)} of {len(names)} features compared")
sys.exit(1 if differ else 0)
PY
echo "PASS: the first job after a restart is scored with its history, loaded from the snapshot (doomed $PD2, steady $PS2)"
