#!/usr/bin/env bash
# Every sentence jfp shows a user is true, over whole replays: a synthetic workload and the real traces
# (Parallel Workloads Archive logs in ../shared/data/traces, or JFP_TRACES_DIR) are ingested, a model is
# trained on the earliest 70%, and every submission is scored as the plugin would score it, with the
# message a warn would print (jfp predict --explain-all), with a tree model and with a rules bundle. check_messages.py then checks each sentence of
# each message against the history recomputed from the store, independently of jfp's own code.
set -euo pipefail
: "${JFP_BUILDDIR:?run through make check (JFP_BUILDDIR unset)}"
: "${JFP_SRCDIR:?run through make check (JFP_SRCDIR unset)}"
JFP="$JFP_BUILDDIR/tools/jfp"
CHECK="$JFP_SRCDIR/test/replay/check_messages.py"
W=$(mktemp -d /tmp/jfp-replay.XXXXXX)
trap 'rm -rf "$W"' EXIT

/usr/bin/python3 "$CHECK" --self-test

# replay NAME [TRAIN-ARGS...]: the store $W/NAME.db is ingested; train, score every job with its message,
# check them all.
replay() {
    local name=$1 t0=$SECONDS
    shift
    "$JFP" train --db "$W/$name.db" --out "$W/$name.json" --train-fraction 0.7 --nthread 2 --no-progress "$@" >/dev/null
    "$JFP" predict --db "$W/$name.db" --model "$W/$name.json" --after 1970-01-01 --output "$W/$name.csv" --explain-all >/dev/null
    echo "# $name: $(($(wc -l <"$W/$name.csv") - 1)) submissions replayed"
    /usr/bin/python3 "$CHECK" --db "$W/$name.db" --predictions "$W/$name.csv" || { echo "FAIL: $name: false sentences (above)"; exit 1; }
    echo "# $name: checked in $((SECONDS - t0)) s"
    rm -f "$W/$name".*
}

"$JFP" synth --jobs 20000 --seed 5 -q -o "$W/synth.txt"
"$JFP" ingest --trusted-export -q --db "$W/synth.db" "$W/synth.txt"
cp "$W/synth.db" "$W/synth-rules.db"
replay synth
# The same jobs with the rules bundle: its reasons are the history the rule read.
replay synth-rules --kind rules

# CTC-SP2 is in the repository; the other development traces live beside the project, when they do.
"$JFP" ingest --trusted-export -q --format swf --db "$W/CTC-SP2-1996-3.1-cln.db" "$JFP_SRCDIR/test/data/CTC-SP2-1996-3.1-cln.swf.gz"
replay CTC-SP2-1996-3.1-cln
dir=$("$JFP_SRCDIR/scripts/traces-dir")
if [ -z "$dir" ]; then
    echo "# the development traces LANL-CM5 and CEA-Curie were not found (scripts/traces-dir): checked CTC-SP2 and the synthetic replay"
    exit 0
fi
for t in LANL-CM5-1994-4.1-cln CEA-Curie-2011-2.1-cln; do
    "$JFP" ingest --trusted-export -q --format swf --db "$W/$t.db" "$dir/$t.swf.gz"
    replay "$t"
done
