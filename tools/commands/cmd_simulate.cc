// jfp simulate: what the current jfp.conf and model would have done to the jobs submitted since a time,
// per user and partition, with the core-hours at stake (tools/evaluate/policy_replay.h).
#include <pwd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

#include "model/util/text.h"
#include "model/util/time_util.h"
#include "tools/check/slurm_conf.h"
#include "tools/commands/commands.h"
#include "tools/options/site_conf.h"
#include "tools/evaluate/policy_replay.h"
#include "tools/evaluate/script_replay.h"
#include "tools/modules/module_index_file.h"

namespace jfp {

namespace {

struct SimulateArgs {
    ConfDefaults conf;
    std::string conf_path, db, model, after, mode, jobs_csv;
    size_t top = 15;
};

struct Tally {
    uint64_t jobs = 0, rejected = 0, warned = 0, annotated = 0, acted_failed = 0, acted_completed = 0;
    double failed_core_h = 0, good_core_h = 0;  // of the jobs warned or rejected
    uint64_t acted() const { return rejected + warned; }
    void add(const SimulatedJob &j) {
        ++jobs;
        rejected += j.action == Action::Reject;
        warned += j.action == Action::Warn;
        annotated += j.action == Action::Annotate;
        if (j.action != Action::Reject && j.action != Action::Warn) return;
        if (j.labeled && j.failed) ++acted_failed, failed_core_h += std::max(0.0, j.core_hours);
        if (j.labeled && !j.failed) ++acted_completed, good_core_h += std::max(0.0, j.core_hours);
    }
};

void print_table(const char *title, const std::map<std::string, Tally> &by, size_t top) {
    std::vector<std::pair<std::string, Tally>> rows(by.begin(), by.end());
    std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
        return a.second.acted() != b.second.acted() ? a.second.acted() > b.second.acted() : a.first < b.first;
    });
    size_t shown = 0;  // those with a job acted on, up to top: the count the heading says
    while (shown < rows.size() && shown < top && rows[shown].second.acted() > 0) ++shown;
    if (shown == 0) {
        std::printf("  by %s: no job acted on\n", title);
        return;
    }
    std::printf("  by %s (the %zu with most jobs acted on):\n", title, shown);
    std::printf("    %-20s %8s %8s %8s %8s %9s %12s %12s\n", title, "jobs", "rejected", "warned", "failed", "completed",
                "failed core-h", "good core-h");
    for (size_t i = 0; i < rows.size() && i < top; ++i) {
        const Tally &t = rows[i].second;
        if (t.acted() == 0) break;
        std::printf("    %-20s %8llu %8llu %8llu %8llu %9llu %12.1f %12.1f\n", printable(rows[i].first, 20).c_str(),
                    static_cast<unsigned long long>(t.jobs), static_cast<unsigned long long>(t.rejected),
                    static_cast<unsigned long long>(t.warned), static_cast<unsigned long long>(t.acted_failed),
                    static_cast<unsigned long long>(t.acted_completed), t.failed_core_h, t.good_core_h);
    }
}

// "not archived", "none", "ignored_sbatch", "missing_module" or both joined by '+' (the annotation's words).
std::string script_kinds(const SimulatedJob &j) {
    if (!j.script_archived) return "not archived";
    if (!j.ignored_sbatch && !j.missing_module) return "none";
    if (j.ignored_sbatch && j.missing_module) return "ignored_sbatch+missing_module";
    return j.ignored_sbatch ? "ignored_sbatch" : "missing_module";
}

// The archived scripts (script_archive in jfp.conf) against the module index (modules_index): what they
// show. Returns why a part could not be replayed, or empty.
std::string replay_scripts(const Config &cfg, std::vector<SimulatedJob> &jobs) {
    if (cfg.script_archive_path.empty())
        return "script findings not replayed: jfp.conf sets no script_archive, so no script was kept";
    std::unique_ptr<ScriptArchive> archive;
    try {
        archive = std::make_unique<ScriptArchive>(cfg.script_archive_path, ScriptArchive::Access::ReadOnly);
    } catch (const std::exception &e) {
        return std::string("script findings not replayed: ") + e.what();
    }
    std::string why_not;
    std::unique_ptr<ModuleIndex> index = optional_module_index(cfg.modules_index, "jfp.conf sets no modules_index", why_not);
    replay_script_findings(*archive, index.get(), cfg, jobs);
    return index ? std::string() : "module loads not replayed: " + why_not;
}

void print_script_findings(const Config &cfg, const std::vector<SimulatedJob> &jobs) {
    uint64_t archived = 0, sbatch = 0, modules = 0, warned = 0, rejected = 0, finished = 0, failed = 0;
    for (const auto &j : jobs) {
        if (!j.script_archived) continue;
        ++archived;
        sbatch += j.ignored_sbatch;
        modules += j.missing_module;
        warned += j.script_action == Action::Warn;
        rejected += j.script_action == Action::Reject;
        if ((j.ignored_sbatch || j.missing_module) && j.labeled) ++finished, failed += j.failed;
    }
    if (!archived) return;
    std::printf("  script findings, %llu of the jobs' scripts archived: %llu with #SBATCH lines sbatch ignored "
                "(ignored_directives = %s), %llu loading a module the index lacks (missing_modules = %s); "
                "would reject %llu, warn %llu\n",
                static_cast<unsigned long long>(archived), static_cast<unsigned long long>(sbatch),
                finding_action_name(cfg.ignored_directives), static_cast<unsigned long long>(modules),
                finding_action_name(cfg.missing_modules), static_cast<unsigned long long>(rejected),
                static_cast<unsigned long long>(warned));
    if (finished)
        std::printf("    of the %llu with a finding that finished, %llu failed\n", static_cast<unsigned long long>(finished),
                    static_cast<unsigned long long>(failed));
}

// decide_by = waste: the budget in force and what it did, in the site's units.
void print_waste_summary(const Config &cfg, const ModelBundle &bundle, const std::vector<SimulatedJob> &jobs) {
    uint64_t priced = 0, over = 0, cheap = 0, unbounded = 0, over_failed = 0, over_completed = 0;
    double over_failed_h = 0, over_completed_h = 0;
    const char *unit = "core-hours";
    for (const auto &j : jobs) {
        if (!j.by_waste) continue;
        ++priced;
        unit = j.unit;
        unbounded += !known(j.cost);
        cheap += j.cheap;
        if (!j.over_budget) continue;
        ++over;
        if (j.labeled && j.failed) ++over_failed, over_failed_h += std::max(0.0, j.core_hours);
        if (j.labeled && !j.failed) ++over_completed, over_completed_h += std::max(0.0, j.core_hours);
    }
    if (priced == 0) {
        std::printf("  decide_by = waste, but no budget is set (jfp.conf's waste_budget, or one jfp train chose): every "
                    "job was judged by probability\n");
        return;
    }
    std::string source = cfg.waste_budget ? "jfp.conf's waste_budget " + number_text(*cfg.waste_budget)
                         : known(bundle.waste_budget()) ? "the bundle's budget " + number_text(bundle.waste_budget())
                                                        : std::string("no general budget");
    std::printf("  decide_by = waste (%s %s; per-partition, -account and -QOS budgets apply where set): %llu jobs over "
                "the budget (%llu failed, burning %.1f core-hours; %llu completed, using %.1f), %llu likely failures "
                "under it warned rather than refused, %llu with no bounded cost judged by the threshold alone\n",
                source.c_str(), unit, static_cast<unsigned long long>(over), static_cast<unsigned long long>(over_failed),
                over_failed_h, static_cast<unsigned long long>(over_completed), over_completed_h,
                static_cast<unsigned long long>(cheap), static_cast<unsigned long long>(unbounded));
}

void run_simulate(SimulateArgs &a) {
    a.conf.fill(a.db, ConfPath::Store, "--db", true);
    a.conf.fill(a.model, ConfPath::Model, "--model", true);
    const std::string conf_path = a.conf_path.empty() ? default_conf_path() : a.conf_path;
    auto cfg = load_site_conf(conf_path, true);
    if (!a.mode.empty()) cfg->mode = *parse_mode(a.mode);
    const int64_t after = parse_time_option(a.after, "--after");
    ModelBundle bundle = ModelBundle::load_file(a.model);
    HistoryStore store(a.db, HistoryStore::Access::ReadOnly);
    // root and SlurmUser are warned, not rejected (reject_privileged): SlurmUser from the site's slurm.conf.
    std::vector<int64_t> trusted{0};
    SlurmConf sc = read_slurm_conf(slurm_conf_for(conf_path));
    if (struct passwd *pw = ::getpwnam(sc.get("SlurmUser", "root").c_str())) trusted.push_back(pw->pw_uid);

    // Priced as the plugin prices them: slurm.conf's TRESBillingWeights and OverTimeLimit (a value Slurm would
    // refuse prices by CPU there too).
    ClusterDefaults defaults = load_slurm_conf(slurm_conf_for(conf_path), nullptr);
    std::vector<SimulatedJob> jobs = replay_policy(store, bundle, *cfg, after, trusted, defaults);
    std::string scripts_note = replay_scripts(*cfg, jobs);
    if (jobs.empty()) throw std::runtime_error("no job in " + a.db + " was submitted at or after " + format_sacct_time(after) + "; choose an earlier --after");
    Tally all;
    std::map<std::string, Tally> by_user, by_partition;
    for (const auto &j : jobs) {
        all.add(j);
        by_user[j.user].add(j);
        by_partition[j.partition].add(j);
    }
    std::printf("jfp simulate: %zu jobs submitted since %s, model %s (%s), %s in mode %s%s\n", jobs.size(),
                format_sacct_time(after).c_str(), bundle.model_id().c_str(), bundle.describe_kind().c_str(),
                conf_path.c_str(), mode_name(cfg->mode), a.mode.empty() ? "" : " (--mode)");
    if (cfg->mode == Mode::Reject && bundle.below_target() && !cfg->reject_below_target)
        std::printf(cfg->decide_by == DecideBy::Waste
                        ? "  (the model missed its target precision on validation: a job judged by the threshold alone "
                          "is warned instead of rejected; one over the waste budget is still rejected)\n"
                        : "  (the model missed its target precision on validation: reject mode warns instead; "
                          "reject_below_target = yes would reject)\n");
    std::printf("  would reject %llu, warn %llu, annotate %llu\n", static_cast<unsigned long long>(all.rejected),
                static_cast<unsigned long long>(all.warned), static_cast<unsigned long long>(all.annotated));
    uint64_t finished = all.acted_failed + all.acted_completed;
    if (finished)
        std::printf("  of the %llu warned or rejected that finished, %llu failed (precision %.3f): %.1f core-hours burnt "
                    "by failures, %.1f used by jobs that completed (good work a rejection blocks)\n",
                    static_cast<unsigned long long>(finished), static_cast<unsigned long long>(all.acted_failed),
                    static_cast<double>(all.acted_failed) / static_cast<double>(finished), all.failed_core_h, all.good_core_h);
    if (cfg->decide_by == DecideBy::Waste) print_waste_summary(*cfg, bundle, jobs);
    if (!scripts_note.empty()) std::printf("  %s\n", printable(scripts_note, 2000).c_str());
    print_script_findings(*cfg, jobs);
    print_table("user", by_user, a.top);
    print_table("partition", by_partition, a.top);
    std::printf("  (overrides are not in sacct's history: a job a user would have resubmitted with jfp:override counts as rejected)\n");
    if (!a.jobs_csv.empty()) {
        std::ofstream f(a.jobs_csv);
        f << "JobIDRaw,token,User,Partition,p_fail,action,State,script,script_action,cost,expected_waste,cost_unit\n";
        for (const auto &j : jobs) {
            f << csv_field(j.job_key) << ',' << csv_field(j.token) << ',' << csv_field(j.user) << ','
              << csv_field(j.partition) << ',' << j.p_fail << ','
              << action_name(j.action) << ',' << (!j.labeled ? "other" : j.failed ? "failed" : "completed") << ','
              << script_kinds(j) << ',' << action_name(j.script_action) << ',';
            if (known(j.cost)) f << j.cost << ',' << j.cost * static_cast<double>(j.p_fail);
            else f << ',';
            f << ',' << j.unit << '\n';
        }
        if (!f) throw std::runtime_error("cannot write " + a.jobs_csv);
    }
}

}  // namespace

void add_simulate_command(Command &app) {
    auto a = std::make_shared<SimulateArgs>();
    auto *c = app.add_subcommand("simulate",
                                 "What jfp.conf and the model would have done to the jobs since a time: warned and rejected, "
                                 "per user and partition, with the core-hours at stake");
    c->add_option("--after", a->after, "first submit time to replay")->required();
    c->add_option("--mode", a->mode, "simulate this mode instead of jfp.conf's (e.g. reject before switching to it)")
        ->one_of({"off", "shadow", "warn", "annotate", "reject"});
    c->add_option("--db", a->db, "history store (default: jfp.conf's store)");
    c->add_option("--model", a->model, "model bundle (default: jfp.conf's model)");
    c->add_option("--jobs", a->jobs_csv, "also write every job's score and action to this CSV");
    c->add_option("--top", a->top, "rows per table (at least 1)")->capture_default_str()->range(1, 1000000);
    c->add_option("--conf", a->conf_path, "the jfp.conf whose policy to replay (default: beside $SLURM_CONF, else /etc/slurm/jfp.conf)");
    c->callback([a] {
        a->conf = ConfDefaults(a->conf_path);
        run_simulate(*a);
    });
}

}  // namespace jfp
