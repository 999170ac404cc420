#include "tools/check/site_check.h"
#include "tools/check/running_plugin.h"

#include <nlohmann/json.hpp>

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "model/store/history_store.h"
#include "model/snapshot/snapshot_file.h"
#include "model/snapshot/snapshot_resume.h"
#include "model/policy/config.h"
#include "model/scoring/model_bundle.h"
#include "model/files/file_check.h"
#include "model/util/time_util.h"
#include "tools/check/slurm_conf.h"
#include "tools/check/storage_check.h"
#include "tools/check/unit_files.h"
#include "tools/evaluate/verdict.h"
#include "tools/process/subprocess.h"

namespace jfp {

namespace {

using Level = Finding::Level;

struct Account {
    std::string name;
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> groups;
};

std::optional<Account> account(const std::string &name) {
    struct passwd pw {}, *res = nullptr;
    char buf[4096];
    if (getpwnam_r(name.c_str(), &pw, buf, sizeof buf, &res) != 0 || !res) return std::nullopt;
    Account a{name, res->pw_uid, res->pw_gid, {}};
    int n = 64;
    a.groups.resize(64);
    if (getgrouplist(name.c_str(), res->pw_gid, a.groups.data(), &n) < 0) {
        a.groups.resize(static_cast<size_t>(n));
        if (getgrouplist(name.c_str(), res->pw_gid, a.groups.data(), &n) < 0) n = 0;  // primary group only
    }
    a.groups.resize(static_cast<size_t>(std::max(n, 0)));
    return a;
}

std::string owner_text(const struct stat &st) {
    struct passwd pw {}, *res = nullptr;
    char buf[1024];
    std::string n = getpwuid_r(st.st_uid, &pw, buf, sizeof buf, &res) == 0 && res ? res->pw_name : std::to_string(st.st_uid);
    return "owned by " + n + ", mode " + file_mode_text(st.st_mode);
}

// What `who` may do with an existing file, by its mode bits (root may do anything).
bool may(const Account &who, const struct stat &st, unsigned want /* 4 read, 2 write, 1 search */) {
    if (who.uid == 0) return true;
    if (st.st_uid == who.uid) return ((st.st_mode >> 6) & want) == want;
    if (std::find(who.groups.begin(), who.groups.end(), st.st_gid) != who.groups.end() || st.st_gid == who.gid)
        return ((st.st_mode >> 3) & want) == want;
    return (st.st_mode & want) == want;
}


std::string plugin_built_for(const std::string &so) {
    std::ifstream in(so, std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string tag = "jfp-built-for-slurm=";
    auto at = data.find(tag);
    if (at == std::string::npos) return "";
    auto end = data.find(';', at);
    return end == std::string::npos ? "" : data.substr(at + tag.size(), end - at - tag.size());
}

// "" when it cannot be told: the check then says the version is unknown.
std::string slurmctld_version(const std::string &slurmctld) {
    std::string out;
    try {
        out = run_program({slurmctld, "-V"}).out;
    } catch (const SubprocessError &) {
        return "";
    }
    std::istringstream w(out.substr(0, out.find('\n')));
    std::string word, ver;
    w >> word >> ver;  // "slurm 22.05.8"; Debian's build says "slurm-wlm 22.05.8"
    return word.rfind("slurm", 0) == 0 ? ver : "";
}

class Report {
public:
    void ok(const std::string &what) { out.push_back({Level::Ok, what, ""}); }
    void warn(const std::string &what, const std::string &fix) { out.push_back({Level::Warning, what, fix}); }
    void problem(const std::string &what, const std::string &fix) { out.push_back({Level::Problem, what, fix}); }
    std::vector<Finding> out;
};

// Every directory above `path` that someone besides root and SlurmUser could write lets them swap the file.
void check_ancestors(Report &r, const std::string &path, const std::vector<uid_t> &trusted, const std::string &what) {
    for (std::string d = dir_of(path);; d = dir_of(d)) {
        struct stat st {};
        if (::stat(d.c_str(), &st) == 0) {
            bool owner_ok = std::find(trusted.begin(), trusted.end(), st.st_uid) != trusted.end();
            bool shared = (st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX);
            if (!owner_ok || shared) {
                r.problem("the directory " + d + " above the " + what + " is " + owner_text(st) +
                              ": whoever can write it can replace the " + what,
                          "chown root " + d + " && chmod go-w " + d);
                return;
            }
        }
        if (d == "/" || d == ".") return;
    }
}

void check_creatable(Report &r, const Account &slurm, const std::string &path, const std::string &what) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (!may(slurm, st, 6))
            r.problem("SlurmUser " + slurm.name + " cannot write the " + what + " " + path + " (" + owner_text(st) + ")",
                      "chown " + slurm.name + " " + path + " (the plugin writes it as SlurmUser)");
        else
            r.ok("SlurmUser " + slurm.name + " can write the " + what + " " + path);
        return;
    }
    std::string d = dir_of(path);
    if (::stat(d.c_str(), &st) != 0) {
        r.problem("the " + what + "'s directory " + d + " does not exist",
                  "install -d -o " + slurm.name + " -g " + slurm.name + " -m 750 " + d);
    } else if (!may(slurm, st, 3)) {
        r.problem("SlurmUser " + slurm.name + " cannot create the " + what + " " + path + ": " + d + " is " +
                      owner_text(st) + " (the plugin would log that and keep no " + what + ")",
                  "chown " + slurm.name + " " + d + " (as docs/admin-guide.md, Enable, step 1)");
    } else {
        r.ok("SlurmUser " + slurm.name + " can create the " + what + " " + path);
    }
}

// slurmctld reads as SlurmUser: a file root alone can read passes every check run as root, and is refused.
void check_readable(Report &r, const Account &slurm, const std::string &path, const std::string &what) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return;  // missing: said elsewhere
    if (!may(slurm, st, 4)) {
        r.problem("SlurmUser " + slurm.name + " cannot read the " + what + " " + path + " (" + owner_text(st) + ")",
                  "chmod 644 " + path + " (or chown " + slurm.name + " it)");
        return;
    }
    for (std::string d = dir_of(path);; d = dir_of(d)) {
        if (::stat(d.c_str(), &st) == 0 && !may(slurm, st, 1)) {
            r.problem("SlurmUser " + slurm.name + " cannot reach the " + what + ": the directory " + d + " is " + owner_text(st),
                      "chmod o+x " + d + " (or make SlurmUser its owner or group)");
            return;
        }
        if (d == "/" || d == ".") return;
    }
}

// Where the guide trains a model before jfp publish installs it: model.new.json beside model.json.
std::string beside_path(const std::string &m) {
    const bool json = m.size() > 5 && m.compare(m.size() - 5, 5, ".json") == 0;
    return json ? m.substr(0, m.size() - 5) + ".new.json" : m + ".new";
}

void check_model(Report &r, const Config &cfg, const std::vector<uid_t> &trusted) {
    TrustedRead f = read_trusted_file(cfg.model_path, trusted, size_t(256) << 20);
    if (!f.problem.empty()) {
        struct stat st {};
        bool missing = ::lstat(cfg.model_path.c_str(), &st) != 0;
        r.problem("model: " + f.problem + (missing ? "" : " (the plugin refuses it: it keeps scoring with the model it has loaded, or, with none loaded, lets every job through unscored)"),
                  missing ? "train and publish one as SlurmUser: jfp train --db " + cfg.store_path + " --out " + beside_path(cfg.model_path) +
                                " && jfp publish " + beside_path(cfg.model_path) + " (admin guide, Enable)"
                          : "make root or SlurmUser own it, and no one else able to write it (chmod 644)");
        return;
    }
    if (std::string t = trust_problem(cfg.model_path, trusted); !t.empty())
        r.problem("model: " + t, "see the trust rule in jfp.conf(5)");
    check_ancestors(r, cfg.model_path, trusted, "model");
    try {
        ModelBundle b = ModelBundle::load_text(f.out, cfg.model_path);
        r.ok("model " + b.model_id() + " loads (" + b.describe_kind() + ")");
        if (b.below_target()) {
            if (cfg.mode == Mode::Reject && !cfg.reject_below_target)
                r.warn("model " + b.model_id() + " missed its target precision on validation: in reject mode it warns instead",
                       "retrain on more history, or set reject_below_target = yes to reject at the precision it reached");
            else
                r.warn("model " + b.model_id() + " missed its target precision on validation", "fit for warn and annotate; see jfp eval");
        }
        // decide_by = waste with no budget anywhere judges every job by p alone (policy.cc, budget_for).
        const bool any_budget = cfg.waste_budget || !cfg.partition_waste_budget.empty() ||
                                !cfg.account_waste_budget.empty() || !cfg.qos_waste_budget.empty() ||
                                (known(b.waste_budget()) && b.waste_budget() > 0);
        if (cfg.decide_by == DecideBy::Waste && !any_budget)
            r.warn("decide_by = waste, but no waste budget: neither jfp.conf (waste_budget, or one per partition, account "
                   "or QOS) nor model " + b.model_id() + " sets one, so every job is judged by its p alone",
                   "set waste_budget in jfp.conf (jfp eval's waste table gives the trade: failed core-hours caught "
                   "against completed jobs refused), or train on a longer history so jfp train records one");
        if (auto rec = recorded_comparison(b)) {
            const std::string rows = b.metadata().at("model_choice").value("rows", std::string("validation window"));
            Verdict v = judge(b, rec->model, rec->rules, "its " + rows);
            if (!v.fit) r.problem("model: " + v.line.substr(v.line.find(':') + 2), "retrain (jfp train ships the rule then) and jfp publish it");
            else r.ok("model: " + v.line.substr(v.line.find(':') + 2));
        } else {
            r.warn("model " + b.model_id() + " records no comparison with the history rules (trained by a jfp before 0.3)",
                   "retrain with this jfp and jfp publish the bundle");
        }
    } catch (const std::exception &e) {
        r.problem(std::string("model: ") + e.what(), "retrain with this jfp (jfp train) and jfp publish the bundle");
    }
}

// The snapshot slurmctld starts from: missing or unusable, every start replays the store (seconds per
// million jobs, and reject mode warns meanwhile).
void check_snapshot(Report &r, const HistoryStore &store, const std::string &store_path, const Account &slurm,
                    const std::vector<uid_t> &trusted) {
    const std::string path = snapshot_path_for(store_path);
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        r.warn("no history snapshot " + path + ": slurmctld replays the store at every start (3-6 s per million jobs on 2 cores)",
               "run jfp ingest as SlurmUser once; it writes the snapshot and keeps it current");
        return;
    }
    if (!may(slurm, st, 4)) {
        r.problem("SlurmUser " + slurm.name + " cannot read the history snapshot " + path + " (" + owner_text(st) + ")",
                  "chown " + slurm.name + " " + path + " (run jfp ingest as SlurmUser)");
        return;
    }
    ResumedHistory h = resume_history(store, path, trusted);
    if (!h.ok)
        r.warn("the plugin will not use the history snapshot: " + h.why_not + "; it replays the store instead",
               "run jfp ingest as SlurmUser: it writes a new snapshot");
    else
        r.ok("history snapshot " + path + " is usable: taken at the store's change " + std::to_string(h.file_seq) + ", " +
             std::to_string(h.applied) + " changed jobs since");
}

void check_store(Report &r, const Config &cfg, const Account &slurm, const SiteCheckOptions &opt,
                 const std::vector<uid_t> &trusted) {
    struct stat st {};
    if (::stat(cfg.store_path.c_str(), &st) != 0) {
        r.problem("store " + cfg.store_path + ": " + std::strerror(errno),
                  "create it as SlurmUser: runuser -u " + slurm.name + " -- jfp ingest --from-sacct");
        return;
    }
    if (!may(slurm, st, 4))
        r.problem("SlurmUser " + slurm.name + " cannot read the store " + cfg.store_path + " (" + owner_text(st) + ")",
                  "chown " + slurm.name + " " + cfg.store_path + " (run jfp ingest as SlurmUser)");
    try {
        HistoryStore store(cfg.store_path, HistoryStore::Access::ReadOnly);
        auto latest = store.latest_end();
        if (!latest) {
            r.problem("store " + cfg.store_path + " holds no finished job", "ingest history: jfp ingest --from-sacct");
            return;
        }
        double hours = static_cast<double>(opt.now - *latest) / 3600.0;
        char buf[320];
        std::snprintf(buf, sizeof buf, "the store's latest job ended %s, %.1f hours ago", format_sacct_time(*latest).c_str(), hours);
        if (hours > opt.stale_hours)
            r.problem(std::string(buf) + ": nothing is feeding it, and the plugin scores on old history",
                      "run jfp ingest --follow as SlurmUser (systemctl enable --now jfp-ingest.service)");
        else
            r.ok(buf);
        const int64_t week = *latest - 7 * 86400;
        auto c = store.coverage_since(week);
        // Tokens are counted from the plugin's first scored job on: jobs from before it was enabled have none.
        const auto first = store.first_token_submit();
        auto t = first && *first > week ? store.coverage_since(*first) : c;
        if (t.jobs == 0) t = c;  // only queued jobs carry one yet
        if (c.jobs > 0) {
            double uid = static_cast<double>(c.with_uid) / static_cast<double>(c.jobs);
            double tok = t.jobs ? static_cast<double>(t.with_token) / static_cast<double>(t.jobs) : 0;
            if (t.jobs == c.jobs)
                std::snprintf(buf, sizeof buf, "of the %llu jobs submitted in the store's last 7 days, %.0f%% have a UID and %.0f%% the plugin's token",
                              static_cast<unsigned long long>(c.jobs), 100 * uid, 100 * tok);
            else
                std::snprintf(buf, sizeof buf, "of the %llu jobs submitted in the store's last 7 days, %.0f%% have a UID; of the %llu since "
                              "the plugin's first token (%s), %.0f%% carry one",
                              static_cast<unsigned long long>(c.jobs), 100 * uid, static_cast<unsigned long long>(t.jobs),
                              format_sacct_time(*first).c_str(), 100 * tok);
            if (uid < 0.99)
                r.warn(buf, "export with the UID column (jfp ingest --from-sacct does); users are otherwise looked up by name");
            else if (cfg.mode != Mode::Off && tok < 0.5)
                r.warn(buf, "ingest with --from-sacct (it reads AdminComment, where the token is) once the plugin runs; "
                            "without tokens job_modify and parity lose their join");
            else
                r.ok(buf);
        }
        check_snapshot(r, store, cfg.store_path, slurm, trusted);
    } catch (const std::exception &e) {
        r.problem(std::string("store: ") + e.what(), "check the path in jfp.conf (store)");
    }
}

}  // namespace

std::vector<Finding> check_site(const SiteCheckOptions &opt) {
    Report r;
    SlurmConf sc = read_slurm_conf(opt.slurm_conf_path);
    std::optional<Account> slurm;
    if (!sc.found) {
        r.problem("no slurm.conf at " + opt.slurm_conf_path, "give its path with --slurm-conf (or set SLURM_CONF)");
    } else {
        for (const auto &inc : sc.unreadable_includes) r.warn("slurm.conf includes " + inc + ", which cannot be read", "check the Include line");
        std::string plugins = sc.get("JobSubmitPlugins");
        if (!lists_jfp(plugins))
            r.problem("slurm.conf: JobSubmitPlugins" + (plugins.empty() ? std::string(" is not set") : " is '" + plugins + "'") +
                          ": slurmctld does not load jfp",
                      "add jfp to JobSubmitPlugins in " + sc.path + " and restart slurmctld");
        else
            r.ok("slurm.conf: JobSubmitPlugins=" + plugins);
        std::string su = sc.get("SlurmUser", "root");
        slurm = account(su);
        if (!slurm) r.problem("slurm.conf: SlurmUser " + su + " has no account on this host", "create it, or correct SlurmUser");
        else r.ok("slurm.conf: SlurmUser " + su + " (uid " + std::to_string(slurm->uid) + ")");

        // The plugin file, and the release it was built for.
        std::string dirs = sc.get("PluginDir", opt.default_plugin_dir), so;
        std::istringstream ds(dirs);
        for (std::string d; std::getline(ds, d, ':');) {
            struct stat st {};
            if (::stat((d + "/job_submit_jfp.so").c_str(), &st) == 0) { so = d + "/job_submit_jfp.so"; break; }
        }
        if (so.empty()) {
            r.problem("job_submit_jfp.so is not in PluginDir (" + dirs + ")",
                      "install the slurm-job-submit-jfp package built for this Slurm release");
        } else {
            std::string built = plugin_built_for(so), installed = slurmctld_version(opt.slurmctld);
            if (built.empty())
                r.problem(so + " is not a job_submit/jfp plugin of this jfp (no build marker)", "reinstall the slurm-job-submit-jfp package");
            else if (installed.empty())
                r.warn(so + " is built for Slurm " + built + "; no slurmctld here to compare with (" + opt.slurmctld + " -V)",
                       "run jfp check on the slurmctld host");
            else if (built != installed)  // slurmctld compares major.minor.micro, and stops at start on a mismatch
                r.problem(so + " is built for Slurm " + built + ", slurmctld is " + installed +
                              ": slurmctld refuses the plugin and does not start",
                          "install the slurm-job-submit-jfp package built for Slurm " + installed);
            else
                r.ok(so + " is built for Slurm " + built + " (slurmctld " + installed + ")");
        }
        // An upgrade under a running slurmctld: it keeps the plugin it loaded at start. Only the slurmctld
        // that maps this slurm.conf's plugin file is this site's (a host may run test clusters beside it).
        for (const RunningPlugin &p : running_plugins()) {
            const std::string who = "slurmctld (pid " + std::to_string(p.pid) + ")";
            if (p.unreadable.empty() && (so.empty() || !same_file_path(p.mapped.path, so))) continue;
            if (!p.unreadable.empty())
                r.warn("cannot read " + who + "'s memory map (" + p.unreadable + ") to see which plugin it runs",
                       "run jfp check as root");
            else if (p.stale)
                r.problem(who + " runs the job_submit_jfp.so it loaded at start, which has since been replaced (" +
                              p.mapped.path + (p.mapped.deleted ? " (deleted)" : ", another file now") +
                              "): the installed plugin is not the one judging jobs",
                          "restart slurmctld (systemctl restart slurmctld) to load the installed plugin");
            else
                r.ok(who + " runs the installed " + p.mapped.path);
        }
    }

    // jfp.conf, and everything it names.
    std::vector<uid_t> trusted{0};
    if (slurm && slurm->uid != 0) trusted.push_back(slurm->uid);
    ConfigParseResult parsed = load_config_file(opt.conf_path);
    if (!parsed.ok()) {
        r.problem(parsed.error_text(), "fix jfp.conf (jfp.conf(5)); the plugin ignores a file with errors and keeps its last good one");
        return r.out;
    }
    const Config &cfg = parsed.config;
    r.ok(opt.conf_path + " parses: mode " + mode_name(cfg.mode));
    if (std::string t = trust_problem(opt.conf_path, trusted); !t.empty())
        r.problem("jfp.conf: " + t, "chown root " + opt.conf_path + " && chmod 644 " + opt.conf_path);
    check_ancestors(r, opt.conf_path, trusted, "jfp.conf");
    for (const auto &u : cfg.exempt_users)
        if (!account(u))
            r.problem("exempt_users names '" + u + "', who has no account here: the exemption applies to no one",
                      "correct the name in jfp.conf");
    check_model(r, cfg, trusted);
    if (slurm) {
        check_readable(r, *slurm, opt.conf_path, "jfp.conf");
        check_readable(r, *slurm, cfg.model_path, "model");
        check_store(r, cfg, *slurm, opt, trusted);
        check_creatable(r, *slurm, cfg.resolved_feature_log_path(), "feature log");
        if (!cfg.script_archive_path.empty()) check_creatable(r, *slurm, cfg.script_archive_path, "script archive");
    }
    for (Finding &f : check_storage({{"store", cfg.store_path, true},
                                     {"feature log", cfg.resolved_feature_log_path(), true},
                                     {"script archive", cfg.script_archive_path, true},
                                     {"model", cfg.model_path, false}},
                                    sc.controllers, sc.get("StateSaveLocation")))
        r.out.push_back(std::move(f));
    std::string slurm_group;
    if (slurm) {
        struct group gr {}, *res = nullptr;
        char buf[4096];
        slurm_group = getgrgid_r(slurm->gid, &gr, buf, sizeof buf, &res) == 0 && res ? res->gr_name : std::to_string(slurm->gid);
    }
    for (Finding &f : check_units(opt.systemd_root,
                                  {cfg.store_path, cfg.model_path, cfg.resolved_feature_log_path(), cfg.script_archive_path,
                                   cfg.modules_index},
                                  slurm ? slurm->name : "", slurm_group))
        r.out.push_back(std::move(f));
    return r.out;
}

}  // namespace jfp
