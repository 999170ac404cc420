// Training-time features without leakage: walks a store's jobs in submit order while replaying ended
// jobs into a HistoryIndex in end order, so each job sees exactly the jobs that ended strictly before
// it was submitted. The plugin's history is the same replay run to the end (load_history).
#pragma once

#include <functional>
#include <string>
#include <unordered_map>

#include "model/archive/archived_scripts.h"
#include "model/history/history.h"
#include "model/store/history_store.h"
#include "model/scoring/feature_log.h"
#include "model/scoring/features.h"

namespace jfp {

// One submission as the sweep saw it: the job, the request built from it, the history it was scored
// against (only jobs that ended strictly before its submission) and its features.
struct Submission {
    const JobRecord &job;
    const JobRequest &request;
    const HistoryView &history;
    const FeatureVector &x;
};

// fn(submission) for every job in the store, in submit order; what explanations are checked against.
// With `scripts`, a job whose script the archive kept gets its script features from it (sacct carries no
// scripts); others keep them unknown, as before.
void sweep_submissions(const HistoryStore &store, const std::function<void(const Submission &)> &fn,
                       ArchivedScripts *scripts = nullptr);

// fn(job, features) for every job in the store, in submit order. With `logged`, a job whose join token the
// plugin logged gets the vector the plugin computed at its submission (what the model will see in
// production) instead of one rebuilt from sacct; *used counts them.
void sweep_features(const HistoryStore &store, const std::function<void(const JobRecord &, const FeatureVector &)> &fn,
                    const std::unordered_map<std::string, LoggedFeatures> *logged = nullptr, uint64_t *used = nullptr,
                    ArchivedScripts *scripts = nullptr);

// Every ended job in the store, replayed in end order: what the plugin scores against.
HistoryIndex load_history(const HistoryStore &store);

}  // namespace jfp
