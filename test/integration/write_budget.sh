#!/usr/bin/env bash
# What one user's requests add to jfp's files is metered in full and bounded per day (issue 48, class 5), on a
# real slurmctld with an unprivileged SlurmUser, as ordinary users:
#   - requests slurmctld refuses after job_submit (--test-only, a partition that does not exist) with
#     multi-MiB scripts leave a 64 KiB head each in the archive, never the script;
#   - jfp-usera's loop of --test-only requests, each with a distinct 1,000-byte name and a distinct long
#     working directory, grows the feature log and the archive together by about user_mb_per_day (1 MiB
#     here), then by nothing: slurmctld's log names the user, jfp_user_budget_refused_total and
#     jfp_users_over_budget say it, jfp status too, and jfp-userb's requests are still logged and archived.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
"$TESTCLUSTER" users

W=$(mktemp -d /tmp/jfp-budget.XXXXXX)
chmod 755 "$W"
CLEANUP_HOOK='[ -n "${JFP_KEEP_CLUSTER:-}" ] || rm -rf "$W"'
trap 'eval "$CLEANUP_HOOK"' EXIT

handwritten_model "$W"
seed_store "$W"
mkdir -p "$W/home"
chmod 1777 "$W/home"
/usr/bin/python3 - "$W/home" <<'PY'
import os, random, string, sys
r = random.Random(48)
for who, mib in [("a1", 1), ("a2", 1), ("a3", 3), ("b1", 1)]:
    with open(os.path.join(sys.argv[1], "rand_%s.sh" % who), "w") as f:
        f.write("#!/bin/bash\ntrue\n# " + "".join(r.choice(string.ascii_letters) for _ in range(mib << 20)) + "\n")
with open(os.path.join(sys.argv[1], "small.sh"), "w") as f:
    f.write("#!/bin/bash\ntrue\n")
PY
chmod 644 "$W"/home/*.sh

site_to_slurm_user
export JFP_CONF="model = $W/model.json
store = $W/history.db
feature_log = $W/features.db
script_archive = $W/scripts.db
script_archive_env = yes
user_mb_per_day = 1
mode = annotate
metrics_file = $W/jfp.prom
metrics_interval = 1
reload_interval = 0.3"
cluster_start
wait_log "loaded model handwritten-messages"
wait_log "archiving job scripts in $W/scripts.db"

# logical_bytes DB: the file's pages, the WAL's included, as a reader sees them.
logical_bytes() { sql_read "$1" "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()" 2>/dev/null || echo 0; }
rows_of() { sql_read "$1" "SELECT count(*) FROM $2 WHERE uid = $3" 2>/dev/null || echo 0; }
uid_a=$(id -u jfp-usera)
uid_b=$(id -u jfp-userb)

# ---- requests slurmctld refuses after job_submit leave a 64 KiB head each
as_user jfp-usera sbatch --test-only -o /dev/null -J refused1 "$W/home/rand_a1.sh" >/dev/null 2>&1 || true
as_user jfp-usera sbatch --test-only -o /dev/null -J refused2 "$W/home/rand_a2.sh" >/dev/null 2>&1 || true
if as_user jfp-usera sbatch -o /dev/null -p no_such_partition -J refused3 "$W/home/rand_a3.sh" >"$W/out" 2>&1; then
    fail "slurmctld accepted a job in a partition that does not exist: $(cat "$W/out")"
fi
wait_until 60 "the three refused requests were not archived" \
    '[ "$(sql_read "$W/scripts.db" "SELECT count(*) FROM submissions WHERE name LIKE '"'"'refused%'"'"'" 2>/dev/null || echo 0)" -ge 3 ]'
kept=$(sql_read "$W/scripts.db" "SELECT s.name || ' ' || b.size || ' ' || s.script_bytes FROM submissions s JOIN blobs b ON b.hash = s.script_hash WHERE s.name LIKE 'refused%' ORDER BY s.name")
note "refused requests kept (name, bytes kept, bytes submitted): $(echo "$kept" | tr '\n' ';')"
expect_eq "$(echo "$kept" | awk '$2 == 65536 { n++ } END { print n + 0 }')" 3 "refused requests kept as a 64 KiB head"
expect_eq "$(echo "$kept" | awk '$1 == "refused3" { print $3 }')" $((3 * 1024 * 1024 + 20)) "the size submitted, recorded for refused3"

# ---- the loop: distinct 1,000-byte names and long working directories, --test-only each
log0=$(logical_bytes "$W/features.db")
archive0=$(logical_bytes "$W/scripts.db")
long_dir=$W/home/$(printf 'd%.0s' $(seq 1 200))/$(printf 'e%.0s' $(seq 1 200))/$(printf 'f%.0s' $(seq 1 200))
mkdir -p "$long_dir"
chmod -R 755 "$W/home/d"*
pad=$(printf 'n%.0s' $(seq 1 990))
for i in $(seq 1 260); do
    as_user jfp-usera sbatch --test-only -o /dev/null -D "$long_dir" -J "$pad$i" "$W/home/small.sh" >/dev/null 2>&1 || true
done
wait_log "user jfp-usera (uid $uid_a) has added 1 MiB to jfp's feature log and script archive today" 60
wait_until 30 "jfp_user_budget_refused_total stayed 0" '[ "$(metric jfp_user_budget_refused_total feature_log)" -gt 0 ]'
expect_eq "$(metric jfp_users_over_budget)" 1 "jfp_users_over_budget"
rows_a=$(( $(rows_of "$W/features.db" scored "$uid_a") + $(rows_of "$W/scripts.db" submissions "$uid_a") ))
grown=$(( $(logical_bytes "$W/features.db") - log0 + $(logical_bytes "$W/scripts.db") - archive0 ))
note "260 requests of ~7 KB each grew the feature log and the archive by $grown bytes (budget 1 MiB; $rows_a rows of usera's)"
[ "$grown" -le $((2 * 1024 * 1024)) ] || fail "usera's loop grew jfp's files by $grown bytes, past twice the 1 MiB budget"

# Spent: usera's next requests add nothing; userb's are logged and archived as before.
for i in $(seq 1 10); do
    as_user jfp-usera sbatch --test-only -o /dev/null -D "$long_dir" -J "after$i" "$W/home/rand_a1.sh" >/dev/null 2>&1 || true
done
jb=$(as_user jfp-userb sbatch --parsable --hold -o /dev/null -J userb_job "$W/home/rand_b1.sh" | cut -d';' -f1)
wait_until 60 "userb's job $jb was not logged" '[ "$(rows_of "$W/features.db" scored "$uid_b")" -ge 1 ]'
wait_until 60 "userb's job $jb was not archived" '[ "$(rows_of "$W/scripts.db" submissions "$uid_b")" -ge 1 ]'
wait_until 30 "the ten left-out requests are not counted" \
    '[ "$(metric jfp_user_budget_refused_total script_archive)" -ge 10 ]'
expect_eq "$(( $(rows_of "$W/features.db" scored "$uid_a") + $(rows_of "$W/scripts.db" submissions "$uid_a") ))" "$rows_a" \
    "usera's rows after the budget was spent"
scancel "$jb"
status=$("$JFP" status --metrics "$W/jfp.prom" 2>&1 || true)
[[ "$status" == *"budget    1 users over user_mb_per_day today"* ]] || fail "jfp status did not say the budget: $status"
expect_eq "$(grep -c "has added 1 MiB to jfp's" "$CTLD_LOG")" 1 "lines in slurmctld's log for the user's spent day"
rm -rf "$W/home"/*
grep "internal fault" "$CTLD_LOG" >/dev/null && fail "the plugin reported an internal fault: $(grep "internal fault" "$CTLD_LOG" | head -n1)"
note "one user's loop grew jfp's files by about the budget, then by nothing"
