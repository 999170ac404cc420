#include "tools/cli/site_conf.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace jfp {

std::string default_conf_path() {
    const char *sc = std::getenv("SLURM_CONF");
    std::string slurm_conf = sc && *sc ? sc : "/etc/slurm/slurm.conf";
    auto slash = slurm_conf.rfind('/');
    return (slash == std::string::npos ? std::string(".") : slurm_conf.substr(0, slash)) + "/jfp.conf";
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

}  // namespace jfp
