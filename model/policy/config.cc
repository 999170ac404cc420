#include "model/policy/config.h"

#include <cerrno>
#include <cmath>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "model/files/file_check.h"
#include "model/util/text.h"

namespace jfp {

const char *finding_action_name(FindingAction a) {
    switch (a) {
        case FindingAction::Off: return "off";
        case FindingAction::Warn: return "warn";
        case FindingAction::Reject: return "reject";
    }
    return "?";
}

const char *mode_name(Mode m) {
    switch (m) {
        case Mode::Off: return "off";
        case Mode::Shadow: return "shadow";
        case Mode::Warn: return "warn";
        case Mode::Annotate: return "annotate";
        case Mode::Reject: return "reject";
    }
    return "?";
}

const char *decide_by_name(DecideBy d) { return d == DecideBy::Waste ? "waste" : "probability"; }

std::optional<Mode> parse_mode(std::string_view s) {
    std::string v = to_lower(trim(s));
    if (v == "off") return Mode::Off;
    if (v == "shadow") return Mode::Shadow;
    if (v == "warn") return Mode::Warn;
    if (v == "annotate") return Mode::Annotate;
    if (v == "reject") return Mode::Reject;
    return std::nullopt;
}

std::string Config::resolved_feature_log_path() const {
    if (!feature_log_path.empty()) return feature_log_path;
    return path_beside(store_path, "features.db");
}

// One log line however broken the file: the first few errors, then how many more.
std::string ConfigParseResult::error_text() const {
    const size_t shown = 5;
    std::string out;
    for (size_t i = 0; i < errors.size() && i < shown; ++i) {
        const auto &e = errors[i];
        if (!out.empty()) out += "; ";
        out += config.origin;
        if (e.line > 0) out += ":" + std::to_string(e.line);
        out += ": " + e.message;
    }
    if (errors.size() > shown) out += "; and " + std::to_string(errors.size() - shown) + " more errors";
    return out;
}

namespace {

std::optional<bool> parse_bool(std::string_view s) {
    std::string v = to_lower(trim(s));
    if (v == "yes" || v == "true" || v == "1" || v == "on") return true;
    if (v == "no" || v == "false" || v == "0" || v == "off") return false;
    return std::nullopt;
}

std::optional<double> parse_probability(std::string_view s) {
    auto d = parse_double(trim(s));
    if (!d || *d < 0.0 || *d > 1.0) return std::nullopt;
    return d;
}

// A budget in billing-hours: finite and above 0 (a budget of 0 would act on every job).
std::optional<double> parse_budget(std::string_view s) {
    auto d = parse_double(trim(s));
    if (!d || !std::isfinite(*d) || *d <= 0.0 || *d > 1e12) return std::nullopt;
    return d;
}

std::set<std::string> parse_list(std::string_view s) {
    std::set<std::string> out;
    for (auto item : split(s, ',')) {
        auto t = trim(item);
        if (!t.empty()) out.emplace(t);
    }
    return out;
}

}  // namespace

ConfigParseResult parse_config(std::string_view text, const std::string &origin) {
    ConfigParseResult r;
    r.config.origin = origin;
    Config &c = r.config;
    int lineno = 0;
    for (auto raw : split(text, '\n')) {
        ++lineno;
        auto hash = raw.find('#');
        auto line = trim(hash == std::string_view::npos ? raw : raw.substr(0, hash));
        if (line.empty()) continue;
        auto eq = line.find('=');
        if (eq == std::string_view::npos) {
            r.errors.push_back({lineno, "expected key = value, found " + quote_for_message(line, 60)});
            continue;
        }
        // Keys are case-insensitive; the names after threshold.partition. keep their case (Slurm's partition
        // names are case-sensitive), accounts and QOS are lowercased (slurmctld lowercases an account after
        // job_submit and matches QOS names without case).
        const std::string_view raw_key = trim(line.substr(0, eq));
        std::string key = to_lower(raw_key);
        std::string_view value = trim(line.substr(eq + 1));
        auto bad = [&](const std::string &what) {
            r.errors.push_back({lineno, "invalid value " + quote_for_message(value, 60) + " for " + key + ": " + what});
        };
        auto set_threshold_map = [&](std::map<std::string, double> &m, std::string_view name) {
            if (name.empty()) return bad("missing name after the dot");
            auto p = parse_probability(value);
            if (!p) return bad("expected a probability between 0 and 1");
            m[std::string(name)] = *p;
        };
        auto set_budget_map = [&](std::map<std::string, double> &m, std::string_view name) {
            if (name.empty()) return bad("missing name after the dot");
            auto b = parse_budget(value);
            if (!b) return bad("expected a number of billing-hours above 0");
            m[std::string(name)] = *b;
        };

        if (key == "mode") {
            auto m = parse_mode(value);
            if (!m) bad("expected off, shadow, warn, annotate or reject");
            else c.mode = *m;
        } else if (key == "model") {
            if (value.empty()) bad("expected a path to a model bundle");
            else c.model_path = value;
        } else if (key == "store") {
            if (value.empty()) bad("expected a path to the history store");
            else c.store_path = value;
        } else if (key == "feature_log") {
            c.feature_log_path = value;
        } else if (key == "script_archive") {
            if (!value.empty() && value.front() != '/') bad("expected an absolute path (or nothing: no archive)");
            else c.script_archive_path = value;
        } else if (key == "script_archive_env") {
            auto b = parse_bool(value);
            if (!b) bad("expected yes or no");
            else c.script_archive_env = *b;
        } else if (key == "script_archive_queue_mb") {
            auto n = parse_int(value);
            if (!n || *n < 1 || *n > 4096) bad("expected a whole number of MiB between 1 and 4096");
            else c.script_archive_queue_bytes = *n << 20;
        } else if (key == "user_mb_per_day" || key == "script_archive_user_mb_per_day") {  // the second: its name before 0.5
            auto n = parse_int(value);
            if (!n || *n < 1 || *n > (int64_t(1) << 20)) bad("expected a whole number of MiB between 1 and 1048576");
            else c.user_write_bytes_per_day = *n << 20;
        } else if (key == "checkpoint_url") {
            if (value.size() > 200 || value.find_first_of(" \t") != std::string_view::npos) bad("expected one URL of at most 200 characters");
            else c.checkpoint_url = value;
        } else if (key == "threshold") {
            auto p = parse_probability(value);
            if (!p) bad("expected a probability between 0 and 1");
            else c.threshold = *p;
        } else if (starts_with(key, "threshold.partition.")) {
            set_threshold_map(c.partition_threshold, raw_key.substr(20));
        } else if (starts_with(key, "threshold.account.")) {
            set_threshold_map(c.account_threshold, std::string_view(key).substr(18));
        } else if (starts_with(key, "threshold.qos.")) {
            set_threshold_map(c.qos_threshold, std::string_view(key).substr(14));
        } else if (key == "decide_by") {
            const std::string v = to_lower(value);
            if (v == "probability") c.decide_by = DecideBy::Probability;
            else if (v == "waste") c.decide_by = DecideBy::Waste;
            else bad("expected probability or waste");
        } else if (key == "waste_budget") {
            auto b = parse_budget(value);
            if (!b) bad("expected a number of billing-hours above 0");
            else c.waste_budget = *b;
        } else if (starts_with(key, "waste_budget.partition.")) {
            set_budget_map(c.partition_waste_budget, raw_key.substr(23));
        } else if (starts_with(key, "waste_budget.account.")) {
            set_budget_map(c.account_waste_budget, std::string_view(key).substr(21));
        } else if (starts_with(key, "waste_budget.qos.")) {
            set_budget_map(c.qos_waste_budget, std::string_view(key).substr(17));
        } else if (key == "exempt_users") {
            c.exempt_users = parse_list(value);
        } else if (key == "exempt_accounts") {
            for (const auto &a : parse_list(value)) c.exempt_accounts.insert(to_lower(a));
        } else if (key == "exempt_partitions") {
            c.exempt_partitions = parse_list(value);
        } else if (key == "exempt_qos") {
            for (const auto &q : parse_list(value)) c.exempt_qos.insert(to_lower(q));
        } else if (key == "min_history") {
            auto n = parse_int(value);
            if (!n || *n < 0 || *n > 1000000) bad("expected a whole number >= 0");
            else c.min_history = static_cast<int>(*n);
        } else if (key == "allow_override") {
            auto b = parse_bool(value);
            if (!b) bad("expected yes or no");
            else c.allow_override = *b;
        } else if (key == "modules_index") {
            if (!value.empty() && value.front() != '/') bad("expected an absolute path (or nothing: no module check)");
            else c.modules_index = value;
        } else if (key == "missing_modules") {
            if (value == "off") c.missing_modules = FindingAction::Off;
            else if (value == "warn") c.missing_modules = FindingAction::Warn;
            else if (value == "reject") c.missing_modules = FindingAction::Reject;
            else bad("expected off, warn or reject");
        } else if (key == "ignored_directives") {
            if (value == "off") c.ignored_directives = FindingAction::Off;
            else if (value == "warn") c.ignored_directives = FindingAction::Warn;
            else if (value == "reject") c.ignored_directives = FindingAction::Reject;
            else bad("expected off, warn or reject");
        } else if (key == "reject_below_target") {
            auto b = parse_bool(value);
            if (!b) bad("expected yes or no");
            else c.reject_below_target = *b;
        } else if (key == "reject_privileged") {
            auto b = parse_bool(value);
            if (!b) bad("expected yes or no");
            else c.reject_privileged = *b;
        } else if (key == "override_token") {
            if (value.size() < 3 || value.find_first_of(" \t,|") != std::string_view::npos)
                bad("expected a word of at least 3 characters without spaces, commas or '|'");
            else c.override_token = value;
        } else if (key == "annotate_field") {
            bool comment = false, admin = false, any_bad = false;
            for (const auto &f : parse_list(to_lower(value))) {
                if (f == "comment") comment = true;
                else if (f == "admin_comment") admin = true;
                else any_bad = true;
            }
            if (any_bad || (!comment && !admin)) bad("expected comment, admin_comment or both, comma separated");
            else { c.annotate_comment = comment; c.annotate_admin_comment = admin; }
        } else if (key == "explain") {
            auto b = parse_bool(value);
            if (!b) bad("expected yes or no");
            else c.explain = *b;
        } else if (key == "log_queue_size") {
            auto n = parse_int(value);
            if (!n || *n < 0 || *n > 10000000) bad("expected a whole number between 0 and 10000000");
            else c.log_queue_size = static_cast<size_t>(*n);
        } else if (key == "stats_interval") {
            auto d = parse_double(value);
            if (!d || *d < 0 || *d > 86400) bad("expected seconds between 0 and 86400 (0: no statistics lines)");
            else c.stats_interval_seconds = *d;
        } else if (key == "update_budget_ms") {
            auto d = parse_double(value);
            if (!d || *d < 0 || *d > 1000)
                bad("expected milliseconds between 0 and 1000 (0: every record of an update is judged, however many)");
            else c.update_budget_ms = *d;
        } else if (key == "metrics_file") {
            if (!value.empty() && value.front() != '/') bad("expected an absolute path (or nothing: no metrics file)");
            else c.metrics_file = value;
        } else if (key == "metrics_interval") {
            auto d = parse_double(value);
            if (!d || *d < 1 || *d > 3600) bad("expected seconds between 1 and 3600");
            else c.metrics_interval_seconds = *d;
        } else if (key == "start_wait") {
            auto d = parse_double(value);
            if (!d || *d < 0 || *d > 60) bad("expected seconds between 0 and 60 (0: slurmctld does not wait for the history)");
            else c.start_wait_seconds = *d;
        } else if (key == "reload_interval") {
            auto d = parse_double(value);
            if (!d || *d < 0 || *d > 3600) bad("expected seconds between 0 and 3600");
            else c.reload_interval_seconds = *d;
        } else {
            r.errors.push_back({lineno, "unknown key " + quote_for_message(key, 60) + " (see jfp.conf(5) for the keys)"});
        }
    }
    return r;
}

ConfigParseResult config_too_big(const std::string &path) {
    ConfigParseResult r;
    r.config.origin = path;
    r.errors.push_back({0, "larger than 1 MiB: not a jfp.conf (see jfp.conf(5)); refused unread"});
    return r;
}

ConfigParseResult load_config_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        ConfigParseResult r;
        r.config.origin = path;
        r.errors.push_back({0, std::string("cannot read: ") + std::strerror(errno)});
        return r;
    }
    // A jfp.conf is a few hundred bytes; a huge file is the wrong file, and is not read into slurmctld.
    const std::streamsize limit = 1 << 20;
    std::string text(static_cast<size_t>(limit) + 1, '\0');
    in.read(text.data(), limit + 1);
    text.resize(static_cast<size_t>(in.gcount()));
    if (static_cast<std::streamsize>(text.size()) > limit) return config_too_big(path);
    return parse_config(text, path);
}

namespace {
std::string num(double v) { return number_text(v); }
std::string list(const std::set<std::string> &s) {
    std::string o;
    for (const auto &x : s) o += (o.empty() ? "" : ",") + x;
    return o.empty() ? "none" : o;
}
const char *yes(bool b) { return b ? "yes" : "no"; }
}  // namespace

std::map<std::string, std::string> config_settings(const Config &c) {
    std::map<std::string, std::string> m = {
        {"mode", mode_name(c.mode)},
        {"model", c.model_path},
        {"store", c.store_path},
        {"feature_log", c.resolved_feature_log_path()},
        {"script_archive", c.script_archive_path.empty() ? "none" : c.script_archive_path},
        {"script_archive_env", yes(c.script_archive_env)},
        {"script_archive_queue_mb", std::to_string(c.script_archive_queue_bytes >> 20)},
        {"user_mb_per_day", std::to_string(c.user_write_bytes_per_day >> 20)},
        {"checkpoint_url", c.checkpoint_url.empty() ? "none" : c.checkpoint_url},
        {"threshold", c.threshold ? num(*c.threshold) : "the model's"},
        {"decide_by", decide_by_name(c.decide_by)},
        {"waste_budget", c.waste_budget ? num(*c.waste_budget) : "the model's"},
        {"exempt_users", list(c.exempt_users)},
        {"exempt_accounts", list(c.exempt_accounts)},
        {"exempt_partitions", list(c.exempt_partitions)},
        {"exempt_qos", list(c.exempt_qos)},
        {"min_history", std::to_string(c.min_history)},
        {"allow_override", yes(c.allow_override)},
        {"reject_privileged", yes(c.reject_privileged)},
        {"reject_below_target", yes(c.reject_below_target)},
        {"ignored_directives", finding_action_name(c.ignored_directives)},
        {"modules_index", c.modules_index.empty() ? "none" : c.modules_index},
        {"missing_modules", finding_action_name(c.missing_modules)},
        {"override_token", c.override_token},
        {"annotate_field", std::string(c.annotate_comment ? "comment" : "") +
                               (c.annotate_comment && c.annotate_admin_comment ? "," : "") +
                               (c.annotate_admin_comment ? "admin_comment" : "")},
        {"explain", yes(c.explain)},
        {"log_queue_size", std::to_string(c.log_queue_size)},
        {"reload_interval", num(c.reload_interval_seconds)},
        {"start_wait", num(c.start_wait_seconds)},
        {"stats_interval", num(c.stats_interval_seconds)},
        {"update_budget_ms", num(c.update_budget_ms)},
        {"metrics_file", c.metrics_file.empty() ? "none" : c.metrics_file},
        {"metrics_interval", num(c.metrics_interval_seconds)},
    };
    for (const auto &[k, v] : c.partition_threshold) m["threshold.partition." + k] = num(v);
    for (const auto &[k, v] : c.account_threshold) m["threshold.account." + k] = num(v);
    for (const auto &[k, v] : c.qos_threshold) m["threshold.qos." + k] = num(v);
    for (const auto &[k, v] : c.partition_waste_budget) m["waste_budget.partition." + k] = num(v);
    for (const auto &[k, v] : c.account_waste_budget) m["waste_budget.account." + k] = num(v);
    for (const auto &[k, v] : c.qos_waste_budget) m["waste_budget.qos." + k] = num(v);
    return m;
}

std::string config_changes(const Config &before, const Config &after) {
    auto a = config_settings(before), b = config_settings(after);
    std::string out;
    for (const auto &[k, v] : b) {
        auto it = a.find(k);
        if (it != a.end() && it->second == v) continue;
        out += (out.empty() ? "" : ", ") + k + "=" + v + " (was " + (it == a.end() ? std::string("unset") : it->second) + ")";
    }
    for (const auto &[k, v] : a)
        if (!b.count(k)) out += (out.empty() ? "" : ", ") + k + " unset (was " + v + ")";
    return out;
}

}  // namespace jfp
