#!/usr/bin/env bash
# The plugin exports exactly Slurm's plugin ABI, leaves slurm_* undefined and links no Slurm library.
. "$JFP_SRCDIR/test/integration/lib.sh"
[ -f "$PLUGIN_SO" ] || fail "$PLUGIN_SO not built"

exports=$(nm -D --defined-only "$PLUGIN_SO" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort | tr '\n' ' ')
expect_eq "$exports" "fini init job_modify job_submit plugin_name plugin_type plugin_version " "exported symbols"

undef=$(nm -D --undefined-only "$PLUGIN_SO" | awk '{print $2}')
defined_slurm=$(nm -D --defined-only "$PLUGIN_SO" | awk '{print $3}' | grep "^slurm_" || true)
[ -z "$defined_slurm" ] || fail "the plugin defines Slurm symbols: $defined_slurm"
for s in slurm_xfree slurm_info slurm_get_extra_conf_path; do
    grep -qx -- "$s" <<<"$undef" || fail "$s should be left undefined for slurmctld to resolve"
done
if ldd "$PLUGIN_SO" | grep 'libslurm' >/dev/null; then fail "the plugin links a Slurm library: $(ldd "$PLUGIN_SO" | grep libslurm)"; fi

note "exports: $exports"
