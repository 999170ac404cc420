// jfp finish-bundle: the last step of jfp-train-dask. It trains the trees on a Dask cluster and drafts the
// bundle; the threshold is chosen here, by jfp train's rule, and the bundle written by jfp train's writer.
#include <nlohmann/json.hpp>

#include <memory>

#include "tools/commands/commands.h"
#include "tools/train/bundle_threshold.h"

namespace jfp {

namespace {

struct FinishArgs {
    std::string draft, scores, out;
};

}  // namespace

void add_finish_bundle_command(Command &app) {
    auto a = std::make_shared<FinishArgs>();
    auto *c = app.add_subcommand("finish-bundle", "Choose the threshold of a bundle jfp-train-dask drafted, by jfp train's "
                                                  "rule, and write it (jfp-train-dask runs this)");
    c->add_option("--draft", a->draft, "the drafted bundle (JSON, without its threshold)")->required();
    c->add_option("--scores", a->scores, "the scored rows to choose on: score,label lines after a header, in time order")->required();
    c->add_option("-o,--out", a->out, "bundle to write (atomically replaced)")->required();
    c->callback([a] { finish_bundle_files(a->draft, a->scores, a->out); });
}

}  // namespace jfp
