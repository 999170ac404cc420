#include "tools/evaluate/verdict.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <stdexcept>

#include "model/scoring/feature_sweep.h"
#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

// A rule must beat the best so far by more than a tie (kVerdictTie): two rules that rank the jobs alike
// differ only in float rounding, and the choice would follow it (train_e2e chose user+stem over the last
// run's outcome at 0.547 against 0.547, and failed on the later jobs). A tie goes to the earlier rule.
Rule best_rule(const std::array<BinaryMetrics, kNumRules> &m) {
    size_t best = 0;
    for (size_t r = 1; r < kNumRules; ++r)
        if (m[r].pr_auc > m[best].pr_auc + kVerdictTie) best = r;
    return kRules[best];
}

Verdict judge(const ModelBundle &bundle, const BinaryMetrics &model, const std::array<BinaryMetrics, kNumRules> &rules,
              const std::string &where) {
    Verdict v;
    v.best_rule = best_rule(rules);
    v.model_pr_auc = model.pr_auc;
    v.rule_pr_auc = rules[static_cast<size_t>(v.best_rule)].pr_auc;
    // Equal to three decimals is a tie (a rules bundle against its own rule, or one rule against another
    // that scores the same jobs the same way); a tie goes to the model in place.
    v.fit = model.pr_auc >= v.rule_pr_auc - kVerdictTie;
    v.target_reached = !bundle.below_target();
    const std::string what = bundle.is_rules() ? bundle.describe_kind() : "the tree model";
    // A rules bundle measured against its own rule: say so rather than compare it with itself.
    const bool is_best = bundle.is_rules() && *bundle.rule() == v.best_rule;
    const std::string versus = is_best ? "is the best of the rules" : "is at least as good as the best rule ('" + std::string(rule_label(v.best_rule)) + "')";
    const double target = bundle.metadata().value("target_precision", 0.9);
    // Bundles from jfp 0.4 on record the lower confidence bound the threshold was chosen on.
    std::string bound;
    if (auto c = bundle.metadata().find("threshold_choice"); c != bundle.metadata().end() && c->is_object()) {
        auto lb = c->find("precision_lower_bound");
        if (lb != c->end() && lb->is_number()) {
            char b[80];
            std::snprintf(b, sizeof b, " with %.0f%% confidence (lower bound %.3f)", 100 * c->value("confidence", 0.95),
                          lb->get<double>());
            bound = b;
        }
    }
    char buf[700];
    // Judged against the rules alone, a model that ranks nothing would tie with rules that rank nothing
    // either (a young cluster's first jobs, no history yet): a ranking needs failures and completions to be
    // judged on, and must beat chance.
    if (model.positives == 0 || model.positives == model.n) {
        v.fit = false;
        v.modes = "none";
        std::snprintf(buf, sizeof buf,
                      "verdict: cannot judge on %s: %zu failed of %zu finished: a ranking is judged on both "
                      "failures and completions; wait until more jobs have ended and retrain (jfp publish --force "
                      "installs it unjudged)",
                      where.c_str(), model.positives, model.n);
        v.line = buf;
        return v;
    }
    if (model.roc_auc <= 0.5) {
        v.fit = false;
        v.modes = "none";
        std::snprintf(buf, sizeof buf,
                      "verdict: not fit to publish: %s ranks failures no better than chance on %s (ROC-AUC %.3f, PR-AUC "
                      "%.3f where %zu of %zu jobs failed): its warnings would fall at random; retrain once the history "
                      "holds runs to learn from",
                      what.c_str(), where.c_str(), model.roc_auc, model.pr_auc, model.positives, model.n);
        v.line = buf;
        return v;
    }
    if (!v.fit) {
        v.modes = "none";
        std::snprintf(buf, sizeof buf,
                      "verdict: not fit to publish: the rule '%s' ranks failures better than %s on %s (PR-AUC %.3f vs "
                      "%.3f); keep the model in place: trained again on the same jobs it would lose again, so retrain once "
                      "more jobs have ended, or publish the rules themselves (jfp train --kind rules)",
                      rule_label(v.best_rule), what.c_str(), where.c_str(), v.rule_pr_auc, v.model_pr_auc);
    } else if (v.target_reached) {
        v.modes = "warn, annotate and reject";
        std::snprintf(buf, sizeof buf,
                      "verdict: fit for warn, annotate and reject: %s %s on %s (PR-AUC %.3f vs %.3f) and its threshold "
                      "reached the target precision %.2f on validation%s",
                      what.c_str(), versus.c_str(), where.c_str(), v.model_pr_auc, v.rule_pr_auc, target, bound.c_str());
    } else {
        v.modes = "warn and annotate";
        std::snprintf(buf, sizeof buf,
                      "verdict: fit for warn and annotate, not reject: %s %s on %s (PR-AUC %.3f vs %.3f), but its "
                      "threshold missed the target precision %.2f on validation, so reject mode warns (unless "
                      "reject_below_target = yes)",
                      what.c_str(), versus.c_str(), where.c_str(), v.model_pr_auc, v.rule_pr_auc, target);
    }
    v.line = buf;
    return v;
}

ScoredJobs score_jobs_after(const HistoryStore &store, const ModelBundle &bundle, int64_t after,
                            const ModelBundle *installed) {
    ScoredJobs s;
    s.after = after;
    sweep_features(store, [&](const JobRecord &j, const FeatureVector &x) {
        if (j.submit < after || !is_labeled(j.outcome)) return;
        s.submit.push_back(j.submit);
        s.labels.push_back(is_failure(j.outcome) ? 1 : 0);
        s.model.push_back(bundle.score(x).p_fail);
        if (installed) s.installed.push_back(installed->score(x).p_fail);
        for (size_t r = 0; r < kNumRules; ++r) s.rules[r].push_back(rule_score(kRules[r], x));
    });
    return s;
}

RuleComparison rules_comparison(const ScoredJobs &s, const ModelBundle &bundle) {
    RuleComparison c;
    c.jobs = s.labels.size();
    for (int l : s.labels) c.failures += l != 0;
    c.model = evaluate_binary(s.model, s.labels, bundle.threshold());
    for (size_t r = 0; r < kNumRules; ++r) c.rules[r] = evaluate_binary(s.rules[r], s.labels, 0.5);
    return c;
}

ModelVsInstalled compare_with_installed(const ScoredJobs &s, const ModelBundle &bundle, const ModelBundle &installed,
                                        int64_t after) {
    if (s.installed.size() != s.labels.size() || after < s.after)
        throw std::logic_error("compare_with_installed: the jobs were scored without the installed model, or from later than the cutoff asked");
    std::vector<float> a, b;
    std::vector<int> labels;
    for (size_t i = 0; i < s.labels.size(); ++i) {
        if (s.submit[i] < after) continue;
        a.push_back(s.model[i]);
        b.push_back(s.installed[i]);
        labels.push_back(s.labels[i]);
    }
    ModelVsInstalled m;
    m.jobs = labels.size();
    for (int l : labels) m.failures += l != 0;
    m.candidate = evaluate_binary(a, labels, bundle.threshold());
    m.installed = evaluate_binary(b, labels, installed.threshold());
    return m;
}

std::optional<int64_t> training_cutoff(const ModelBundle &bundle) {
    const auto &t = bundle.metadata().find("training");
    if (t == bundle.metadata().end() || !t->is_object()) return std::nullopt;
    const auto &c = t->find("cutoff");
    if (c == t->end() || !c->is_string() || c->get<std::string>().empty()) return std::nullopt;
    return parse_sacct_time(c->get<std::string>());
}

std::optional<int64_t> unseen_from(const ModelBundle &bundle) {
    if (auto c = training_cutoff(bundle)) return c;
    const auto &t = bundle.metadata().find("training");
    if (t == bundle.metadata().end() || !t->is_object()) return std::nullopt;
    for (const char *w : {"validation_window", "train_window"}) {
        auto it = t->find(w);
        if (it == t->end() || !it->is_array() || it->size() != 2 || !(*it)[1].is_string()) continue;
        if (auto last = parse_sacct_time((*it)[1].get<std::string>())) return *last + 1;
    }
    return std::nullopt;
}

BundleVerdict verdict_for(const ModelBundle &bundle, const BinaryMetrics &model,
                          const std::array<BinaryMetrics, kNumRules> &rules, int64_t after, size_t min_failures) {
    BundleVerdict out;
    char where[160];
    std::snprintf(where, sizeof where, "%s", model.n == 1 ? "this one job" : ("these " + std::to_string(model.n) + " jobs").c_str());
    const auto unseen = unseen_from(bundle);
    const bool in_sample = !unseen || after < *unseen;
    if (!in_sample && model.positives >= min_failures) {
        out.verdict = judge(bundle, model, rules, where);
        return out;
    }
    auto rec = recorded_comparison(bundle);
    std::string why;
    if (in_sample)
        why = unseen ? "these jobs include jobs it learned from (it saw jobs submitted before " + format_sacct_time(*unseen) +
                           ")"
                     : "the bundle records no training window, so these jobs may include jobs it learned from";
    else
        why = "these jobs hold " + counted(model.positives, "failure", "failures") + ", fewer than " + std::to_string(min_failures);
    if (!rec) {
        out.verdict = judge(bundle, model, rules, where);
        out.note = why + ", and the bundle records no validation comparison: the verdict above is on them, and a "
                         "model looks better on jobs it learned from";
        return out;
    }
    const std::string rows = bundle.metadata().at("model_choice").value("rows", std::string("validation window"));
    out.verdict = judge(bundle, rec->model, rec->rules, "its " + rows + " (jfp train's record)");
    out.from_record = true;
    out.note = why + ": the verdict is jfp train's, on its " + rows + ", as jfp publish gives it; the figures below are "
               "on these jobs" + (in_sample ? ", and a model looks better on jobs it learned from" : "");
    return out;
}

std::optional<RuleComparison> recorded_comparison(const ModelBundle &bundle) {
    const auto &mc = bundle.metadata().find("model_choice");
    if (mc == bundle.metadata().end() || !mc->is_object()) return std::nullopt;
    RuleComparison c;
    c.jobs = mc->value("jobs", size_t{0});
    c.failures = mc->value("failures", size_t{0});
    const auto &rules = mc->at("rules");
    for (size_t r = 0; r < kNumRules; ++r) {
        auto it = rules.find(rule_id(kRules[r]));
        if (it == rules.end()) return std::nullopt;  // a rule this jfp has and that one did not measure
        c.rules[r].pr_auc = it->value("pr_auc", 0.0);
        c.rules[r].roc_auc = it->value("roc_auc", 0.0);
    }
    if (bundle.is_rules()) {
        c.model = c.rules[static_cast<size_t>(*bundle.rule())];
    } else {
        const auto &t = mc->at("tree");
        if (!t.is_object()) return std::nullopt;
        c.model.pr_auc = t.value("pr_auc", 0.0);
        c.model.roc_auc = t.value("roc_auc", 0.0);
    }
    // The jobs the comparison was measured on, which judge() needs to know it had something to rank.
    c.model.n = c.jobs;
    c.model.positives = c.failures;
    for (auto &r : c.rules) {
        r.n = c.jobs;
        r.positives = c.failures;
    }
    return c;
}

}  // namespace jfp
