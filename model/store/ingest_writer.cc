#include "model/store/ingest_writer.h"

#include <cmath>

#include "model/store/ingest_records.h"
#include "model/store/store_schema.h"

namespace jfp {

namespace {
const char *const kStepUpsert =
                   "INSERT INTO jobs (cluster, job_key, max_rss_mb, step_oom, seq) VALUES (?1, ?2, ?3, ?4, ?5) "
                   "ON CONFLICT (cluster, job_key) DO UPDATE SET "
                   "max_rss_mb=CASE WHEN jobs.max_rss_mb IS NULL THEN excluded.max_rss_mb "
                   "WHEN excluded.max_rss_mb IS NULL THEN jobs.max_rss_mb "
                   "ELSE max(jobs.max_rss_mb, excluded.max_rss_mb) END, "
                   "step_oom=max(jobs.step_oom, excluded.step_oom), seq=excluded.seq "
                   "WHERE (excluded.max_rss_mb IS NOT NULL AND (jobs.max_rss_mb IS NULL OR excluded.max_rss_mb > jobs.max_rss_mb)) "
                   "OR excluded.step_oom > jobs.step_oom";

int64_t data_version(Db &db) {
    Stmt s(db, "PRAGMA data_version");
    return s.step() ? s.int_at(0) : -1;
}
}  // namespace

IngestWriter::IngestWriter(Db &db) : db_(db), upsert_job_(db, job_upsert_sql().c_str()), upsert_step_(db, kStepUpsert) {}

void fold_step_write(JobRecord &row, bool &step_oom, const StepInfo &step) {
    if (std::isnan(row.max_rss_mb) || (!std::isnan(step.max_rss_mb) && step.max_rss_mb > row.max_rss_mb)) row.max_rss_mb = step.max_rss_mb;
    step_oom = step_oom || step.out_of_memory;
}

void IngestWriter::observe(RowObserver *observer) {
    observer_ = observer;
    if (observer_ && !merged_)
        merged_.emplace(db_, "SELECT rowid, seq, job_seq, end_seq, step_oom, max_rss_mb, jfp_token, uid, script_fp FROM jobs "
                             "WHERE cluster = ?1 AND job_key = ?2");
}

// No RETURNING (SQLite builds a table for each statement's returned rows: it doubled the writer's work). A
// new row holds what was bound; a changed one is read back for the columns its write merges.
void IngestWriter::run_observed(Stmt &s, const JobRecord *job, const StepInfo *step, int64_t seq) {
    sqlite3 *db = db_.get();
    const int64_t before = sqlite3_last_insert_rowid(db);
    s.run();
    if (sqlite3_changes(db) == 0) return;
    WrittenRow w;
    w.seqs.seq = seq;
    w.inserted = sqlite3_last_insert_rowid(db) != before;
    if (w.inserted) w.rowid = sqlite3_last_insert_rowid(db);
    if (step) return observer_->step_written(*step, w);
    JobRecord r = *job;  // what binding, then reading, does to each field:
    if (r.start <= 0) r.start = 0;
    if (r.end <= 0) r.end = 0;
    if (r.uid < 0) r.uid = -1;
    r.array_size = 1;
    if (w.inserted) {
        w.seqs.job_seq = seq;
        w.seqs.end_seq = r.ended() ? seq : 0;
        return observer_->job_written(std::move(r), w);
    }
    Stmt &m = *merged_;
    m.bind(1, std::string_view(job->cluster)).bind(2, std::string_view(job->job_key));
    if (m.step()) {
        w.rowid = m.int_at(0);
        w.seqs = {m.int_at(1), m.int_at(2), m.int_at(3)};
        w.step_oom = m.int_at(4) != 0;
        r.max_rss_mb = m.real_at(5);
        r.jfp_token = m.view_at(6);
        r.uid = m.is_null(7) ? -1 : m.int_at(7);
        r.script_fingerprint = m.is_null(8) ? 0 : static_cast<uint64_t>(m.int_at(8));
    }
    m.reset();
    observer_->job_written(std::move(r), w);
}

IngestWriter::~IngestWriter() { tx_.reset(); }

int64_t IngestWriter::begin(const std::string &source) {
    data_version_ = -1;
    others_committed_ = false;
    const int64_t id = start_ingest_record(db_, source);
    begin_batch();
    return id;
}

// IMMEDIATE: the next change number is read under the write lock, so two ingests never share one.
// A commit by another connection between two batches changes data_version (this connection's own do not).
void IngestWriter::begin_batch() {
    tx_.emplace(db_);
    const int64_t v = data_version(db_);
    if (data_version_ < 0) data_version_ = v;
    else if (v != data_version_) others_committed_ = true;
    next_seq_ = next_change_seq(db_);
    pending_writes_ = 0;
}

// Commit in batches: bounded WAL growth and bounded memory for any export size.
void IngestWriter::maybe_commit() {
    if (++pending_writes_ >= 50000 && tx_) {
        tx_->commit();
        begin_batch();
    }
}

void IngestWriter::put_job(const JobRecord &j) {
    Stmt &s = upsert_job_;
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
    const int64_t seq = next_seq_++;
    s.bind(29, seq);
    if (j.script_fingerprint != 0) s.bind(30, static_cast<int64_t>(j.script_fingerprint));
    else s.bind_null(30);
    if (observer_) run_observed(s, &j, nullptr, seq);
    else s.run();
    maybe_commit();
}

void IngestWriter::put_step(const StepInfo &st) {
    Stmt &s = upsert_step_;
    s.bind(1, std::string_view(st.cluster)).bind(2, std::string_view(st.job_key)).bind(3, st.max_rss_mb);
    const int64_t seq = next_seq_++;
    s.bind(4, static_cast<int64_t>(st.out_of_memory ? 1 : 0)).bind(5, seq);
    if (observer_) run_observed(s, nullptr, &st, seq);
    else s.run();
    maybe_commit();
}

void IngestWriter::finish(int64_t id, const SacctReadReport &r) {
    finish_ingest_record(db_, id, r);
    if (!tx_) throw SqliteError(db_.path() + ": no ingest in progress", SQLITE_MISUSE);
    tx_->commit();
    tx_.reset();
}

void IngestWriter::abort() { tx_.reset(); }

}  // namespace jfp
