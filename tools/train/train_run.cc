#include "tools/train/train_run.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "model/policy/user_message.h"

namespace jfp {

namespace {

// A window's span as read: "7 minutes", "5.5 hours", "12.0 days".
std::string span_text(double days) {
    char b[48];
    if (days >= 1) std::snprintf(b, sizeof b, "%.1f days", days);
    else if (days * 24 >= 1) std::snprintf(b, sizeof b, "%.1f hours", days * 24);
    else std::snprintf(b, sizeof b, "%.0f minutes", days * 1440);
    return b;
}

}  // namespace

TrainSummary run_train(const TrainRun &r) {
    HistoryStore store(r.db, HistoryStore::Access::ReadOnly);
    TrainSummary s;
    auto bundle = train_bundle(store, r.opt, s);
    write_bundle(bundle, r.out);
    if (r.json) {
        nlohmann::json j = {{"model", r.out},
                            {"model_id", s.model_id},
                            {"training", bundle["training"]},
                            {"validation_metrics", bundle["validation_metrics"]},
                            {"threshold", bundle["threshold"]},
                            {"threshold_choice", bundle["threshold_choice"]},
                            {"kind", bundle["kind"]},
                            {"model_choice", bundle["model_choice"]},
                            {"waste_choice", bundle["waste_choice"]}};
        std::printf("%s\n", j.dump(2).c_str());
        return s;
    }
    std::printf("jfp train: wrote %s (model %s)\n", r.out.c_str(), s.model_id.c_str());
    std::printf("  training rows   %llu (%llu failed), window %s .. %s\n", static_cast<unsigned long long>(s.train_rows),
                static_cast<unsigned long long>(s.train_failures),
                bundle["training"]["train_window"][0].get<std::string>().c_str(),
                bundle["training"]["train_window"][1].get<std::string>().c_str());
    std::printf("  validation rows %llu (%llu failed), window %s .. %s\n", static_cast<unsigned long long>(s.val_rows),
                static_cast<unsigned long long>(s.val_failures),
                bundle["training"]["validation_window"][0].get<std::string>().c_str(),
                bundle["training"]["validation_window"][1].get<std::string>().c_str());
    if (!r.opt.feature_log.empty())
        std::printf("  logged vectors  %llu jobs used the plugin's features\n", static_cast<unsigned long long>(s.logged_vectors));
    if (!r.opt.script_archive.empty())
        std::printf("  script archive  %llu jobs had their archived script scanned; the model %s on script features\n",
                    static_cast<unsigned long long>(s.archived_scripts), s.uses_script_features ? "splits" : "does not split");
    std::printf("  chose           %s\n", s.comparison.verdict.c_str());
    if (s.kind == "tree") std::printf("  rounds kept     %d\n", s.best_iteration);
    std::printf("  class model     %s%s%s\n", s.class_model ? "yes" : "no (", s.class_model_note.c_str(),
                s.class_model ? "" : "): class frequencies instead");
    std::printf("  %-15s ROC-AUC %.3f  PR-AUC %.3f\n", s.comparison.rows_name == "training window" ? "training window" : "validation",
                s.validation.roc_auc, s.validation.pr_auc);
    std::printf("  threshold       %.4f: precision %.3f (at least %.3f at %.0f%% confidence) recall %.3f%s\n",
                s.threshold.threshold, s.threshold.precision, s.threshold.precision_lower, kPrecisionConfidence * 100,
                s.threshold.recall,
                s.threshold.target_reached ? ""
                                           : " (target precision not reached: best-F1 threshold instead)");
    const BudgetChoice &w = s.waste;
    const char *unit = s.waste_unit.c_str();
    if (w.limit_met)
        std::printf("  waste budget    %s %s (decide_by = waste): refuses %.1f completed jobs a week (at most %.1f at 95%% "
                    "confidence; limit %g), catching %s of %s failed %s (%.1f%%)\n",
                    amount_text(w.budget).c_str(), unit, w.per_week, w.per_week_upper, w.limit_per_week,
                    amount_text(w.at_budget.burnt_caught).c_str(), amount_text(w.at_budget.burnt_failed).c_str(), unit,
                    100 * w.at_budget.share());
    else if (w.weeks > 0 && poisson_upper(0) / (w.weeks / 2) > w.limit_per_week)
        std::printf("  waste budget    none: the window spans %s, too short to bound refusals at %g a week (even "
                    "none refused bounds each half at %.0f a week at 95%% confidence); train on a longer history or "
                    "raise --refused-per-week; decide_by = waste then needs waste_budget in jfp.conf\n",
                    span_text(w.span_days).c_str(), w.limit_per_week,
                    poisson_upper(0) / (w.weeks / 2));
    else
        std::printf("  waste budget    none: no budget keeps refused completed jobs within %g a week at 95%% confidence "
                    "(--refused-per-week); decide_by = waste then needs waste_budget in jfp.conf\n",
                    w.limit_per_week);
    return s;
}

}  // namespace jfp
