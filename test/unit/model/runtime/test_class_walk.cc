// The submit path walks the class trees (most of a bundle's walk) only for a job at or above its
// threshold, the only job whose class is said. These tests hold that the split changes nothing said.
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "catch.h"
#include "engine_site.h"
#include "model/files/sqlite_util.h"
#include "model/runtime/engine.h"
#include "model/scoring/model_bundle.h"
#include "model/policy/policy.h"
#include "test_support.h"

namespace test_class_walk {

using namespace jfp;
using test::request;
using test::Site;

TEST_CASE("bundle: the failure score alone, then the class, equal one full scoring (random rows)") {
    Site site;
    ModelBundle b = ModelBundle::load_file(site.model);
    REQUIRE(b.has_class_model());
    const uint64_t seed = test::property_seed();
    INFO("seed " << seed << " (JFP_PROPERTY_SEED)");
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> U(0, 1);
    for (int i = 0; i < 3000; ++i) {
        FeatureVector x;
        for (auto &v : x) v = U(rng) < 0.3f ? std::nanf("") : (U(rng) < 0.5f ? U(rng) * 10 : std::ldexp(U(rng) - 0.5f, static_cast<int>(rng() % 40)));
        Score full = b.score(x);
        Score s = b.score_failure(x);
        CHECK(full.classified);
        CHECK_FALSE(s.classified);
        CHECK(s.p_fail == full.p_fail);
        b.classify(x, s);
        CHECK(s.classified);
        CHECK(s.top_class == full.top_class);
        CHECK(s.p_class == full.p_class);
    }
}

TEST_CASE("engine: the class is walked for a job at or above its threshold; below it the row says NULL, and nothing said differs") {
    Site site;
    ModelBundle b = ModelBundle::load_file(site.model);
    const std::string log_path = site.dir.file("features.db");
    // Two partitions: every job in "hot" is at or above its threshold, none in "cold" is.
    site.config("mode = annotate\nfeature_log = " + log_path + "\nthreshold.partition.hot = 0\nthreshold.partition.cold = 1\n");
    std::vector<std::string> above_tokens, below_tokens;
    std::map<std::string, std::string> said_class;  // token -> the class the annotation names
    {
        EngineOptions opt = site.options();
        opt.background = true;  // the feature log is written by the background engine only
        Engine e(opt);
        REQUIRE(e.mode() == Mode::Annotate);
        const char *names[] = {"sim", "steady_job", "flaky", "post", "a", "b"};
        for (int i = 0; i < 90; ++i) {
            SubmitRequest q = request(names[i % 6]);
            // Every third a partition list: judged by the strictest entry, here "hot".
            q.partition = i % 3 == 2 ? "cold,hot" : i % 2 ? "hot" : "cold";
            const bool hot = i % 3 == 2 || i % 2;
            q.min_cpus = 1 + i % 5;
            auto out = e.evaluate(q);
            REQUIRE(out.decision.scored);
            REQUIRE(out.new_comment);
            auto a = parse_annotation(*out.new_comment);
            REQUIRE(a);
            CHECK(out.decision.above == hot);
            CHECK(a->cls.empty() == !out.decision.above);  // the class is said only at or above the threshold
            CHECK((out.decision.top_class >= 0) == out.decision.above);
            (out.decision.above ? above_tokens : below_tokens).push_back(out.token.str());
            said_class[out.token.str()] = a->cls;
        }
        REQUIRE(e.flush_for_exit(std::chrono::milliseconds(10000)));
    }
    Db db(log_path, SQLITE_OPEN_READONLY);
    auto row = [&](const std::string &token, int &cls, FeatureVector &x) {
        Stmt s(db, "SELECT top_class, features FROM scored WHERE token = ?1");
        s.bind(1, std::string_view(token));
        REQUIRE(s.step());
        cls = s.is_null(0) ? -1 : static_cast<int>(s.int_at(0));
        int n = 0;
        const void *blob = s.blob_at(1, n);
        REQUIRE(n == static_cast<int>(sizeof x));
        std::memcpy(x.data(), blob, sizeof x);
    };
    for (const auto &t : below_tokens) {
        int cls = 0;
        FeatureVector x;
        row(t, cls, x);
        CHECK(cls == -1);
    }
    for (const auto &t : above_tokens) {
        int cls = -1;
        FeatureVector x;
        row(t, cls, x);
        const int full = b.score(x).top_class;  // what a full scoring of the logged row says
        CHECK(cls == full);
        CHECK(said_class[t] == outcome_name(kFailureClassOutcomes[full]));
    }
}

TEST_CASE("engine: a warned job is classified; a job below the threshold is neither warned nor classified") {
    Site site;
    site.config("mode = warn\nthreshold.partition.hot = 0\nthreshold.partition.cold = 1\n");
    Engine e(site.options());
    REQUIRE(e.mode() == Mode::Warn);
    SubmitRequest q = request("flaky");
    q.partition = "hot";
    auto warned = e.evaluate(q);
    REQUIRE(warned.decision.action == Action::Warn);
    CHECK(warned.decision.top_class >= 0);
    CHECK_FALSE(warned.user_message.empty());
    q.partition = "cold";
    auto quiet = e.evaluate(q);
    CHECK(quiet.decision.action == Action::None);
    CHECK(quiet.decision.top_class == -1);
    CHECK(quiet.user_message.empty());
}

}  // namespace test_class_walk
