// jfp.conf: the admin's policy, a key=value file beside slurm.conf. See docs/jfp.conf.5.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace jfp {

enum class Mode { Off, Shadow, Warn, Annotate, Reject };

// What a job is judged by: its probability of failing against a threshold, or the work its failure would
// waste (p x what it asks for, in the site's billing units) against a budget (docs/jfp.conf.5, "Deciding by
// waste").
enum class DecideBy : uint8_t { Probability, Waste };
const char *decide_by_name(DecideBy d);

const char *mode_name(Mode m);

// What to do with a finding in the script itself (an #SBATCH line sbatch ignored): certain, so it has its
// own action, apart from the model's threshold.
enum class FindingAction : uint8_t { Off, Warn, Reject };
const char *finding_action_name(FindingAction a);
std::optional<Mode> parse_mode(std::string_view s);

struct Config {
    Mode mode = Mode::Shadow;
    std::string model_path = "/var/lib/jfp/model.json";
    std::string store_path = "/var/lib/jfp/history.db";
    std::string feature_log_path;  // empty: "<store dir>/features.db"
    // Job scripts kept at submission (docs/admin-guide.md, "The script archive"); empty: not kept.
    std::string script_archive_path;
    bool script_archive_env = false;                    // keep the submit environment too
    int64_t script_archive_queue_bytes = int64_t(64) << 20;  // slurmctld memory the queue may hold
    // What one user's requests may add to the feature log and the script archive in a day (UserWriteBudget).
    int64_t user_write_bytes_per_day = int64_t(256) << 20;
    // The site's page on checkpointing, named to users warned of a likely TIMEOUT whose script shows none.
    std::string checkpoint_url;

    std::optional<double> threshold;  // unset: the model bundle's threshold
    std::map<std::string, double> partition_threshold, account_threshold, qos_threshold;

    DecideBy decide_by = DecideBy::Probability;
    // Expected waste (billing-hours; core-hours where slurm.conf sets no TRESBillingWeights) a job may carry
    // before it is acted on; unset: the model bundle's. Most specific first, as thresholds.
    std::optional<double> waste_budget;
    std::map<std::string, double> partition_waste_budget, account_waste_budget, qos_waste_budget;

    std::set<std::string> exempt_users, exempt_accounts, exempt_partitions, exempt_qos;

    // Prior runs of the same user + job name needed before a job may be rejected.
    int min_history = 1;
    bool allow_override = false;
    // Reject root's and SlurmUser's jobs too (otherwise they are warned where others are rejected).
    bool reject_privileged = false;
    bool reject_below_target = false;  // reject with a model that missed its target precision
    std::string override_token = "jfp:override";
    // #SBATCH lines sbatch ignored (after the first command, or indented): said to the user by default.
    FindingAction ignored_directives = FindingAction::Warn;
    // The site's modules (Lmod's spider-json, model/script/module_index.h): a module the script loads that
    // exists nowhere in it is said to the user. Empty: no module check.
    std::string modules_index;
    FindingAction missing_modules = FindingAction::Warn;

    bool annotate_comment = true;
    bool annotate_admin_comment = false;
    // The warn/reject message carries the reason from the model's top contributions.
    bool explain = true;

    size_t log_queue_size = 10000;
    double reload_interval_seconds = 1.0;  // at most one stat of the watched files per interval
    double start_wait_seconds = 5.0;       // slurmctld's start waits this long at most for the first history load
    double stats_interval_seconds = 600;   // how often to log job_submit's cost and decisions; 0: never
    // jfp's own time for one update RPC (scontrol update reaching many job records, under slurmctld's job
    // write lock): once its records have taken this long, the RPC's further records are not judged. 0: no bound.
    double update_budget_ms = 4;
    // The plugin's counters in Prometheus' text format (node_exporter's textfile collector reads *.prom files);
    // empty: not written.
    std::string metrics_file;
    double metrics_interval_seconds = 60;

    // Where this config came from (for log lines); empty for defaults.
    std::string origin;

    std::string resolved_feature_log_path() const;
    // Whether a setting names this partition (a threshold or an exemption).
    bool names_partition(std::string_view p) const {
        return partition_threshold.count(std::string(p)) || exempt_partitions.count(std::string(p));
    }
};

struct ConfigError {
    int line = 0;
    std::string message;
};

struct ConfigParseResult {
    Config config;
    std::vector<ConfigError> errors;  // any error means the file must not be used
    bool ok() const { return errors.empty(); }
    std::string error_text() const;  // all errors, one per line, with origin:line
};

// Every setting as jfp.conf would write it ("threshold.partition.gpu" -> "0.4"), defaults included: what a
// reload compares to say what changed.
std::map<std::string, std::string> config_settings(const Config &c);
// "threshold=0.4 (was 0.5), exempt_users=alice (was none)"; empty when nothing changed.
std::string config_changes(const Config &before, const Config &after);

// Parses jfp.conf text. Keys are case-insensitive; '#' starts a comment; values may not span lines.
ConfigParseResult parse_config(std::string_view text, const std::string &origin);

// Reads and parses a file; a missing or unreadable file is an error naming the path.
ConfigParseResult load_config_file(const std::string &path);
// A jfp.conf is a few hundred bytes: a larger file is the wrong file, refused unread.
inline constexpr size_t kMaxConfigBytes = 1 << 20;
ConfigParseResult config_too_big(const std::string &path);

}  // namespace jfp
