// jfp train's work: the bundle trained from the history store (trainer.h), written where the plugin reads
// it, and what was trained said: a summary for the admin, or one JSON object.
#pragma once

#include <string>

#include "tools/train/trainer.h"

namespace jfp {

struct TrainRun {
    std::string db;   // the history store
    std::string out;  // the bundle written (atomically replaced)
    TrainOptions opt;
    bool json = false;
};

// Trains, writes r.out, prints; returns what was trained. Throws as train_bundle does.
TrainSummary run_train(const TrainRun &r);

}  // namespace jfp
