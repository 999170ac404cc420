// The threshold a bundle ships with and the validation metrics it records: one rule and one writer for
// every trainer, jfp train's own models and the bundles jfp-train-dask drafts (jfp finish-bundle).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

#include "tools/evaluate/metrics.h"

namespace jfp {

// Sets the bundle's threshold, target_precision, threshold_choice (chosen on `source`) and
// validation_metrics.
void set_threshold_fields(nlohmann::json &bundle, const ThresholdChoice &choice, const BinaryMetrics &metrics,
                          double target_precision, const std::string &source);

// A tree bundle drafted by another trainer without its threshold (its target_precision and
// threshold_choice.source set): the threshold chosen on SCORES and LABELS (the rows it names, in time order)
// by jfp train's rule, recorded, and the result loaded as the plugin loads it. Throws with what to do.
nlohmann::json finish_drafted_bundle(nlohmann::json draft, const std::vector<float> &scores, const std::vector<int> &labels);

// "score,label" lines after a header line; throws naming the file and line.
void read_scores_csv(const std::string &path, std::vector<float> &scores, std::vector<int> &labels);

// jfp finish-bundle: the draft (a JSON file) finished on the scores file's rows and written to `out` as jfp
// train writes a bundle; prints the bundle's id and threshold. Returns the bundle.
nlohmann::json finish_bundle_files(const std::string &draft_path, const std::string &scores_path, const std::string &out);

}  // namespace jfp
