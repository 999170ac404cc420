// The history rules as a model: their scores, rules bundles from jfp train (and its refusal when there is
// too little evidence), the tree-or-rule choice, the verdict and the reasons a rule gives.
#include <cmath>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "catch.h"
#include "model/policy/explain.h"
#include "model/scoring/feature_sweep.h"
#include "model/scoring/model_bundle.h"
#include "model/scoring/rules.h"
#include "model/util/time_util.h"
#include "test_support.h"
#include "tools/evaluate/metrics.h"
#include "tools/evaluate/verdict.h"
#include "tools/train/model_choice.h"
#include "tools/train/trainer.h"

namespace test_rules {

using namespace jfp;

namespace {

FeatureVector empty_history() {
    FeatureVector x;
    x.fill(std::nanf(""));
    x[F_un_n] = x[F_un_streak] = x[F_us_n] = x[F_us_streak] = x[F_u_n] = x[F_u_streak] = 0;
    return x;
}

// `jobs` jobs ten minutes apart, each ending five minutes after its submission, by ten users running seven
// job names; job i fails when fails(i). Names cycle slower than users, so a user+name pair repeats.
template <class Fails>
std::string export_text(int jobs, Fails fails) {
    std::string s = "JobIDRaw|JobID|User|UID|Account|Partition|JobName|Submit|Start|End|State|ReqCPUS|Timelimit\n";
    char line[400];
    const int64_t t0 = *parse_sacct_time("2024-03-01T00:00:00");
    for (int i = 0; i < jobs; ++i) {
        int64_t submit = t0 + 600LL * i;
        std::snprintf(line, sizeof line, "%d|%d|u%d|%d|acct|batch|app%d|%s|%s|%s|%s|4|01:00:00\n", 1000 + i, 1000 + i,
                      i % 10, 5000 + i % 10, (i / 10) % 7, format_sacct_time(submit).c_str(),
                      format_sacct_time(submit + 10).c_str(), format_sacct_time(submit + 300).c_str(),
                      fails(i) ? "FAILED" : "COMPLETED");
        s += line;
    }
    return s;
}

// 21 failures: u3's ten runs of app2, and eleven late ones (the validation window): enough for a rules bundle,
// too few among the training rows for a tree model.
bool few_failures(int i) { return (i % 10 == 3 && (i / 10) % 7 == 2) || (i >= 600 && i % 9 == 0); }

std::string store_with(const test::TempDir &dir, const std::string &text) {
    std::string db = dir.file("h.db");
    HistoryStore store(db, HistoryStore::Access::ReadWrite);
    test::ingest_text(store, text);
    return db;
}

// The rules bundle jfp train makes from export_text(700, few_failures): trained once, read by three tests.
struct RulesFixture {
    test::TempDir dir;
    std::string db;
    nlohmann::json bundle;
    TrainSummary summary;
    RulesFixture() : db(store_with(dir, export_text(700, few_failures))) {
        HistoryStore store(db, HistoryStore::Access::ReadOnly);
        TrainOptions opt;
        opt.nthread = 1;
        bundle = train_bundle(store, opt, summary);
    }
};
const RulesFixture &rules_fixture() {
    static const RulesFixture f;
    return f;
}

}  // namespace

TEST_CASE("rules: scores and the evidence they read") {
    FeatureVector x = empty_history();
    for (Rule r : kRules) {
        CHECK(rule_score(r, x) == 0.0f);  // no history: nothing to go on
        REQUIRE(parse_rule(rule_id(r)) == r);
    }
    CHECK_FALSE(parse_rule("no_such_rule"));
    CHECK(rule_evidence(Rule::MostSpecificRecentRate, x) == -1);

    x[F_u_recent_fail_rate] = 0.3f;
    CHECK(rule_score(Rule::UserRecentRate, x) == Approx(0.3));
    CHECK(rule_score(Rule::MostSpecificRecentRate, x) == Approx(0.3));  // only the user's history
    x[F_us_recent_fail_rate] = 0.5f;
    CHECK(rule_score(Rule::MostSpecificRecentRate, x) == Approx(0.5));  // the stem is narrower
    x[F_un_recent_fail_rate] = 0.0f;
    x[F_un_streak] = 0;
    CHECK(rule_score(Rule::MostSpecificRecentRate, x) == 0.0f);  // the job's own runs all completed
    CHECK(rule_evidence(Rule::MostSpecificRecentRate, x) == F_un_recent_fail_rate);
    CHECK(rule_score(Rule::LastUserNameFailed, x) == 0.0f);
    x[F_un_streak] = 2;
    CHECK(rule_score(Rule::LastUserNameFailed, x) == 1.0f);
    CHECK(rule_reads(Rule::LastUserNameFailed, F_un_streak));
    CHECK_FALSE(rule_reads(Rule::UserRecentRate, F_un_streak));
}

TEST_CASE("train: six failures are refused with the numbers and what to do; no tree model that flags everything") {
    test::TempDir dir;
    std::string db = store_with(dir, export_text(600, [](int i) { return i % 100 == 7; }));
    HistoryStore store(db, HistoryStore::Access::ReadOnly);
    TrainOptions opt;
    opt.nthread = 1;
    TrainSummary s;
    try {
        train_bundle(store, opt, s);
        FAIL("a bundle was trained on 6 failures");
    } catch (const std::runtime_error &e) {
        std::string what = e.what();
        INFO(what);
        CHECK(what.find("too little evidence") != std::string::npos);
        CHECK(what.find("600 jobs, 6 failed") != std::string::npos);
        CHECK(what.find("at least 20 failed jobs") != std::string::npos);
        CHECK(what.find("Ingest a longer sacct history") != std::string::npos);
    }
}

TEST_CASE("train: too few failures for a tree model give a rules bundle that loads, scores as its rule and explains") {
    // 21 failures: u3's runs of app2 (which it runs ten times) and eleven late ones.
    const RulesFixture &f = rules_fixture();
    HistoryStore store(f.db, HistoryStore::Access::ReadOnly);
    TrainOptions opt;
    opt.nthread = 1;
    TrainSummary s = f.summary;
    const nlohmann::json &bundle = f.bundle;
    INFO(bundle["model_choice"].dump());
    REQUIRE(s.train_failures + s.val_failures >= kMinFailuresForRules);
    REQUIRE(s.train_failures < kMinTreeTrainFailures);
    CHECK(s.kind == "rules");
    CHECK(bundle["kind"] == "rules");
    CHECK(bundle["failure_model"].is_null());
    CHECK(bundle["model_choice"]["no_tree_reason"].get<std::string>().find("a tree model needs 20 failures") != std::string::npos);
    CHECK(s.comparison.verdict.find("no tree model") != std::string::npos);

    ModelBundle b = ModelBundle::from_json(bundle, "rules.json");
    REQUIRE(b.is_rules());
    CHECK(b.reference_rows_checked() > 0);
    CHECK(b.describe_kind().find("the rule '") == 0);
    CHECK_FALSE(b.uses_script_features());
    Rule rule = *b.rule();
    CHECK(rule_id(rule) == bundle["rule"].get<std::string>());

    // It scores every job exactly as its rule does, and u3's next app2 is flagged with the history as the reason.
    size_t seen = 0, explained = 0;
    sweep_submissions(store, [&](const Submission &sub) {
        CHECK(b.score(sub.x).p_fail == rule_score(rule, sub.x));
        ++seen;
        if (sub.job.user != "u3" || sub.job.name != "app2" || sub.history.user_name == nullptr ||
            sub.history.user_name->streak < 2)
            return;
        Score sc = b.score(sub.x);
        CHECK(sc.p_fail >= b.threshold());
        std::string why = explain(b, sub.x, sub.request, sub.history, sc.top_class);
        INFO(why);
        CHECK((why.find("runs of 'app2' failed") != std::string::npos || why.find("of your last") != std::string::npos));
        ++explained;
    });
    CHECK(seen == 700);
    CHECK(explained >= 5);

    opt.kind = "tree";
    CHECK_THROWS_WITH(train_bundle(store, opt, s), HasText("--kind tree: no tree model can be trained"));
}

TEST_CASE("bundle: an unknown kind or rule is refused with what this jfp reads") {
    const nlohmann::json &bundle = rules_fixture().bundle;
    REQUIRE(bundle["kind"] == "rules");
    auto j = bundle;
    j["rule"] = "always_fail";
    CHECK_THROWS_WITH(ModelBundle::from_json(j, "b.json"), HasText("unknown rule \"always_fail\"") && HasText("last_outcome_user_name"));
    j = bundle;
    j["kind"] = "forest";
    CHECK_THROWS_WITH(ModelBundle::from_json(j, "b.json"), HasText("unknown bundle kind 'forest'"));
    j = bundle;
    j["reference_rows"][0]["p_fail"] = 0.5;  // the rule no longer reproduces what train recorded
    j["reference_rows"][0]["x"][F_un_streak] = 0;
    j["reference_rows"][0]["x"][F_un_recent_fail_rate] = 0.1;
    j["reference_rows"][0]["x"][F_us_recent_fail_rate] = 0.1;
    j["reference_rows"][0]["x"][F_u_recent_fail_rate] = 0.1;
    CHECK_THROWS_WITH(ModelBundle::from_json(j, "b.json"), HasText("reference row 0"));
}

TEST_CASE("model choice: the tree ships only when it ranks failures better than the best rule") {
    std::vector<int> labels = {1, 0, 1, 0, 0, 0, 1, 0};
    std::array<std::vector<float>, kNumRules> rules;
    rules[0] = {1, 0, 0, 0, 0, 0, 1, 0};                    // catches 2 of 3, no false alarm
    rules[1] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};  // no information
    rules[2] = rules[1];
    rules[3] = {0.9f, 0.1f, 0.8f, 0.2f, 0.1f, 0.1f, 0.7f, 0.1f};  // perfect ranking
    std::vector<float> tree = {0.6f, 0.5f, 0.4f, 0.1f, 0.1f, 0.1f, 0.3f, 0.2f};
    auto c = compare_with_rules(rules, tree, labels, "validation window", "", "auto");
    CHECK(c.best_rule == Rule::MostSpecificRecentRate);
    CHECK_FALSE(c.tree_chosen);
    CHECK(c.verdict.find("the rule 'narrowest history rate, recent runs'") == 0);
    auto forced = compare_with_rules(rules, tree, labels, "validation window", "", "tree");
    CHECK(forced.tree_chosen);
    CHECK(forced.verdict.find("(--kind tree)") != std::string::npos);
    std::vector<float> perfect = {0.99f, 0.01f, 0.98f, 0.02f, 0.01f, 0.03f, 0.97f, 0.02f};
    rules[3] = rules[1];
    auto won = compare_with_rules(rules, perfect, labels, "validation window", "", "auto");
    CHECK(won.tree_chosen);
    CHECK(won.best_rule == Rule::LastUserNameFailed);
    auto j = won.to_json();
    CHECK(j["chosen"] == "tree");
    CHECK(j["rules"]["last_outcome_user_name"]["pr_auc"].get<double>() == Approx(won.rules[0].pr_auc));
}

TEST_CASE("verdict: unfit below the best rule, reject only when the target was reached, a tie goes to the model") {
    const TrainSummary &s = rules_fixture().summary;
    auto j = rules_fixture().bundle;
    j["threshold_choice"]["target_reached"] = true;
    ModelBundle reached = ModelBundle::from_json(j, "r.json");
    j["threshold_choice"]["target_reached"] = false;
    ModelBundle missed = ModelBundle::from_json(j, "m.json");

    std::array<BinaryMetrics, kNumRules> rules{};
    for (size_t r = 0; r < kNumRules; ++r) rules[r].pr_auc = 0.2 + 0.05 * static_cast<double>(r);  // best: the last, 0.35
    BinaryMetrics model;
    model.n = 10;
    model.positives = 3;
    model.roc_auc = 0.8;
    model.pr_auc = 0.30;
    Verdict v = judge(reached, model, rules, "these 10 jobs");
    CHECK_FALSE(v.fit);
    CHECK(v.modes == "none");
    CHECK(v.best_rule == Rule::MostSpecificRecentRate);
    CHECK(v.line.find("not fit to publish") != std::string::npos);
    CHECK(v.line.find("PR-AUC 0.350 vs 0.300") != std::string::npos);
    model.pr_auc = 0.3502;
    v = judge(reached, model, rules, "these 10 jobs");
    CHECK(v.fit);
    CHECK(v.modes == "warn, annotate and reject");
    v = judge(missed, model, rules, "these 10 jobs");
    CHECK(v.fit);
    CHECK(v.modes == "warn and annotate");
    CHECK(v.line.find("reject mode warns") != std::string::npos);
    model.pr_auc = 0.3494;  // one thousandth below: a loss, not a tie
    CHECK_FALSE(judge(reached, model, rules, "x").fit);

    // Nothing to rank on, or no better than chance: never fit, whatever the rules did (they tie with a
    // ranking of nothing when the history is empty).
    BinaryMetrics degenerate = model;
    degenerate.pr_auc = 0.9;
    for (size_t failed : {size_t(0), size_t(10)}) {
        degenerate.positives = failed;
        v = judge(reached, degenerate, rules, "these 10 jobs");
        CHECK_FALSE(v.fit);
        CHECK(v.modes == "none");
        CHECK(v.line.rfind("verdict: cannot judge on these 10 jobs: " + std::to_string(failed) + " failed of 10 finished", 0) == 0);
    }
    degenerate.positives = 3;
    degenerate.roc_auc = 0.5;
    v = judge(reached, degenerate, rules, "these 10 jobs");
    CHECK_FALSE(v.fit);
    CHECK(v.line.find("no better than chance on these 10 jobs (ROC-AUC 0.500") != std::string::npos);

    // What train recorded reads back as the same comparison.
    auto rec = recorded_comparison(reached);
    REQUIRE(rec);
    CHECK(rec->model.pr_auc == Approx(s.comparison.rules[static_cast<size_t>(*reached.rule())].pr_auc));
    CHECK(rec->failures == s.comparison.failures);
    j.erase("model_choice");
    CHECK_FALSE(recorded_comparison(ModelBundle::from_json(j, "old.json")));
}

TEST_CASE("threshold: a rule's threshold never flags every job, even where that has the best F1") {
    // 30% failures; a 0/1 rule catching a third of them at precision 0.5. Flagging everything has F1 0.46,
    // the rule's own cut 0.4: best-F1 alone would flag every job.
    std::vector<float> scores;
    std::vector<int> labels;
    for (int i = 0; i < 100; ++i) {
        bool failed = i < 30;
        labels.push_back(failed);
        scores.push_back((failed && i < 10) || (!failed && i < 40) ? 1.0f : 0.0f);
    }
    auto all = choose_threshold(scores, labels, 0.9, 5, false);
    CHECK_FALSE(all.target_reached);
    CHECK(all.threshold == 0.0);
    auto rule = choose_threshold(scores, labels, 0.9, 5, true);
    CHECK(rule.threshold == 1.0);
    CHECK(rule.recall == Approx(10.0 / 30));
}

TEST_CASE("train: on a young cluster whose jobs run across the validation start, the refusal names that cause") {
    // 68 jobs a minute apart, each running two hours: nearly every job before the validation window ends
    // inside it, so it is in neither split (the first training: 68 jobs, 13 usable).
    std::string text = "JobIDRaw|JobID|User|UID|Account|Partition|JobName|Submit|Start|End|State|ReqCPUS|Timelimit\n";
    const int64_t t0 = *parse_sacct_time("2024-03-01T00:00:00");
    char line[400];
    for (int i = 0; i < 68; ++i) {
        int64_t submit = t0 + 60LL * i;
        std::snprintf(line, sizeof line, "%d|%d|u%d|%d|acct|batch|app%d|%s|%s|%s|%s|1|03:00:00\n", 1000 + i, 1000 + i, i % 3,
                      5000 + i % 3, i % 5, format_sacct_time(submit).c_str(), format_sacct_time(submit + 5).c_str(),
                      format_sacct_time(submit + 7200).c_str(), i % 5 < 3 ? "FAILED" : "COMPLETED");
        text += line;
    }
    test::TempDir dir;
    std::string db = store_with(dir, text);
    HistoryStore store(db, HistoryStore::Access::ReadOnly);
    TrainOptions opt;
    opt.nthread = 1;
    TrainSummary s;
    try {
        train_bundle(store, opt, s);
        FAIL("a bundle was trained");
    } catch (const std::runtime_error &e) {
        std::string what = e.what();
        INFO(what);
        CHECK(what.find("ran across the validation window's start") != std::string::npos);
        CHECK(what.find("count in neither split") != std::string::npos);
        CHECK(what.find("spans longer than its jobs run") != std::string::npos);
        CHECK(what.find("train again when more jobs have ended") == std::string::npos);
    }
}

TEST_CASE("model choice: a rule that ships is chosen and recorded on every row before the cutoff") {
    // Validation alone puts rule 3 first; the training window's rows, which a rule never learned from, put
    // rule 0 first overall.
    std::vector<int> val_labels = {1, 0, 1, 0};
    std::array<std::vector<float>, kNumRules> val;
    val[0] = {0.9f, 0.8f, 0.1f, 0.1f};
    val[1] = val[2] = {0.5f, 0.5f, 0.5f, 0.5f};
    val[3] = {0.9f, 0.1f, 0.8f, 0.2f};
    std::vector<int> all_labels = {1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0};
    std::array<std::vector<float>, kNumRules> all;
    all[0] = {0.9f, 0.8f, 0.1f, 0.1f, 0.9f, 0.1f, 0.9f, 0.1f, 0.9f, 0.1f, 0.9f, 0.1f};
    all[1] = all[2] = std::vector<float>(12, 0.5f);
    all[3] = {0.9f, 0.1f, 0.8f, 0.2f, 0.1f, 0.9f, 0.1f, 0.9f, 0.2f, 0.8f, 0.1f, 0.9f};
    const std::vector<float> weak_tree = {0.5f, 0.5f, 0.5f, 0.5f};
    auto c = compare_with_rules(val, weak_tree, val_labels, "validation window", "", "auto", &all, &all_labels);
    CHECK_FALSE(c.tree_chosen);
    CHECK(c.best_rule == Rule::LastUserNameFailed);
    CHECK(c.rows == 12);
    CHECK(c.rows_name == "training and validation windows");
    CHECK(c.verdict.find("the rule 'last run of user+name failed': PR-AUC 0.500 for the tree model") == 0);
    CHECK(c.verdict.find("on the training and validation windows' 12 jobs (6 failed") != std::string::npos);
    // Without a tree, the same choice; a tree that wins is compared on validation only.
    auto rules_only = compare_with_rules(val, {}, val_labels, "validation window", "--kind rules", "rules", &all, &all_labels);
    CHECK(rules_only.best_rule == Rule::LastUserNameFailed);
    const std::vector<float> perfect = {0.99f, 0.01f, 0.98f, 0.02f};
    auto val2 = val;
    val2[3] = {0.9f, 0.1f, 0.2f, 0.8f};
    auto won = compare_with_rules(val2, perfect, val_labels, "validation window", "", "auto", &all, &all_labels);
    CHECK(won.tree_chosen);
    CHECK(won.rows == 4);
    CHECK(won.rows_name == "validation window");
}

}  // namespace test_rules
