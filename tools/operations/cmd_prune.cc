// jfp prune: retention for the history store and the plugin's feature log (the script archive has
// `jfp scripts prune`), and what requests that never became jobs left (tools/prune/). Run from
// jfp-prune.timer, as SlurmUser, while slurmctld and `jfp ingest --follow` keep working.
#include <iostream>

#include "tools/operations/operations.h"
#include "tools/options/site_conf.h"
#include "tools/prune/feature_log_prune.h"
#include "tools/prune/orphan_prune.h"
#include "tools/prune/store_prune.h"

namespace jfp {

namespace {

struct PruneArgs {
    ConfDefaults conf;
    std::string older_than;
    PruneRequest run;
};

// The request with its age (--older-than, or --grace) parsed.
const PruneRequest &parsed(PruneArgs &a, const char *option) {
    a.run.age = parse_age_seconds(a.older_than, option);
    a.run.age_text = a.older_than;
    return a.run;
}

void add_common(Command *c, PruneArgs *a, const char *age_example) {
    c->add_option("--older-than", a->older_than, std::string("age: ") + age_example + ", 12w, 36h or a number of days")->required();
    c->add_flag("--dry-run", a->run.dry_run, "only count");
    c->add_flag("--vacuum", a->run.vacuum,
                "then give the freed space back to the file system: rewrites the file under its write lock, which "
                "writers wait for only 5 s (run it when the cluster is quiet; freed pages are reused anyway)");
    c->add_flag("--force", a->run.force, "allow an age under 30 days");
    a->conf.add_option(c);
}

}  // namespace

void add_prune_command(Command &app) {
    auto *c = app.add_subcommand("prune", "Retention: remove old jobs from the history store, old rows from the feature log, "
                                          "what requests that never became jobs left");
    c->require_subcommand(1);

    auto store_args = std::make_shared<PruneArgs>();
    auto *store = c->add_subcommand("store", "Remove jobs that ended before the age given (never jobs still queued or running)");
    store->add_option("--db", store_args->run.db, "the history store (store in jfp.conf)");
    add_common(store, store_args.get(), "730d");
    store->callback([a = store_args] {
        a->conf.fill(a->run.db, ConfPath::Store, "--db", true);
        prune_store(parsed(*a, "--older-than"), std::cout);
    });

    auto orphan_args = std::make_shared<PruneArgs>();
    auto *orphans = c->add_subcommand(
        "orphans", "Remove the feature-log rows and archived scripts of requests that never became jobs (the store "
                   "holds no job with their token), once the store has jobs submitted a grace after them");
    orphans->add_option("--db", orphan_args->run.db, "the history store, fed by jfp ingest --from-sacct (store in jfp.conf)");
    orphans->add_option("--feature-log", orphan_args->run.feature_log, "the plugin's feature log (feature_log in jfp.conf)");
    orphans->add_option("--archive", orphan_args->run.archive, "the script archive (script_archive in jfp.conf)");
    orphan_args->older_than = "30d";
    orphans->add_option("--grace", orphan_args->older_than, "how long a request may wait in the queue before it counts: 30d, 4w or days")
        ->capture_default_str();
    orphans->add_flag("--dry-run", orphan_args->run.dry_run, "only count");
    orphans->add_flag("--force", orphan_args->run.force, "allow a grace under 7 days");
    orphan_args->conf.add_option(orphans);
    orphans->callback([a = orphan_args] {
        a->conf.fill(a->run.db, ConfPath::Store, "--db", true);
        a->conf.fill(a->run.feature_log, ConfPath::FeatureLog, "--feature-log", false);
        a->conf.fill(a->run.archive, ConfPath::ScriptArchive, "--archive", false);
        prune_orphans(parsed(*a, "--grace"), std::cout);
    });

    auto log_args = std::make_shared<PruneArgs>();
    auto *log = c->add_subcommand("feature-log", "Remove the plugin's rows of jobs scored before the age given");
    log->add_option("--feature-log", log_args->run.feature_log, "the plugin's feature log (feature_log in jfp.conf)");
    add_common(log, log_args.get(), "180d");
    log->callback([a = log_args] {
        a->conf.fill(a->run.feature_log, ConfPath::FeatureLog, "--feature-log", true);
        prune_feature_log_rows(parsed(*a, "--older-than"), std::cout);
    });
}

}  // namespace jfp
