#!/usr/bin/env bash
# A job that asks no memory, on a cluster whose slurm.conf sets no DefMemPerCPU or DefMemPerNode: slurmctld
# gives it a whole node's memory (RealMemory less MemSpecLimit) and sacct records that. The plugin must
# have scored it with the same memory (training/serving parity), beside jobs that do ask, on a real
# slurmctld: jfp parity finds no memory feature differing.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster

export JFP_NO_DEF_MEM=1
start_site_cluster "mode = annotate"
! grep -q '^DefMemPer' "$CLUSTER_DIR/etc/slurm.conf" || fail "the cluster must have no memory default"
node_mem=$(grep -o 'RealMemory=[0-9]*' "$CLUSTER_DIR/etc/slurm.conf" | head -n1 | cut -d= -f2)

# From an ordinary user, as a site's jobs come.
user_submit() { (cd /tmp && runuser -u jfp-usera -- sbatch --parsable -o /dev/null "$@" | cut -d';' -f1); }
ids=()
ids+=("$(user_submit --hold -J nomem --wrap true)")
ids+=("$(user_submit --hold -J nomem_two -n 2 --wrap true)")
ids+=("$(user_submit --hold -J withmem --mem=300 --wrap true)")
ids+=("$(user_submit --hold -J percpu -n 2 --mem-per-cpu=150 --wrap true)")
for id in "${ids[@]}"; do [[ "$id" =~ ^[0-9]+$ ]] || fail "jfp-usera's submission failed: '$id'"; done
sleep 1  # whole seconds: the jobs' submit times lie strictly before until
until=$(date +%Y-%m-%dT%H:%M:%S)
wait_until 30 "the feature log did not get the 4 jobs" '[ "$(db_count "$W/features.db" scored)" -ge 4 ]'
# Held until all four are scored, then run: jfp ingest stores jobs that ended.
scontrol release "${ids[@]}"
for id in "${ids[@]}"; do wait_job "$id" 120 >/dev/null; done
req=$(sacct_field "${ids[0]}" ReqMem)
[ "$req" = "${node_mem}M" ] || fail "sacct should record a whole node's memory (${node_mem}M) for a job asking none, got '$req'"
note "sacct: ReqMem=$req for a job asking no memory (RealMemory=$node_mem, no DefMemPerCPU)"

sacct --allusers --parsable2 $SACCT_WINDOW --format="$SACCT_FORMAT" >"$W/export.txt"
cp "$W/history.db" "$W/parity.db"
"$JFP" ingest --trusted-export -q --strict --db "$W/parity.db" "$W/export.txt"
"$JFP" parity --db "$W/parity.db" --feature-log "$W/features.db" --before "$until" | tee "$W/parity.txt"
"$JFP" parity --db "$W/parity.db" --feature-log "$W/features.db" --before "$until" --json >"$W/parity.json"
/usr/bin/python3 - "$W/parity.json" <<'PY' || fail "memory features differ between the plugin and sacct (above)"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["jobs"] == 4, f"expected the 4 jobs, got {p['jobs']}"
mem = {n: f for n, f in p["features"].items() if n.startswith("req_mem")}
assert mem, "no memory feature in parity's output"
bad = {n: f for n, f in mem.items() if f["differ"]}
assert not bad, "memory features differ: " + json.dumps(bad, indent=1)
print(f"# parity: {p['jobs']} jobs, {', '.join(sorted(mem))} agree")
PY
echo "PASS: a job asking no memory is scored with the memory Slurm gives it"
