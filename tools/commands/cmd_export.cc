// jfp export-features: the training matrix for a distributed trainer (tools/train/jfp-train-dask; the work:
// tools/train/feature_export.h).
#include <memory>

#include "tools/commands/commands.h"
#include "tools/options/site_conf.h"
#include "tools/train/feature_export.h"

namespace jfp {

namespace {

struct ExportArgs {
    ConfDefaults conf;  // --conf: the paths not given
    std::string db, before;
    double train_fraction = 0;
    TrainOptions opt;
    ExportOptions out;
    bool quiet = false;
};

}  // namespace

void add_export_command(Command &app) {
    auto a = std::make_shared<ExportArgs>();
    auto *c = app.add_subcommand("export-features",
                                 "Write the training matrix (features, label, submit time, split) as partitioned CSV "
                                 "for a distributed trainer such as jfp-train-dask");
    c->add_option("--db", a->db, "history store");
    c->add_option("-o,--output", a->out.dir, "directory to write (new or empty)")->required();
    auto *before = c->add_option("--before", a->before, "only jobs submitted and ended before this time, as jfp train");
    c->add_option("--train-fraction", a->train_fraction, "or: the earliest fraction of finished jobs (e.g. 0.7)")
        ->excludes(before)
        ->range(0.0, 1.0);
    c->add_option("--validation-fraction", a->opt.validation_fraction,
                  "latest part of the window marked for validation (early stopping and the threshold)")
        ->capture_default_str()
        ->range(0.01, 0.5);
    c->add_option("--rows-per-part", a->out.rows_per_part, "rows per CSV file")
        ->capture_default_str()
        ->range(uint64_t{1000}, uint64_t{1} << 40);
    c->add_flag("--replace", a->out.replace, "the directory holds an earlier export: replace it");
    c->add_option("--feature-log", a->opt.feature_log,
                  "the plugin's feature log: use the vectors it logged for jobs that carry its token");
    c->add_option("--script-archive", a->opt.script_archive,
                  "the plugin's script archive: script features for the jobs it kept");
    c->add_flag("-q,--quiet", a->quiet, "no summary");
    a->conf.add_option(c);
    c->callback([a] {
        a->conf.fill(a->db, ConfPath::Store, "--db", true);
        TrainOptions opt = a->opt;
        if (!a->before.empty()) opt.before = parse_time_option(a->before, "--before");
        if (a->train_fraction > 0) opt.train_fraction = a->train_fraction;
        run_export(a->db, opt, a->out, a->quiet);
    });
}

}  // namespace jfp
