#!/usr/bin/env bash
# Modules that do not exist (issue 37 items 1, 2 and 5), on a real Lmod tree with a compiler/MPI hierarchy
# (lmod_tree.sh) and a real slurmctld, from an ordinary user. The shipped jfp-modules.service, run as
# SlurmUser in its sandbox, writes the index from Lmod's spider; the plugin picks it up without a restart.
# A corpus of scripts, planted (a typo, a version not installed, a second name missing, a case Lmod does not
# fold, a swap to a missing version) and not (the hierarchy loaded in order, defaults, version prefixes,
# `module use`, here-documents, comments, `ml` alone, unloads, try-load), runs as real jobs: what Lmod
# itself did (sacct's state) is the truth the warnings are measured against. Precision must be 1 and every
# planted script told; a load behind the hierarchy that fails is not told (not certain from the script),
# and is counted against recall. Then reject mode refuses with the sentence, and a module installed later
# reaches the plugin through the unit again.
. "$JFP_SRCDIR/test/integration/lib.sh"
. "$JFP_SRCDIR/test/integration/lmod_tree.sh"
require_cluster
SPIDER=$(lmod_spider)
if [ -z "$SPIDER" ] || [ ! -r /usr/share/lmod/lmod/init/bash ]; then
    [ -n "${JFP_REQUIRE_CLUSTER:-}" ] && { echo "ERROR: Lmod is not installed (scripts/install-deps installs lmod)" >&2; exit 99; }
    echo "SKIP: Lmod is not installed"; exit 77
fi
new_site
TREE="$W/modules"
make_lmod_tree "$TREE"
T=$(mktemp -d /tmp/jfp-modules.XXXXXX)  # the test's own files
CLEANUP_HOOK="rm -rf '$T'; $CLEANUP_HOOK"
chmod 755 "$T"
start_site_cluster "mode = warn
modules_index = $W/modules.json
script_archive = $W/archive.db"

# ---- the index, by the shipped unit as SlurmUser (test/integration/run_unit.py: its sandbox, its user)
if [ -n "${JFP_INSTALLED:-}" ]; then
    UNIT=/usr/lib/systemd/system/jfp-modules.service
    [ -f "$UNIT" ] || UNIT=/lib/systemd/system/jfp-modules.service
    REPLACE=(--replace "/var/lib/jfp=$W")
else
    UNIT="$JFP_SRCDIR/debian/jfp.jfp-modules.service"
    REPLACE=(--replace "/usr/bin/jfp=$SITE_JFP" --replace "/var/lib/jfp=$W")
fi
[ -f "$UNIT" ] || fail "no jfp-modules.service at $UNIT"
echo "JFP_MODULEPATH=$TREE/Core" >"$T/default-jfp"
run_modules_unit() {
    /usr/bin/python3 "$JFP_SRCDIR/test/integration/run_unit.py" "$UNIT" --user "$JFP_SLURM_USER" \
        --env-file "$T/default-jfp" "${REPLACE[@]}" --visible "$CLUSTER_DIR" >"$T/unit.out" 2>&1 ||
        fail "jfp-modules.service failed: $(cat "$T/unit.out")"
}
run_modules_unit
expect_contains "$(cat "$T/unit.out")" "jfp modules index: wrote $W/modules.json: 13 module files of 10 names (4 behind a compiler or MPI level)" \
    "jfp-modules.service's summary"
expect_eq "$(stat -c %U "$W/modules.json")" "$JFP_SLURM_USER" "the index's owner"
wait_log "loaded module index $W/modules.json: 13 modules" 30
note "jfp-modules.service as $JFP_SLURM_USER: $(grep -F 'jfp modules index: wrote' "$T/unit.out")"

# ---- the corpus: NAME LABEL LINES (LABEL: planted, clean = loads as written, hierarchy = fails behind a
# level jfp does not judge)
S="$T/scripts"
mkdir "$S"
chmod 755 "$S"
corpus() {
    local name=$1 label=$2
    shift 2
    printf '#!/bin/bash\n#SBATCH -J %s\nsource /usr/share/lmod/lmod/init/bash\nset -e\n' "$name" >"$S/$name.sh"
    printf '%s\n' "$@" >>"$S/$name.sh"
    echo 'echo ran' >>"$S/$name.sh"
    chmod 644 "$S/$name.sh"
    echo "$name $label" >>"$T/labels"
}
: >"$T/labels"
corpus typo planted "module load pyhton/3.11"
corpus old_python planted "module load python/3.9"
corpus old_gcc planted "ml gcc/11.1.0"
corpus second_name planted "module load cmake/3.27.7 nonexist_lib"
corpus upper_case planted "module load GCC/12.2.0"
corpus swap_missing planted "module load python/3.11.4" "module switch python/3.11.4 python/3.12"
corpus old_r planted "module add R/4.2"
corpus hierarchy clean "module load gcc/12.2.0 openmpi/4.1.5"
corpus ml_defaults clean "ml gcc openmpi fftw"
corpus prefix clean "module load python/3.11"
corpus no_version clean "module load anaconda3 apps/namd"
corpus module_use clean "module use $TREE/Extra" "module load mytool/1.0"
corpus heredoc clean "cat > /dev/null <<EOF" "module load doesnotexist" "EOF"
corpus ml_bare clean "ml" "ml python" "ml -python"
corpus try_load clean "module try-load notthere"
corpus comment clean "# module load notthere" "echo 'module load notthere'"
corpus gcc13_blas clean "ml gcc/13.1.0 openblas"
corpus mpi_first hierarchy "module load openmpi/4.1.5"

submit_as_user() {  # submit_as_user SCRIPT: sbatch's output in $T/out; the job id printed, or nothing
    (cd /tmp && runuser -u jfp-usera -- sbatch -o /dev/null --export="MODULEPATH=$TREE/Core,PATH=/usr/bin:/bin,HOME=/tmp" "$1") >"$T/out" 2>&1 || true
    grep -o 'Submitted batch job [0-9]*' "$T/out" | awk '{ print $4 }'
}
told() { grep -qE "jfp: warning: this script loads (a module|[0-9]+ modules) this cluster does not have" "$1"; }
: >"$T/results"
while read -r name label; do
    id=$(submit_as_user "$S/$name.sh")
    [ -n "$id" ] || fail "$name: warn mode did not accept the job: $(cat "$T/out")"
    cp "$T/out" "$T/out.$name"
    flag=no
    told "$T/out" && flag=yes
    echo "$name $label $id $flag" >>"$T/results"
done <"$T/labels"
grep -qF "line 5: 'module load pyhton/3.11': this cluster has no module 'pyhton'; did you mean python?" "$T/out.typo" ||
    fail "the typo's sentence: $(cat "$T/out.typo")"
grep -qF "module 'python' has no version '3.9' on this cluster; it has python/3.10.12, python/3.11.4" "$T/out.old_python" ||
    fail "the old version's sentence: $(cat "$T/out.old_python")"
note "told: $(grep -F 'line 5:' "$T/out.typo" | sed 's/^ *//' | cut -c1-160)"

# What Lmod did: each job's state, from sacct.
while read -r name label id flag; do
    echo "$name $label $id $flag $(wait_job "$id" 180)"
done <"$T/results" >"$T/truth"
/usr/bin/python3 - "$T/truth" <<'PY' || fail "the module check against what Lmod did (above)"
import sys
rows = [l.split() for l in open(sys.argv[1])]
wrong = [r for r in rows if (r[1] in ("planted", "hierarchy")) != (r[4] != "COMPLETED")]
assert not wrong, f"the corpus is not what Lmod did (label and sacct state disagree): {wrong}"
failed = {r[0] for r in rows if r[4] != "COMPLETED"}
flagged = {r[0] for r in rows if r[3] == "yes"}
planted = {r[0] for r in rows if r[1] == "planted"}
tp = flagged & failed
precision = len(tp) / len(flagged) if flagged else 0.0
recall_planted = len(flagged & planted) / len(planted)
recall_all = len(tp) / len(failed)
print(f"# {len(rows)} scripts run as jobs: {len(failed)} failed in Lmod, {len(flagged)} told at sbatch; "
      f"precision {precision:.2f}, recall {recall_planted:.2f} of the planted, {recall_all:.2f} of every module failure "
      f"(not told: {sorted(failed - flagged)}, behind a hierarchy level)")
assert flagged <= failed, f"told, but Lmod loaded it: {sorted(flagged - failed)}"
assert planted <= flagged, f"planted, not told: {sorted(planted - flagged)}"
PY

# ---- jfp simulate replays the archived scripts against the index: the same findings, with their outcomes
wait_accounting_complete
sacct --allusers --parsable2 $SACCT_WINDOW --format="$SACCT_FORMAT" >"$T/export.txt"
"$JFP" ingest --trusted-export -q --strict --db "$T/sim.db" "$T/export.txt"
printf '%s\nmode = warn\nmodules_index = %s\nscript_archive = %s\n' "$SITE_CONF" "$W/modules.json" "$W/archive.db" >"$T/sim.conf"
"$JFP" simulate --conf "$T/sim.conf" --db "$T/sim.db" --model "$W/model.json" --after 1970-01-01 --jobs "$T/sim.csv" >"$T/sim.txt" ||
    fail "jfp simulate: $(cat "$T/sim.txt")"
/usr/bin/python3 - "$T/truth" "$T/sim.csv" "$T/sim.txt" <<'PY' || fail "jfp simulate's script findings (above)"
import csv, sys
truth = {r[2]: r for r in (l.split() for l in open(sys.argv[1]))}
sim = {r["JobIDRaw"]: r for r in csv.DictReader(open(sys.argv[2]))}
for jid, (name, label, _, flag, state) in truth.items():
    r = sim.get(jid)
    assert r, f"{name} (job {jid}) is not in the replay"
    want = "missing_module" if flag == "yes" else "none"
    assert r["script"] == want, f"{name}: simulate says {r['script']}, the plugin told {flag}"
    assert r["script_action"] == ("warn" if flag == "yes" else "none"), f"{name}: {r['script_action']}"
told = sum(1 for t in truth.values() if t[3] == "yes")
text = open(sys.argv[3]).read()
line = f"of the {told} with a finding that finished, {told} failed"
assert line in text, f"no '{line}' in: {text}"
print(f"# simulate: the {len(truth)} archived scripts replayed, {told} loading a module the index lacks, all failed")
PY
note "$(grep -F 'script findings' "$T/sim.txt" | sed 's/^ *//')"
# ... and jfp report's table of them, against the same outcomes
"$JFP" report --db "$T/sim.db" --model "$W/model.json" --after 1970-01-01 -o "$T/report.html" \
    --script-archive "$W/archive.db" --modules-index "$W/modules.json" >"$T/report.out" 2>&1 || fail "jfp report: $(cat "$T/report.out")"
/usr/bin/python3 - "$T/report.html" "$T/truth" <<'PY' || fail "jfp report's script findings (above)"
import re, sys
html = open(sys.argv[1]).read()
table = re.search(r'<table id="script-findings">(.*?)</table>', html, re.S)
assert table, "no script-findings table in the report"
rows = {c[0]: c[1:] for c in (re.findall(r"<td>(.*?)</td>", r) for r in table.group(1).split("</tr>")) if c}
truth = [l.split() for l in open(sys.argv[2])]
told = sum(1 for t in truth if t[3] == "yes")
assert rows.get("a module the index lacks", [None])[:2] == [str(told), str(told)], f"module row: {rows}"
assert rows.get("#SBATCH lines sbatch ignored", [None])[:2] == ["0", "0"], f"sbatch row: {rows}"
print(f"# report: {rows['all archived'][0]} archived scripts; {told} load a module the index lacks, {told} of them failed")
PY

# ---- missing_modules = reject: refused with the sentence and the fix; the clean ones still go in
set_conf "$SITE_CONF
mode = warn
modules_index = $W/modules.json
missing_modules = reject"
before=$(squeue -h -u jfp-usera | wc -l)
[ -z "$(submit_as_user "$S/typo.sh")" ] || fail "missing_modules = reject let the typo in: $(cat "$T/out")"
grep -qF "jfp: job refused: this script loads a module this cluster does not have" "$T/out" || fail "the refusal: $(cat "$T/out")"
grep -qF "did you mean python?" "$T/out" || fail "the refusal names no module to load instead: $(cat "$T/out")"
[ "$(squeue -h -u jfp-usera | wc -l)" = "$before" ] || fail "a refused job is in the queue"
note "refused: $(grep -F 'refused' "$T/out" | head -n1 | cut -c1-160)"
[ -n "$(submit_as_user "$S/hierarchy.sh")" ] || fail "reject mode refused a clean script: $(cat "$T/out")"

# ---- python/3.9 installed later: the unit again, and the plugin's next index knows it, no restart
printf 'whatis("python 3.9")\n' >"$TREE/Core/python/3.9.18.lua"
chmod 644 "$TREE/Core/python/3.9.18.lua"
run_modules_unit
wait_log "loaded module index $W/modules.json: 14 modules" 30
[ -n "$(submit_as_user "$S/old_python.sh")" ] || fail "python/3.9, installed since, is still refused: $(cat "$T/out")"
echo "PASS: modules that do not exist are told at sbatch truly (none Lmod loaded), refused when jfp.conf says, and the index refreshes without a restart"
