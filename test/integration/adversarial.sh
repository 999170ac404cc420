#!/usr/bin/env bash
# Users attack jfp through what they control (docs/admin-guide.md, "Threat model"), on a real cluster, as
# ordinary users jfp-usera and jfp-userb; the support staff's tools then run as root. docs/testing.md has
# the attack table.
#   A1 a job name holding a newline and a whole sacct record (userb's job 'important', FAILED) must not
#      become a job in the store after `jfp ingest --from-sacct`: usera's job keeps the whole name.
#   A2 a job name holding " AdminComment=jfp:t=<userb's token>" must not make `jfp scripts show` print
#      userb's script for usera's job, nor tie usera's job to userb's token in the store.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
"$TESTCLUSTER" users

new_site
chmod 755 "$W"
mkdir -p "$W/home"
chmod 1777 "$W/home"
start_site_cluster "mode = annotate
script_archive = $W/scripts.db"
wait_log "archiving job scripts in $W/scripts.db"
A=jfp-usera
B=jfp-userb
as_user() { local u=$1; shift; (cd "$W/home" && runuser -u "$u" -- "$@"); }
archived_token() { [ "$(sqlite3 "$W/scripts.db" "SELECT count(*) FROM submissions WHERE token = '$1'" 2>/dev/null || echo 0)" = 1 ]; }
archived() { local t; t=$(token_of_job "$1"); wait_until 60 "job $1 (token $t) was not archived" "archived_token $t"; }

# ---- A2: userb's script holds a secret; usera names a job after userb's token
printf '#!/bin/bash\nexport API_KEY=secret-of-userb\ntrue\n' >"$W/home/b.sh"
printf '#!/bin/bash\necho usera was here\n' >"$W/home/a.sh"
chmod 644 "$W/home/a.sh" "$W/home/b.sh"
jb=$(as_user "$B" sbatch --parsable --hold -o /dev/null -J important "$W/home/b.sh" | cut -d';' -f1)
tb=$(token_of_job "$jb")
[[ "$tb" =~ ^[0-9a-f]{16}$ ]] || fail "userb's job $jb has no jfp token in AdminComment ('$tb')"
ja=$(as_user "$A" sbatch --parsable --hold -o /dev/null -J "mine AdminComment=jfp:t=$tb" "$W/home/a.sh" | cut -d';' -f1)
ta=$(token_of_job "$ja")
[ "$ta" != "$tb" ] || fail "A2: usera's job $ja carries userb's token"
archived "$ja"
archived "$jb"
out=$("$JFP" scripts show -q "$ja" --archive "$W/scripts.db" --db "$W/history.db") || fail "A2: jfp scripts show $ja failed"
case "$out" in *secret-of-userb*) fail "A2: jfp scripts show $ja (usera's job) printed userb's script: $out" ;; esac
expect_contains "$out" "usera was here" "A2: jfp scripts show of usera's queued job"
note "A2: usera's job $ja named '... AdminComment=jfp:t=$tb': scripts show prints usera's own script"

# ---- A1: a name holding a newline and a record of userb's
now=$(date +%s)
t0=$(date -d @$((now - 600)) +%FT%T); t1=$(date -d @$((now - 595)) +%FT%T); t2=$(date -d @$((now - 500)) +%FT%T)
uid_b=$(id -u "$B")
forged="990001|990001|$JFP_CLUSTER_NAME|$B|$uid_b|jfptest|debug|normal||$t0|$t1|$t2|95|FAILED|1:0|important"
evil="x"$'\n'"$forged"
je=$(as_user "$A" sbatch --parsable -o /dev/null -J "$evil" --wrap true | cut -d';' -f1)
scontrol release "$ja" "$jb"
for id in "$je" "$ja" "$jb"; do wait_job "$id" 120 >/dev/null; done
wait_accounting_complete
"$JFP" ingest -q --from-sacct --db "$W/history.db" --overlap 7200
forged_rows=$(sqlite3 "$W/history.db" "SELECT count(*) FROM jobs WHERE job_key = '990001' OR (user = '$B' AND name = 'important' AND state = 'FAILED')")
expect_eq "$forged_rows" 0 "A1: jobs the name of usera's job $je forged in the store"
got=$(sqlite3 "$W/history.db" "SELECT quote(name) FROM jobs WHERE job_key = '$je'")
want=$(sqlite3 ":memory:" "SELECT quote(CAST(x'$(printf '%s' "$evil" | od -An -tx1 | tr -d ' \n')' AS TEXT))")
expect_eq "$got" "$want" "A1: the stored name of usera's job $je"
# A2 after the jobs ended: the store ties each job to its own token
expect_eq "$(sqlite3 "$W/history.db" "SELECT jfp_token FROM jobs WHERE job_key = '$ja'")" "$ta" "A2: usera's job's token in the store"
expect_eq "$(sqlite3 "$W/history.db" "SELECT jfp_token FROM jobs WHERE job_key = '$jb'")" "$tb" "A2: userb's job's token in the store"
note "A1: usera's job $je, named 'x' + newline + a record of userb's, is one job in the store, its name whole"
