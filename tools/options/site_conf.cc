#include "tools/options/site_conf.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "model/files/file_check.h"

namespace jfp {

std::string default_conf_path() {
    const char *sc = std::getenv("SLURM_CONF");
    std::string slurm_conf = sc && *sc ? sc : "/etc/slurm/slurm.conf";
    return path_beside(slurm_conf, "jfp.conf");
}

std::string slurm_conf_for(const std::string &jfp_conf) {
    if (const char *sc = std::getenv("SLURM_CONF"); sc && *sc) return sc;
    return path_beside(jfp_conf, "slurm.conf");
}

ClusterDefaults load_billing_conf(const std::string &path) {
    std::string p = path;
    if (p.empty()) {
        const char *sc = std::getenv("SLURM_CONF");
        p = sc && *sc ? sc : "/etc/slurm/slurm.conf";
        struct stat st {};
        if (::stat(p.c_str(), &st) != 0) return ClusterDefaults{};
    }
    std::string err;
    ClusterDefaults d = load_slurm_conf(p, &err);
    if (!err.empty()) throw std::runtime_error(err + "; give the cluster's slurm.conf (--slurm-conf), or none to price jobs by CPU");
    for (const auto &problem : d.problems)
        std::fprintf(stderr, "jfp: warning: %s: %s; that partition's jobs are priced by CPU (fix it as slurm.conf(5) says)\n",
                     p.c_str(), problem.c_str());
    return d;
}

std::optional<Config> load_site_conf(const std::string &path, bool explicit_path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (errno == ENOENT && !explicit_path) return std::nullopt;
        throw std::runtime_error(path + ": " + std::strerror(errno) +
                                 (explicit_path ? "; give the jfp.conf the plugin reads (--conf)" : ""));
    }
    ConfigParseResult r = load_config_file(path);
    if (!r.ok()) throw std::runtime_error(r.error_text() + "\nfix jfp.conf (see jfp.conf(5)) or give another with --conf");
    return r.config;
}

void ConfDefaults::add_option(Command *c) {
    c->add_option("--conf", conf_,
                  "jfp.conf to take paths from that are not given (default: beside $SLURM_CONF, else /etc/slurm/jfp.conf)");
}

const std::optional<Config> &ConfDefaults::config() const {
    if (!loaded_) {
        config_ = load_site_conf(conf_.empty() ? default_conf_path() : conf_, !conf_.empty());
        loaded_ = true;
    }
    return config_;
}

void ConfDefaults::fill(std::string &value, ConfPath what, const char *option, bool required) const {
    if (!value.empty()) return;
    static const char *const keys[] = {"store", "model", "feature_log", "script_archive", "metrics_file"};
    const char *key = keys[static_cast<int>(what)];
    const auto &cfg = config();
    std::string from;
    if (cfg) {
        switch (what) {
            case ConfPath::Store: from = cfg->store_path; break;
            case ConfPath::Model: from = cfg->model_path; break;
            case ConfPath::FeatureLog: from = cfg->resolved_feature_log_path(); break;
            case ConfPath::ScriptArchive: from = cfg->script_archive_path; break;
            case ConfPath::Metrics: from = cfg->metrics_file; break;
        }
    }
    struct stat st {};
    if (!from.empty() && (required || ::stat(from.c_str(), &st) == 0)) {
        value = from;
        return;
    }
    if (!required) return;
    const std::string conf = conf_.empty() ? default_conf_path() : conf_;
    // The plugin writes the metrics file only when jfp.conf names one: say so, or the advice goes in circles.
    const std::string why = what == ConfPath::Metrics && cfg
                                ? ", so the plugin in slurmctld writes none: add metrics_file = /var/lib/jfp/metrics.prom to " +
                                      conf + " (the plugin then writes it every metrics_interval, default 60 s), or"
                                : ";";
    throw UsageError(option, std::string("not given, and ") +
                                           (cfg ? conf + " sets no " + key : "there is no " + conf + " to take " + key + " from") +
                                           why + " give " + option + " or --conf");
}

}  // namespace jfp
