#include "tools/report/report_data.h"

#include <cmath>
#include <stdexcept>

#include "model/archive/script_archive.h"
#include "model/store/history_store.h"
#include "model/policy/config.h"
#include "model/scoring/feature_sweep.h"
#include "model/util/time_util.h"
#include "tools/simulate/policy_replay.h"
#include "tools/simulate/script_replay.h"
#include "tools/terminal/progress.h"

namespace jfp {

namespace {

// What the evaluated jobs' archived scripts show with certainty, against how those jobs ended.
ScriptFindingCounts count_script_findings(const std::string &path, const ModuleIndex *index, std::vector<SimulatedJob> &jobs) {
    ScriptArchive archive(path, ScriptArchive::Access::ReadOnly);
    replay_script_findings(archive, index, Config{}, jobs);
    ScriptFindingCounts c;
    c.modules_checked = index != nullptr;
    for (const auto &j : jobs) {
        if (!j.script_archived) continue;
        auto add = [&](ScriptFindingCounts::Count &n) { ++n.jobs, n.failed += j.failed; };
        add(c.archived);
        if (j.ignored_sbatch) add(c.sbatch);
        if (j.missing_module) add(c.modules);
        if (!j.ignored_sbatch && !j.missing_module) add(c.none);
    }
    return c;
}

template <class T, class F> std::vector<T> column(const std::vector<ReportRow> &rows, F f) {
    std::vector<T> out;
    out.reserve(rows.size());
    for (const auto &r : rows) out.push_back(f(r));
    return out;
}

}  // namespace

std::vector<float> ReportData::scores() const { return column<float>(rows, [](const ReportRow &r) { return r.p; }); }
std::vector<float> ReportData::baseline1() const { return column<float>(rows, [](const ReportRow &r) { return r.b1; }); }
std::vector<float> ReportData::baseline2() const { return column<float>(rows, [](const ReportRow &r) { return r.b2; }); }
std::vector<int> ReportData::labels() const { return column<int>(rows, [](const ReportRow &r) { return r.label; }); }
std::vector<double> ReportData::core_hours() const { return column<double>(rows, [](const ReportRow &r) { return r.core_hours; }); }

ReportData compute_report(const ReportInputs &in) {
    ReportData d;
    d.db = in.db;
    d.after = in.after;
    d.bundle = std::make_unique<ModelBundle>(ModelBundle::load_file(in.model));
    const ModelBundle &bundle = *d.bundle;
    d.threshold = in.threshold >= 0 ? in.threshold : bundle.threshold();
    HistoryStore store(in.db, HistoryStore::Access::ReadOnly);

    d.contrib_abs.assign(kNumFeatures, 0);
    d.contrib_failed.assign(kNumFeatures, 0);
    std::array<float, kNumFeatures + 1> c{};
    Progress progress(in.progress);
    const long jobs_total = static_cast<long>(store.job_count());
    long jobs_seen = 0;
    std::vector<SimulatedJob> scripted;  // the evaluated jobs the archive may hold a script of
    d.waste_unit = in.billing.billing_rule("").unit();
    sweep_submissions(store, [&](const Submission &sub) {
        const JobRecord &j = sub.job;
        progress.update(++jobs_seen, jobs_total, "jobs");
        if (j.submit < in.after || !is_labeled(j.outcome)) return;
        if (!in.script_archive.empty() && !j.jfp_token.empty()) {
            SimulatedJob o;
            o.token = j.jfp_token;
            o.labeled = true;
            o.failed = is_failure(j.outcome);
            o.request = sub.request;
            scripted.push_back(std::move(o));
        }
        Score s = bundle.score(sub.x);
        const BillingRule rule = in.billing.billing_rule(j.partition);
        if (rule.weights) d.waste_unit = rule.unit();
        d.waste.push_back(waste_job(j, s.p_fail, rule));
        ReportRow r;
        r.p = s.p_fail;
        r.b1 = sub.x[F_un_streak] > 0 ? 1.0f : 0.0f;
        r.b2 = std::isnan(sub.x[F_u_recent_fail_rate]) ? 0.0f : sub.x[F_u_recent_fail_rate];
        for (size_t k = 0; k < kNumRules; ++k) r.rule[k] = rule_score(kRules[k], sub.x);
        r.label = is_failure(j.outcome) ? 1 : 0;
        r.actual_class = failure_class_index(j.outcome);
        r.predicted_class = s.top_class;
        r.partition = j.partition.empty() ? "(none)" : std::string(first_partition(j.partition));
        r.core_hours = known(j.elapsed_s) && known(j.req_cpus) ? j.elapsed_s * j.req_cpus / 3600.0 : kUnknown;
        if (!bundle.is_rules()) bundle.failure_model().contributions(sub.x.data(), c.data());
        for (size_t f = 0; f < static_cast<size_t>(kNumFeatures); ++f) {
            d.contrib_abs[f] += std::fabs(c[f]);
            if (r.label) d.contrib_failed[f] += c[f];
        }
        d.n_failed += static_cast<size_t>(r.label);
        d.rows.push_back(std::move(r));
    });
    progress.finish();
    if (d.rows.empty())
        throw std::runtime_error("no finished jobs (COMPLETED or failed) were submitted at or after " +
                                 format_sacct_time(in.after) + "; choose an earlier --after");

    const std::vector<int> labels = d.labels();
    d.model = evaluate_binary(d.scores(), labels, d.threshold);
    for (size_t k = 0; k < kNumRules; ++k)
        d.rules[k] = evaluate_binary(column<float>(d.rows, [k](const ReportRow &r) { return r.rule[k]; }), labels, 0.5);
    d.verdict = verdict_for(bundle, d.model, d.rules, in.after);
    if (!in.script_archive.empty()) {
        d.script_archive = in.script_archive;
        d.scripts = count_script_findings(in.script_archive, in.modules, scripted);
    }
    if (!in.feature_log.empty()) {
        d.feature_log = in.feature_log;
        d.live = summarize_live(store, bundle, in.feature_log, in.since, true);
    }
    return d;
}

}  // namespace jfp
