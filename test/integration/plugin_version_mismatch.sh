#!/usr/bin/env bash
# A plugin built for another Slurm release: slurmctld refuses it before any of jfp's code runs, and exits.
# The copy under test differs from the real plugin only in plugin_version (micro release + 1), as if built
# against the next release's headers. docs/admin-guide.md ("Slurm releases") quotes what this prints.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster

# PluginDir holds only this copy of jfp, beside Slurm's own plugins: as after a Slurm upgrade that left the
# installed jfp behind. (With a matching jfp in a later PluginDir entry, slurmctld 24.11 skips the stale
# copy, logging nothing at level info, and loads the other: seen with the packages installed.)
other=$(mktemp -d /tmp/jfp-other.XXXXXX)
chmod 755 "$other"  # slurmctld runs as SlurmUser
CLEANUP_HOOK='rm -rf "$other"'
for f in "$("$TESTCLUSTER" plugindir)"/*; do
    [ "$(basename "$f")" = job_submit_jfp.so ] || ln -s "$f" "$other/"
done
cp "$PLUGIN_SO" "$other/job_submit_jfp.so"
running=$(slurmctld -V | awk '{print $2}')
/usr/bin/python3 - "$other/job_submit_jfp.so" <<'PY'
import struct, subprocess, sys
so = sys.argv[1]
# The symbol's address, and the section holding it, to find its bytes in the file.
addr = next(int(l.split()[0], 16) for l in subprocess.check_output(["nm", "-D", "--defined-only", so], text=True).splitlines()
            if l.split()[-1] == "plugin_version")
for l in subprocess.check_output(["readelf", "-SW", so], text=True).splitlines():
    f = l.replace("[ ", "[").split()
    if len(f) > 6 and f[0].startswith("[") and f[0] != "[Nr]":
        start, off, size = int(f[3], 16), int(f[4], 16), int(f[5], 16)
        if start <= addr < start + size and f[2] != "NOBITS":
            pos = addr - start + off
            break
data = bytearray(open(so, "rb").read())
(v,) = struct.unpack_from("<I", data, pos)
struct.pack_into("<I", data, pos, v + 1)
open(so, "wb").write(data)
print(f"# plugin_version {v:#x} -> {v + 1:#x}")
PY

CLUSTER_DIR=$(mktemp -d /tmp/jfp-test.XXXXXX)
trap cluster_cleanup EXIT
if JFP_PLUGIN_DIR="$other" JFP_PLUGIN_DIR_ONLY=1 JFP_CONF="mode = annotate" "$TESTCLUSTER" start "$CLUSTER_DIR" \
        >"$other/start.log" 2>&1; then
    fail "slurmctld $running started with a plugin built for another release"
fi
log="$CLUSTER_DIR/log/slurmctld.log"
grep -q "Incompatible Slurm plugin $other/job_submit_jfp.so version" "$log" \
    || fail "no 'Incompatible Slurm plugin' line in slurmctld's log: $(tail -n 5 "$log")"
grep -q "fatal: failed to initialize job_submit plugin" "$log" || fail "slurmctld did not say why it stopped"
grep -q "built for Slurm" "$log" && fail "jfp's init ran although slurmctld refused the plugin"
note "Slurm $running: $(grep -o 'Incompatible Slurm plugin.*' "$log" | head -n1)"
note "Slurm $running: $(grep -o 'fatal: failed to initialize job_submit plugin.*' "$log" | head -n1)"
