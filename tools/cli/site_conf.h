// The site's jfp.conf as the jfp command reads it: the file the plugin reads (beside slurm.conf) unless
// --conf names another, so commands on the controller find the model, store and logs the plugin uses.
#pragma once

#include <optional>
#include <string>

#include "model/policy/config.h"

namespace jfp {

// jfp.conf beside $SLURM_CONF, else /etc/slurm/jfp.conf: where slurmctld's plugin looks.
std::string default_conf_path();

// The parsed file; nothing when the file does not exist and `explicit_path` is false (a machine without
// jfp.conf, such as a training host). Throws on a file that exists but does not parse, and on a missing
// file the user named.
std::optional<Config> load_site_conf(const std::string &path, bool explicit_path);

}  // namespace jfp
