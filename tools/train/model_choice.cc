#include "tools/train/model_choice.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace jfp {

namespace {
nlohmann::json figures(const BinaryMetrics &m) {
    return {{"pr_auc", m.pr_auc}, {"roc_auc", m.roc_auc}, {"recall_at_precision_0.9", m.recall_at_p90}};
}
}  // namespace

std::string jobs_failed_text(uint64_t jobs, uint64_t failed) {
    return std::to_string(jobs) + (jobs == 1 ? " job, " : " jobs, ") + std::to_string(failed) + " failed";
}

std::string why_no_tree(const std::string &kind, uint64_t train_rows, uint64_t train_failures, uint64_t val_rows,
                        uint64_t val_failures, double train_days) {
    if (kind == "rules") return "--kind rules";
    if (train_failures < kMinTreeTrainFailures)
        return "the training rows hold " + jobs_failed_text(train_rows, train_failures) + " (a tree model needs " +
               std::to_string(kMinTreeTrainFailures) + " failures)";
    if (train_days < kMinTreeTrainDays) {
        char buf[200];
        std::snprintf(buf, sizeof buf,
                      "the training rows span %.1f days (a tree model needs %d: its weekday and hours-since features "
                      "have not seen a week before that)",
                      train_days, kMinTreeTrainDays);
        return buf;
    }
    if (train_failures == train_rows) return "every training row failed";
    if (val_failures < kMinValidationFailures || val_failures == val_rows)
        return "the validation window holds " + jobs_failed_text(val_rows, val_failures) + " (a tree model needs " +
               std::to_string(kMinValidationFailures) + " failures and some completions there, to be stopped early and compared with the rules)";
    return "";
}

ModelComparison compare_with_rules(const std::array<std::vector<float>, kNumRules> &rule_scores,
                                   const std::vector<float> &tree_scores, const std::vector<int> &labels,
                                   const std::string &rows_name, const std::string &no_tree_reason,
                                   const std::string &forced,
                                   const std::array<std::vector<float>, kNumRules> *all_rule_scores,
                                   const std::vector<int> *all_labels) {
    ModelComparison c;
    c.rows_name = rows_name;
    c.rows = labels.size();
    for (int l : labels) c.failures += l != 0;
    for (size_t r = 0; r < kNumRules; ++r) c.rules[r] = evaluate_binary(rule_scores[r], labels, 0.5);
    c.best_rule = best_rule(c.rules);
    const BinaryMetrics &br = c.rules[static_cast<size_t>(c.best_rule)];
    char buf[400];
    if (tree_scores.empty()) {
        c.no_tree_reason = no_tree_reason;
        std::snprintf(buf, sizeof buf, "the rule '%s' (PR-AUC %.3f on the %s's %zu jobs, %zu failed); no tree model: %s",
                      rule_label(c.best_rule), br.pr_auc, rows_name.c_str(), c.rows, c.failures, no_tree_reason.c_str());
        c.verdict = buf;
    } else {
        c.tree = evaluate_binary(tree_scores, labels, 0.5);
        c.tree_chosen = forced == "tree" || (forced != "rules" && c.tree->pr_auc > br.pr_auc);
        const char *why = forced == "tree" || forced == "rules" ? " (--kind " : "";
        std::snprintf(buf, sizeof buf, "%s: PR-AUC %.3f for the tree model, %.3f for the best rule '%s' on the %s's %zu jobs (%zu failed)%s%s%s",
                      c.tree_chosen ? "the tree model" : (std::string("the rule '") + rule_label(c.best_rule) + "'").c_str(),
                      c.tree->pr_auc, br.pr_auc, rule_label(c.best_rule), rows_name.c_str(), c.rows, c.failures, why,
                      *why ? forced.c_str() : "", *why ? ")" : "");
        c.verdict = buf;
    }
    if (!c.tree_chosen && all_rule_scores && all_labels) {
        // The rule to ship, chosen and recorded on every row before the cutoff.
        ModelComparison all;
        all.rows = all_labels->size();
        for (int l : *all_labels) all.failures += l != 0;
        for (size_t r = 0; r < kNumRules; ++r) all.rules[r] = evaluate_binary((*all_rule_scores)[r], *all_labels, 0.5);
        all.best_rule = best_rule(all.rules);
        const double pr = all.rules[static_cast<size_t>(all.best_rule)].pr_auc;
        if (!c.tree) {
            std::snprintf(buf, sizeof buf, "the rule '%s' (PR-AUC %.3f on the training and validation windows' %zu jobs, %zu failed); no tree model: %s",
                          rule_label(all.best_rule), pr, all.rows, all.failures, no_tree_reason.c_str());
            c.verdict = buf;
        } else {
            const std::string tree_part = c.verdict.substr(c.verdict.find(": PR-AUC"));
            std::snprintf(buf, sizeof buf, "; of the rules, '%s' ranks failures best on the training and validation windows' %zu jobs (%zu failed, PR-AUC %.3f)",
                          rule_label(all.best_rule), all.rows, all.failures, pr);
            c.verdict = std::string("the rule '") + rule_label(all.best_rule) + "'" + tree_part + buf;
        }
        c.rules = all.rules;
        c.best_rule = all.best_rule;
        c.rows = all.rows;
        c.failures = all.failures;
        c.rows_name = "training and validation windows";
    }
    return c;
}

nlohmann::json ModelComparison::to_json() const {
    nlohmann::json r = nlohmann::json::object();
    for (size_t i = 0; i < kNumRules; ++i) r[rule_id(kRules[i])] = figures(rules[i]);
    nlohmann::json j = {{"rows", rows_name},
                        {"jobs", this->rows},
                        {"failures", failures},
                        {"rules", r},
                        {"best_rule", rule_id(best_rule)},
                        {"chosen", tree_chosen ? "tree" : "rules"},
                        {"verdict", verdict}};
    j["tree"] = tree ? figures(*tree) : nlohmann::json();
    if (!tree) j["no_tree_reason"] = no_tree_reason;
    return j;
}

}  // namespace jfp
