#!/usr/bin/env bash
# The architecture as the includes show it (docs/architecture.md): every #include between jfp's own folders
# points down a layer, never up or sideways, and Slurm's headers appear only where Slurm is spoken.
#   plugin/                                          may include model/
#   tools/cli/ > tools/commands/, tools/operations/ > tools/options/ > tools/report/ > tools/simulate/ >
#     tools/train/, tools/check/, tools/score/ > tools/evaluate/, tools/ingest/ > tools/terminal/, tools/process/;
#     all may include model/
#   model/runtime/ > reload/ > request/ > policy/ > scoring/, snapshot/ > history/, archive/ > accounting/ > sacct/, script/ > jobs/, writer/ > util/, files/
# A folder may include itself. <slurm/...> only in plugin/, test/plugin/ and bench/hotpath.cc.
set -euo pipefail
: "${JFP_SRCDIR:?run through make check (JFP_SRCDIR unset)}"
cd "$JFP_SRCDIR"

# rank FOLDER: its layer (higher may include lower); empty for a folder outside the architecture.
rank() {
    case "$1" in
        model/util|model/files) echo 1 ;; model/jobs|model/writer) echo 2 ;; model/sacct|model/script) echo 3 ;; model/accounting) echo 4 ;;
        model/history|model/archive) echo 5 ;; model/scoring|model/snapshot) echo 6 ;; model/policy) echo 7 ;;
        model/request) echo 8 ;; model/reload) echo 9 ;; model/runtime) echo 10 ;;
        tools/terminal|tools/process) echo 11 ;; tools/evaluate|tools/ingest) echo 12 ;; tools/train|tools/check|tools/score) echo 13 ;;
        tools/simulate) echo 14 ;; tools/report) echo 15 ;; tools/options) echo 16 ;;
        tools/commands|tools/operations) echo 17 ;; tools/cli) echo 18 ;;
        plugin) echo 20 ;;
        *) echo "" ;;
    esac
}

bad=0
checked=0
for f in $(find model tools plugin -name '*.cc' -o -name '*.h' | sort); do
    from=$(dirname "$f")
    rf=$(rank "$from")
    [ -n "$rf" ] || { echo "FAIL: $f is in $from, a folder the layers do not name (add it to this test and docs/architecture.md)"; bad=1; continue; }
    while IFS= read -r inc; do
        [ -n "$inc" ] || continue
        to=$(dirname "$inc")
        [ "$to" = . ] && to=$from          # "x.h": beside the including file
        [ -f "$inc" ] || [ -f "$from/$inc" ] || continue   # a generated header (jfp_config.h)
        rt=$(rank "$to")
        checked=$((checked + 1))
        if [ "$to" = "$from" ]; then continue; fi
        if [ -z "$rt" ]; then echo "FAIL: $f includes $inc, outside the layers"; bad=1; continue; fi
        # model/ never reaches into tools/ or plugin/; tools/ never into plugin/ (ranks say so, and the
        # groups are checked apart so that model's 7 is not "below" tools' 11 by accident).
        case "$from:$to" in
            model/*:tools/*|model/*:plugin|tools/*:plugin)
                echo "FAIL: $f includes $inc: data flows CLI -> model <- plugin, never back"; bad=1; continue ;;
        esac
        if [ "${from%%/*}" = "${to%%/*}" ] && [ "$rt" -ge "$rf" ]; then
            echo "FAIL: $f ($from) includes $inc ($to): a folder includes only folders below it"; bad=1
        fi
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done
slurm=$(grep -rl --include='*.cc' --include='*.h' '#include <slurm/' model tools plugin test bench 2>/dev/null \
    | grep -v -e '^plugin/' -e '^test/plugin/' -e '^bench/hotpath.cc$' || true)
if [ -n "$slurm" ]; then echo "FAIL: Slurm headers outside plugin/: $slurm"; bad=1; fi
[ "$checked" -gt 200 ] || { echo "FAIL: only $checked includes checked; the test lost its way"; exit 1; }
[ "$bad" = 0 ] || exit 1
echo "# $checked includes between jfp's own files: every one points down a layer"
