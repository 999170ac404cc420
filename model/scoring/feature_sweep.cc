#include "model/scoring/feature_sweep.h"

namespace jfp {

namespace {

// The one walk both entry points share. fn gets the history view only when `logged` did not supply x.
template <class Fn>
void sweep(const HistoryStore &store, const std::unordered_map<std::string, LoggedFeatures> *logged, uint64_t *used,
           ArchivedScripts *scripts, Fn &&fn) {
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
                fn(job, nullptr, nullptr, it->second.x);
                continue;
            }
        }
        JobRequest req = request_from_record(job);
        HistoryView view = index.lookup(req);
        build_features(req, view, x);
        if (scripts && !job.jfp_token.empty())
            if (auto f = scripts->features(job.jfp_token)) {  // as the plugin scanned it
                fill_script_features(f->traits, x);
                x[F_script_ignored_sbatch] = static_cast<float>(f->ignored_sbatch);
            }
        fn(job, &req, &view, x);
    }
}

}  // namespace

void sweep_features(const HistoryStore &store, const std::function<void(const JobRecord &, const FeatureVector &)> &fn,
                    const std::unordered_map<std::string, LoggedFeatures> *logged, uint64_t *used,
                    ArchivedScripts *scripts) {
    sweep(store, logged, used, scripts,
          [&](const JobRecord &j, const JobRequest *, const HistoryView *, const FeatureVector &x) { fn(j, x); });
}

void sweep_submissions(const HistoryStore &store, const std::function<void(const Submission &)> &fn,
                       ArchivedScripts *scripts) {
    sweep(store, nullptr, nullptr, scripts, [&](const JobRecord &j, const JobRequest *r, const HistoryView *h, const FeatureVector &x) {
        fn(Submission{j, *r, *h, x});
    });
}

HistoryIndex load_history(const HistoryStore &store) {
    HistoryIndex index;
    store.for_each_ended_job([&](JobRecord &&j) { index.add(j); });
    return index;
}

}  // namespace jfp
