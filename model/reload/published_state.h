// What a submission reads: jfp.conf, the model, the history, slurm.conf's defaults, the module index and the
// background writers, published together behind an atomic shared_ptr by the loader (StateLoader).
//
// A published state is never changed, with one exception: its history, which the loader brings up to date
// in place under HistoryLock's exclusive lock when an ingest commits (a new state for every ingest would copy
// millions of jobs). Readers of the history hold HistoryLock's shared lock.
#pragma once

#include <memory>
#include <string>

#include "model/archive/script_archive_writer.h"
#include "model/jobs/cluster_defaults.h"
#include "model/policy/config.h"
#include "model/scoring/feature_log.h"
#include "model/scoring/model_bundle.h"
#include "model/script/module_index.h"
#include "model/snapshot/history_snapshot.h"

namespace jfp {

// Held through the state, so that a submission keeps the writers it started with alive; the loader
// destroys retired writers (joining their threads), never a submit thread.
struct EngineWriters {
    std::shared_ptr<FeatureLogWriter> feature_log;
    std::shared_ptr<ScriptArchiveWriter> script_archive;
};

struct PublishedState {
    Config config;
    bool config_present = false;
    std::shared_ptr<const ModelBundle> model;
    std::shared_ptr<HistorySnapshot> history;  // updated in place under HistoryLock (above)
    std::shared_ptr<const ClusterDefaults> defaults;
    std::shared_ptr<const ModuleIndex> modules;  // modules_index, when one is named and loaded
    EngineWriters writers;
    std::string model_note, history_note, config_note;
    bool model_missing = false;  // the model file is not there (a site waiting for its first model)
};

}  // namespace jfp
