// jfp finish-bundle: the last step of jfp-train-dask. It trains the trees on a Dask cluster and drafts the
// bundle; the threshold is chosen here, by jfp train's rule, and the bundle written by jfp train's writer.
#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "tools/commands/commands.h"
#include "tools/train/bundle_threshold.h"
#include "tools/train/trainer.h"

namespace jfp {

namespace {

struct FinishArgs {
    std::string draft, scores, out;
};

void run_finish_bundle(const FinishArgs &a) {
    std::ifstream in(a.draft);
    if (!in) throw std::runtime_error("cannot read " + a.draft);
    nlohmann::json draft;
    try {
        draft = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception &e) {
        throw std::runtime_error(a.draft + " is not JSON: " + e.what());
    }
    std::vector<float> scores;
    std::vector<int> labels;
    read_scores_csv(a.scores, scores, labels);
    const nlohmann::json bundle = finish_drafted_bundle(std::move(draft), scores, labels);
    write_bundle(bundle, a.out);
    std::printf("jfp finish-bundle: wrote %s (model %s), threshold %.4f\n", a.out.c_str(),
                bundle["model_id"].get<std::string>().c_str(), bundle["threshold"].get<double>());
}

}  // namespace

void add_finish_bundle_command(Command &app) {
    auto a = std::make_shared<FinishArgs>();
    auto *c = app.add_subcommand("finish-bundle", "Choose the threshold of a bundle jfp-train-dask drafted, by jfp train's "
                                                  "rule, and write it (jfp-train-dask runs this)");
    c->add_option("--draft", a->draft, "the drafted bundle (JSON, without its threshold)")->required();
    c->add_option("--scores", a->scores, "the scored rows to choose on: score,label lines after a header, in time order")->required();
    c->add_option("-o,--out", a->out, "bundle to write (atomically replaced)")->required();
    c->callback([a] { run_finish_bundle(*a); });
}

}  // namespace jfp
