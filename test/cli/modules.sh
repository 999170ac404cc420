#!/usr/bin/env bash
# jfp modules (issue 37 item 1): `index` writes Lmod's spider output over a real tree (lmod_tree.sh) and
# refuses, keeping the last index byte for byte, what would make the plugin call real modules missing: a
# module directory not there, a tree with no module, an index less than half the last, a spider that fails
# or prints something else. `check` says what the plugin would, and exits 2 when a module is missing.
set -euo pipefail
: "${JFP_BUILDDIR:?run through make check (JFP_BUILDDIR unset)}"
: "${JFP_SRCDIR:?run through make check (JFP_SRCDIR unset)}"
JFP="$JFP_BUILDDIR/tools/jfp"
. "$JFP_SRCDIR/test/integration/lmod_tree.sh"
if [ -z "$(lmod_spider)" ]; then
    [ -n "${JFP_REQUIRE_CLUSTER:-}" ] && { echo "ERROR: Lmod is not installed (scripts/install-deps installs lmod)" >&2; exit 99; }
    echo "SKIP: Lmod is not installed"; exit 77
fi
W=$(mktemp -d /tmp/jfp-modules-cli.XXXXXX)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
make_lmod_tree "$W/tree"
IX="$W/modules.json"

# refused CASE ARGS...: jfp modules index fails with a message holding the text in $WANT, and the last
# index is left as it was.
refused() {
    local what=$1 rc=0
    shift
    cp "$IX" "$W/before.json"
    "$JFP" modules index --out "$IX" "$@" >"$W/out" 2>&1 || rc=$?
    [ "$rc" = 1 ] || fail "$what: exit $rc, expected 1: $(cat "$W/out")"
    grep -qF -- "$WANT" "$W/out" || fail "$what: no '$WANT' in: $(cat "$W/out")"
    cmp -s "$IX" "$W/before.json" || fail "$what: the last index was changed"
    [ -z "$(find "$W" -maxdepth 1 -name 'modules.json.*')" ] || fail "$what: a temporary file was left: $(ls "$W")"
    echo "# refused, $what: $(head -n1 "$W/out" | cut -c1-150)"
}

out=$(MODULEPATH="$W/tree/Core" "$JFP" modules index --out "$IX")
[ "$out" = "jfp modules index: wrote $IX: 13 module files of 10 names (4 behind a compiler or MPI level), from $W/tree/Core" ] ||
    fail "the summary: $out"
[ "$(stat -c %a "$IX")" = 644 ] || fail "the index's mode is $(stat -c %a "$IX"), not 644 (slurmctld reads it as SlurmUser)"
echo "# $out"

WANT="module directory $W/tree/Gone (in --modulepath) is not a directory here (a file system not mounted?)"
refused "a module directory not there" --modulepath "$W/tree/Core:$W/tree/Gone"
mkdir "$W/empty" "$W/tree-b"
WANT="module directory $W/empty (in --modulepath) is empty (a file system not mounted?)"
refused "an empty directory (a mount point, not mounted)" --modulepath "$W/tree/Core:$W/empty"
mkdir "$W/tree-b/docs"  # a tree with files but no module
WANT="Lmod's spider found no module under $W/tree-b; nothing written"
refused "a tree with no module" --modulepath "$W/tree-b"
WANT="the spider found 1 module files, $IX lists 13: more than half are gone"
refused "an index less than half the last" --modulepath "$W/tree/Extra"
WANT="/bin/false exited with status 1; nothing written"
refused "a spider that fails" --modulepath "$W/tree/Core" --spider /bin/false
printf '#!/bin/sh\necho "Lmod is not configured"\n' >"$W/noisy-spider"
chmod 755 "$W/noisy-spider"
WANT="gave no module index: not JSON"
refused "a spider that prints something else" --modulepath "$W/tree/Core" --spider "$W/noisy-spider"
# A modulefile others could write is their code run by the spider as this user: refused before it runs;
# a level a modulefile adds (Compiler/...) is checked too, and its index not installed.
chmod g+w "$W/tree/Core/cmake/3.27.7.lua"
WANT="module directory $W/tree/Core holds $W/tree/Core/cmake/3.27.7.lua (owner uid 0, mode 0664), which a user other than root or this one"
refused "a modulefile group-writable" --modulepath "$W/tree/Core"
chmod g-w "$W/tree/Core/cmake/3.27.7.lua"
chmod o+w "$W/tree/Compiler/gcc/12.2/openblas"
WANT="module directory (a level the modulefiles add) $W/tree/Compiler/gcc/12.2 holds $W/tree/Compiler/gcc/12.2/openblas (owner uid 0, mode 0757)"
refused "a hierarchy level writable by others" --modulepath "$W/tree/Core"
"$JFP" modules index -q --allow-writers --out "$IX" --modulepath "$W/tree/Core" >"$W/out" 2>&1 || fail "--allow-writers: $(cat "$W/out")"
# The privilege split (admin guide, "Module checks"): the spider run by a user with nothing to lose
# (nobody), root's shell writing its output into a directory root owns, indexed here with --from. The trees'
# writers are then that user's concern: the same index as --allow-writers wrote.
cp "$IX" "$W/allow-writers.json"
mkdir -m 755 "$W/spider"
if [ "$(id -u)" = 0 ]; then
    chmod 755 "$W"
    setpriv --reuid=nobody --regid=nogroup --clear-groups --no-new-privs "$(lmod_spider)" -o spider-json "$W/tree/Core" \
        >"$W/spider/out.json" || fail "the spider as nobody failed"
    chmod 700 "$W"
else
    "$(lmod_spider)" -o spider-json "$W/tree/Core" >"$W/spider/out.json" || fail "the spider failed"
fi
out=$("$JFP" modules index --out "$IX" --modulepath "$W/tree/Core" --from "$W/spider/out.json") || fail "--from: $out"
[ "$out" = "jfp modules index: wrote $IX: 13 module files of 10 names (4 behind a compiler or MPI level), from $W/tree/Core" ] ||
    fail "--from's summary: $out"
# (Lua's table order varies from run to run: the same index, not the same bytes.)
python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
    "$IX" "$W/allow-writers.json" || fail "--from wrote another index than the spider run here"
echo "# --from, the spider run as $( [ "$(id -u)" = 0 ] && echo nobody || id -un): $out"
chmod 664 "$W/spider/out.json"
WANT="$W/spider/out.json (--from) has mode 0664: users other than its owner could have written it"
refused "--from a group-writable file" --modulepath "$W/tree/Core" --from "$W/spider/out.json"
chmod 644 "$W/spider/out.json"
chmod 1777 "$W/spider"
WANT="$W/spider/out.json (--from) is in $W/spider, mode 1777, where users other than its owner can create files"
refused "--from a file in a directory anyone can write (/tmp)" --modulepath "$W/tree/Core" --from "$W/spider/out.json"
chmod 755 "$W/spider"
ln -s "$W/spider/out.json" "$W/spider/link.json"
WANT="$W/spider/link.json (--from) is a symbolic link"
refused "--from a symbolic link (to a file this user may read)" --modulepath "$W/tree/Core" --from "$W/spider/link.json"
mkfifo "$W/spider/fifo"
WANT="$W/spider/fifo (--from) is not a regular file"
refused "--from a FIFO (it would hang the index)" --modulepath "$W/tree/Core" --from "$W/spider/fifo"
echo "not json" >"$W/spider/notjson"
WANT="the spider's output $W/spider/notjson (--from) gave no module index: not JSON"
refused "--from a file that is not the spider's output" --modulepath "$W/tree/Core" --from "$W/spider/notjson"
WANT="cannot read $W/spider/missing.json (--from)"
refused "--from a file not there" --modulepath "$W/tree/Core" --from "$W/spider/missing.json"
chmod o-w "$W/tree/Compiler/gcc/12.2/openblas"
rc=0
(cd "$W" && env -u MODULEPATH SLURM_CONF="$W/none/slurm.conf" "$JFP" modules index >"$W/out" 2>&1) || rc=$?
[ "$rc" != 0 ] && grep -qF "give --out, or set modules_index in jfp.conf" "$W/out" || fail "no --out and no jfp.conf: exit $rc: $(cat "$W/out")"
"$JFP" modules index --out "$IX" --modulepath "$W/tree/Extra" --allow-shrink >"$W/out" || fail "--allow-shrink: $(cat "$W/out")"
grep -qF "1 module files of 1 names" "$W/out" || fail "--allow-shrink wrote: $(cat "$W/out")"
"$JFP" modules index -q --out "$IX" --modulepath "$W/tree/Core" >"$W/out" || fail "back to the whole tree: $(cat "$W/out")"
[ ! -s "$W/out" ] || fail "--quiet printed: $(cat "$W/out")"

# Aliases and symbolic versions of the tree's rc files: Lmod loads them, so the index lists them.
printf 'module_alias("py", "python/3.11.4")\nmodule_version("python/3.11.4", "3.11-latest")\n' >"$W/tree/Core/python/.modulerc.lua"
chmod 644 "$W/tree/Core/python/.modulerc.lua"
out=$("$JFP" modules index --out "$IX" --modulepath "$W/tree/Core")
case "$out" in *"2 of them aliases or symbolic versions from 1 rc files"*) ;; *) fail "the rc files' names: $out" ;; esac
printf '#!/bin/bash\nsource /usr/share/lmod/lmod/init/bash\nset -e\nmodule load py\nmodule load python/3.11-latest\necho ran\n' >"$W/rc.sh"
env -i PATH=/usr/bin:/bin HOME="$W" MODULEPATH="$W/tree/Core" bash "$W/rc.sh" >"$W/lmod.out" 2>&1 ||
    fail "Lmod itself did not load the alias and the symbolic version: $(cat "$W/lmod.out")"
"$JFP" modules check --index "$IX" "$W/rc.sh" >"$W/out" 2>&1 || fail "an alias or symbolic version Lmod loads was called missing: $(cat "$W/out")"
rm "$W/tree/Core/python/.modulerc.lua"
"$JFP" modules index -q --out "$IX" --modulepath "$W/tree/Core" >"$W/out" 2>&1 || fail "without the rc file: $(cat "$W/out")"

# check: the plugin's sentences; not judged lines said; exit 2 on a missing module, 0 otherwise
printf '#!/bin/bash\nsource /usr/share/lmod/lmod/init/bash\nmodule load pyhton/3.11 gcc\nml openmpi\nmodule use %s\nmodule load mytool/1.0\n' \
    "$W/tree/Extra" >"$W/bad.sh"
printf '#!/bin/bash\nml gcc openmpi fftw\nmodule load python/3.11\n' >"$W/good.sh"
rc=0
"$JFP" modules check --index "$IX" "$W/bad.sh" "$W/good.sh" >"$W/out" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "check with a missing module: exit $rc, expected 2: $(cat "$W/out")"
grep -qxF "$W/bad.sh: line 3: 'module load pyhton/3.11 gcc': this cluster has no module 'pyhton'; did you mean python? (\`module spider python\` lists its versions)." "$W/out" ||
    fail "check's sentence: $(cat "$W/out")"
grep -qxF "$W/bad.sh: not judged: line 4 openmpi: exists behind gcc/12.2.0" "$W/out" || fail "check's hierarchy line: $(cat "$W/out")"
grep -qxF "$W/bad.sh: not judged: line 6 mytool/1.0: after line 5, which may add module trees" "$W/out" || fail "check's module use line: $(cat "$W/out")"
grep -qxF "$W/good.sh: 4 module loads, none missing" "$W/out" || fail "check of a clean script: $(cat "$W/out")"
"$JFP" modules check -q --index "$IX" "$W/good.sh" >"$W/out" || fail "check of a clean script: exit $?: $(cat "$W/out")"
[ ! -s "$W/out" ] || fail "check -q of a clean script printed: $(cat "$W/out")"
echo "PASS: jfp modules index writes Lmod's index and refuses what would call real modules missing; check says what the plugin would"
