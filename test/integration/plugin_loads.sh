#!/usr/bin/env bash
# job_submit/jfp loads in a real slurmctld; sbatch, salloc and srun jobs run through it; a user's
# comment survives byte for byte; sacct shows the jobs.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster

export JFP_CONF="mode = annotate
model = /nonexistent/jfp/model.json"
cluster_start

# The plugin says which file slurmctld loaded (the installed package's with JFP_INSTALLED) and which
# release it was built for: the one running.
built=$(grep "job_submit/jfp: jfp .* built for Slurm" "$CTLD_LOG" || true)
# The build tree's plugin is copied into the cluster's own PluginDir (test/cluster/testcluster).
loaded=$PLUGIN_SO
[ -n "$PLUGIN_DIR" ] && loaded="$CLUSTER_DIR/plugins/job_submit_jfp.so"
cmp -s "$loaded" "$PLUGIN_SO" || fail "$loaded is not a copy of $PLUGIN_SO"
expect_contains "$built" "built for Slurm $(slurmctld -V | awk '{print $2}') from $loaded" "build line"
note "$built"
init=$(grep "job_submit/jfp: init: " "$CTLD_LOG" || true)
expect_contains "$init" "config=$CLUSTER_DIR/etc/jfp.conf (loaded)" "init line: config"
expect_contains "$init" "model=/nonexistent/jfp/model.json (missing" "init line: model"
expect_contains "$init" "mode=annotate" "init line: mode"
note "$init"
grep -q 'job_submit/jfp' <(scontrol show config | grep -i JobSubmitPlugins) || \
    grep -qi 'JobSubmitPlugins *= *jfp' <(scontrol show config) || fail "JobSubmitPlugins is not jfp"

comment='run 7 | "quoted" and '"'single'"' | tail'
batch=$(submit --comment "$comment" -J jfp_batch --wrap 'echo hello from batch; sleep 1')
note "batch job $batch"
srun_out=$(srun -J jfp_srun -n1 sh -c 'echo srun-ok:$SLURM_JOB_ID' 2>&1)
expect_contains "$srun_out" "srun-ok:" "srun output"
srun_id=${srun_out##*srun-ok:}
srun_id=$(echo "$srun_id" | head -n1 | tr -dc '0-9')
salloc_out=$(salloc -J jfp_salloc -n1 sh -c 'echo salloc-ok:$SLURM_JOB_ID' 2>&1)
expect_contains "$salloc_out" "salloc-ok:" "salloc output"
salloc_id=$(echo "${salloc_out##*salloc-ok:}" | head -n1 | tr -dc '0-9')

for id in "$batch" "$srun_id" "$salloc_id"; do
    st=$(wait_job "$id")
    expect_eq "$st" "COMPLETED" "job $id state"
done
expect_eq "$(sacct_field "$batch" Comment)" "$comment" "the user's comment after the plugin"
expect_eq "$(sacct_field "$batch" JobName)" "jfp_batch" "batch job name"
expect_eq "$(sacct_field "$srun_id" JobName)" "jfp_srun" "srun job name"
expect_eq "$(sacct_field "$salloc_id" JobName)" "jfp_salloc" "salloc job name"
grep -q "job_submit/jfp: .*internal fault" "$CTLD_LOG" && fail "the plugin logged an internal fault"
note "batch=$batch srun=$srun_id salloc=$salloc_id all COMPLETED; comment intact"
