// jfp parity: do the features the plugin computed at submission equal the ones the trainer rebuilds
// from sacct? Per feature, over every job that carries a logged token (the work: tools/score/feature_parity.h).
#include <memory>

#include "tools/commands/commands.h"
#include "tools/options/site_conf.h"
#include "tools/score/feature_parity.h"

namespace jfp {

namespace {

struct ParityArgs : ParityOptions {
    ConfDefaults conf;  // --conf: the paths not given
    std::string after_text, before_text;
};

}  // namespace

void add_parity_command(Command &app) {
    auto a = std::make_shared<ParityArgs>();
    auto *c = app.add_subcommand("parity",
                                 "Compare the features the plugin logged at submission with those rebuilt from sacct");
    c->add_option("--db", a->db, "history store (with the jobs' AdminComment ingested)");
    c->add_option("--feature-log", a->feature_log, "the plugin's feature log (feature_log in jfp.conf)");
    c->add_option("--tolerance", a->tolerance, "relative tolerance")->capture_default_str();
    c->add_option("--after", a->after_text, "only jobs submitted at or after this time");
    c->add_option("--before", a->before_text, "only jobs submitted before this time");
    c->add_option("--script-archive", a->script_archive,
                  "the plugin's script archive: rebuild script features from the archived scripts too");
    c->add_flag("--json", a->json, "print one JSON object");
    c->footer("sacct exports carry no scripts: without --script-archive, script features differ by design. "
              "script_missing_modules is not compared: it depends on the module index the plugin read at "
              "submission, which is not kept.");
    a->conf.add_option(c);
    c->callback([a] {
        a->conf.fill(a->db, ConfPath::Store, "--db", true);
        a->conf.fill(a->feature_log, ConfPath::FeatureLog, "--feature-log", true);
        ParityOptions o = *a;
        if (!a->after_text.empty()) o.after = parse_time_option(a->after_text, "--after");
        if (!a->before_text.empty()) o.before = parse_time_option(a->before_text, "--before");
        run_parity(o);
    });
}

}  // namespace jfp
