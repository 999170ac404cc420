# Helpers for the real-cluster integration tests. Sourced; each test starts its own throwaway cluster
# in a private directory on free ports and stops it by PID on exit, pass or fail.
set -euo pipefail

: "${JFP_BUILDDIR:?run through make check (JFP_BUILDDIR unset)}"
: "${JFP_SRCDIR:?run through make check (JFP_SRCDIR unset)}"
TESTCLUSTER="$JFP_SRCDIR/test/cluster/testcluster"
export PATH="$PATH:/usr/sbin:/sbin"
if [ -n "${JFP_INSTALLED:-}" ]; then
    # The installed packages, not the build tree: jfp from PATH, the plugin from Slurm's plugin directory.
    JFP=$(command -v jfp || true)
    [ "$JFP" = /usr/bin/jfp ] || { echo "ERROR: JFP_INSTALLED is set but jfp is '$JFP', not /usr/bin/jfp" >&2; exit 99; }
    JFP_TRAIN_DASK=/usr/bin/jfp-train-dask
    PLUGIN_SO="$("$TESTCLUSTER" plugindir)/job_submit_jfp.so"
    [ -f "$PLUGIN_SO" ] || { echo "ERROR: JFP_INSTALLED is set but $PLUGIN_SO is not installed" >&2; exit 99; }
    PLUGIN_DIR=""
else
    JFP="$JFP_BUILDDIR/tools/jfp"
    JFP_TRAIN_DASK="$JFP_SRCDIR/tools/train/jfp-train-dask"
    PLUGIN_SO="$JFP_BUILDDIR/plugin/.libs/job_submit_jfp.so"
    PLUGIN_DIR="$JFP_BUILDDIR/plugin/.libs"
fi
# What docs/admin-guide.md recommends exporting (recommended_sacct_format() in model/sacct/sacct_reader.cc).
SACCT_FORMAT=JobIDRaw,JobID,Cluster,User,UID,Account,Partition,QOS,AdminComment,Submit,Start,End,ElapsedRaw,State,ExitCode,JobName,ReqCPUS,ReqNodes,ReqMem,ReqTRES,Timelimit,MaxRSS,SubmitLine

# Every test cluster's slurmdbd and slurmctld run as an unprivileged SlurmUser, as Debian runs Slurm (its
# `slurm`; here `jfp-slurm`, made by testcluster users): what the plugin writes is that user's, and what it
# reads must be readable by it. JFP_SLURM_USER=root keeps a test's daemons root's.
export JFP_SLURM_USER=${JFP_SLURM_USER-jfp-slurm}

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }
# running PID: exists and is not a zombie (kill -0 succeeds on one; a container's PID 1 reaps late).
running() {
    local st
    st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# Tests that need root and Slurm's daemons. The README's test command sets JFP_REQUIRE_CLUSTER=1 so a
# skip there is a failure; distcheck sets JFP_SKIP_CLUSTER=1 (the same tests ran just before).
require_cluster() {
    if [ -n "${JFP_SKIP_CLUSTER:-}" ]; then echo "SKIP: JFP_SKIP_CLUSTER is set"; exit 77; fi
    local why=""
    [ "$(id -u)" = 0 ] || why="not root"
    command -v slurmctld >/dev/null || why="slurmctld not installed (run scripts/install-deps)"
    if [ -n "$why" ]; then
        if [ -n "${JFP_REQUIRE_CLUSTER:-}" ]; then echo "ERROR: cluster test required but $why" >&2; exit 99; fi
        echo "SKIP: $why"; exit 77
    fi
}

CLUSTER_DIR=""
# Commands a test adds to run at exit after the cluster stops (e.g. removing its work directory).
CLEANUP_HOOK=""
cluster_cleanup() {
    local rc=$?
    if [ -n "$CLUSTER_DIR" ]; then
        "$TESTCLUSTER" kill "$CLUSTER_DIR" || true
        # A crash, whatever the test checked (testcluster's watcher writes the line): any daemon ended by a
        # fault signal, or slurmctld (the process jfp runs in) by any signal but the KILL a test or this
        # teardown sent or the TERM of a stop. Other daemons' own signal exits are Slurm's (seen: 26.05's
        # slurmdbd, stopped 3 s after it started, ended by its own SIGUSR1).
        local crashed
        crashed=$(cat "$CLUSTER_DIR"/log/*.out 2>/dev/null | grep -E '^testcluster: .* exited with status [0-9]+ \(signal' |
            grep -E '\(signal (SEGV|ABRT|BUS|FPE|ILL|TRAP|SYS)\)$|^testcluster: slurmctld' |
            grep -v -E '\(signal (KILL|TERM)\)$' || true)
        if [ -n "$crashed" ]; then
            echo "FAIL: a daemon crashed during the test:" >&2
            echo "$crashed" >&2
            [ "$rc" -ne 0 ] || rc=1
        fi
        if [ "$rc" -ne 0 ]; then
            echo "---- cluster logs (test failed with $rc) ----" >&2
            "$TESTCLUSTER" logs "$CLUSTER_DIR" || true
        fi
        cd /
        if [ -z "${JFP_KEEP_CLUSTER:-}" ]; then rm -rf "$CLUSTER_DIR"; else echo "# kept $CLUSTER_DIR" >&2; fi
    fi
    [ -n "$CLEANUP_HOOK" ] && eval "$CLEANUP_HOOK"
    exit "$rc"
}

# cluster_start: starts a cluster with the build tree's plugin first in PluginDir (or, with JFP_INSTALLED,
# Slurm's plugin directory alone). JFP_CONF (jfp.conf
# text), JFP_JOB_SUBMIT_PLUGINS and JFP_SLURM_CONF_EXTRA are passed through.
cluster_start() {
    [ "$JFP_SLURM_USER" = root ] || "$TESTCLUSTER" users
    site_to_slurm_user  # a site made by new_site/make_site becomes SlurmUser's (nothing without one)
    CLUSTER_DIR=$(mktemp -d /tmp/jfp-test.XXXXXX)
    trap cluster_cleanup EXIT
    trap 'exit 130' INT TERM
    JFP_PLUGIN_DIR="$PLUGIN_DIR" "$TESTCLUSTER" start "$CLUSTER_DIR"
    # shellcheck disable=SC1091
    . "$CLUSTER_DIR/env"
    CTLD_LOG="$CLUSTER_DIR/log/slurmctld.log"
    # Jobs submitted without -o write slurm-N.out into the submit directory: keep them in the cluster's.
    mkdir -p "$CLUSTER_DIR/work"
    cd "$CLUSTER_DIR/work"
}

# Always an explicit window: sacct 22.05 without -E missed the day's jobs just after midnight (seen at
# 00:02, and `sacct -j 1` then returned another record). SACCT_WINDOW is that window.
SACCT_WINDOW="--starttime 2000-01-01 --endtime now+1days"

# job_state ID: the job's State from sacct (first word: "CANCELLED by 0" gives CANCELLED), or empty.
job_state() { sacct $SACCT_WINDOW -n -X -P -j "$1" -o State 2>/dev/null | head -n1 | awk '{print $1}'; }

# slurmdbd may first create a job's row from its step records (named "allocation", no comment, no
# Eligible time) and receive slurmctld's job-start record seconds later (seen on 22.05). A record is
# complete once its Eligible time is known.
record_complete() { [ "$(sacct $SACCT_WINDOW -n -X -P -j "$1" -o Eligible | head -n1)" != "Unknown" ]; }

# wait_job ID [SECONDS]: waits until sacct shows a final state and the complete record; prints the state.
wait_job() {
    local id=$1 secs=${2:-60} deadline s
    deadline=$((SECONDS + secs))
    while [ "$SECONDS" -lt "$deadline" ]; do
        s=$(job_state "$id")
        case "$s" in
            COMPLETED|FAILED|TIMEOUT|OUT_OF_MEMORY|NODE_FAIL|CANCELLED|PREEMPTED|BOOT_FAIL|DEADLINE)
                if record_complete "$id"; then echo "$s"; return 0; fi ;;
        esac
        sleep 0.5
    done
    fail "job $id did not finish within ${secs}s (last state '$s')"
}

# wait_accounting_complete [SECONDS]: no job in sacct still lacks slurmctld's job-start record.
wait_accounting_complete() {
    local secs=${1:-60} deadline
    deadline=$((SECONDS + secs))
    while [ "$SECONDS" -lt "$deadline" ]; do
        sacct $SACCT_WINDOW -a -n -X -P -o Eligible | grep -x Unknown >/dev/null || return 0
        sleep 0.5
    done
    fail "sacct still has incomplete job records after ${secs}s"
}

# wait_accounting_jobs N [SECS]: until sacct lists N jobs that ended, with complete records. A job's end
# reaches slurmdbd after squeue stops listing it (seen: a wave of 7 short jobs absent from an export taken
# right after them).
wait_accounting_jobs() {
    local n=$1 secs=${2:-60}
    wait_until "$secs" "sacct to list $n ended jobs" \
        "[ \"\$(sacct $SACCT_WINDOW -a -n -X -P -o End | grep -c -v -x Unknown)\" -ge $n ]"
    wait_accounting_complete "$secs"
}

# sacct_field ID FIELD: one field of one job, exactly as sacct prints it with --parsable2.
sacct_field() { sacct $SACCT_WINDOW -n -X -P -j "$1" -o "$2"; }

# submit ARGS...: sbatch --parsable; prints the job id.
submit() { sbatch --parsable "$@" | cut -d';' -f1; }

# wait_until SECONDS WHAT CONDITION: runs CONDITION (shell text, eval'd: the test's functions and variables
# work) every 0.2 s until it succeeds; fails naming WHAT once SECONDS have passed. A deadline, not a count of
# tries: tests run several at a time, and on a loaded machine each try takes longer.
wait_until() {
    local secs=$1 what=$2 cond=$3 deadline=$((SECONDS + $1))
    until eval "$cond"; do
        [ "$SECONDS" -lt "$deadline" ] || fail "$what (waited ${secs} s)"
        sleep 0.2
    done
}

expect_eq() {
    [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"
}

expect_contains() {
    case "$1" in *"$2"*) ;; *) fail "$3: expected to find '$2' in '$1'" ;; esac
}

# ---- helpers for the scoring tests

# new_site: W, a private site directory (make_site below), removed at exit, pass or fail (kept with
# JFP_KEEP_CLUSTER), and SITE_CONF, the jfp.conf lines that point the plugin at it (its model, store and
# feature log; reload_interval 0.3; reject_below_target, since whether the small model of make_site reaches
# its target precision varies with the XGBoost release, and the tests are about decisions, not the model). A test that adds its own cleanup appends to CLEANUP_HOOK.
new_site() {
    W=$(mktemp -d /tmp/jfp-site.XXXXXX)
    SITE_CONF="model = $W/model.json
store = $W/history.db
feature_log = $W/features.db
reload_interval = 0.3
reject_below_target = yes"
    CLEANUP_HOOK='[ -n "${JFP_KEEP_CLUSTER:-}" ] || rm -rf "$W"'
    trap 'eval "$CLEANUP_HOOK"' EXIT
    make_site "$W"
}

# site_to_slurm_user: the site directory becomes SlurmUser's, as if SlurmUser had run make_site's ingest and
# train (docs/admin-guide.md, "Install"), with a copy of jfp it may run (the build tree may be in a checkout
# only root enters). Idempotent.
site_to_slurm_user() {
    [ -n "${W:-}" ] || return 0
    SITE_JFP="$JFP"
    [ "$JFP_SLURM_USER" = root ] && return 0
    [ -x "$W/bin/jfp" ] || install -D -m 755 "$JFP" "$W/bin/jfp"
    chown -R "$JFP_SLURM_USER:" "$W"
    chmod 755 "$W"
    SITE_JFP="$W/bin/jfp"
}

# give_to_slurm_user PATH...: files root made for a cluster (a benchmark's site, a store built aside)
# become SlurmUser's, so slurmctld, running as SlurmUser, can open them as a site's own would.
give_to_slurm_user() {
    [ "$JFP_SLURM_USER" = root ] && return 0
    "$TESTCLUSTER" users  # SlurmUser may not exist yet on a new machine
    chown -R "$JFP_SLURM_USER:" "$@"
}

# site_jfp ARGS: jfp as the site's owner (SlurmUser), for what writes the site's files (ingest, train,
# publish, prune): a file root made there could not be read by slurmctld running as SlurmUser.
site_jfp() {
    if [ "$JFP_SLURM_USER" = root ] || [ "$(id -u)" != 0 ]; then
        "${SITE_JFP:-$JFP}" "$@"
    else
        (cd / && setpriv --reuid="$JFP_SLURM_USER" --regid="$(id -g "$JFP_SLURM_USER")" --init-groups -- "${SITE_JFP:-$JFP}" "$@")
    fi
}

# handwritten_model DIR: DIR/model.json, the hand-written bundle of message_model.py (its trees fixed, so
# scores and messages are the same on every Slurm and XGBoost release), in the format and feature schema a
# bundle trained on a small synthetic workload gives.
handwritten_model() {
    local d=$1
    "$JFP" synth --jobs 3000 --seed 3 -q -o "$d/synth.txt"
    "$JFP" ingest --trusted-export -q --db "$d/synth.db" "$d/synth.txt"
    "$JFP" train --db "$d/synth.db" --out "$d/trained.json" --rounds 3 --nthread 2 --no-progress --kind tree >/dev/null
    python3 "$JFP_SRCDIR/test/integration/message_model.py" "$d/trained.json" "$d/model.json"
}

# doomed_and_steady USER UID ACCOUNT FIRST_ID: a sacct export (stdout) in which USER's 'doomed' failed its
# last 6 runs, the last minutes ago, and 'steady' completed its last 6; job ids from FIRST_ID.
doomed_and_steady() {
    local user=$1 uid=$2 account=$3 id=$4 now t i
    now=$(date +%s)
    echo "JobIDRaw|JobID|User|UID|Account|Partition|QOS|JobName|Submit|Start|End|State|ExitCode|ReqCPUS|ReqNodes|ReqMem|Timelimit"
    for i in 1 2 3 4 5 6; do
        t=$((now - 3600 + i * 300))
        echo "$((id + i))|$((id + i))|$user|$uid|$account|debug|normal|doomed|$(date -d @$t +%FT%T)|$(date -d @$((t + 5)) +%FT%T)|$(date -d @$((t + 60)) +%FT%T)|FAILED|1:0|1|1|100M|00:10:00"
        echo "$((id + 100 + i))|$((id + 100 + i))|$user|$uid|$account|debug|normal|steady|$(date -d @$t +%FT%T)|$(date -d @$((t + 5)) +%FT%T)|$(date -d @$((t + 200)) +%FT%T)|COMPLETED|0:0|1|1|100M|00:10:00"
    done
}

# db_count FILE TABLE: the rows of TABLE in the SQLite FILE, 0 while it does not exist (read-only: a
# missing file is not created, as sqlite3 would, before the plugin creates it with its own mode).
# sql_read DB QUERY...: a read of a store the plugin, an ingest or a writer thread may be writing: read-only
# (a root sqlite3 must not leave root-owned -wal/-shm files) and waiting out their locks instead of failing
# with "database is locked" (units_run.sh met it). test/source/shell_pipes.sh holds the tests to it.
sql_read() { sqlite3 -readonly -cmd '.timeout 10000' "$@"; }
db_count() { sql_read "$1" "SELECT count(*) FROM $2" 2>/dev/null || echo 0; }

# make_site DIR: a history store (synthetic users plus root's own history) and a model trained on it.
# root has 'doomed', whose last 6 runs failed minutes ago, and 'steady', whose last 6 completed.
make_site() {
    local w=$1
    mkdir -p "$w"
    chmod 700 "$w"
    "$JFP" synth --jobs 20000 --seed 11 -q -o "$w/synth.txt"
    "$JFP" ingest --trusted-export -q --db "$w/history.db" "$w/synth.txt"
    # --kind tree: these tests are about the plugin with a tree model, the same on every XGBoost release
    # (plugin_scoring.sh loads a rules bundle too).
    "$JFP" train --db "$w/history.db" --out "$w/model.json" --rounds 60 --nthread 2 --no-progress --kind tree >/dev/null
    doomed_and_steady root 0 root 900000 >"$w/root.txt"
    "$JFP" ingest --trusted-export -q --db "$w/history.db" "$w/root.txt"
}

# start_site_cluster [CONF]: the start every scoring test shares. A site (new_site, unless the test made
# one already), a cluster whose jfp.conf is SITE_CONF plus the lines CONF, and the plugin with the site's
# history loaded.
start_site_cluster() {
    [ -n "${W:-}" ] || new_site
    export JFP_CONF="$SITE_CONF${1:+
$1}"
    cluster_start
    # Scores before the history has loaded are the same for every job (seen on 24.11: 0.199 and 0.199).
    wait_log "loaded history of" 60
}

# score_doomed_and_steady: submits root's 'doomed' and 'steady' held and sets DOOMED_ID, STEADY_ID, their
# scores PD and PS, and MID, the threshold halfway between; fails unless doomed scores clearly higher.
score_doomed_and_steady() {
    DOOMED_ID=$(submit --hold -J doomed --wrap true)
    STEADY_ID=$(submit --hold -J steady --wrap true)
    PD=$(p_of "$(comment_of "$DOOMED_ID")")
    PS=$(p_of "$(comment_of "$STEADY_ID")")
    awk -v a="$PD" -v b="$PS" 'BEGIN { exit !(a > b + 0.05) }' || fail "doomed ($PD) should score clearly above steady ($PS)"
    MID=$(awk -v a="$PD" -v b="$PS" 'BEGIN { printf "%.4f", (a + b) / 2 }')
    note "p(doomed)=$PD p(steady)=$PS threshold=$MID"
}

# set_conf TEXT: writes jfp.conf and waits until the running plugin has reloaded it.
set_conf() {
    local before
    before=$(grep -c "reloaded $CLUSTER_DIR/etc/jfp.conf" "$CTLD_LOG" || true)
    printf '%s\n' "$1" >"$CLUSTER_DIR/etc/jfp.conf.tmp"
    chmod 644 "$CLUSTER_DIR/etc/jfp.conf.tmp"
    mv "$CLUSTER_DIR/etc/jfp.conf.tmp" "$CLUSTER_DIR/etc/jfp.conf"
    wait_until 30 "the plugin did not reload jfp.conf" \
        '[ "$(grep -c "reloaded $CLUSTER_DIR/etc/jfp.conf" "$CTLD_LOG" || true)" -gt "$before" ]'
}

# wait_log PATTERN [SECONDS]: until slurmctld's log has a line matching PATTERN.
wait_log() {
    local secs=${2:-30} deadline=$((SECONDS + ${2:-30}))
    while [ "$SECONDS" -lt "$deadline" ]; do
        grep -q -- "$1" "$CTLD_LOG" && return 0
        sleep 0.2
    done
    fail "no line matching '$1' in slurmctld's log after ${secs}s"
}

comment_of() { squeue -h -j "$1" -o %k; }

# as_user USER CMD...: CMD as an ordinary user (testcluster users makes jfp-usera and jfp-userb), run in the
# test's sticky directory $W/home, which the test makes (mkdir -p "$W/home"; chmod 1777 "$W/home").
as_user() { local u=$1; shift; (cd "$W/home" && runuser -u "$u" -- "$@"); }

# metric NAME [LABEL]: the last value of the plugin's metric NAME (whose labels hold LABEL, when given) in
# $W/jfp.prom, the test's metrics_file; 0 while the file or the metric is absent.
metric() {
    awk -v name="$1" -v lab="${2:-}" '
        { split($0, f, " "); base = f[1]; sub(/\{.*/, "", base) }
        base == name && (lab == "" || index(f[1], lab) > 0) { v = f[2] } END { print v + 0 }' "$W/jfp.prom" 2>/dev/null || echo 0
}

# seed_store DIR: DIR/history.db (from DIR/seed.txt) holding one unrelated job, root's 'other', completed
# 2 hours ago: the plugin has a history to load and reload.
seed_store() {
    local t
    {
        echo "JobIDRaw|JobID|User|UID|Account|Partition|QOS|JobName|Submit|Start|End|State|ExitCode|ReqCPUS|ReqNodes|ReqMem|Timelimit"
        t=$(($(date +%s) - 7200))
        echo "990001|990001|root|0|root|debug|normal|other|$(date -d @$t +%FT%T)|$(date -d @$t +%FT%T)|$(date -d @$((t + 60)) +%FT%T)|COMPLETED|0:0|1|1|100M|00:10:00"
    } >"$1/seed.txt"
    "$JFP" ingest --trusted-export -q --db "$1/history.db" "$1/seed.txt"
}

# admin_comment_of ID: the job's AdminComment, from squeue --json (scontrol's text prints the user's
# JobName before it, and a name may hold " AdminComment=...").
admin_comment_of() {
    squeue --json | /usr/bin/python3 -c 'import json, sys
for j in json.load(sys.stdin)["jobs"]:
    if str(j["job_id"]) == sys.argv[1]:
        print(j.get("admin_comment") or "")' "$1"
}
# token_of_job ID: the jfp join token in the job's AdminComment (empty when none).
token_of_job() { admin_comment_of "$1" | grep -o 'jfp:t=[0-9a-f]\{16\}' | head -n1 | cut -d= -f2; }

# site_check: jfp check of this cluster's jfp.conf and slurm.conf; what it found is its output, not a failure.
site_check() { "$JFP" check --conf "$CLUSTER_DIR/etc/jfp.conf" --slurm-conf "$CLUSTER_DIR/etc/slurm.conf" 2>&1 || true; }

# restart_runs_installed OLD_PID SO: slurmctld restarted as an admin would after an upgrade; jfp check then
# says the new process runs SO. Sets PID2.
restart_runs_installed() {
    "$TESTCLUSTER" restart-ctld "$CLUSTER_DIR" >/dev/null
    PID2=$(cat "$CLUSTER_DIR/run/slurmctld.pid")
    [ "$PID2" != "$1" ] || fail "slurmctld did not restart (pid $1)"
    wait_log "loaded history of" 60
    local out
    out=$(site_check)
    expect_contains "$out" "slurmctld (pid $PID2) runs the installed $2" "jfp check after the restart"
    case "$out" in *"has since been replaced"*) fail "the restarted slurmctld still reported as running a replaced plugin: $out" ;; esac
}

# likely P: how a message opens at that score: "will probably fail" where the p it shows is at least 0.50.
likely() { awk -v p="$1" 'BEGIN { q = sprintf("%.2f", p) + 0; print (q >= 0.5 ? "will probably fail" : "may fail") }'; }

# p_of TEXT: the p= of the last jfp annotation in TEXT (empty when none)
p_of() { printf '%s' "$1" | grep -o 'jfp:p=[0-9.]*' | tail -n1 | cut -d= -f2; }
model_of() { printf '%s' "$1" | grep -o ',model=[^ ,]*' | tail -n1 | cut -d= -f2; }
