#include "model/history/history_schema.h"

namespace jfp {

const char *const kHistorySchema = R"(
CREATE TABLE IF NOT EXISTS jobs (
    cluster TEXT NOT NULL,
    job_key TEXT NOT NULL,
    job_id TEXT,
    array_job TEXT,
    user TEXT,
    uid INTEGER,
    account TEXT,
    partition TEXT,
    qos TEXT,
    name TEXT,
    submit INTEGER,
    start INTEGER,
    end_time INTEGER,
    outcome INTEGER,
    state TEXT,
    exit_code INTEGER,
    exit_signal INTEGER,
    req_cpus REAL,
    req_nodes REAL,
    req_mem_mb REAL,
    timelimit_min REAL,
    req_gpus REAL,
    elapsed_s REAL,
    max_rss_mb REAL,
    has_dependency REAL,
    interactive REAL,
    submit_line TEXT,
    jfp_token TEXT,
    step_oom INTEGER NOT NULL DEFAULT 0,
    seq INTEGER,
    job_seq INTEGER,
    end_seq INTEGER,
    script_fp INTEGER,
    PRIMARY KEY (cluster, job_key)
);
CREATE INDEX IF NOT EXISTS jobs_submit ON jobs(submit);
CREATE INDEX IF NOT EXISTS jobs_seq ON jobs(seq);
CREATE INDEX IF NOT EXISTS jobs_token ON jobs(jfp_token) WHERE jfp_token IS NOT NULL;
CREATE TABLE IF NOT EXISTS ingests (
    id INTEGER PRIMARY KEY,
    started INTEGER NOT NULL,
    source TEXT NOT NULL,
    lines INTEGER, job_rows INTEGER, step_rows INTEGER, bad INTEGER,
    recovered_pipes INTEGER, joined_newlines INTEGER,
    nonce INTEGER
);
CREATE TABLE IF NOT EXISTS queue_tokens (
    job_id TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    seen_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ingest_errors (
    ingest_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    last_line INTEGER NOT NULL,
    reason TEXT NOT NULL,
    text TEXT
);
)";

const char *const kJobColumns =
    "cluster, job_key, job_id, array_job, user, account, partition, qos, name, submit, start, end_time, "
    "outcome, state, exit_code, exit_signal, req_cpus, req_nodes, req_mem_mb, timelimit_min, req_gpus, "
    "elapsed_s, max_rss_mb, has_dependency, interactive, submit_line, jfp_token, step_oom, uid, script_fp";
const char *const kJobColumnsWithoutScriptFp =
    "cluster, job_key, job_id, array_job, user, account, partition, qos, name, submit, start, end_time, "
    "outcome, state, exit_code, exit_signal, req_cpus, req_nodes, req_mem_mb, timelimit_min, req_gpus, "
    "elapsed_s, max_rss_mb, has_dependency, interactive, submit_line, jfp_token, step_oom, uid, NULL";

std::string job_upsert_sql() {
    std::string s = "INSERT INTO jobs (cluster, job_key, job_id, array_job, user, account, partition, qos, name, "
                    "submit, start, end_time, outcome, state, exit_code, exit_signal, req_cpus, req_nodes, "
                    "req_mem_mb, timelimit_min, req_gpus, elapsed_s, max_rss_mb, has_dependency, interactive, "
                    "submit_line, jfp_token, uid, seq, job_seq, end_seq, script_fp) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,"
                    "?13,?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,?24,?25,?26,?27,?28,?29,?29,"
                    "CASE WHEN ?12 IS NOT NULL AND ?13 <> " + std::to_string(kUnfinishedOutcome) + " THEN ?29 END, ?30) "
                    "ON CONFLICT (cluster, job_key) DO UPDATE SET ";
    std::string changed;  // an update that changes nothing must not look like a change to the plugin's loader
    const char *plain[] = {"job_id", "array_job", "user", "account", "partition", "qos", "name", "submit", "start",
                           "end_time", "outcome", "state", "exit_code", "exit_signal", "req_cpus", "req_nodes",
                           "req_mem_mb", "timelimit_min", "req_gpus", "elapsed_s", "has_dependency",
                           "interactive", "submit_line"};
    for (const char *c : plain) {
        s += c;
        s += "=excluded.";
        s += c;
        s += ", ";
        changed += std::string("jobs.") + c + " IS NOT excluded." + c + " OR ";
    }
    s += "jfp_token=coalesce(excluded.jfp_token, jobs.jfp_token), uid=coalesce(excluded.uid, jobs.uid), "
         "script_fp=coalesce(excluded.script_fp, jobs.script_fp), "
         "max_rss_mb=CASE WHEN jobs.max_rss_mb IS NULL THEN excluded.max_rss_mb "
         "WHEN excluded.max_rss_mb IS NULL THEN jobs.max_rss_mb "
         "ELSE max(jobs.max_rss_mb, excluded.max_rss_mb) END, "
         "seq=excluded.seq, job_seq=coalesce(jobs.job_seq, excluded.seq), end_seq=coalesce(jobs.end_seq, excluded.end_seq) "
         "WHERE (jobs.outcome IS NULL OR jobs.outcome = " +
         std::to_string(kUnfinishedOutcome) + " OR excluded.outcome <> " + std::to_string(kUnfinishedOutcome) + ") AND (" + changed +
         "coalesce(excluded.jfp_token, jobs.jfp_token) IS NOT jobs.jfp_token OR "
         "coalesce(excluded.uid, jobs.uid) IS NOT jobs.uid OR "
         "coalesce(excluded.script_fp, jobs.script_fp) IS NOT jobs.script_fp OR "
         "(excluded.max_rss_mb IS NOT NULL AND (jobs.max_rss_mb IS NULL OR excluded.max_rss_mb > jobs.max_rss_mb)))";
    return s;
}

std::string ended_sql() { return "(end_time IS NOT NULL AND outcome <> " + std::to_string(kUnfinishedOutcome) + ")"; }

std::string not_ended_sql() { return "NOT " + ended_sql(); }

std::string select_jobs(bool ended_only, const char *order, const char *extra_columns, bool script_fp) {
    std::string sql = std::string("SELECT ") + (script_fp ? kJobColumns : kJobColumnsWithoutScriptFp) + extra_columns +
                      " FROM jobs WHERE user IS NOT NULL";
    if (ended_only) sql += " AND " + ended_sql();
    sql += " ";
    sql += order;
    return sql;
}

}  // namespace jfp
