#include "model/store/history_store.h"

#include <utility>

#include "model/jobs/slurm_text.h"
#include "model/store/ingest_records.h"
#include "model/store/ingest_writer.h"
#include "model/store/job_lookup.h"
#include "model/store/queue_tokens.h"
#include "model/store/store_schema.h"

namespace jfp {

HistoryStore::HistoryStore(const std::string &path, Access access) : writable_(access == Access::ReadWrite) {
    OpenedStore opened = open_store_db(path, writable_);
    db_ = std::move(opened.db);
    tracks_changes_ = opened.tracks_changes;
    has_script_fp_ = opened.has_script_fp;
    if (writable_) writer_ = std::make_unique<IngestWriter>(db_);
}

HistoryStore::~HistoryStore() = default;

void HistoryStore::require_writable() const {
    if (!writable_) throw SqliteError(path() + ": opened read-only", SQLITE_READONLY);
}

int64_t HistoryStore::begin_ingest(const std::string &source) {
    require_writable();
    return writer_->begin(source);
}

void HistoryStore::put_job(const JobRecord &job) {
    require_writable();
    writer_->put_job(job);
}

void HistoryStore::put_step(const StepInfo &step) {
    require_writable();
    writer_->put_step(step);
}

void HistoryStore::finish_ingest(int64_t ingest_id, const SacctReadReport &report) {
    require_writable();
    writer_->finish(ingest_id, report);
}

void HistoryStore::abort_ingest() {
    if (writer_) writer_->abort();
}

void HistoryStore::observe_ingest(RowObserver *observer) {
    require_writable();
    writer_->observe(observer);
}

bool HistoryStore::others_committed_during_ingest() const { return writer_ && writer_->others_committed(); }

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

std::string HistoryStore::lineage() const { return oldest_ingest_mark(db_); }

std::string HistoryStore::newest_ingest_mark() const { return jfp::newest_ingest_mark(db_); }

bool HistoryStore::has_ingest_mark(const std::string &mark) const { return jfp::has_ingest_mark(db_, mark); }

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
    return jfp::jobs_with_id(db_, has_script_fp_, job_id);
}

std::optional<JobRecord> HistoryStore::job_with_token(const std::string &token) const {
    return jfp::job_with_token(db_, has_script_fp_, token);
}

std::vector<JobRecord> HistoryStore::tokened_runs(const std::string &user, const std::string &name, int64_t before) const {
    return jfp::tokened_runs(db_, has_script_fp_, user, name, before);
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
    require_writable();
    save_queue_tokens(db_, tokens);
}

std::vector<std::pair<std::string, std::string>> HistoryStore::queue_tokens() const { return load_queue_tokens(db_); }

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

std::vector<BadLine> HistoryStore::bad_lines(int64_t ingest_id) const { return ingest_bad_lines(db_, ingest_id); }

}  // namespace jfp
