#!/usr/bin/python3
"""The peer jfp's training pipeline is measured against: pandas + python-xgboost, written the way a
data scientist would, computing the same features (docs/features.md) from the same sacct export.

    peer_pipeline.py ingest EXPORT STORE.pkl       parse and clean the export; fold steps into jobs
    peer_pipeline.py train STORE.pkl MODEL.json [NTHREAD [MONOTONE]]
                                                   history features (merge_asof), failure + class models

Each stage prints one JSON line with its timings. Run by bench/pipeline.py, one process per stage so
each stage's peak RSS is its own. Known simplifications (they make the peer cheaper, not dearer): no
line-level validation or error report, no OOM inference from exit code + MaxRSS, and the job-name stem
strips trailing digits only.
"""
import csv
import json
import sys
import time

import numpy as np
import pandas as pd
import xgboost as xgb

FAIL_STATES = {"FAILED": 1, "TIMEOUT": 2, "OUT_OF_MEMORY": 3, "NODE_FAIL": 4}
UNIT_MB = {"K": 1.0 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0 * 1024}


def size_mb(s):
    """'4000Mc' / '48000Mn' / '16G' / '1024K' -> (MB, per) with per in {'c', 'n', ''}."""
    m = s.str.extract(r"^([0-9.]+)([KMGT]?)([cn]?)$")
    num = pd.to_numeric(m[0], errors="coerce")
    unit = m[1].replace("", "M").map(UNIT_MB)
    return num * unit, m[2]


def minutes(s):
    """Slurm's [D-]HH:MM:SS, MM:SS, UNLIMITED -> minutes."""
    s = s.fillna("")
    unlimited = s.isin(["UNLIMITED", "Partition_Limit"])
    m = s.str.extract(r"^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)$")
    d = pd.to_numeric(m[0], errors="coerce").fillna(0)
    h = pd.to_numeric(m[1], errors="coerce").fillna(0)
    mi = pd.to_numeric(m[2], errors="coerce")
    sec = pd.to_numeric(m[3], errors="coerce")
    out = d * 1440 + h * 60 + mi + sec / 60
    out[unlimited] = 1e7
    return out


def when(s):
    return pd.to_datetime(s, format="%Y-%m-%dT%H:%M:%S", errors="coerce")


def ingest(src, dst):
    t0 = time.time()
    df = pd.read_csv(src, sep="|", dtype=str, keep_default_na=False, quoting=csv.QUOTE_NONE,
                     on_bad_lines="skip", engine="c")
    t_parse = time.time() - t0
    ids = df["JobIDRaw"]
    is_step = ids.str.contains(".", regex=False)
    steps = df.loc[is_step, ["JobIDRaw", "MaxRSS"]]
    jobs = df.loc[~is_step].copy()
    del df
    rss, _ = size_mb(steps["MaxRSS"])
    step_job = steps["JobIDRaw"].str.split(".", n=1).str[0]
    max_rss = rss.groupby(step_job.values).max()
    jobs["max_rss_mb"] = jobs["JobIDRaw"].map(max_rss)
    for c in ("Submit", "Start", "End"):
        jobs[c] = when(jobs[c])
    jobs["state"] = jobs["State"].str.split(" ", n=1).str[0]
    cpus = pd.to_numeric(jobs["ReqCPUS"], errors="coerce")
    nodes = pd.to_numeric(jobs["ReqNodes"], errors="coerce")
    mem, per = size_mb(jobs["ReqMem"])
    mem = np.where(per == "c", mem * cpus, np.where(per == "n", mem * nodes, mem))
    tres_mem, _ = size_mb(jobs["ReqTRES"].str.extract(r"mem=([0-9.]+[KMGT]?)")[0].fillna(""))
    jobs["req_mem_mb"] = pd.Series(mem, index=jobs.index).fillna(tres_mem)
    jobs["req_cpus"] = cpus
    jobs["req_nodes"] = nodes
    jobs["req_gpus"] = pd.to_numeric(jobs["ReqTRES"].str.extract(r"gres/gpu=(\d+)")[0], errors="coerce")
    jobs["timelimit_min"] = minutes(jobs["Timelimit"])
    jobs["elapsed_s"] = pd.to_numeric(jobs["ElapsedRaw"], errors="coerce")
    line = jobs["SubmitLine"] if "SubmitLine" in jobs else pd.Series("", index=jobs.index)
    jobs["has_dependency"] = np.where(line == "", np.nan, line.str.contains(r"(?:--dependency|\s-d\s)").astype(float))
    jobs["interactive"] = np.where(line == "", np.nan, line.str.match(r"^(?:srun|salloc)").astype(float))
    arr = jobs["JobID"].str.extract(r"_\[(\d+)-(\d+)\]")
    jobs["array_size"] = pd.to_numeric(arr[1], errors="coerce") - pd.to_numeric(arr[0], errors="coerce") + 1
    keep = ["Cluster", "JobIDRaw", "User", "Account", "Partition", "QOS", "JobName", "Submit", "Start", "End",
            "state", "req_cpus", "req_nodes", "req_mem_mb", "req_gpus", "timelimit_min", "elapsed_s",
            "max_rss_mb", "has_dependency", "interactive", "array_size"]
    jobs = jobs[keep].drop_duplicates(subset=["Cluster", "JobIDRaw"], keep="last")
    jobs.to_pickle(dst)
    print(json.dumps({"stage": "ingest", "jobs": int(len(jobs)), "parse_s": round(t_parse, 3),
                      "total_s": round(time.time() - t0, 3)}))


def history(jobs, key, prefix, full):
    """Per key, the stats of the jobs that ended before each job was submitted (merge_asof, strict)."""
    ev = jobs.loc[jobs["End"].notna(), key + ["End", "outcome", "labeled", "fail", "timelimit_min",
                                               "req_mem_mb", "elapsed_s", "max_rss_mb"]].sort_values("End", kind="stable")
    g = ev.groupby(key, sort=False)
    st = pd.DataFrame({"End": ev["End"]})
    for k in key:
        st[k] = ev[k]
    st["n"] = g.cumcount() + 1
    st["n_labeled"] = g["labeled"].cumsum()
    st["n_fail"] = g["fail"].cumsum()
    # streak and recent failure rate run over labeled jobs only, then carry forward
    lab = ev[ev["labeled"] == 1]
    lg = lab.groupby(key, sort=False)
    run_id = (lab["fail"] == 0).astype(int).groupby([lab[k] for k in key], sort=False).cumsum()
    streak = lab["fail"].groupby([lab[k] for k in key] + [run_id], sort=False).cumsum()
    recent = lg["fail"].rolling(10, min_periods=1).mean().reset_index(level=list(range(len(key))), drop=True)
    st["streak"] = streak.reindex(st.index)
    st["recent"] = recent.reindex(st.index)
    st[["streak", "recent"]] = st.groupby(key, sort=False)[["streak", "recent"]].ffill()
    st["last"] = ev["outcome"]
    st["last_end"] = ev["End"]
    if full:
        st["n_timeout"] = (ev["outcome"] == 2).groupby([ev[k] for k in key], sort=False).cumsum()
        st["n_oom"] = (ev["outcome"] == 3).groupby([ev[k] for k in key], sort=False).cumsum()
        st["n_cancel"] = (ev["outcome"] == 5).groupby([ev[k] for k in key], sort=False).cumsum()
        st["last_fail_end"] = ev["End"].where(ev["fail"] == 1)
        st["max_ok"] = ev["elapsed_s"].where(ev["outcome"] == 0)
        st["max_rss"] = ev["max_rss_mb"]
        st["last_to_tl"] = ev["timelimit_min"].where(ev["outcome"] == 2)
        st["last_oom_mem"] = ev["req_mem_mb"].where(ev["outcome"] == 3)
        gg = st.groupby(key, sort=False)
        st[["last_fail_end", "last_to_tl", "last_oom_mem"]] = gg[["last_fail_end", "last_to_tl", "last_oom_mem"]].ffill()
        st["max_ok"] = gg["max_ok"].cummax()
        st["max_rss"] = gg["max_rss"].cummax()
    left = jobs[key + ["Submit"]].reset_index().sort_values("Submit", kind="stable")
    m = pd.merge_asof(left, st, left_on="Submit", right_on="End", by=key, allow_exact_matches=False)
    m = m.set_index("index").reindex(jobs.index)
    out = pd.DataFrame(index=jobs.index)
    hours = lambda t: (jobs["Submit"] - t).dt.total_seconds() / 3600.0
    out[prefix + "n"] = m["n"].fillna(0).clip(upper=20)
    out[prefix + "fail_rate"] = m["n_fail"] / m["n_labeled"].where(m["n_labeled"] > 0)
    out[prefix + "recent_fail_rate"] = m["recent"]
    out[prefix + "last_outcome"] = m["last"]
    out[prefix + "streak"] = m["streak"].fillna(0)
    if full:
        out[prefix + "hours_since_end"] = hours(m["last_end"])
        out[prefix + "hours_since_fail"] = hours(m["last_fail_end"])
        out[prefix + "timeout_rate"] = m["n_timeout"] / m["n_labeled"].where(m["n_labeled"] > 0)
        out[prefix + "oom_rate"] = m["n_oom"] / m["n_labeled"].where(m["n_labeled"] > 0)
        out[prefix + "cancel_rate"] = m["n_cancel"] / m["n"]
        out[prefix + "time_vs_longest_ok"] = jobs["timelimit_min"] * 60 / m["max_ok"]
        out[prefix + "mem_vs_max_rss"] = jobs["req_mem_mb"] / m["max_rss"]
        out[prefix + "time_vs_last_timeout"] = jobs["timelimit_min"] / m["last_to_tl"]
        out[prefix + "mem_vs_last_oom"] = jobs["req_mem_mb"] / m["last_oom_mem"]
    return out


def features(jobs):
    jobs = jobs.sort_values("Submit", kind="stable").reset_index(drop=True)
    outcome = jobs["state"].map(FAIL_STATES)
    outcome[jobs["state"] == "COMPLETED"] = 0
    outcome[jobs["state"] == "CANCELLED"] = 5
    jobs["outcome"] = outcome.fillna(9)
    jobs.loc[jobs["End"].isna(), "outcome"] = 8
    jobs["labeled"] = (jobs["outcome"] <= 4).astype(int)
    jobs["fail"] = jobs["outcome"].between(1, 4).astype(int)
    jobs["stem"] = jobs["JobName"].str.replace(r"[-_.]*\d+$", "", regex=True)
    X = pd.DataFrame(index=jobs.index)
    X["req_cpus"] = jobs["req_cpus"]
    X["req_nodes"] = jobs["req_nodes"]
    X["req_mem_mb"] = jobs["req_mem_mb"]
    X["req_mem_per_cpu_mb"] = jobs["req_mem_mb"] / jobs["req_cpus"]
    X["timelimit_min"] = jobs["timelimit_min"]
    X["req_gpus"] = jobs["req_gpus"]
    X["array_size"] = jobs["array_size"]
    X["has_dependency"] = jobs["has_dependency"]
    X["interactive"] = jobs["interactive"]
    X["submit_hour"] = jobs["Submit"].dt.hour
    X["submit_weekday"] = jobs["Submit"].dt.weekday
    for c in ("script_bytes", "script_lines", "script_python", "script_shell", "script_sbatch_lines",
              "script_module_loads", "script_srun", "script_mpirun", "script_uses_python", "script_uses_conda",
              "script_set_e"):
        X[c] = np.nan  # exports carry no scripts
    parts = [X,
             history(jobs, ["User", "JobName"], "un_", True),
             history(jobs, ["User", "stem"], "us_", False),
             history(jobs, ["User"], "u_", True)]
    u = parts[-1]
    parts[-1] = u[["u_n", "u_fail_rate", "u_recent_fail_rate", "u_last_outcome", "u_streak", "u_hours_since_end",
                   "u_hours_since_fail"]]
    p = history(jobs, ["Partition"], "p_", False)
    a = history(jobs, ["Account"], "a_", False)
    parts += [p[["p_fail_rate", "p_recent_fail_rate"]], a[["a_fail_rate", "a_recent_fail_rate"]]]
    X = pd.concat(parts, axis=1).astype(np.float32)
    return jobs, X


def train(src, dst, nthread, monotone):
    t0 = time.time()
    jobs = pd.read_pickle(src)
    jobs, X = features(jobs)
    t_feat = time.time() - t0
    rows = (jobs["labeled"] == 1).to_numpy()
    Xl = X[rows]
    y = jobs.loc[rows, "fail"].to_numpy()
    cls = jobs.loc[rows, "outcome"].to_numpy()
    n_val = int(len(Xl) * 0.15)
    cut = len(Xl) - n_val
    params = {"objective": "binary:logistic", "eval_metric": "logloss", "tree_method": "hist", "max_depth": 6,
              "eta": 0.1, "subsample": 0.8, "colsample_bytree": 0.8, "min_child_weight": 1, "nthread": nthread}
    if monotone:  # the same constraints jfp's model is trained with (bench/pipeline.py passes them)
        params["monotone_constraints"] = monotone
    dtr = xgb.DMatrix(Xl.iloc[:cut], label=y[:cut], missing=np.nan, nthread=nthread)
    dva = xgb.DMatrix(Xl.iloc[cut:], label=y[cut:], missing=np.nan, nthread=nthread)
    t1 = time.time()
    bst = xgb.train(params, dtr, 200, evals=[(dva, "val")], early_stopping_rounds=200, verbose_eval=False)
    t_fail = time.time() - t1
    pv = bst.predict(dva, iteration_range=(0, bst.best_iteration + 1))
    order = np.argsort(-pv)
    tp = np.cumsum(y[cut:][order])
    prec = tp / np.arange(1, len(tp) + 1)
    ok = np.nonzero(prec >= 0.9)[0]
    threshold = float(pv[order][ok[-1]]) if len(ok) else 1.0
    # failure class, on failed jobs only
    f_tr = y[:cut] == 1
    f_va = y[cut:] == 1
    cparams = {"objective": "multi:softprob", "num_class": 4, "tree_method": "hist", "max_depth": 4, "eta": 0.1,
               "subsample": 0.8, "colsample_bytree": 0.8, "nthread": nthread, "eval_metric": "mlogloss"}
    dctr = xgb.DMatrix(Xl.iloc[:cut][f_tr], label=cls[:cut][f_tr] - 1, nthread=nthread)
    dcva = xgb.DMatrix(Xl.iloc[cut:][f_va], label=cls[cut:][f_va] - 1, nthread=nthread)
    # jfp's class model runs with the same patience as its failure model: 200 here, so all 150 rounds
    cb = xgb.train(cparams, dctr, 150, evals=[(dcva, "val")], early_stopping_rounds=200, verbose_eval=False)
    bst.save_model(dst)
    cb.save_model(dst + ".class.json")
    print(json.dumps({"stage": "train", "rows": int(len(Xl)), "features": int(X.shape[1]),
                      "features_s": round(t_feat, 3), "train_s": round(time.time() - t0 - t_feat, 3),
                      "failure_model_s": round(t_fail, 3),
                      "threshold": threshold, "best_iteration": int(bst.best_iteration)}))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "ingest":
        ingest(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == "train":
        train(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 2,
              sys.argv[5] if len(sys.argv) > 5 else "")
    else:
        sys.exit(__doc__)
