// jfp check: a site's setup as slurmctld will meet it, every problem with its fix. Reads jfp.conf and
// slurm.conf (JobSubmitPlugins, SlurmUser, PluginDir) and checks the plugin file and its Slurm release, the
// trust chain of config, model and store (owners, modes, links, the directories above), what SlurmUser
// can create, the store's freshness and coverage, the model's verdict, the exemptions' names, and the enabled
// units' user and sandbox against SlurmUser and those paths.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace jfp {

struct Finding {
    enum class Level { Ok, Warning, Problem };
    Level level = Level::Ok;
    std::string what;
    std::string fix;  // empty for Ok
};

struct SiteCheckOptions {
    std::string conf_path;            // jfp.conf
    std::string slurm_conf_path;      // slurm.conf
    std::string slurmctld = "slurmctld";  // asked for its version (-V)
    std::string default_plugin_dir;   // Slurm's compiled-in PluginDir, for a slurm.conf that sets none
    int64_t now = 0;                  // naive-local, as the store's times
    double stale_hours = 48;          // a store whose latest job ended longer ago is not being fed
    std::string systemd_root;         // where the jfp units are looked for: "" for /, else as systemctl --root
};

std::vector<Finding> check_site(const SiteCheckOptions &opt);

}  // namespace jfp
