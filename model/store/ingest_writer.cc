#include "model/store/ingest_writer.h"

#include "model/store/ingest_records.h"
#include "model/store/store_schema.h"

namespace jfp {

IngestWriter::IngestWriter(Db &db)
    : db_(db),
      upsert_job_(db, job_upsert_sql().c_str()),
      upsert_step_(db,
                   "INSERT INTO jobs (cluster, job_key, max_rss_mb, step_oom, seq) VALUES (?1, ?2, ?3, ?4, ?5) "
                   "ON CONFLICT (cluster, job_key) DO UPDATE SET "
                   "max_rss_mb=CASE WHEN jobs.max_rss_mb IS NULL THEN excluded.max_rss_mb "
                   "WHEN excluded.max_rss_mb IS NULL THEN jobs.max_rss_mb "
                   "ELSE max(jobs.max_rss_mb, excluded.max_rss_mb) END, "
                   "step_oom=max(jobs.step_oom, excluded.step_oom), seq=excluded.seq "
                   "WHERE (excluded.max_rss_mb IS NOT NULL AND (jobs.max_rss_mb IS NULL OR excluded.max_rss_mb > jobs.max_rss_mb)) "
                   "OR excluded.step_oom > jobs.step_oom") {}

IngestWriter::~IngestWriter() { tx_.reset(); }

int64_t IngestWriter::begin(const std::string &source) {
    const int64_t id = start_ingest_record(db_, source);
    begin_batch();
    return id;
}

// IMMEDIATE: the next change number is read under the write lock, so two ingests never share one.
void IngestWriter::begin_batch() {
    tx_.emplace(db_);
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
    s.bind(29, next_seq_++);
    if (j.script_fingerprint != 0) s.bind(30, static_cast<int64_t>(j.script_fingerprint));
    else s.bind_null(30);
    s.run();
    maybe_commit();
}

void IngestWriter::put_step(const StepInfo &st) {
    Stmt &s = upsert_step_;
    s.bind(1, std::string_view(st.cluster)).bind(2, std::string_view(st.job_key)).bind(3, st.max_rss_mb);
    s.bind(4, static_cast<int64_t>(st.out_of_memory ? 1 : 0)).bind(5, next_seq_++);
    s.run();
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
