#!/usr/bin/env bash
# Issue 48, class 9 (red team), class 3: one submission whose cost grows with a field the worst-case search
# never draws. It failed on the code it was written against (332df47); the attack fails now, and it runs on
# every leg.
#
# An ordinary user's sbatch with a partition list of ~370 distinct entries (1 KiB, the cap) and a name of
# 85 x U+FDFA (the character NFKC expands most): jfp scores every entry (a history lookup each, the name's
# identity through ICU each) before slurmctld refuses the partitions. jfp's time for that one job_submit,
# from the plugin's stats line, must be within the 1 ms bound of issue 48.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
"$TESTCLUSTER" users
export JFP_SLURM_USER=jfp-slurm

new_site
start_site_cluster "mode = annotate
stats_interval = 1"
list=$(python3 -c '
l = [chr(c) for c in range(0x21, 0x7f) if chr(c) not in ",\"$`\\\x27"]
l += [chr(a) + chr(b) for a in range(0x41, 0x7b) for b in range(0x41, 0x7b)]
out = ""
for e in l:
    if len(out) + len(e) + 1 > 1024: break
    out += ("," if out else "") + e
print(out)')
fdfa=$(printf '\xef\xb7\xba%.0s' $(seq 85))
mark=$(wc -l <"$CTLD_LOG")
t0=$(date +%s%N)
out=$( (cd /tmp && runuser -u jfp-usera -- sbatch --hold -o /dev/null -J "$fdfa" -p "$list" --wrap true) 2>&1) || true
t1=$(date +%s%N)
note "sbatch with a ${#list}-byte partition list: $(head -c 200 <<<"$out"); it took $(((t1 - t0) / 1000000)) ms"
wait_until 30 "no stats line after the submission" 'tail -n +"$((mark + 1))" "$CTLD_LOG" | grep "job_submit p50" >/dev/null'
max_us=$(tail -n +"$((mark + 1))" "$CTLD_LOG" | grep -o 'job_submit p50 [0-9.]* us, p99 [0-9.]* us, max [0-9.]* us' | awk '$9 > m { m = $9 } END { print m + 0 }')
note "jfp's time for that job_submit: $max_us us (stats line)"
awk -v m="$max_us" 'BEGIN { exit !(m <= 1000) }' || fail "one submission cost jfp $max_us us, past 1 ms"
