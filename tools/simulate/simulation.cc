#include "tools/simulate/simulation.h"

#include <pwd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "model/util/text.h"
#include "model/util/time_util.h"
#include "tools/check/slurm_conf.h"
#include "tools/simulate/script_replay.h"

namespace jfp {

void PolicyTally::add(const SimulatedJob &j) {
    ++jobs;
    rejected += j.action == Action::Reject;
    warned += j.action == Action::Warn;
    annotated += j.action == Action::Annotate;
    if (j.action != Action::Reject && j.action != Action::Warn) return;
    if (j.labeled && j.failed) ++acted_failed, failed_core_h += std::max(0.0, j.core_hours);
    if (j.labeled && !j.failed) ++acted_completed, good_core_h += std::max(0.0, j.core_hours);
}

namespace {

void print_table(const char *title, const std::map<std::string, PolicyTally> &by, size_t top) {
    std::vector<std::pair<std::string, PolicyTally>> rows(by.begin(), by.end());
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
        const PolicyTally &t = rows[i].second;
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
std::string replay_scripts(const SimulateOptions &o, std::vector<SimulatedJob> &jobs) {
    const Config &cfg = o.config;
    if (cfg.script_archive_path.empty())
        return "script findings not replayed: jfp.conf sets no script_archive, so no script was kept";
    std::unique_ptr<ScriptArchive> archive;
    try {
        archive = std::make_unique<ScriptArchive>(cfg.script_archive_path, ScriptArchive::Access::ReadOnly);
    } catch (const std::exception &e) {
        return std::string("script findings not replayed: ") + e.what();
    }
    replay_script_findings(*archive, o.modules.get(), cfg, jobs);
    return o.modules ? std::string() : "module loads not replayed: " + o.why_no_modules;
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

}  // namespace

Simulation simulate_policy(const HistoryStore &store, const ModelBundle &bundle, const SimulateOptions &o,
                           const std::vector<int64_t> &trusted_uids, const ClusterDefaults &defaults) {
    Simulation s;
    s.jobs = replay_policy(store, bundle, o.config, o.after, trusted_uids, defaults);
    s.scripts_note = replay_scripts(o, s.jobs);
    if (s.jobs.empty())
        throw std::runtime_error("no job in " + o.db + " was submitted at or after " + format_sacct_time(o.after) +
                                 "; choose an earlier --after");
    for (const auto &j : s.jobs) {
        s.all.add(j);
        s.by_user[j.user].add(j);
        s.by_partition[j.partition].add(j);
    }
    return s;
}

void run_simulate(const SimulateOptions &o) {
    const Config &cfg = o.config;
    ModelBundle bundle = ModelBundle::load_file(o.model);
    HistoryStore store(o.db, HistoryStore::Access::ReadOnly);
    // root and SlurmUser are warned, not rejected (reject_privileged): SlurmUser from the site's slurm.conf.
    std::vector<int64_t> trusted{0};
    SlurmConf sc = read_slurm_conf(o.slurm_conf);
    if (struct passwd *pw = ::getpwnam(sc.get("SlurmUser", "root").c_str())) trusted.push_back(pw->pw_uid);

    // Priced as the plugin prices them: slurm.conf's TRESBillingWeights and OverTimeLimit (a value Slurm would
    // refuse prices by CPU there too).
    ClusterDefaults defaults = load_slurm_conf(o.slurm_conf, nullptr);
    const Simulation sim = simulate_policy(store, bundle, o, trusted, defaults);
    const std::vector<SimulatedJob> &jobs = sim.jobs;
    const PolicyTally &all = sim.all;
    std::printf("jfp simulate: %zu jobs submitted since %s, model %s (%s), %s in mode %s%s\n", jobs.size(),
                format_sacct_time(o.after).c_str(), bundle.model_id().c_str(), bundle.describe_kind().c_str(),
                o.conf_path.c_str(), mode_name(cfg.mode), o.mode_overridden ? " (--mode)" : "");
    if (cfg.mode == Mode::Reject && bundle.below_target() && !cfg.reject_below_target)
        std::printf(cfg.decide_by == DecideBy::Waste
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
    if (cfg.decide_by == DecideBy::Waste) print_waste_summary(cfg, bundle, jobs);
    if (!sim.scripts_note.empty()) std::printf("  %s\n", printable(sim.scripts_note, 2000).c_str());
    print_script_findings(cfg, jobs);
    print_table("user", sim.by_user, o.top);
    print_table("partition", sim.by_partition, o.top);
    std::printf("  (overrides are not in sacct's history: a job a user would have resubmitted with jfp:override counts as rejected)\n");
    if (!o.jobs_csv.empty()) {
        std::ofstream f(o.jobs_csv);
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
        if (!f) throw std::runtime_error("cannot write " + o.jobs_csv);
    }
}


}  // namespace jfp
