#include "tools/evaluate/model_evaluation.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "model/archive/archived_scripts.h"
#include "model/scoring/feature_sweep.h"
#include "model/util/time_util.h"

namespace jfp {

namespace {

nlohmann::json metrics_json(const BinaryMetrics &m) {
    return {{"roc_auc", m.roc_auc}, {"pr_auc", m.pr_auc},   {"recall_at_precision_0.9", m.recall_at_p90}, {"threshold", m.threshold}, {"precision", m.precision},
            {"recall", m.recall},   {"f1", m.f1},           {"flagged", m.flagged()},   {"true_positives", m.tp},
            {"false_positives", m.fp}, {"false_negatives", m.fn}};
}

nlohmann::json cost_json(const CostAtThreshold &c) {
    return {{"failed_caught", c.failed_caught},
            {"failed_caught_core_hours", c.failed_caught_core_hours},
            {"failed_core_hours", c.failed_core_hours},
            {"good_flagged", c.good_flagged},
            {"good_flagged_core_hours", c.good_flagged_core_hours}};
}

void print_cost_row(const char *name, const CostAtThreshold &c) {
    double share = c.failed_core_hours > 0 ? 100.0 * c.failed_caught_core_hours / c.failed_core_hours : 0;
    std::printf("  %-32s %8zu %14.1f %6.1f%% %8zu %14.1f\n", name, c.failed_caught, c.failed_caught_core_hours, share,
                c.good_flagged, c.good_flagged_core_hours);
}

void print_row(const char *name, const BinaryMetrics &m) {
    std::printf("  %-32s %7.3f %7.3f %7.3f %9.4f %9.3f %7.3f %6.3f %8zu\n", name, m.roc_auc, m.pr_auc, m.recall_at_p90,
                m.threshold, m.precision, m.recall, m.f1, m.flagged());
}

// The two policies at the same numbers of wrongly refused jobs: the failed billing-hours each catches.
nlohmann::json waste_json(const std::vector<WasteJob> &jobs, double thr, const std::vector<size_t> &ks) {
    nlohmann::json out = nlohmann::json::array();
    for (size_t k : ks) {
        auto by_p = cut_at_wrongly_refused(jobs, Ranking::Probability, thr, k);
        auto by_w = cut_at_wrongly_refused(jobs, Ranking::Waste, thr, k);
        auto side = [](const RefusalCut &c) {
            return nlohmann::json{{"refused", c.refused},           {"wrongly_refused", c.wrongly_refused},
                                  {"failed_caught", c.failed_caught}, {"failed_hours_caught", c.burnt_caught},
                                  {"failed_hours", c.burnt_failed},   {"share", c.share()},
                                  {"wrongly_refused_hours", c.burnt_wrongly}};
        };
        out.push_back({{"wrongly_refused_at_most", k}, {"probability", side(by_p)}, {"waste", side(by_w)}});
    }
    return out;
}

void print_waste(const std::vector<WasteJob> &jobs, double thr, const std::vector<size_t> &ks, const char *unit) {
    size_t unbounded = 0;
    for (const auto &j : jobs) unbounded += !known(j.cost);
    std::printf("  at the same number of wrongly refused jobs (completed jobs refused), the failed %s caught "
                "ranking by p and by expected waste (p x cost):\n",
                unit);
    if (unbounded)
        std::printf("  (%zu jobs have no bounded cost: judged by p >= %.4f alone, as the plugin does)\n", unbounded, thr);
    std::printf("  %12s | %8s %14s %7s | %8s %14s %7s | %s\n", "refused ok", "failed", "by p", "share", "failed",
                "by waste", "share", "waste / p");
    for (size_t k : ks) {
        auto by_p = cut_at_wrongly_refused(jobs, Ranking::Probability, thr, k);
        auto by_w = cut_at_wrongly_refused(jobs, Ranking::Waste, thr, k);
        char ratio[32] = "-";
        if (by_p.burnt_caught > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", by_w.burnt_caught / by_p.burnt_caught);
        std::printf("  %12s | %8zu %14.1f %6.1f%% | %8zu %14.1f %6.1f%% | %s\n", ("<= " + std::to_string(k)).c_str(),
                    by_p.failed_caught, by_p.burnt_caught, 100 * by_p.share(), by_w.failed_caught, by_w.burnt_caught,
                    100 * by_w.share(), ratio);
    }
}

}  // namespace

ModelEvaluation evaluate_model(const HistoryStore &store, const ModelBundle &bundle, const EvalOptions &o) {
    ModelEvaluation e;
    e.after = o.after;
    const int64_t after = o.after;
    const double thr = o.threshold >= 0 ? o.threshold : bundle.threshold();
    e.threshold = thr;
    std::vector<float> model_p;
    std::array<std::vector<float>, kNumRules> rule_p;
    std::vector<int> labels;
    std::vector<double> core_hours;  // elapsed x CPUs: what each job consumed
    e.unit = o.billing.billing_rule("").unit();
    std::unique_ptr<ArchivedScripts> scripts;
    if (!o.script_archive.empty()) scripts = std::make_unique<ArchivedScripts>(o.script_archive);
    sweep_features(store, [&](const JobRecord &j, const FeatureVector &x) {
        if (j.submit < after || !is_labeled(j.outcome)) return;
        Score s = bundle.score(x);
        model_p.push_back(s.p_fail);
        labels.push_back(is_failure(j.outcome) ? 1 : 0);
        BillingRule rule = o.billing.billing_rule(j.partition);
        if (rule.weights) e.unit = rule.unit();
        e.waste.push_back(waste_job(j, s.p_fail, rule));
        core_hours.push_back(known(j.elapsed_s) && known(j.req_cpus) ? j.elapsed_s * j.req_cpus / 3600.0 : kUnknown);
        for (size_t r = 0; r < kNumRules; ++r) rule_p[r].push_back(rule_score(kRules[r], x));
        int actual = failure_class_index(j.outcome);
        if (actual >= 0) ++e.confusion[static_cast<size_t>(actual)][static_cast<size_t>(s.top_class)];
    }, nullptr, nullptr, scripts.get());
    if (labels.empty())
        throw std::runtime_error("no finished jobs (COMPLETED or failed) were submitted at or after " +
                                 format_sacct_time(after) + "; choose an earlier --after");
    e.model = evaluate_binary(model_p, labels, thr);
    // Rules flag at 0.5: "the last run failed", "half or more of the recent runs failed".
    for (size_t r = 0; r < kNumRules; ++r) {
        e.rules[r] = evaluate_binary(rule_p[r], labels, 0.5);
        e.rule_cost[r] = cost_at(rule_p[r], labels, core_hours, 0.5);
    }
    e.model_cost = cost_at(model_p, labels, core_hours, thr);
    e.verdict = verdict_for(bundle, e.model, e.rules, after);
    for (size_t c = 0; c < kFailureClasses; ++c)
        for (size_t p = 0; p < kFailureClasses; ++p) {
            e.failed += e.confusion[c][p];
            if (c == p) e.class_right += e.confusion[c][p];
        }
    return e;
}

void run_eval(const EvalOptions &o) {
    auto bundle = ModelBundle::load_file(o.model);
    HistoryStore store(o.db, HistoryStore::Access::ReadOnly);
    const ModelEvaluation e = evaluate_model(store, bundle, o);
    const int64_t after = e.after;
    const double thr = e.threshold;
    const BinaryMetrics &m = e.model;
    const auto &rm = e.rules;
    const auto &rule_cost = e.rule_cost;
    const auto &cm_cost = e.model_cost;
    const auto &confusion = e.confusion;
    const auto &waste = e.waste;
    const char *unit = e.unit;
    const uint64_t failed = e.failed, class_right = e.class_right;
    const BundleVerdict &bv = e.verdict;
    const Verdict &verdict = bv.verdict;

    if (o.json) {
        nlohmann::json cm = nlohmann::json::object();
        for (size_t c = 0; c < kFailureClasses; ++c) {
            nlohmann::json row = nlohmann::json::object();
            for (size_t p = 0; p < kFailureClasses; ++p) row[outcome_name(kFailureClassOutcomes[p])] = confusion[c][p];
            cm[outcome_name(kFailureClassOutcomes[c])] = row;
        }
        nlohmann::json j = {
            {"after", format_sacct_time(after)},
            {"model_id", bundle.model_id()},
            {"jobs", m.n},
            {"failures", m.positives},
            {"failure_rate", static_cast<double>(m.positives) / static_cast<double>(m.n)},
            {"model", metrics_json(m)},
            {"model_kind", bundle.is_rules() ? "rules" : "tree"},
            {"verdict", {{"fit", verdict.fit},
                         {"from_record", bv.from_record},
                         {"note", bv.note},
                         {"modes", verdict.modes},
                         {"best_rule", rule_id(verdict.best_rule)},
                         {"target_reached", verdict.target_reached},
                         {"text", verdict.line}}},
            {"failure_class", {{"failed_jobs", failed},
                               {"accuracy", failed ? static_cast<double>(class_right) / static_cast<double>(failed) : 0.0},
                               {"confusion", cm}}}};
        j["waste"] = {{"unit", unit}, {"at_wrongly_refused", waste_json(waste, thr, o.refused)}};
        j["baselines"] = nlohmann::json::object();
        j["cost"] = {{"model", cost_json(cm_cost)}};
        for (size_t r = 0; r < kNumRules; ++r) {
            j["baselines"][rule_id(kRules[r])] = metrics_json(rm[r]);
            j["cost"][rule_id(kRules[r])] = cost_json(rule_cost[r]);
        }
        std::printf("%s\n", j.dump(2).c_str());
        return;
    }
    std::printf("%s\n", verdict.line.c_str());
    if (!bv.note.empty()) std::printf("(%s)\n", bv.note.c_str());
    std::printf("jfp eval: %zu finished %s submitted from %s, %zu failed (%.1f%%); model %s\n", m.n, m.n == 1 ? "job" : "jobs",
                format_sacct_time(after).c_str(), m.positives, 100.0 * static_cast<double>(m.positives) / static_cast<double>(m.n),
                bundle.model_id().c_str());
    std::printf("  %-32s %7s %7s %7s %9s %9s %7s %6s %8s\n", "", "ROC-AUC", "PR-AUC", "R@P.9", "threshold", "precision",
                "recall", "F1", "flagged");
    print_row(bundle.is_rules() ? "model (a rule)" : "model (trees)", m);
    for (size_t r = 0; r < kNumRules; ++r) print_row(rule_label(kRules[r]), rm[r]);
    std::printf("  at the threshold, in core-hours (elapsed x CPUs) of %.1f burnt by failed jobs:\n", cm_cost.failed_core_hours);
    std::printf("  %-32s %8s %14s %7s %8s %14s\n", "", "failed", "their core-h", "share", "good", "their core-h");
    print_cost_row("model", cm_cost);
    for (size_t r = 0; r < kNumRules; ++r) print_cost_row(rule_label(kRules[r]), rule_cost[r]);
    print_waste(waste, thr, o.refused, unit);
    if (failed > 0) {
        std::printf("  failure class (of %llu failed jobs, predicted class right %.1f%%):\n",
                    static_cast<unsigned long long>(failed), 100.0 * static_cast<double>(class_right) / static_cast<double>(failed));
        std::printf("    %-14s", "actual\\pred");
        for (size_t p = 0; p < kFailureClasses; ++p) std::printf(" %13s", outcome_name(kFailureClassOutcomes[p]));
        std::printf("\n");
        for (size_t c = 0; c < kFailureClasses; ++c) {
            std::printf("    %-14s", outcome_name(kFailureClassOutcomes[c]));
            for (size_t p = 0; p < kFailureClasses; ++p) std::printf(" %13llu", static_cast<unsigned long long>(confusion[c][p]));
            std::printf("\n");
        }
    }
}


}  // namespace jfp
