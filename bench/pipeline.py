#!/usr/bin/python3
"""Benchmark: jfp's training pipeline (ingest -> features -> train) against the pandas + python-xgboost
peer in bench/peer_pipeline.py, on the same synthetic sacct export, in the same run; then the peak RSS
of a 10M-row ingest streamed from stdin.

    bench/pipeline.py [--quick] [--jobs N] [--big-rows N] [--nthread T]

Each stage runs as its own process; wall time and peak RSS (wait4's ru_maxrss) are per process. The two
pipelines alternate stage by stage so that noise on a shared machine hits both alike. Prints a table and
one JSON object as its last line.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
BUILD = os.environ.get("JFP_BUILDDIR", os.path.join(SRC, "build"))
JFP = os.path.join(BUILD, "tools", "jfp")
PEER = os.path.join(HERE, "peer_pipeline.py")


def run_rss(cmd, stdin=None):
    """Like run(), with the child's own peak RSS from wait4 (Popen.wait would reap it first)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    chunks = []
    for line in p.stdout:
        chunks.append(line)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    text = b"".join(chunks).decode(errors="replace")
    if p.returncode != 0:
        sys.exit("bench: %s failed (%d): %s" % (" ".join(cmd), p.returncode, text[-2000:]))
    return wall, ru.ru_maxrss / 1024.0, text


def last_json(text):
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            return json.loads(line)
    return {}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes, for CI")
    ap.add_argument("--jobs", type=int, help="jobs in the training export (default 1.3M; quick 30k)")
    ap.add_argument("--big-rows", type=int, help="rows of the streamed ingest (default 10M; quick 300k)")
    ap.add_argument("--nthread", type=int, default=2)
    a = ap.parse_args()
    jobs = a.jobs or (30000 if a.quick else 1300000)
    big_rows = a.big_rows or (300000 if a.quick else 10000000)
    work = tempfile.mkdtemp(prefix="jfp-bench-pipe.")
    try:
        export = os.path.join(work, "export.txt")
        t, _, _ = run_rss([JFP, "synth", "--jobs", str(jobs), "--seed", "13", "-q", "-o", export])
        size_mb = os.path.getsize(export) / 2**20
        with open(export, "rb") as f:
            rows = sum(1 for _ in f) - 1
        print("training pipeline: %d jobs, %d rows, %.0f MiB export (written in %.1f s)" % (jobs, rows, size_mb, t),
              file=sys.stderr)

        store = os.path.join(work, "store.db")
        pkl = os.path.join(work, "peer.pkl")
        r = {}
        r["jfp_ingest"] = run_rss([JFP, "ingest", "--trusted-export", "-q", "--db", store, export])
        r["peer_ingest"] = run_rss(["/usr/bin/python3", PEER, "ingest", export, pkl])
        r["jfp_train"] = run_rss([JFP, "train", "--db", store, "--out", os.path.join(work, "model.json"), "--rounds", "200",
                                  "--early-stopping", "200", "--max-depth", "6", "--nthread", str(a.nthread),
                                  "--no-progress", "--json"])
        with open(os.path.join(work, "model.json")) as f:
            jfp_tr = json.load(f)["training"]
        monotone = jfp_tr["params"]["monotone_constraints"]
        r["peer_train"] = run_rss(["/usr/bin/python3", PEER, "train", pkl, os.path.join(work, "peer.json"),
                                   str(a.nthread), monotone])
        peer_ing = last_json(r["peer_ingest"][2])
        peer_tr = last_json(r["peer_train"][2])

        # The 10M-row ingest: synth streams into `jfp ingest -` (nothing on disk but the store).
        big_jobs = int(big_rows / (rows / jobs)) + 1
        big_store = os.path.join(work, "big.db")
        synth = subprocess.Popen([JFP, "synth", "--jobs", str(big_jobs), "--seed", "17", "-q", "-o", "-"],
                                 stdout=subprocess.PIPE)
        big = run_rss([JFP, "ingest", "--trusted-export", "--db", big_store, "-"], stdin=synth.stdout)
        synth.stdout.close()
        synth.wait()
        m = re.search(r"(\d+) lines read", big[2])
        big_lines = int(m.group(1)) if m else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def ratio(a_, b_):
        return b_ / a_ if a_ > 0 else None

    ing_speed = ratio(r["jfp_ingest"][0], r["peer_ingest"][0])
    jfp_total = r["jfp_ingest"][0] + r["jfp_train"][0]
    peer_total = r["peer_ingest"][0] + r["peer_train"][0]
    jfp_peak = max(r["jfp_ingest"][1], r["jfp_train"][1])
    peer_peak = max(r["peer_ingest"][1], r["peer_train"][1])
    print("training pipeline vs pandas + python-xgboost, %d jobs (%d rows), 200 rounds depth 6, %d threads" %
          (jobs, rows, a.nthread))
    print("  %-34s %10s %12s" % ("stage", "wall s", "peak RSS MiB"))
    for k, label in (("jfp_ingest", "jfp ingest (parse + SQLite)"), ("peer_ingest", "peer ingest (read_csv + clean)"),
                     ("jfp_train", "jfp train (features + models)"), ("peer_train", "peer train (features + models)")):
        print("  %-34s %10.2f %12.0f" % (label, r[k][0], r[k][1]))
    print("  inside jfp train: feature sweep %.2f s, failure model %.2f s, class model %.2f s" %
          (jfp_tr.get("feature_sweep_seconds", 0), jfp_tr.get("seconds", 0), jfp_tr.get("class_model_seconds", 0)))
    print("  inside the peer: read_csv %.2f s of ingest; features %.2f s, failure model %.2f s, all models %.2f s" %
          (peer_ing.get("parse_s", 0), peer_tr.get("features_s", 0), peer_tr.get("failure_model_s", 0),
           peer_tr.get("train_s", 0)))
    print("  whole pipeline: jfp %.2f s / %.0f MiB peak, peer %.2f s / %.0f MiB peak" % (jfp_total, jfp_peak, peer_total, peer_peak))
    print("  streamed ingest of %d rows: %.1f s, peak RSS %.0f MiB" % (big_lines, big[0], big[1]))
    out = {
        "train_speedup_vs_peer": round(peer_total / jfp_total, 3),
        "train_mem_ratio_vs_peer": round(jfp_peak / peer_peak, 3),
        "ingest_speedup_vs_peer": round(ing_speed, 3),
        "ingest_speedup_vs_peer_read_csv_only": round(peer_ing.get("parse_s", 0) / r["jfp_ingest"][0], 3),
        "features_train_speedup_vs_peer": round(r["peer_train"][0] / r["jfp_train"][0], 3),
        "ingest_10m_peak_rss_mib": round(big[1], 1),
        "ingest_big_rows": big_lines,
        "ingest_big_s": round(big[0], 2),
        "pipeline_jobs": jobs,
        "pipeline_rows": rows,
        "jfp_feature_sweep_s": round(jfp_tr.get("feature_sweep_seconds", 0), 3),
        "jfp_failure_model_s": round(jfp_tr.get("seconds", 0), 3),
        "peer_features_s": peer_tr.get("features_s"),
        "peer_failure_model_s": peer_tr.get("failure_model_s"),
        "stages": {k: {"wall_s": round(v[0], 3), "peak_rss_mib": round(v[1], 1)} for k, v in r.items()},
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
