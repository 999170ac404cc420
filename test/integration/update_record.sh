#!/usr/bin/env bash
# job_modify reads the job from slurmctld's own record (plugin/job_record_layout.h, per Slurm release): an
# update is judged as the job will be after it, as a fresh submission of that job would be. On a real
# slurmctld of this leg's release, as an ordinary user, with an unprivileged SlurmUser:
#   - the feature vector of an updated job (its feature-log row, replaced by the update) equals that of a
#     fresh submission of the updated job, in every feature the record and the AdminComment carry (the
#     request: CPUs, nodes, memory, time limit, GPUs, array size, dependency, batch or not; the script's
#     traits; the user+name history), read after a restart of slurmctld, where no memory of the submission
#     is left;
#   - in reject mode the job's owner cannot rename it into a rejected name after the restart;
#   - another user's update of the job changes nothing of jfp's (the row stays the owner's).
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
"$TESTCLUSTER" users
export JFP_SLURM_USER=jfp-slurm
SU=$JFP_SLURM_USER
A=jfp-usera
B=jfp-userb

new_site
chown -R "$SU:" "$W"
chmod 755 "$W"
doomed_and_steady "$A" "$(id -u "$A")" jfptest 910000 >"$W/usera.txt"
setpriv --reuid="$SU" --regid="$(id -g "$SU")" --init-groups -- "$JFP" ingest --trusted-export -q --db "$W/history.db" "$W/usera.txt"
mkdir -p "$W/home"
chmod 1777 "$W/home"
start_site_cluster "mode = annotate"

# A script with traits the scanner counts, and a dependency on a held job.
printf '#!/bin/bash\n#SBATCH --comment=ignored-here\nset -e\nmodule load gcc/12\nmodule load openmpi\nsrun hostname\npython3 -c 1\n' >"$W/home/job.sh"
chmod 644 "$W/home/job.sh"
dep=$(as_user "$A" sbatch --parsable --hold -o /dev/null -J anchor --wrap true | cut -d';' -f1)
opts=(--hold -o /dev/null -p debug -c 1 -n 2 --mem-per-cpu=100 --dependency="afterok:$dep" --array=0-3)
j=$(as_user "$A" sbatch --parsable "${opts[@]}" -J steady -t 30 "$W/home/job.sh" | cut -d';' -f1)
tj=$(token_of_job "$j")
[[ "$tj" =~ ^[0-9a-f]{16}$ ]] || fail "job $j has no jfp token ('$(admin_comment_of "$j")')"
note "job $j (token $tj) submitted as $A: $(admin_comment_of "$j")"

# slurmctld restarts: nothing of the submission is left in the plugin's memory.
"$TESTCLUSTER" restart-ctld "$CLUSTER_DIR"
wait_until 60 "slurmctld did not come back" 'scontrol ping >/dev/null 2>&1 && squeue >/dev/null 2>&1'
wait_until 60 "the plugin did not load its history after the restart" \
    '[ "$(grep -c "loaded history of" "$CTLD_LOG")" -ge 2 ]'

# The owner gives it a new time limit: re-scored from slurmctld's record; the row of its token replaced.
as_user "$A" scontrol update JobId="$j" TimeLimit=20
# The same job, submitted fresh with the new limit.
f=$(as_user "$A" sbatch --parsable "${opts[@]}" -J steady -t 20 "$W/home/job.sh" | cut -d';' -f1)
tf=$(token_of_job "$f")
features() {  # features TOKEN: the feature-log row's vector as NAME=VALUE lines
    /usr/bin/python3 - "$W/features.db" "$W/model.json" "$1" <<'PY'
import json, sqlite3, struct, sys
db, model, token = sys.argv[1:]
names = json.load(open(model))["feature_schema"]["names"]
con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
row = con.execute("SELECT features FROM scored WHERE token = ?", (token,)).fetchone()
if row:
    for n, v in zip(names, struct.unpack("<%df" % len(names), row[0])):
        print("%s=%r" % (n, v))
PY
}
# The update's row: the time limit it set, once the feature-log thread has written it.
# has_feature TOKEN NAME=VALUE: the vector is read whole before it is searched (grep -q leaving a pipe early
# would fail the pipe under pipefail).
has_feature() { local v; v=$(features "$1"); grep -qx "$2" <<<"$v"; }
wait_until 30 "job $j's row does not show the update (timelimit_min=20.0)" 'has_feature "$tj" timelimit_min=20.0'
wait_until 30 "job $f's feature-log row" '[ -n "$(features "$tf")" ]'
# Compared: what the record and the AdminComment carry, and the history (counts, rates) of the same user
# and name. The times (hours since, hour of day) move between the two and are left out.
keep='^(req_|timelimit_min|array_size|has_dependency|interactive|script_|un_n=|un_fail_rate|us_n=|u_n=|u_fail_rate|p_fail_rate|a_fail_rate)'
diff <(features "$tj" | grep -E "$keep") <(features "$tf" | grep -E "$keep") >"$W/diff.txt" ||
    fail "the updated job $j and a fresh submission $f of it differ: $(cat "$W/diff.txt")"
note "after a restart, the update of $j (TimeLimit=20) logged the features of a fresh submission $f of it: $(features "$tj" | grep -E "$keep" | tr '\n' ' ')"
updated=$(features "$tj")
for want in req_cpus=2.0 req_mem_mb=200.0 timelimit_min=20.0 array_size=4.0 has_dependency=1.0 interactive=0.0 script_module_loads=2.0 script_set_e=1.0; do
    grep -qx "$want" <<<"$updated" || fail "job $j's updated row lacks $want: $(tr '\n' ' ' <<<"$updated")"
done

# Another user's update of the job: slurmctld refuses it; jfp writes nothing for it.
before=$(sql_read "$W/features.db" "SELECT scored_at || uid || user || hex(features) FROM scored WHERE token = '$tj'")
if out=$(as_user "$B" scontrol update JobId="$j" Name=doomed TimeLimit=5 2>&1); then fail "userb updated usera's job $j: $out"; fi
sleep 1  # a row jfp wrote would land within the reload interval (0.3 s)
after=$(sql_read "$W/features.db" "SELECT scored_at || uid || user || hex(features) FROM scored WHERE token = '$tj'")
expect_eq "$after" "$before" "job $j's feature-log row after userb's refused update"
if grep -q "update user=.* name='doomed'" "$CTLD_LOG"; then fail "a decision was logged for userb's update: $(grep "update user=" "$CTLD_LOG" | tail -n1)"; fi

# Reject mode, after the restart: the owner's rename into 'doomed' is judged from the record and refused.
pd=$(p_of "$(comment_of "$(as_user "$A" sbatch --parsable --hold -o /dev/null -J doomed --wrap true | cut -d';' -f1)")")
ps=$(p_of "$(comment_of "$j")")
mid=$(awk -v a="$pd" -v b="$ps" 'BEGIN { printf "%.4f", (a + b) / 2 }')
awk -v a="$pd" -v b="$ps" 'BEGIN { exit !(a > b + 0.05) }' || fail "usera's doomed ($pd) should score clearly above steady ($ps)"
set_conf "$SITE_CONF
mode = reject
threshold = $mid"
if out=$(as_user "$A" scontrol update JobId="$j" Name=doomed 2>&1); then fail "usera renamed job $j to doomed (p=$pd > $mid): $out"; fi
expect_eq "$(squeue -h -j "$j" -o %j)" steady "the name of job $j after the refused rename"
note "after the restart, usera's rename of $j to doomed was refused (p=$pd > threshold $mid): $out"
# The same job under another spelling of its id (slurmctld reads JobId=0<id> as <id>): still judged.
if out=$(as_user "$A" scontrol update JobId="0$j" Name=doomed 2>&1); then fail "usera renamed job 0$j to doomed: $out"; fi
expect_eq "$(squeue -h -j "$j" -o %j)" steady "the name of job $j after the refused rename as 0$j"
scancel "$j" "$f" "$dep" 2>/dev/null || true
