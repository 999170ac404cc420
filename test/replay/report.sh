#!/usr/bin/env bash
# jfp report writes one self-contained HTML file: no scripts, no external references, every plot and table
# present; and a real headless Chromium loads it with no console message and renders it. The screenshot
# is kept when JFP_REPORT_SCREENSHOT names a file.
set -euo pipefail
: "${JFP_BUILDDIR:?run through make check (JFP_BUILDDIR unset)}"
: "${JFP_SRCDIR:?run through make check (JFP_SRCDIR unset)}"
JFP="$JFP_BUILDDIR/tools/jfp"
W=$(mktemp -d /tmp/jfp-report.XXXXXX)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$JFP" synth --jobs 20000 --seed 7 -q -o "$W/synth.txt"
"$JFP" ingest --trusted-export -q --db "$W/h.db" "$W/synth.txt"
"$JFP" train --db "$W/h.db" --out "$W/model.json" --train-fraction 0.7 --rounds 60 --nthread 2 --no-progress >/dev/null
cutoff=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['training']['cutoff'])" "$W/model.json")
"$JFP" report --db "$W/h.db" --model "$W/model.json" --after "$cutoff" -o "$W/report.html"

# Self-contained: nothing to fetch, nothing to run.
for bad in '<script' '<link' '<img' '<iframe' 'src=' 'href=' 'url(' '@import'; do
    if grep -qi -- "$bad" "$W/report.html"; then fail "the report contains '$bad': it must not fetch or run anything"; fi
done
for id in roc pr threshold calibration histogram waste; do
    grep -q "<svg id=\"$id\"" "$W/report.html" || fail "the report has no '$id' plot"
done
for id in cost waste partitions classes features metadata; do
    grep -q "<table id=\"$id\"" "$W/report.html" || fail "the report has no '$id' table"
done
grep -q "<polyline" "$W/report.html" || fail "the curves have no points"
# Deciding by waste: both policies at 10, 100 and 500 completed jobs refused, in the site's unit.
rows=$(sed -n 's/.*<table id="waste">\(.*\)<\/table>.*/\1/p' "$W/report.html" | grep -o '<tr><td>[0-9]*</td>' | paste -sd' ')
[ "$rows" = "<tr><td>10</td> <tr><td>100</td> <tr><td>500</td>" ] || fail "the waste table's rows are '$rows'"
grep -q '<h2>Deciding by waste (core-hours)</h2>' "$W/report.html" || fail "the waste section does not name its unit"
grep -q '<p id="verdict"[^>]*><b>verdict:</b> ' "$W/report.html" || fail "the report does not open with the verdict"

if ! command -v chromium >/dev/null; then
    if [ -n "${JFP_REQUIRE_BROWSER:-}" ]; then echo "ERROR: JFP_REQUIRE_BROWSER is set but chromium is not installed" >&2; exit 99; fi
    echo "# chromium not installed: the file was checked, not rendered"
    exit 0
fi
# No background networking: a build machine's network may be closed, and Chromium's own connections
# (updates, sync, QUIC) would only add refusals and delays to the log it is judged by.
browse() {
    timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$W/profile" \
        --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync \
        --enable-logging=stderr --v=0 "$@" 2>"$W/browser.err"
}
# The check itself must see a console error when there is one.
printf '<html><body><script>console.error("jfp-probe")</script></body></html>' >"$W/probe.html"
browse --dump-dom "file://$W/probe.html" >/dev/null || true
grep -q ':CONSOLE.*jfp-probe' "$W/browser.err" || fail "the browser check cannot see console messages: $(tail -3 "$W/browser.err")"

browse --dump-dom "file://$W/report.html" >"$W/dom.html" || fail "chromium failed: $(tail -5 "$W/browser.err")"
if grep ':CONSOLE' "$W/browser.err"; then fail "the report logged to the browser console (above)"; fi
n=$(grep -o '<svg id="[a-z]*"' "$W/dom.html" | sort -u | wc -l)
[ "$n" = 6 ] || fail "the rendered page has $n plots, expected 6"
browse --window-size=1200,2600 --screenshot="$W/report.png" "file://$W/report.html" >/dev/null || fail "no screenshot: $(tail -5 "$W/browser.err")"
size=$(stat -c %s "$W/report.png")
[ "$size" -gt 50000 ] || fail "the screenshot is $size bytes: nothing rendered?"
if [ -n "${JFP_REPORT_SCREENSHOT:-}" ]; then cp "$W/report.png" "$JFP_REPORT_SCREENSHOT"; fi
echo "# report: $(stat -c %s "$W/report.html") bytes, 6 plots, no console message in Chromium $(chromium --version 2>/dev/null | awk '{print $2}'), screenshot $size bytes"
