#include "model/history/history_store.h"

#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <random>
#include <memory>

#include "model/files/file_check.h"
#include "model/history/history_schema.h"
#include "model/jobs/slurm_text.h"
#include "model/util/log.h"

namespace jfp {

struct HistoryStore::Statements {
    Stmt upsert_job;
    Stmt upsert_step;
    Stmt insert_error;
    explicit Statements(const Db &db)
        : upsert_job(db, job_upsert_sql().c_str()),
          upsert_step(db,
                      "INSERT INTO jobs (cluster, job_key, max_rss_mb, step_oom, seq) VALUES (?1, ?2, ?3, ?4, ?5) "
                      "ON CONFLICT (cluster, job_key) DO UPDATE SET "
                      "max_rss_mb=CASE WHEN jobs.max_rss_mb IS NULL THEN excluded.max_rss_mb "
                      "WHEN excluded.max_rss_mb IS NULL THEN jobs.max_rss_mb "
                      "ELSE max(jobs.max_rss_mb, excluded.max_rss_mb) END, "
                      "step_oom=max(jobs.step_oom, excluded.step_oom), seq=excluded.seq "
                      "WHERE (excluded.max_rss_mb IS NOT NULL AND (jobs.max_rss_mb IS NULL OR excluded.max_rss_mb > jobs.max_rss_mb)) "
                      "OR excluded.step_oom > jobs.step_oom"),
          insert_error(db, "INSERT INTO ingest_errors (ingest_id, line, last_line, reason, text) "
                           "VALUES (?1, ?2, ?3, ?4, ?5)") {}
};

HistoryStore::HistoryStore(const std::string &path, Access access) : writable_(access == Access::ReadWrite) {
    static const DbSchema kSchema{"store", "history store",
                                  "check the path and that its directory exists and is writable by this user",
                                  kHistorySchema, kSchemaVersion};
    VersionedDb opened = open_versioned_db(path, writable_, kSchema);
    db_ = std::move(opened.db);
    const int version = opened.found;
    if (!opened.note.empty()) log_info(opened.note);
    if (writable_ && version == 1) migrate_from_1();
    if (writable_) add_ingest_nonce();
    if (writable_) add_script_fp();
    {
        Stmt c(db_, "SELECT count(*) FROM pragma_table_info('jobs') WHERE name = 'script_fp'");
        has_script_fp_ = c.step() && c.int_at(0) > 0;
    }
    tracks_changes_ = writable_ || version >= 2;
    if (writable_) {
        db_.exec("PRAGMA cache_size=-65536");
        st_ = new Statements(db_);
    } else if (version == 0) {
        // Readable but empty or not ours: check for the table to give a clear message.
        Stmt t(db_, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='jobs'");
        if (!t.step() || t.int_at(0) == 0)
            throw SqliteError(path + " is not a jfp history store (no jobs table); create it with jfp ingest",
                              SQLITE_ERROR);
    }
}

// Each ingest record carries a random number: with its number and time it tells one ingest from another
// that reused its number (a store restored from a backup), which a snapshot of the store must see.
// Added in place to stores made before it; their older records have none.
void HistoryStore::add_ingest_nonce() {
    Stmt c(db_, "SELECT count(*) FROM pragma_table_info('ingests') WHERE name = 'nonce'");
    if (c.step() && c.int_at(0) > 0) return;
    db_.exec("ALTER TABLE ingests ADD COLUMN nonce INTEGER");
}

// The fingerprint of each job's script (the feature log's, joined by token at ingest): added in place to
// stores made before it; a store opened read-only without it reads NULL (kJobColumnsWithoutScriptFp).
void HistoryStore::add_script_fp() {
    Stmt c(db_, "SELECT count(*) FROM pragma_table_info('jobs') WHERE name = 'script_fp'");
    if (c.step() && c.int_at(0) > 0) return;
    db_.exec("ALTER TABLE jobs ADD COLUMN script_fp INTEGER");
}

// Schema 2 numbers every change to a job row (seq), so the plugin's loader can apply only what changed.
void HistoryStore::migrate_from_1() {
    WriteTransaction tx(db_);
    db_.exec("ALTER TABLE jobs ADD COLUMN seq INTEGER");
    db_.exec("ALTER TABLE jobs ADD COLUMN job_seq INTEGER");
    db_.exec("ALTER TABLE jobs ADD COLUMN end_seq INTEGER");
    db_.exec(("UPDATE jobs SET seq=rowid, job_seq=CASE WHEN user IS NOT NULL THEN rowid END, "
              "end_seq=CASE WHEN end_time IS NOT NULL AND outcome <> " + std::to_string(kUnfinishedOutcome) +
              " THEN rowid END").c_str());
    db_.exec("CREATE INDEX IF NOT EXISTS jobs_seq ON jobs(seq)");
    db_.exec(("PRAGMA user_version=" + std::to_string(kSchemaVersion)).c_str());
    tx.commit();
}

// An ingest left open (an exception in the caller) is rolled back by tx_.
HistoryStore::~HistoryStore() {
    tx_.reset();
    delete st_;
}

int64_t HistoryStore::begin_ingest(const std::string &source) {
    if (!writable_) throw SqliteError(path() + ": opened read-only", SQLITE_READONLY);
    Stmt s(db_, "INSERT INTO ingests (started, source, nonce) VALUES (strftime('%s','now'), ?1, ?2)");
    s.bind(1, std::string_view(source));
    std::random_device rd;
    s.bind(2, static_cast<int64_t>(((static_cast<uint64_t>(rd()) << 32) ^ rd()) >> 1));
    s.run();
    int64_t id = sqlite3_last_insert_rowid(db_.get());
    begin_batch();
    return id;
}

// IMMEDIATE: the next change number is read under the write lock, so two ingests never share one.
void HistoryStore::begin_batch() {
    tx_.emplace(db_);
    Stmt s(db_, "SELECT coalesce(max(seq), 0) FROM jobs");
    next_seq_ = std::max(s.step() ? s.int_at(0) : 0, highest_pruned_seq()) + 1;
    pending_writes_ = 0;
}

void HistoryStore::maybe_commit() {
    // Commit in batches: bounded WAL growth and bounded memory for any export size.
    if (++pending_writes_ >= 50000 && tx_) {
        tx_->commit();
        begin_batch();
    }
}

void HistoryStore::put_job(const JobRecord &j) {
    if (!writable_) throw SqliteError(path() + ": opened read-only", SQLITE_READONLY);
    Stmt &s = st_->upsert_job;
    s.bind(1, std::string_view(j.cluster)).bind(2, std::string_view(j.job_key));
    s.bind_text_or_null(3, j.job_id).bind_text_or_null(4, j.array_job).bind(5, std::string_view(j.user));
    s.bind_text_or_null(6, j.account).bind_text_or_null(7, j.partition).bind_text_or_null(8, j.qos);
    s.bind(9, std::string_view(j.name)).bind(10, j.submit);
    if (j.start > 0) s.bind(11, j.start); else s.bind_null(11);
    if (j.end > 0) s.bind(12, j.end); else s.bind_null(12);
    s.bind(13, static_cast<int64_t>(j.outcome)).bind(14, std::string_view(j.state));
    s.bind(15, static_cast<int64_t>(j.exit_code)).bind(16, static_cast<int64_t>(j.exit_signal));
    s.bind(17, j.req_cpus).bind(18, j.req_nodes).bind(19, j.req_mem_mb).bind(20, j.timelimit_min);
    s.bind(21, j.req_gpus).bind(22, j.elapsed_s).bind(23, j.max_rss_mb).bind(24, j.has_dependency);
    s.bind(25, j.interactive).bind_text_or_null(26, j.submit_line).bind_text_or_null(27, j.jfp_token);
    if (j.uid >= 0) s.bind(28, j.uid); else s.bind_null(28);
    s.bind(29, next_seq_++);
    if (j.script_fingerprint != 0) s.bind(30, static_cast<int64_t>(j.script_fingerprint));
    else s.bind_null(30);
    s.run();
    maybe_commit();
}

void HistoryStore::put_step(const StepInfo &st) {
    if (!writable_) throw SqliteError(path() + ": opened read-only", SQLITE_READONLY);
    Stmt &s = st_->upsert_step;
    s.bind(1, std::string_view(st.cluster)).bind(2, std::string_view(st.job_key)).bind(3, st.max_rss_mb);
    s.bind(4, static_cast<int64_t>(st.out_of_memory ? 1 : 0)).bind(5, next_seq_++);
    s.run();
    maybe_commit();
}

void HistoryStore::finish_ingest(int64_t id, const SacctReadReport &r) {
    for (const auto &b : r.bad_lines) {
        Stmt &s = st_->insert_error;
        s.bind(1, id).bind(2, static_cast<int64_t>(b.line)).bind(3, static_cast<int64_t>(b.last_line));
        s.bind(4, std::string_view(b.reason)).bind(5, std::string_view(b.text));
        s.run();
    }
    Stmt u(db_, "UPDATE ingests SET lines=?2, job_rows=?3, step_rows=?4, bad=?5, recovered_pipes=?6, "
                "joined_newlines=?7 WHERE id=?1");
    u.bind(1, id).bind(2, static_cast<int64_t>(r.lines)).bind(3, static_cast<int64_t>(r.job_rows));
    u.bind(4, static_cast<int64_t>(r.step_rows)).bind(5, static_cast<int64_t>(r.bad));
    u.bind(6, static_cast<int64_t>(r.recovered_pipes)).bind(7, static_cast<int64_t>(r.joined_newlines));
    u.run();
    if (!tx_) throw SqliteError(path() + ": no ingest in progress", SQLITE_MISUSE);
    tx_->commit();
    tx_.reset();
}

void HistoryStore::abort_ingest() { tx_.reset(); }

uint64_t HistoryStore::job_count() const {
    Stmt s(db_, "SELECT count(*) FROM jobs WHERE user IS NOT NULL");
    s.step();
    return static_cast<uint64_t>(s.int_at(0));
}

JobCursor HistoryStore::jobs_by_submit() const {
    return JobCursor(db_, select_jobs(false, "ORDER BY submit, cluster, job_key", "", has_script_fp_));
}

// Jobs that end in the same second are replayed in the order they were first seen ended, so a job
// ingested later never has to be replayed before one already loaded (schema 1 stores: by key).
JobCursor HistoryStore::ended_jobs_by_end() const {
    return JobCursor(db_, select_jobs(true, tracks_changes_ ? "ORDER BY end_time, end_seq" : "ORDER BY end_time, cluster, job_key", "", has_script_fp_));
}

JobCursor HistoryStore::ended_jobs_for_index() const {
    // kJobColumns' positions, NULL where HistoryIndex::add (and infer_memory_kill) reads nothing: the sort
    // then carries a few numbers and names per job, not whole rows.
    static const char *const cols =
        "cluster, job_key, NULL, array_job, user, account, partition, NULL, name, NULL, NULL, end_time, outcome, NULL, "
        "NULL, exit_signal, req_cpus, NULL, req_mem_mb, timelimit_min, NULL, elapsed_s, max_rss_mb, NULL, NULL, NULL, "
        "NULL, step_oom, NULL, ";
    std::string sql = std::string("SELECT ") + cols + (has_script_fp_ ? "script_fp" : "NULL") + " FROM jobs WHERE user IS NOT NULL AND " + ended_sql() + (tracks_changes_ ? " ORDER BY end_time, end_seq" : " ORDER BY end_time, cluster, job_key");
    return JobCursor(db_, sql);
}

void HistoryStore::for_each_submission(const std::function<void(const Submission &)> &fn) const {
    Stmt s(db_, "SELECT cluster, job_key, user, account, qos, uid, submit FROM jobs WHERE user IS NOT NULL");
    Submission r;
    while (s.step()) {
        r.cluster = s.view_at(0);
        r.job_key = s.view_at(1);
        r.user = s.view_at(2);
        r.account = s.view_at(3);
        r.qos = s.view_at(4);
        r.uid = s.is_null(5) ? -1 : s.int_at(5);
        r.submit = s.int_at(6);
        fn(r);
    }
}

JobCursor HistoryStore::unfinished_tokened_jobs() const {
    return JobCursor(db_, select_jobs(false, ("AND jfp_token IS NOT NULL AND " + not_ended_sql() +
                                              " ORDER BY submit, cluster, job_key").c_str(), "", has_script_fp_));
}

namespace {
// "id|started|nonce|source"; a store made before nonces has none in its older records (read-only: none at all).
std::string ingest_mark(const Db &db, const std::string &where, const std::string *id = nullptr) {
    Stmt c(db, "SELECT count(*) FROM pragma_table_info('ingests') WHERE name = 'nonce'");
    const bool nonce = c.step() && c.int_at(0) > 0;
    const std::string sql = std::string("SELECT id, started, ") + (nonce ? "coalesce(nonce, '')" : "''") + ", source FROM ingests " + where;
    Stmt s(db, sql.c_str());
    if (id) s.bind(1, std::string_view(*id));
    if (!s.step()) return std::string();
    return std::to_string(s.int_at(0)) + "|" + std::to_string(s.int_at(1)) + "|" + s.text_at(2) + "|" + s.text_at(3);
}
}  // namespace

std::string HistoryStore::lineage() const { return ingest_mark(db_, "ORDER BY id LIMIT 1"); }

std::string HistoryStore::newest_ingest_mark() const { return ingest_mark(db_, "ORDER BY id DESC LIMIT 1"); }

bool HistoryStore::has_ingest_mark(const std::string &mark) const {
    std::string id = mark.substr(0, mark.find('|'));
    if (id.empty()) return false;
    return ingest_mark(db_, "WHERE id = CAST(?1 AS INTEGER)", &id) == mark;
}

int64_t HistoryStore::last_change() const {
    if (!tracks_changes_) return 0;
    Stmt s(db_, "SELECT coalesce(max(seq), 0) FROM jobs");
    return s.step() ? s.int_at(0) : 0;
}

JobCursor HistoryStore::changed_since(int64_t seq) const {
    return JobCursor(db_, select_jobs(false, "AND seq > CAST(?1 AS INTEGER) ORDER BY end_time, end_seq", ", seq, job_seq, end_seq", has_script_fp_),
                     {std::to_string(seq)});
}

HistoryStore::ChangeCount HistoryStore::count_changes(int64_t seq, int64_t end) const {
    Stmt s(db_, ("SELECT count(*), coalesce(sum(end_seq <= ?1), 0), coalesce(sum(end_seq > ?1 AND end_time < ?2), 0) "
                 "FROM jobs WHERE seq > ?1 AND user IS NOT NULL"));
    s.bind(1, seq).bind(2, end);
    ChangeCount c;
    if (s.step()) {
        c.changed = static_cast<uint64_t>(s.int_at(0));
        c.updated_after_end = static_cast<uint64_t>(s.int_at(1));
        c.ended_late = static_cast<uint64_t>(s.int_at(2));
    }
    return c;
}

HistoryStore::ReadTransaction::ReadTransaction(const HistoryStore &store) : db_(store.db_) {
    Stmt(db_, "BEGIN").run();
}

HistoryStore::ReadTransaction::~ReadTransaction() {
    try {
        Stmt(db_, "COMMIT").run();
    } catch (...) {
    }
}

std::vector<JobRecord> HistoryStore::jobs_with_id(const std::string &job_id) const {
    JobCursor c(db_, select_jobs(false, "AND job_id = ?1 ORDER BY submit DESC", "", has_script_fp_), {job_id});
    std::vector<JobRecord> out;
    JobRecord j;
    while (c.next(j)) out.push_back(j);
    return out;
}

std::optional<JobRecord> HistoryStore::job_with_token(const std::string &token) const {
    JobCursor c(db_, select_jobs(false, "AND jfp_token = ?1 ORDER BY submit DESC LIMIT 1", "", has_script_fp_), {token});
    JobRecord j;
    if (!c.next(j)) return std::nullopt;
    return j;
}

std::vector<JobRecord> HistoryStore::tokened_runs(const std::string &user, const std::string &name, int64_t before) const {
    JobCursor c(db_, select_jobs(false, "AND user = ?1 AND name = ?2 AND submit < CAST(?3 AS INTEGER) "
                                        "AND jfp_token IS NOT NULL ORDER BY submit DESC", "", has_script_fp_),
                {user, name, std::to_string(before)});
    std::vector<JobRecord> out;
    JobRecord j;
    while (c.next(j)) out.push_back(j);
    return out;
}

void HistoryStore::for_each_job(const std::function<void(JobRecord &&)> &fn) const {
    auto c = jobs_by_submit();
    JobRecord j;
    while (c.next(j)) fn(std::move(j));
}

void HistoryStore::for_each_ended_job(const std::function<void(JobRecord &&)> &fn) const {
    auto c = ended_jobs_by_end();
    JobRecord j;
    while (c.next(j)) fn(std::move(j));
}

std::unordered_map<std::string, double> HistoryStore::array_sizes() const {
    // A task row counts one; a row for tasks not started yet ("123_[3-5%2]") counts its index expression.
    std::unordered_map<std::string, double> out;
    Stmt s(db_, "SELECT cluster, array_job, job_id FROM jobs WHERE array_job IS NOT NULL AND user IS NOT NULL");
    while (s.step()) {
        double n = 1;
        std::string_view id = s.view_at(2);
        auto open = id.find("_[");
        if (open != std::string_view::npos) {
            auto close = id.find(']', open);
            if (auto c = array_task_count(id.substr(open + 2, close == std::string_view::npos ? std::string_view::npos
                                                                                             : close - open - 2)))
                n = *c;
        }
        out[s.text_at(0) + '\x1f' + s.text_at(1)] += n;
    }
    return out;
}

namespace {
std::string labeled_where(std::optional<int64_t> before) {
    std::string w = "user IS NOT NULL AND outcome IN (0,1,2,3,4) AND end_time IS NOT NULL";
    if (before) w += " AND submit < ?1 AND end_time < ?1";
    return w;
}
}  // namespace

uint64_t HistoryStore::count_labeled(std::optional<int64_t> before) const {
    Stmt s(db_, ("SELECT count(*) FROM jobs WHERE " + labeled_where(before)).c_str());
    if (before) s.bind(1, *before);
    s.step();
    return static_cast<uint64_t>(s.int_at(0));
}

std::optional<int64_t> HistoryStore::labeled_submit_at(uint64_t offset, std::optional<int64_t> before) const {
    Stmt s(db_, ("SELECT submit FROM jobs WHERE " + labeled_where(before) + " ORDER BY submit LIMIT 1 OFFSET ?2").c_str());
    if (before) s.bind(1, *before);
    s.bind(2, static_cast<int64_t>(offset));
    if (!s.step()) return std::nullopt;
    return s.int_at(0);
}

void HistoryStore::replace_queue_tokens(const std::vector<std::pair<std::string, std::string>> &tokens) {
    if (!writable_) throw SqliteError(path() + ": opened read-only", SQLITE_READONLY);
    WriteTransaction tx(db_, WriteTransaction::Lock::Deferred);
    db_.exec("DELETE FROM queue_tokens");
    Stmt ins(db_, "INSERT OR REPLACE INTO queue_tokens (job_id, token, seen_at) VALUES (?1, ?2, strftime('%s','now'))");
    for (const auto &[id, tok] : tokens) {
        ins.bind(1, std::string_view(id)).bind(2, std::string_view(tok));
        ins.run();
    }
    tx.commit();
}

std::vector<std::pair<std::string, std::string>> HistoryStore::queue_tokens() const {
    std::vector<std::pair<std::string, std::string>> out;
    Stmt s(db_, "SELECT job_id, token FROM queue_tokens");
    while (s.step()) out.emplace_back(s.text_at(0), s.text_at(1));
    return out;
}

std::optional<int64_t> HistoryStore::latest_end() const {
    Stmt s(db_, "SELECT max(end_time) FROM jobs WHERE user IS NOT NULL");
    if (!s.step() || s.is_null(0)) return std::nullopt;
    return s.int_at(0);
}

HistoryStore::Coverage HistoryStore::coverage_since(int64_t since) const {
    Stmt s(db_, "SELECT count(*), count(uid), count(jfp_token) FROM jobs WHERE user IS NOT NULL AND submit >= ?1");
    s.bind(1, since);
    Coverage c;
    if (s.step()) {
        c.jobs = static_cast<uint64_t>(s.int_at(0));
        c.with_uid = static_cast<uint64_t>(s.int_at(1));
        c.with_token = static_cast<uint64_t>(s.int_at(2));
    }
    return c;
}

std::optional<int64_t> HistoryStore::first_token_submit() const {
    Stmt s(db_, "SELECT min(submit) FROM jobs WHERE jfp_token IS NOT NULL AND user IS NOT NULL");
    if (s.step() && !s.is_null(0)) return s.int_at(0);
    return std::nullopt;
}

std::vector<BadLine> HistoryStore::bad_lines(int64_t ingest_id) const {
    std::vector<BadLine> out;
    Stmt s(db_, "SELECT line, last_line, reason, text FROM ingest_errors WHERE ingest_id=?1 ORDER BY line");
    s.bind(1, ingest_id);
    while (s.step()) {
        BadLine b;
        b.line = static_cast<uint64_t>(s.int_at(0));
        b.last_line = static_cast<uint64_t>(s.int_at(1));
        b.reason = s.text_at(2);
        b.text = s.text_at(3);
        out.push_back(std::move(b));
    }
    return out;
}

}  // namespace jfp
