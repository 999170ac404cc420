// jfp modules: the site's module index the plugin checks scripts against (jfp.conf modules_index).
//   index  runs Lmod's spider over the compute nodes' MODULEPATH (or reads its output, --from) and replaces
//          the index (tools/modules/module_index_build.h)
//   check  says what the plugin would say about scripts' module lines, as a user or admin runs it
#include <cstdio>
#include <cstdlib>

#include "tools/modules/module_check.h"
#include "tools/modules/module_index_build.h"
#include "tools/operations/operations.h"
#include "tools/options/site_conf.h"

namespace jfp {

namespace {

struct ModulesArgs {
    std::string conf, index;
    ModuleIndexRequest build;
    std::vector<std::string> scripts;
    bool quiet = false;
};

void run_index(ModulesArgs &a) {
    ModuleIndexRequest &r = a.build;
    if (r.out.empty()) {
        auto cfg = load_site_conf(a.conf.empty() ? default_conf_path() : a.conf, !a.conf.empty());
        if (cfg) r.out = cfg->modules_index;
        if (r.out.empty())
            throw UsageError("--out", "no index file named: give --out, or set modules_index in jfp.conf");
    }
    if (r.modulepath.empty())
        if (const char *m = std::getenv("MODULEPATH")) r.modulepath = m;
    if (r.modulepath.empty())
        throw UsageError("--modulepath", "no MODULEPATH: give the compute nodes' module directories, "
                                         "colon-separated, as their MODULEPATH is");
    const ModuleIndexWritten w = build_module_index(r);
    if (!a.quiet) std::printf("%s\n", module_index_summary(r, w).c_str());
}

void run_check(ModulesArgs &a) {
    if (a.index.empty()) {
        auto cfg = load_site_conf(a.conf.empty() ? default_conf_path() : a.conf, !a.conf.empty());
        if (cfg) a.index = cfg->modules_index;
        if (a.index.empty())
            throw UsageError("--index", "no module index named: give --index, or set modules_index in jfp.conf");
    }
    const size_t with_findings = check_scripts_modules(a.index, a.scripts, [&](const ScriptModuleReport &r) {
        std::fputs(module_report_text(r, a.quiet).c_str(), stdout);
    });
    if (with_findings) g_exit_status = 2;
}

}  // namespace

void add_modules_command(Command &app) {
    auto a = std::make_shared<ModulesArgs>();
    auto *m = app.add_subcommand("modules", "The site's module index, which the plugin checks scripts' module loads against");
    m->require_subcommand(1);
    auto *ix = m->add_subcommand("index", "Write the index from Lmod's spider over the compute nodes' MODULEPATH; "
                                          "refuses an empty one, or one less than half the last");
    ix->add_option("--out", a->build.out, "the index file (default: modules_index in jfp.conf)");
    ix->add_option("--conf", a->conf, "jfp.conf (default: beside $SLURM_CONF, else /etc/slurm/jfp.conf)");
    ix->add_option("--modulepath", a->build.modulepath, "module directories, colon-separated (default: $MODULEPATH)");
    auto *spider = ix->add_option("--spider", a->build.spider, "Lmod's spider (default: $LMOD_DIR/spider, else /usr/share/lmod/lmod/libexec/spider)");
    ix->add_flag("--allow-shrink", a->build.allow_shrink, "replace the index even when it lists less than half the modules it did");
    ix->add_flag("--allow-writers", a->build.allow_writers, "run the spider over a tree others than root and this user may write "
                                                            "(their modulefiles then run as this user)");
    ix->add_option("--from", a->build.from, "the output of Lmod's spider (spider -o spider-json MODULEPATH) run by another, "
                                            "unprivileged user, instead of running it here")
        ->excludes(spider);
    ix->add_flag("-q,--quiet", a->quiet, "print nothing on success");
    ix->callback([a] { run_index(*a); });
    auto *ck = m->add_subcommand("check", "Say what the plugin would say about these scripts' module loads; exit 2 "
                                          "when one loads a module the index does not have");
    ck->add_option("scripts", a->scripts, "batch scripts")->required();
    ck->add_option("--index", a->index, "the index (default: modules_index in jfp.conf)");
    ck->add_option("--conf", a->conf, "jfp.conf (default: beside $SLURM_CONF, else /etc/slurm/jfp.conf)");
    ck->add_flag("-q,--quiet", a->quiet, "print only the missing modules");
    ck->callback([a] { run_check(*a); });
}

}  // namespace jfp
