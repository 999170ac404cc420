#!/usr/bin/env bash
# Prometheus as a site runs it (issue 36 item 5): the plugin's metrics file and jfp monitor's, linked into
# node_exporter's textfile directory, served by a real node_exporter and scraped by a real Prometheus that
# loads the shipped alert rules; the values Prometheus holds are the files' values, every rule evaluates
# cleanly on them, and promtool's tests of the rules pass.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster
for b in prometheus prometheus-node-exporter promtool; do
    command -v "$b" >/dev/null || { echo "SKIP: $b is not installed (scripts/install-deps installs it)"; exit 77; }
done
RULES="$JFP_SRCDIR/docs/examples/jfp-alerts.yml"

new_site
start_site_cluster "mode = warn
metrics_file = $W/metrics.prom
metrics_interval = 1"
# The shipped rules, and promtool's own tests of them.
(cd "$JFP_SRCDIR/docs/examples" && promtool check rules jfp-alerts.yml && promtool test rules jfp-alerts.test.yml) >"$W/promtool.txt" 2>&1 ||
    fail "promtool: $(cat "$W/promtool.txt")"
note "promtool: $(grep -c SUCCESS "$W/promtool.txt") SUCCESS lines (check rules, test rules)"

# Jobs from an ordinary user, scored; then the monitor's file.
for i in 1 2 3 4 5; do
    id=$( (cd /tmp && runuser -u jfp-usera -- sbatch --parsable -o /dev/null -J "prom$i" --wrap true) | cut -d';' -f1)
    [[ "$id" =~ ^[0-9]+$ ]] || fail "jfp-usera's submission failed: '$id'"
done
scored_in_file() { awk '/^jfp_jobs_total\{.*decision="scored"/ { print $2 }' "$W/metrics.prom" 2>/dev/null; }
wait_until 30 "the metrics file does not count the 5 jobs" '[ "$(scored_in_file)" -ge 5 ] 2>/dev/null'
site_jfp monitor --conf "$CLUSTER_DIR/etc/jfp.conf" --metrics-file "$W/live.prom" >"$W/monitor.txt" 2>&1 ||
    [ $? = 2 ] || fail "jfp monitor: $(cat "$W/monitor.txt")"
[ -s "$W/live.prom" ] || fail "jfp monitor wrote no metrics file: $(cat "$W/monitor.txt")"

# node_exporter's textfile directory holds links to the two files, as docs/admin-guide.md sets it up: the
# site directory is searchable by others (its databases are 0600), the metrics files 0644.
T="$W/textfile"
mkdir -p "$T" "$W/prometheus"
ln -s "$W/metrics.prom" "$T/jfp.prom"
ln -s "$W/live.prom" "$T/jfp-live.prom"
# The guide creates each file empty before its first write so the link is never dangling: an empty .prom
# file must read as no samples, not as a scrape error (node_textfile_scrape_error is checked below).
install -m 0644 /dev/null "$W/empty.prom"
ln -s "$W/empty.prom" "$T/jfp-empty.prom"
chown nobody "$W/prometheus"
NE_PORT=$("$TESTCLUSTER" port "$CLUSTER_DIR")
PROM_PORT=$("$TESTCLUSTER" port "$CLUSTER_DIR")
cp "$RULES" "$W/prometheus/jfp-alerts.yml"
cat >"$W/prometheus/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $W/prometheus/jfp-alerts.yml
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$NE_PORT']
YML
chmod -R a+rX "$W/prometheus"
runuser -u nobody -- prometheus-node-exporter --collector.disable-defaults --collector.textfile \
    --collector.textfile.directory="$T" --web.listen-address="127.0.0.1:$NE_PORT" >"$W/node_exporter.log" 2>&1 &
NE_PID=$!
runuser -u nobody -- prometheus --config.file="$W/prometheus/prometheus.yml" --storage.tsdb.path="$W/prometheus/data" \
    --web.listen-address="127.0.0.1:$PROM_PORT" >"$W/prometheus.log" 2>&1 &
PROM_PID=$!
CLEANUP_HOOK="kill $NE_PID $PROM_PID 2>/dev/null || true; wait $NE_PID $PROM_PID 2>/dev/null || true; $CLEANUP_HOOK"

wait_until 30 "node_exporter does not serve the files: $(tail -n 3 "$W/node_exporter.log")" \
    'curl -sf "http://127.0.0.1:$NE_PORT/metrics" >"$W/served.txt" && grep -q "^jfp_live_flagged_jobs" "$W/served.txt"'
grep -qx 'node_textfile_scrape_error 0' "$W/served.txt" || fail "node_exporter could not read a file: $(grep -i textfile "$W/node_exporter.log" | tail -n 3)"
note "node_exporter serves $(grep -c '^jfp_' "$W/served.txt") jfp samples"

# What Prometheus holds, against the files (the counters stand still now: no more submissions).
query() { curl -sf --get "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1"; }
export PROM_PORT
wait_until 60 "Prometheus has not scraped jfp_jobs_total: $(tail -n 3 "$W/prometheus.log")" \
    '[ "$(query "jfp_jobs_total{decision=\"scored\"}" 2>/dev/null | /usr/bin/python3 -c "import json,sys; print(len(json.load(sys.stdin)[\"data\"][\"result\"]))" 2>/dev/null)" = 1 ]'
sleep 3  # a few rule evaluations on the scraped data
/usr/bin/python3 - "$W/metrics.prom" "$W/live.prom" "$PROM_PORT" "$JFP_CLUSTER_NAME" "$RULES" <<'PY' || fail "Prometheus disagrees with the files (above)"
import json, sys, urllib.parse, urllib.request
from prometheus_client.parser import text_string_to_metric_families
files, port, cluster = sys.argv[1:3], sys.argv[3], sys.argv[4]
def api(path, **q):
    url = f"http://127.0.0.1:{port}/api/v1/{path}" + ("?" + urllib.parse.urlencode(q) if q else "")
    return json.load(urllib.request.urlopen(url, timeout=10))["data"]
checked = 0
for f in files:
    for fam in text_string_to_metric_families(open(f).read()):
        for s in fam.samples:
            if s.name in ("jfp_metrics_written_seconds", "jfp_live_written_seconds") or s.name.endswith("_bucket"):
                continue  # rewritten every second / many series: compared below by count
            sel = s.name + "{" + ",".join(f'{k}="{v}"' for k, v in s.labels.items()) + "}"
            got = api("query", query=sel)["result"]
            assert len(got) == 1, f"{sel}: Prometheus has {len(got)} series"
            assert abs(float(got[0]["value"][1]) - s.value) <= 1e-6 * max(1, abs(s.value)), f"{sel}: file {s.value}, Prometheus {got[0]['value'][1]}"
            checked += 1
assert checked >= 20, f"only {checked} samples compared"
# Every shipped rule loaded and evaluates without error on the real series; the per-cluster aggregations the
# rules use see this cluster.
groups = api("rules")["groups"]
rules = [r for g in groups for r in g["rules"]]
shipped = sum(1 for line in open(sys.argv[5]) if line.strip().startswith("- alert:"))
assert shipped >= 10 and len(rules) == shipped, f"{len(rules)} rules loaded, expected the {shipped} of jfp-alerts.yml"
bad = [(r["name"], r.get("lastError")) for r in rules if r.get("health") != "ok"]
assert not bad, f"rules not healthy: {bad}"
for expr in ("time() - max by (cluster) (jfp_metrics_written_seconds)",
             "max by (cluster) (jfp_history_latest_end_seconds)",
             "histogram_quantile(0.99, sum by (cluster, le) (rate(jfp_submit_seconds_bucket[1m])))"):
    got = api("query", query=expr)["result"]
    assert len(got) == 1 and got[0]["metric"].get("cluster") == cluster, f"{expr}: {got}"
lag = float(api("query", query="time() - max by (cluster) (jfp_metrics_written_seconds)")["result"][0]["value"][1])
assert lag < 30, f"the metrics file is {lag:.0f} s old in Prometheus"
active = [(a["labels"]["alertname"], a["state"]) for a in api("alerts")["alerts"]]
assert not active, f"alerts pending or firing on a healthy cluster: {active}"
print(f"# Prometheus: {checked} samples equal the files', {len(rules)} rules healthy, no alert pending or firing, metrics {lag:.1f} s old")
PY
echo "PASS: node_exporter serves jfp's metrics files and Prometheus scrapes them and evaluates the shipped rules"
