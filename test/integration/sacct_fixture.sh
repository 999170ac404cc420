#!/usr/bin/env bash
# Regenerates the real sacct fixture on a throwaway cluster and checks that jfp reads it exactly as it
# reads the checked-in copy (test/fixtures/sacct_22.05.txt): same jobs, same outcomes, nothing bad.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster

export JFP_JOB_SUBMIT_PLUGINS=""   # the fixture is about accounting, not the plugin
cluster_start
fresh="$CLUSTER_DIR/sacct_fresh.txt"
"$JFP_SRCDIR/test/fixtures/make-sacct-fixture" "$fresh"

summary() {  # outcomes per job name as the store reads them
    local db=$1
    sql_read "$db" "SELECT name || ' ' || state || ' ' || outcome FROM jobs WHERE user IS NOT NULL ORDER BY name, job_key"
}
"$JFP" ingest --trusted-export --strict --db "$CLUSTER_DIR/fresh.db" "$fresh" || fail "ingesting the fresh export reported bad lines"
"$JFP" ingest --trusted-export --strict --db "$CLUSTER_DIR/fixture.db" "$JFP_SRCDIR/test/fixtures/sacct_22.05.txt" \
    || fail "ingesting the checked-in fixture reported bad lines"
got=$(summary "$CLUSTER_DIR/fresh.db")
want=$(summary "$CLUSTER_DIR/fixture.db")
note "fresh export:"; echo "$got" | sed 's/^/#   /'
[ "$got" = "$want" ] || fail "the fresh export differs from the fixture:
$(diff <(echo "$want") <(echo "$got"))"
for s in COMPLETED FAILED TIMEOUT CANCELLED; do
    grep -q " $s " <<<"$got" || fail "no $s job in the fresh export"
done

# The same jobs from sacct --json (the format jfp ingest --help recommends for files): read as the text
# export reads them, job by job. 22.05's JSON says exit code 0 for every job (the outcome comes from the
# state either way) and has no submit line (what says whether a job had a dependency, and srun/salloc
# from sbatch: unknown from it, as from a text export without SubmitLine).
sacct --allusers --json --starttime 2000-01-01 --endtime now+1days >"$CLUSTER_DIR/sacct_fresh.json"
"$JFP" ingest --trusted-export --strict --db "$CLUSTER_DIR/json.db" "$CLUSTER_DIR/sacct_fresh.json" || fail "ingesting sacct --json reported bad lines"
release=$(slurmctld -V | grep -o '[0-9][0-9]*\.[0-9][0-9]*' | head -n1)
exit_col="exit_code || ':' || exit_signal"
submit_line_cols="has_dependency, interactive"
if [ "$release" = 22.05 ]; then exit_col="''"; submit_line_cols="''"; fi
columns="job_key, job_id, user, account, partition, qos, name, submit, start, end_time, state, outcome, $exit_col,
         req_cpus, req_nodes, req_mem_mb, timelimit_min, req_gpus, elapsed_s, round(max_rss_mb), $submit_line_cols"
# fx_pipe|name's submit line holds its comment's newline: the text export cannot carry it (the reader
# counts that row's submit line unknown), the JSON does.
rows() {
    sql_read -separator ' ' "$1" "SELECT $columns FROM jobs WHERE name <> 'fx_pipe|name' ORDER BY job_key"
    sql_read -separator ' ' "$1" "SELECT job_key, name, submit, start, end_time, state, outcome FROM jobs WHERE name = 'fx_pipe|name'"
}
diff <(rows "$CLUSTER_DIR/fresh.db") <(rows "$CLUSTER_DIR/json.db") >"$CLUSTER_DIR/json.diff" ||
    fail "sacct --json and --parsable2 of the same jobs read differently (< text, > json):
$(cat "$CLUSTER_DIR/json.diff")"
note "sacct --json of the same $(sql_read "$CLUSTER_DIR/json.db" 'SELECT count(*) FROM jobs') jobs reads as the text export does"

# The same export with a delimiter no user can have typed (sacct takes a string): read as the '|' export.
# Compared as above (rows()).
d="|$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')|"
sacct --allusers --parsable2 --delimiter="$d" --starttime 2000-01-01 --endtime now+1days \
    --format=JobIDRaw,JobID,Cluster,User,Account,Partition,QOS,JobName,Submit,Start,End,ElapsedRaw,State,ExitCode,ReqCPUS,ReqNodes,ReqMem,ReqTRES,Timelimit,MaxRSS,SubmitLine,Comment,AdminComment \
    >"$CLUSTER_DIR/sacct_nonce.txt"
grep -qF "JobIDRaw${d}JobID" "$CLUSTER_DIR/sacct_nonce.txt" || fail "sacct --delimiter='$d' did not write it between the columns: $(head -c 300 "$CLUSTER_DIR/sacct_nonce.txt")"
"$JFP" ingest --strict --delimiter="$d" --db "$CLUSTER_DIR/nonce.db" "$CLUSTER_DIR/sacct_nonce.txt" ||
    fail "ingesting the export with delimiter $d reported bad lines"
diff <(rows "$CLUSTER_DIR/fresh.db") <(rows "$CLUSTER_DIR/nonce.db") >"$CLUSTER_DIR/nonce.diff" ||
    fail "the export with delimiter $d reads differently from the '|' export (< '|', > $d):
$(cat "$CLUSTER_DIR/nonce.diff")"
note "an export with delimiter $d reads as the '|' export does"
