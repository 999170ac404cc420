// jfp publish: installs a model bundle where jfp.conf's `model` points, unless the history rules or the
// model installed beat it (tools/publish/publish.h); --rollback puts the previous one back.
#include <sys/stat.h>

#include <iostream>
#include <stdexcept>

#include "tools/operations/operations.h"
#include "tools/options/site_conf.h"
#include "tools/publish/publish.h"

namespace jfp {

namespace {

struct PublishArgs {
    std::string conf, target, db;
    PublishRequest run;
};

std::string target_path(const PublishArgs &a) {
    if (!a.target.empty()) return a.target;
    std::string conf = a.conf.empty() ? default_conf_path() : a.conf;
    auto cfg = load_site_conf(conf, !a.conf.empty());
    if (!cfg)
        throw std::runtime_error("no " + conf + ": say where the plugin reads its model with --target PATH, or name the jfp.conf with --conf");
    return cfg->model_path;
}

std::string store_path(const PublishArgs &a) {
    if (!a.db.empty()) return a.db;
    std::string conf = a.conf.empty() ? default_conf_path() : a.conf;
    auto cfg = load_site_conf(conf, !a.conf.empty());
    if (!cfg) return "";
    struct stat st {};
    return ::stat(cfg->store_path.c_str(), &st) == 0 ? cfg->store_path : "";
}

}  // namespace

void add_publish_command(Command &app) {
    auto a = std::make_shared<PublishArgs>();
    auto *c = app.add_subcommand("publish",
                                 "Install a model bundle where jfp.conf's model points, unless a history rule or the model "
                                 "installed beats it; keep the previous one (--rollback)");
    c->add_option("BUNDLE", a->run.bundle, "the bundle jfp train wrote");
    c->add_option("--conf", a->conf, "the jfp.conf the plugin reads (default: beside $SLURM_CONF, else /etc/slurm/jfp.conf)");
    c->add_option("--target", a->target, "install here instead of jfp.conf's model");
    c->add_option("--db", a->db, "history store to judge the bundle on (default: jfp.conf's store, when it exists)");
    c->add_option("--min-failures", a->run.min_failures,
                  "failed jobs since the training cutoff needed to judge on them rather than on the bundle's validation")
        ->capture_default_str();
    c->add_flag("--force", a->run.force, "publish even a bundle the rules or the installed model beat");
    c->add_flag("--rollback", a->run.rollback, "put back the model the last publish replaced");
    c->callback([a] {
        if (a->run.rollback && !a->run.bundle.empty())
            throw UsageError("--rollback", "takes no bundle: it puts back the one jfp publish kept");
        if (!a->run.rollback && a->run.bundle.empty()) throw UsageError("BUNDLE", "give the bundle jfp train wrote, or --rollback");
        const PublishArgs *args = a.get();  // not the shared pointer: the request is part of what it points to
        a->run.target = [args] { return target_path(*args); };
        a->run.store = [args] { return store_path(*args); };
        if (publish_model(a->run, std::cout, std::cerr) == PublishResult::Refused) g_exit_status = 1;
    });
}

}  // namespace jfp
