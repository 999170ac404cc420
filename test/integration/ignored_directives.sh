#!/usr/bin/env bash
# #SBATCH lines sbatch ignored (issue 37 item 3), on a real slurmctld, from an ordinary user: the warning
# sbatch prints names the line and what the job asks instead, and that is what slurmctld gave the job;
# ignored_directives = reject refuses the job with the fix; a here-document's #SBATCH lines and a clean
# script draw nothing.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
new_site
start_site_cluster "mode = warn
script_archive = $W/archive.db"
S=$(mktemp -d /tmp/jfp-scripts.XXXXXX)
CLEANUP_HOOK="rm -rf '$S'; $CLEANUP_HOOK"
chmod 755 "$S"
printf '#!/bin/bash\n#SBATCH -J late\necho start\n#SBATCH --mem=300\ntrue\nmodule load pyhton/3.11\n' >"$S/late.sh"
printf '#!/bin/bash\n#SBATCH -J heredoc\ncat > "$TMPDIR/next.sh" <<EOF\n#!/bin/bash\n#SBATCH --mem=300\nEOF\ntrue\n' >"$S/heredoc.sh"
printf '#!/bin/bash\n  #SBATCH -t 5\n#SBATCH -J indented\ntrue\n' >"$S/indented.sh"
chmod 644 "$S"/*.sh
as_user() { (cd /tmp && runuser -u jfp-usera -- sbatch --hold -o /dev/null "$@") >"$S/out" 2>&1; }

as_user "$S/late.sh" || fail "warn mode refused the job: $(cat "$S/out")"
id=$(grep -o 'Submitted batch job [0-9]*' "$S/out" | awk '{ print $4 }')
grep -qF "jfp: warning: sbatch ignored an #SBATCH line of this script" "$S/out" || fail "no warning: $(cat "$S/out")"
grep -qF "line 4: '#SBATCH --mem=300' comes after the script's first command (line 3)" "$S/out" || fail "the line: $(cat "$S/out")"
said=$(grep -o 'the job asks for [0-9]* MB of memory' "$S/out" | awk '{ print $5 }')
given=$(scontrol show job "$id" | grep -o 'MinMemory[A-Za-z]*=[0-9]*M' | head -n1 | grep -o '[0-9]*')
cpus=$(scontrol show job "$id" | grep -o 'NumCPUs=[0-9]*' | cut -d= -f2)
per=$(scontrol show job "$id" | grep -o 'MinMemory[A-Za-z]*' | head -n1)
[ "$per" = MinMemoryCPU ] && given=$((given * cpus))
[ -n "$said" ] && [ "$said" = "$given" ] || fail "the warning says $said MB, slurmctld gave the job $given MB ($per): $(cat "$S/out")"
note "warned: $(grep -F 'line 4:' "$S/out" | sed 's/^ *//' | cut -c1-160)"

# Support staff read the same findings from the archive: the script byte for byte on stdout, what it shows
# on stderr (with an index, its module loads too; this jfp.conf has none, so the plugin judged none).
printf '{"python": {"/m/python/3.11.4.lua": {"fullName": "python/3.11.4"}}}' >"$S/index.json"
show() { "$JFP" scripts show "$id" --archive "$W/archive.db" --db "$W/history.db" "$@" >"$S/shown" 2>"$S/head"; }
wait_until 60 "jfp scripts show $id: $(cat "$S/head" 2>/dev/null)" 'show --modules-index "$S/index.json"'
cmp -s "$S/shown" "$S/late.sh" || fail "jfp scripts show: not the script submitted"
grep -qF "# finding: line 4: '#SBATCH --mem=300' comes after the script's first command (line 3): sbatch ignored it" "$S/head" ||
    fail "jfp scripts show: no ignored line: $(cat "$S/head")"
grep -qF "# finding: line 6: 'module load pyhton/3.11': this cluster has no module 'pyhton'; did you mean python?" "$S/head" ||
    fail "jfp scripts show: no missing module: $(cat "$S/head")"
note "jfp scripts show: $(grep -F 'module load' "$S/head" | cut -c1-120)"
show || fail "jfp scripts show without an index: $(cat "$S/head")"
grep -qF "# module loads not checked: no module index" "$S/head" || fail "jfp scripts show: the unchecked modules are not said: $(cat "$S/head")"
[ "$(grep -c '^# finding:' "$S/head")" = 1 ] || fail "jfp scripts show without an index: $(cat "$S/head")"

as_user "$S/indented.sh" || fail "the indented script was refused: $(cat "$S/out")"
grep -qF "line 2: '#SBATCH -t 5' is indented" "$S/out" || fail "the indented line: $(cat "$S/out")"
as_user "$S/heredoc.sh" || fail "the heredoc script was refused: $(cat "$S/out")"
! grep -q "ignored" "$S/out" || fail "a here-document's #SBATCH line was reported: $(cat "$S/out")"

set_conf "$SITE_CONF
mode = warn
ignored_directives = reject"
before=$(squeue -h -u jfp-usera | wc -l)
! as_user "$S/late.sh" || fail "ignored_directives = reject let the job in: $(cat "$S/out")"
grep -qF "jfp: job refused: sbatch ignored an #SBATCH line" "$S/out" || fail "the refusal: $(cat "$S/out")"
grep -qF "Fix the script and submit it again." "$S/out" || fail "the refusal names no fix: $(cat "$S/out")"
[ "$(squeue -h -u jfp-usera | wc -l)" = "$before" ] || fail "a refused job is in the queue"
note "refused: $(grep -F 'refused' "$S/out" | head -n1 | cut -c1-160)"
wait_log "sbatch ignored #SBATCH line(s) 4: rejected (ignored_directives = reject)" 10
as_user "$S/heredoc.sh" || fail "reject mode refused a clean script: $(cat "$S/out")"
echo "PASS: sbatch's ignored #SBATCH lines are told to the user truly, and refused when jfp.conf says so"
