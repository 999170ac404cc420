#include "model/sacct/job_folder.h"

#include "model/util/time_util.h"

namespace jfp {

std::optional<std::string> JobFolder::add(SacctRow &&row, const JobUserTextById *user_text) {
    if (row.kind == SacctRow::Kind::Step) {
        ++step_rows_;
        StepInfo &s = row.step;
        if (held_ && held_->job_key == s.job_key && held_->cluster == s.cluster) {
            if (known(s.max_rss_mb) && (!known(held_->max_rss_mb) || s.max_rss_mb > held_->max_rss_mb))
                held_->max_rss_mb = s.max_rss_mb;
            if (s.out_of_memory && held_->outcome == Outcome::Failed) held_->outcome = Outcome::OutOfMemory;
            if (row.batch_step) held_->interactive = 0;
        } else {
            on_step_(std::move(s));  // its job was ingested before (or comes in another export)
        }
        return std::nullopt;
    }
    // A job cannot end after the export was written. Such a row is forged or from a host whose clock is
    // wrong; stored, it would also start every later --from-sacct after now.
    if (row.job.end > latest_plausible_end_)
        return "job " + row.job.job_key + " ends at " + format_sacct_time(row.job.end) +
               ", after this ingest began: a forged record, or a clock that is wrong; not stored";
    if (user_text) {
        auto t = user_text->find(row.job.job_key);
        if (t == user_text->end())
            return "job " + row.job.job_key + " is not in sacct --json's output, run after this one; the next ingest reads it";
        row.job.name = t->second.name;
        if (t->second.has_submit_line) apply_submit_line(row.job, t->second.submit_line);
    }
    ++job_rows_;
    flush();
    held_ = std::move(row.job);
    return std::nullopt;
}

void JobFolder::flush() {
    if (!held_) return;
    on_job_(std::move(*held_));
    held_.reset();
}

}  // namespace jfp
