#!/usr/bin/python3
"""Summarises bench/slurmctld_throughput.sh's runs: per-round comparisons of each plugin against no
plugin (and jfp against Lua), as means with 95% confidence intervals over the rounds.

    bench/rate_stats.py RUNS.tsv

RUNS.tsv has a header and one row per run: round, config (none|jfp|lua), jobs, seconds, rpc_us (sdiag's
mean time of REQUEST_SUBMIT_BATCH_JOB: the whole handler, job_submit plugins and lock waits included),
locked_us (median usec slurmctld logs per job: job_allocate under the job write lock, restarted after the
locks, so no plugin in it), cpu_us (slurmctld's CPU, all its threads, per job submitted), jfp_threads_us (the
share of cpu_us jfp's own threads ran during the run, per job: 0 without jfp), machine_us (the whole
machine's busy CPU per job: sbatch, munge, slurmdbd and MariaDB too; the rate's CPU-bound part without
the clients' idle gaps), listed (the jobs slurmctld listed at the run's end: the held queue, the run's
jobs and those of earlier runs not yet purged).

The three runs of a round lie seconds apart, so a round's difference is less exposed to the machine's
drift than pooled figures. Prints a table, then one JSON object as its last line.
"""
import json
import math
import statistics
import sys

# Student's t, two-sided 95%, by degrees of freedom (beyond 30 the normal quantile is within 2%).
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
       2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
       2.045, 2.042]


def interval(values):
    """Mean and the half-width of its 95% confidence interval (None with fewer than two values)."""
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, None
    df = len(values) - 1
    t = T95[df - 1] if df <= len(T95) else 1.96
    return m, t * statistics.stdev(values) / math.sqrt(len(values))


def main():
    rows = []
    with open(sys.argv[1]) as f:
        header = f.readline().split()
        for line in f:
            if line.strip():
                rows.append(dict(zip(header, line.split())))
    runs = {}
    for r in rows:
        runs.setdefault(int(r["round"]), {})[r["config"]] = {
            "rate": int(r["jobs"]) / float(r["seconds"]), "rpc": float(r["rpc_us"]),
            "locked": float(r["locked_us"]), "cpu": float(r["cpu_us"]), "writer": float(r.get("jfp_threads_us", 0)),
            "machine": float(r.get("machine_us", 0)), "listed": int(r.get("listed", 0))}
    rounds = [runs[k] for k in sorted(runs) if {"none", "jfp", "lua"} <= set(runs[k])]
    if not rounds:
        sys.exit("rate_stats: no complete round (none, jfp and lua) in %s" % sys.argv[1])

    def per_round(fn):
        return interval([fn(r) for r in rounds])

    out = {"slurmctld_rounds": len(rounds)}
    lines = []

    def fmt(m, h, digits):
        return ("%.*f" % (digits, m)) + ("" if h is None else (" +- %.*f" % (digits, h)))

    for k in ("jfp", "lua"):
        m, h = per_round(lambda r: r[k]["rate"] / r["none"]["rate"])
        out["slurmctld_%s_rate_ratio" % k] = round(m, 4)
        out["slurmctld_%s_rate_ratio_ci95" % k] = None if h is None else round(h, 4)
        lines.append(("%s jobs/s / none" % k, fmt(m, h, 3)))
    if all(r[k]["machine"] > 0 for r in rounds for k in ("none", "jfp", "lua")):
        # The rate a CPU-bound machine would have: the inverse of its CPU per job, against no plugin's.
        for k in ("jfp", "lua"):
            m, h = per_round(lambda r: r["none"]["machine"] / r[k]["machine"])
            out["slurmctld_%s_machine_cpu_ratio" % k] = round(m, 4)
            out["slurmctld_%s_machine_cpu_ratio_ci95" % k] = None if h is None else round(h, 4)
            lines.append(("machine CPU per job: none / %s" % k, fmt(m, h, 3)))
    for what, key, label in (("rpc", "rpc_us", "RPC time (sdiag mean, us)"),
                             ("cpu", "cpu_us", "slurmctld CPU per job (us)"),
                             ("locked", "locked_us", "under the write lock (log median, us)")):
        for k in ("jfp", "lua"):
            m, h = per_round(lambda r: r[k][what] - r["none"][what])
            out["slurmctld_%s_added_%s" % (k, key)] = round(m, 1)
            out["slurmctld_%s_added_%s_ci95" % (k, key)] = None if h is None else round(h, 1)
            lines.append(("%s: %s added" % (label, k), fmt(m, h, 1)))
        m, h = per_round(lambda r: r["jfp"][what] - r["lua"][what])
        out["slurmctld_jfp_minus_lua_%s" % key] = round(m, 1)
        out["slurmctld_jfp_minus_lua_%s_ci95" % key] = None if h is None else round(h, 1)
        lines.append(("%s: jfp - lua" % label, fmt(m, h, 1)))
    m, h = per_round(lambda r: r["jfp"]["writer"])
    out["slurmctld_jfp_threads_cpu_us"] = round(m, 1)
    lines.append(("jfp's own threads, CPU per job (us)", fmt(m, h, 1)))
    for k in ("none", "jfp", "lua"):
        out.setdefault("slurmctld_jobs_per_s", {})[k] = round(statistics.median(r[k]["rate"] for r in rounds), 2)
        out.setdefault("slurmctld_rpc_us", {})[k] = round(statistics.median(r[k]["rpc"] for r in rounds), 1)
        out.setdefault("slurmctld_cpu_us_per_job", {})[k] = round(statistics.median(r[k]["cpu"] for r in rounds), 1)
    # The goal's figure: the mean over rounds of jfp's rate against no plugin's, with its interval.
    out["slurmctld_throughput_ratio"] = out["slurmctld_jfp_rate_ratio"]
    out["slurmctld_throughput_ratio_ci95"] = out["slurmctld_jfp_rate_ratio_ci95"]
    out["slurmctld_lua_ratio"] = out["slurmctld_lua_rate_ratio"]

    print("  %d rounds; mean over rounds +- the half-width of its 95%% confidence interval" % len(rounds))
    for name, v in lines:
        print("  %-48s %s" % (name, v))
    listed = [r[k]["listed"] for r in rounds for k in ("none", "jfp", "lua")]
    out["slurmctld_listed_jobs"] = {"min": min(listed), "max": max(listed), "median": statistics.median(listed)}
    print("  jobs listed at each run's end: %d..%d (median %d)" % (min(listed), max(listed), statistics.median(listed)))
    print("  medians over rounds: jobs/s %s; RPC us %s; CPU us per job %s" % (
        out["slurmctld_jobs_per_s"], out["slurmctld_rpc_us"], out["slurmctld_cpu_us_per_job"]))
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
