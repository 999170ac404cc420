#!/usr/bin/env bash
# --array specs counted as slurmctld counts them (issue 48): an ordinary user submits each spec of a corpus
# (repeats, empty items, a trailing comma, blanks, brackets, steps, a %N limit), and the task count jfp
# recorded at submission (jfp:s= in AdminComment) equals the tasks slurmctld made (squeue -r). Specs
# slurmctld refuses are refused here too, whatever jfp counted.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster

start_site_cluster "mode = annotate"
specs=(
    "0-999," "0-499,,500-999" "0- 999" "1,1,1,1,1,1,1,1,1,1,1,1" "[0-9]" "0-9:3" "0-9:3,1-9:3" "5%2" "0-9%2,20"
    " 7" "1-3,2-4" "[1,3,5-7]%2" "0-1000" ",,3,,"
)
for spec in "${specs[@]}"; do
    out=$( (cd /tmp && runuser -u jfp-usera -- sbatch --parsable --hold -o /dev/null --array="$spec" --wrap true) 2>&1) ||
        fail "slurmctld refused --array='$spec': $out"
    id=${out%%;*}
    tasks=$(squeue -h -r -j "$id" -o %i | wc -l)
    facts=$(admin_comment_of "$id" | grep -o 'jfp:s=[0-9]*' | tail -n1 | cut -d= -f2)
    [ -n "$facts" ] || facts=1  # no jfp:s= field: jfp counted one task (a plain job's facts are left out)
    [ "$facts" = "$tasks" ] || fail "--array='$spec': slurmctld made $tasks tasks, jfp counted '$facts' ($(admin_comment_of "$id"))"
    note "--array='$spec': $tasks tasks, jfp counted $facts"
    scancel "$id"
done
# Refused by slurmctld (MaxArraySize is 1001 here; a blank before '-'; a negative index).
for spec in "0-1001" "0 -9" "-1"; do
    if out=$( (cd /tmp && runuser -u jfp-usera -- sbatch --parsable --hold -o /dev/null --array="$spec" --wrap true) 2>&1); then
        fail "slurmctld accepted --array='$spec' (job ${out%%;*}): the corpus expects a refusal"
    fi
done
note "array specs: jfp's count is slurmctld's on ${#specs[@]} specs"
