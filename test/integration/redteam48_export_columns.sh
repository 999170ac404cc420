#!/usr/bin/env bash
# Issue 48, class 9 (red team), class 8: text exports that `jfp ingest` reads untrusted (no --trusted-export)
# although a user's text can forge rows in them. It failed on the code it was written against (332df47);
# the attacks fail now, and it runs on every leg.
#   (a) a --container path (stored as given; sacct's Container column) holding newlines and records of
#       jfp-userb's, in a '|' export without JobName;
#   (b) a job name holding '||' and newlines, in an export with --delimiter='||' (a string, so not refused,
#       but one any user can type).
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
"$TESTCLUSTER" users
export JFP_SLURM_USER=jfp-slurm
A=jfp-usera
B=jfp-userb

new_site
mkdir -p "$W/home"
chmod 1777 "$W/home"
start_site_cluster "mode = annotate"
now=$(date +%s)
t0=$(date -d @$((now - 600)) +%FT%T); t1=$(date -d @$((now - 500)) +%FT%T)
forged() {  # forged DELIM: what closes usera's record and adds two of userb's (JobIDRaw User X Submit End State)
    local d=$1
    printf 'c%s%s%s%s%sCOMPLETED\n990001%s%s%sforged%s%s%s%s%sFAILED\n990002%s%s%sg' "$d" "$t0" "$d" "$t1" "$d" \
        "$d" "$B" "$d" "$d" "$t0" "$d" "$t1" "$d" "$d" "$B" "$d"
}
ja=$(as_user "$A" sbatch --parsable -o /dev/null --container="$(forged '|')" --wrap true | cut -d';' -f1) ||
    fail "sbatch --container refused"
jb=$(as_user "$A" sbatch --parsable -o /dev/null -J "$(forged '||')" --wrap true | cut -d';' -f1) ||
    fail "sbatch -J refused"
# Both run (the container one may fail to launch without an OCI runtime: it is cancelled after 60 s).
final() { case "$(job_state "$1")" in COMPLETED|FAILED|CANCELLED*|NODE_FAIL|BOOT_FAIL|TIMEOUT) return 0 ;; esac; return 1; }
for id in "$ja" "$jb"; do
    for _ in $(seq 300); do final "$id" && break; sleep 0.2; done
    final "$id" || { scancel "$id"; wait_until 60 "job $id is not cancelled" "final $id"; }
done
for id in "$ja" "$jb"; do wait_job "$id" 120 >/dev/null; done  # the records complete (named, not "allocation")
wait_accounting_complete
note "states: $ja $(job_state "$ja"), $jb $(job_state "$jb")"

problems=""
# (a)
sacct --allusers --parsable2 -j "$ja,$jb" --format=JobIDRaw,User,Container,Submit,End,State >"$W/a.txt"
note "(a) the export: $(head -c 600 "$W/a.txt" | tr '\n' '~')"
if "$JFP" ingest -q --db "$W/a.db" "$W/a.txt" >"$W/a.out" 2>&1; then
    n=$(sql_read "$W/a.db" "SELECT count(*) FROM jobs WHERE user = '$B'")
    note "(a) jfp ingest read the '|' export with Container untrusted: $n rows of $B"
    [ "$n" = 0 ] || problems+="(a) $n rows of $B forged through a --container path; "
else
    note "(a) refused: $(head -c 300 "$W/a.out")"
fi
# (b)
sacct --allusers --parsable2 --delimiter='||' -j "$ja,$jb" --format=JobIDRaw,User,JobName,Submit,End,State >"$W/b.txt"
note "(b) the export: $(head -c 600 "$W/b.txt" | tr '\n' '~')"
if "$JFP" ingest -q --delimiter='||' --db "$W/b.db" "$W/b.txt" >"$W/b.out" 2>&1; then
    n=$(sql_read "$W/b.db" "SELECT count(*) FROM jobs WHERE user = '$B'")
    note "(b) jfp ingest read the '||' export with JobName untrusted: $n rows of $B"
    [ "$n" = 0 ] || problems+="(b) $n rows of $B forged through a job name with --delimiter='||'; "
else
    note "(b) refused: $(head -c 300 "$W/b.out")"
fi
[ -z "$problems" ] || fail "$problems"
