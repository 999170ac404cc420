#include "tools/train/bundle_threshold.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "model/scoring/model_bundle.h"
#include "tools/train/trainer.h"

namespace jfp {

void set_threshold_fields(nlohmann::json &bundle, const ThresholdChoice &choice, const BinaryMetrics &metrics,
                          double target_precision, const std::string &source) {
    bundle["threshold"] = choice.threshold;
    bundle["target_precision"] = target_precision;
    bundle["threshold_choice"] = {{"source", source},
                                  {"precision", choice.precision},
                                  {"precision_lower_bound", choice.precision_lower},
                                  {"confidence", kPrecisionConfidence},
                                  {"recall", choice.recall},
                                  {"target_reached", choice.target_reached}};
    bundle["validation_metrics"] = {{"rows", metrics.n},
                                    {"failures", metrics.positives},
                                    {"roc_auc", metrics.roc_auc},
                                    {"pr_auc", metrics.pr_auc},
                                    {"threshold", metrics.threshold},
                                    {"precision", metrics.precision},
                                    {"recall", metrics.recall},
                                    {"f1", metrics.f1}};
}

nlohmann::json finish_drafted_bundle(nlohmann::json draft, const std::vector<float> &scores, const std::vector<int> &labels) {
    if (!draft.is_object() || !draft.contains("target_precision") || !draft["target_precision"].is_number() ||
        !draft.contains("threshold_choice") || !draft["threshold_choice"].contains("source") ||
        !draft["threshold_choice"]["source"].is_string())
        throw std::runtime_error("the draft names no target_precision or threshold_choice.source: it was not written by "
                                 "this jfp's jfp-train-dask");
    if (scores.size() != labels.size() || scores.empty())
        throw std::runtime_error("no scored rows to choose the threshold on");
    const double target = draft["target_precision"].get<double>();
    // A tree bundle: the lowest score may be the threshold (never_all is for rules, which score 0 often).
    const ThresholdChoice choice = choose_threshold(scores, labels, target, 5, false);
    const BinaryMetrics metrics = evaluate_binary(scores, labels, choice.threshold);
    set_threshold_fields(draft, choice, metrics, target, draft["threshold_choice"]["source"].get<std::string>());
    // Never publish a bundle the plugin would refuse: load it exactly as the plugin does.
    ModelBundle::from_json(draft, "the drafted bundle");
    return draft;
}

void read_scores_csv(const std::string &path, std::vector<float> &scores, std::vector<int> &labels) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
    std::string line;
    std::getline(in, line);  // the header
    for (size_t n = 2; std::getline(in, line); ++n) {
        const char *s = line.c_str();
        char *end = nullptr;
        errno = 0;
        const float score = std::strtof(s, &end);
        if (end == s || *end != ',' || errno != 0 || !(end[1] == '0' || end[1] == '1') || end[2] != 0)
            throw std::runtime_error(path + " line " + std::to_string(n) + ": expected score,label (label 0 or 1)");
        scores.push_back(score);
        labels.push_back(end[1] - '0');
    }
}

nlohmann::json finish_bundle_files(const std::string &draft_path, const std::string &scores_path, const std::string &out) {
    std::ifstream in(draft_path);
    if (!in) throw std::runtime_error("cannot read " + draft_path);
    nlohmann::json draft;
    try {
        draft = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception &e) {
        throw std::runtime_error(draft_path + " is not JSON: " + e.what());
    }
    std::vector<float> scores;
    std::vector<int> labels;
    read_scores_csv(scores_path, scores, labels);
    const nlohmann::json bundle = finish_drafted_bundle(std::move(draft), scores, labels);
    write_bundle(bundle, out);
    std::printf("jfp finish-bundle: wrote %s (model %s), threshold %.4f\n", out.c_str(),
                bundle["model_id"].get<std::string>().c_str(), bundle["threshold"].get<double>());
    return bundle;
}

}  // namespace jfp
