// The site's jfp.conf as the jfp command reads it: the file the plugin reads (beside slurm.conf) unless
// --conf names another, so that on the controller `jfp eval --after 2026-11-01` finds the store and model
// the plugin uses. Flags still win.
#pragma once

#include "tools/options/command_line.h"

#include <optional>
#include <string>

#include "model/jobs/cluster_defaults.h"
#include "model/policy/config.h"

namespace jfp {

// jfp.conf beside $SLURM_CONF, else /etc/slurm/jfp.conf: where slurmctld's plugin looks.
std::string default_conf_path();

// The slurm.conf to read with a jfp.conf: $SLURM_CONF, else beside the jfp.conf.
std::string slurm_conf_for(const std::string &jfp_conf);

// The parsed file; nothing when the file does not exist and `explicit_path` is false (a machine without
// jfp.conf, such as a training host). Throws on a file that exists but does not parse, and on a missing
// file the user named.
std::optional<Config> load_site_conf(const std::string &path, bool explicit_path);

// The slurm.conf whose TRESBillingWeights price jobs for the waste measures: `path` when given (an error
// when unreadable), else $SLURM_CONF or /etc/slurm/slurm.conf when it exists; else empty defaults, which
// price every job by its CPUs (core-hours). A TRESBillingWeights Slurm would refuse prices that partition by CPU (warned on stderr), as the plugin does.
ClusterDefaults load_billing_conf(const std::string &path);
inline constexpr const char *kSlurmConfHelp =
    "slurm.conf whose TRESBillingWeights price jobs in billing-hours (default: $SLURM_CONF, else /etc/slurm/slurm.conf, "
    "when it exists; without one, jobs are priced in core-hours)";

enum class ConfPath { Store, Model, FeatureLog, ScriptArchive, Metrics };

// A subcommand's --conf and the paths it supplies.
class ConfDefaults {
public:
    ConfDefaults() = default;
    explicit ConfDefaults(std::string conf) : conf_(std::move(conf)) {}
    // Adds --conf to the subcommand.
    void add_option(Command *c);
    // An empty value from jfp.conf (store, model, feature_log, script_archive, metrics_file). Required and
    // still empty (no jfp.conf, or it sets none): a usage error naming the option and the file looked at.
    // Not required: taken when the file it names exists. (Commands fill only what they cannot run without:
    // an optional input such as --script-archive changes what they compute, so it stays the user's choice.)
    void fill(std::string &value, ConfPath what, const char *option, bool required) const;

private:
    const std::optional<Config> &config() const;
    std::string conf_;
    mutable bool loaded_ = false;
    mutable std::optional<Config> config_;
};

}  // namespace jfp
