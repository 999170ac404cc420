#include "model/store/store_schema.h"

#include <algorithm>

#include "model/util/log.h"

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

namespace {

// Each ingest record carries a random number: with its number and time it tells one ingest from another
// that reused its number (a store restored from a backup), which a snapshot of the store must see.
// Added in place to stores made before it; their older records have none.
void add_ingest_nonce(Db &db) {
    Stmt c(db, "SELECT count(*) FROM pragma_table_info('ingests') WHERE name = 'nonce'");
    if (c.step() && c.int_at(0) > 0) return;
    db.exec("ALTER TABLE ingests ADD COLUMN nonce INTEGER");
}

// The fingerprint of each job's script (the feature log's, joined by token at ingest): added in place to
// stores made before it; a store opened read-only without it reads NULL (kJobColumnsWithoutScriptFp).
void add_script_fp(Db &db) {
    Stmt c(db, "SELECT count(*) FROM pragma_table_info('jobs') WHERE name = 'script_fp'");
    if (c.step() && c.int_at(0) > 0) return;
    db.exec("ALTER TABLE jobs ADD COLUMN script_fp INTEGER");
}

// Schema 2 numbers every change to a job row (seq), so the plugin's loader can apply only what changed.
void migrate_from_1(Db &db) {
    WriteTransaction tx(db);
    db.exec("ALTER TABLE jobs ADD COLUMN seq INTEGER");
    db.exec("ALTER TABLE jobs ADD COLUMN job_seq INTEGER");
    db.exec("ALTER TABLE jobs ADD COLUMN end_seq INTEGER");
    db.exec(("UPDATE jobs SET seq=rowid, job_seq=CASE WHEN user IS NOT NULL THEN rowid END, "
             "end_seq=CASE WHEN end_time IS NOT NULL AND outcome <> " + std::to_string(kUnfinishedOutcome) +
             " THEN rowid END").c_str());
    db.exec("CREATE INDEX IF NOT EXISTS jobs_seq ON jobs(seq)");
    db.exec(("PRAGMA user_version=" + std::to_string(kStoreSchemaVersion)).c_str());
    tx.commit();
}

}  // namespace

OpenedStore open_store_db(const std::string &path, bool writable) {
    static const DbSchema kSchema{"store", "history store",
                                  "check the path and that its directory exists and is writable by this user",
                                  kHistorySchema, kStoreSchemaVersion};
    VersionedDb opened = open_versioned_db(path, writable, kSchema);
    OpenedStore out;
    out.db = std::move(opened.db);
    const int version = opened.found;
    if (!opened.note.empty()) log_info(opened.note);
    if (writable && version == 1) migrate_from_1(out.db);
    if (writable) add_ingest_nonce(out.db);
    if (writable) add_script_fp(out.db);
    {
        Stmt c(out.db, "SELECT count(*) FROM pragma_table_info('jobs') WHERE name = 'script_fp'");
        out.has_script_fp = c.step() && c.int_at(0) > 0;
    }
    out.tracks_changes = writable || version >= 2;
    if (writable) {
        out.db.exec("PRAGMA cache_size=-65536");
    } else if (version == 0) {
        // Readable but empty or not ours: check for the table to give a clear message.
        Stmt t(out.db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='jobs'");
        if (!t.step() || t.int_at(0) == 0)
            throw SqliteError(path + " is not a jfp history store (no jobs table); create it with jfp ingest",
                              SQLITE_ERROR);
    }
    return out;
}

bool has_prunes_table(const Db &db) {
    Stmt t(db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='prunes'");
    return t.step() && t.int_at(0) > 0;
}

int64_t highest_pruned_seq(const Db &db) {
    if (!has_prunes_table(db)) return 0;
    Stmt s(db, "SELECT coalesce(max(last_seq), 0) FROM prunes");
    return s.step() ? s.int_at(0) : 0;
}

int64_t next_change_seq(const Db &db) {
    Stmt s(db, "SELECT coalesce(max(seq), 0) FROM jobs");
    return std::max(s.step() ? s.int_at(0) : 0, highest_pruned_seq(db)) + 1;
}

}  // namespace jfp
