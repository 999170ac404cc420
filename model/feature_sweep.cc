#include "feature_sweep.h"

namespace jfp {

void sweep_features(const HistoryStore &store, const std::function<void(const JobRecord &, const FeatureVector &)> &fn,
                    const std::unordered_map<std::string, LoggedFeatures> *logged, uint64_t *used) {
    auto arrays = store.array_sizes();
    HistoryIndex index;
    auto submits = store.jobs_by_submit();
    auto ends = store.ended_jobs_by_end();
    JobRecord job, ended;
    bool have_ended = ends.next(ended);
    FeatureVector x;
    std::string array_key;
    while (submits.next(job)) {
        // Strictly before: a job that ended in the same second the next one was submitted is not seen.
        while (have_ended && ended.end < job.submit) {
            index.add(ended);
            have_ended = ends.next(ended);
        }
        if (!job.array_job.empty()) {
            array_key = job.cluster;
            array_key += '\x1f';
            array_key += job.array_job;
            auto it = arrays.find(array_key);
            if (it != arrays.end()) job.array_size = it->second;
        }
        if (logged && !job.jfp_token.empty()) {
            auto it = logged->find(job.jfp_token);
            if (it != logged->end()) {
                if (used) ++*used;
                fn(job, it->second.x);
                continue;
            }
        }
        JobRequest req = request_from_record(job);
        build_features(req, index.lookup(req), x);
        fn(job, x);
    }
}

HistoryIndex load_history(const HistoryStore &store) {
    HistoryIndex index;
    store.for_each_ended_job([&](JobRecord &&j) { index.add(j); });
    return index;
}

}  // namespace jfp
