#include "model/reload/writer_set.h"

#include <algorithm>

#include "model/util/log.h"

namespace jfp {

bool WriterSet::follow(const Config &cfg, EngineWriters &w) {
    bool changed = false;
    if (budget_->limit() != cfg.user_write_bytes_per_day) budget_->set_limit(cfg.user_write_bytes_per_day);
    const std::string flp = cfg.resolved_feature_log_path();
    if (enabled_ && flp != feature_log_path_) {
        budget_->set_source(UserWriteBudget::File::FeatureLog,
                            [flp](int64_t since) { return feature_log_bytes_by_user_since(flp, since); });
        replace(w.feature_log, std::make_shared<FeatureLogWriter>(flp, cfg.log_queue_size, FeatureLogWriter::kMaxHeadsInUse,
                                                                  FeatureLogWriter::kIdleWait, budget_));
        feature_log_path_ = flp;
        changed = true;
    }
    const std::string &sap = cfg.script_archive_path;
    if (enabled_ && (sap != script_archive_path_ || cfg.script_archive_queue_bytes != script_archive_bytes_)) {
        budget_->set_source(UserWriteBudget::File::ScriptArchive, archive_bytes_source(sap));
        replace(w.script_archive, sap.empty() ? nullptr
                                              : std::make_shared<ScriptArchiveWriter>(sap, kArchiveQueueEntries,
                                                                                      cfg.script_archive_queue_bytes, budget_));
        if (sap != script_archive_path_)
            log_info(sap.empty() ? std::string("script archive off")
                                 : "archiving job scripts in " + sap + (cfg.script_archive_env ? " with their environment" : ""));
        script_archive_path_ = sap;
        script_archive_bytes_ = cfg.script_archive_queue_bytes;
        changed = true;
    }
    return changed;
}

template <class W>
void WriterSet::replace(std::shared_ptr<W> &slot, std::shared_ptr<W> next) {
    if (slot) retired_.push_back(std::move(slot));
    if (next) live_.fetch_add(1);
    slot = std::move(next);
}

// A retired writer only this list holds can be reached by no submission: destroying it here writes what it
// has queued and closes its file and thread.
void WriterSet::close_retired() {
    auto held_elsewhere = [](const std::shared_ptr<void> &w) { return w.use_count() > 1; };
    auto keep = std::partition(retired_.begin(), retired_.end(), held_elsewhere);
    const auto closed = static_cast<size_t>(retired_.end() - keep);
    retired_.erase(keep, retired_.end());
    live_.fetch_sub(closed);
}

namespace {

// Each of w's writers given what is left of one limit; true when every call said done.
template <class Call>
bool each_within(const EngineWriters &w, std::chrono::milliseconds limit, Call call) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    auto left = [&] {
        return std::max(std::chrono::milliseconds(0),
                        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()));
    };
    bool done = true;
    if (w.feature_log) done = call(*w.feature_log, left()) && done;
    if (w.script_archive) done = call(*w.script_archive, left()) && done;
    return done;
}

}  // namespace

bool WriterSet::flush(const EngineWriters &w, std::chrono::milliseconds limit) {
    return each_within(w, limit, [](auto &writer, std::chrono::milliseconds left) { return writer.flush_for(left); });
}

bool WriterSet::stop_within(const EngineWriters &w, std::chrono::milliseconds limit) {
    return each_within(w, limit, [](auto &writer, std::chrono::milliseconds left) { return writer.stop_within(left); });
}

}  // namespace jfp
