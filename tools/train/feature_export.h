// The training matrix on disk for a distributed trainer (tools/train/jfp-train-dask): the rows and split jfp train
// would use, written as partitioned CSV with a manifest that names the columns, the window and the
// training parameters, so any engine trains the model jfp would and writes a bundle the plugin loads.
// Streams: memory is the history replay's, not rows x features.
#pragma once

#include <cstdint>
#include <string>

#include "model/store/history_store.h"
#include "tools/train/training_rows.h"

namespace jfp {

inline constexpr const char *kFeatureExportFormat = "jfp-training-features";
inline constexpr int kFeatureExportFormatVersion = 1;

struct ExportOptions {
    std::string dir;
    uint64_t rows_per_part = 1000000;
    bool replace = false;  // the directory holds an earlier export: replace it
};

struct ExportSummary {
    TrainingWindow window;
    uint64_t train_rows = 0, train_failures = 0, val_rows = 0, val_failures = 0;
    size_t parts = 0;
    uint64_t bytes = 0;
    SweepSources sources;
};

// Throws std::runtime_error saying what to do (directory not empty, cannot write, too little history).
ExportSummary export_features(const HistoryStore &store, const TrainOptions &opt, const ExportOptions &out);

// jfp export-features: opens the store, exports, and unless quiet prints the summary with the command that
// trains on it.
ExportSummary run_export(const std::string &db, const TrainOptions &opt, const ExportOptions &out, bool quiet);

}  // namespace jfp
