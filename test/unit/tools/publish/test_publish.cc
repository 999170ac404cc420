// jfp publish's engine (tools/publish/publish.h): a bundle is installed only when it ranks failures at
// least as well as the history rules (or with --force), the model it replaces is kept and put back by a
// rollback, and a bundle already installed is left alone.
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "catch.h"
#include "model/scoring/rules.h"
#include "bundle_support.h"
#include "test_support.h"
#include "tools/publish/model_files.h"
#include "tools/publish/publish.h"

namespace test_publish {

using namespace jfp;

namespace {

// A trained bundle's JSON, trained once for every test here.
const nlohmann::json &trained_bundle() {
    static const nlohmann::json bundle = [] {
        test::TempDir dir;
        const std::string db = test::build_store(dir, 3000, 21);
        std::ifstream in(test::train_small_bundle(dir, db, 10));
        return nlohmann::json::parse(in);
    }();
    return bundle;
}

// The bundle as model `id`, with jfp train's record of it beside the rules: its PR-AUC tree_pr_auc, every
// rule's 0.3 (none when tree_pr_auc is negative: no comparison recorded).
std::string bundle_file(const test::TempDir &dir, const std::string &id, double tree_pr_auc) {
    nlohmann::json b = trained_bundle();
    b["model_id"] = id;
    b.erase("model_choice");
    if (tree_pr_auc >= 0) {
        nlohmann::json rules = nlohmann::json::object();
        for (Rule r : kRules) rules[rule_id(r)] = {{"pr_auc", 0.3}, {"roc_auc", 0.6}};
        b["model_choice"] = {{"jobs", 1000}, {"failures", 100}, {"rows", "validation window"}, {"rules", rules},
                             {"tree", {{"pr_auc", tree_pr_auc}, {"roc_auc", 0.8}}}};
    }
    const std::string path = dir.file(id + ".json");
    test::write_file(path, b.dump());
    return path;
}

struct Publisher {
    explicit Publisher(std::string t) : target(std::move(t)) {}
    std::string target;
    std::ostringstream out, err;
    PublishResult publish(const std::string &bundle, bool force = false) {
        PublishRequest r;
        r.bundle = bundle;
        r.target = [this] { return target; };
        r.store = [] { return std::string(); };
        r.force = force;
        return publish_model(r, out, err);
    }
    PublishResult roll_back() {
        PublishRequest r;
        r.rollback = true;
        r.target = [this] { return target; };
        r.store = [] { return std::string(); };
        return publish_model(r, out, err);
    }
};

std::string text_of(const std::string &path) { return read_file_text(path); }

}  // namespace

TEST_CASE("publish: a bundle better than the rules is installed; the one it replaces is kept as .previous") {
    test::TempDir dir;
    const std::string a = bundle_file(dir, "model-a", 0.9), b = bundle_file(dir, "model-b", 0.8);
    Publisher p(dir.file("installed.json"));
    REQUIRE(p.publish(a) == PublishResult::Installed);
    CHECK(text_of(p.target) == text_of(a));
    CHECK(::access((p.target + ".previous").c_str(), F_OK) != 0);
    CHECK_THAT(p.out.str(), HasText("as " + p.target + "; no model was there before, so there is none to roll back to\n"));
    CHECK_THAT(p.out.str(), HasText("is at least as good as the best rule"));

    REQUIRE(p.publish(b) == PublishResult::Installed);
    CHECK(text_of(p.target) == text_of(b));
    CHECK(text_of(p.target + ".previous") == text_of(a));
    CHECK_THAT(p.out.str(), HasText("jfp publish: not compared with the installed model model-a: no history store to measure "
                                    "both on (--db)\n"));
    CHECK_THAT(p.out.str(), HasText("; the model it replaced, model-a, is " + p.target + ".previous (jfp publish --rollback)\n"));
    CHECK(p.err.str().empty());
}

TEST_CASE("publish: the bundle already installed is left alone, and .previous with it") {
    test::TempDir dir;
    const std::string a = bundle_file(dir, "model-a", 0.9), b = bundle_file(dir, "model-b", 0.9);
    Publisher p(dir.file("installed.json"));
    REQUIRE(p.publish(a) == PublishResult::Installed);
    REQUIRE(p.publish(b) == PublishResult::Installed);
    CHECK(p.publish(b) == PublishResult::AlreadyInstalled);
    CHECK_THAT(p.out.str(), HasText("jfp publish: model model-b is already installed as " + p.target + ": nothing to do\n"));
    CHECK(text_of(p.target + ".previous") == text_of(a));
}

TEST_CASE("publish: a bundle the rules beat is refused unless forced; the installed model stays") {
    test::TempDir dir;
    const std::string good = bundle_file(dir, "model-good", 0.9), weak = bundle_file(dir, "model-weak", 0.1);
    Publisher p(dir.file("installed.json"));
    REQUIRE(p.publish(good) == PublishResult::Installed);
    CHECK(p.publish(weak) == PublishResult::Refused);
    CHECK(p.err.str() == "jfp publish: refused: " + weak + " is not installed; " + p.target +
                             " keeps its model (--force publishes anyway)\n");
    CHECK(text_of(p.target) == text_of(good));
    CHECK(p.publish(weak, true) == PublishResult::Installed);
    CHECK_THAT(p.out.str(), HasText("jfp publish: --force: publishing a model the rules beat\n"));
    CHECK(text_of(p.target) == text_of(weak));
    CHECK(text_of(p.target + ".previous") == text_of(good));
}

TEST_CASE("publish: a bundle with no comparison to judge is an error unless forced") {
    test::TempDir dir;
    const std::string bare = bundle_file(dir, "model-bare", -1);
    Publisher p(dir.file("installed.json"));
    CHECK_THROWS_WITH(p.publish(bare), HasText("records no comparison with the history rules"));
    CHECK(::access(p.target.c_str(), F_OK) != 0);
    CHECK(p.publish(bare, true) == PublishResult::Installed);
    CHECK_THAT(p.out.str(), HasText("jfp publish: --force: " + bare + " was not compared with the rules\n"));
}

TEST_CASE("publish: rollback swaps the model and the previous one; a second rollback undoes the first") {
    test::TempDir dir;
    const std::string a = bundle_file(dir, "model-a", 0.9), b = bundle_file(dir, "model-b", 0.9);
    Publisher p(dir.file("installed.json"));
    CHECK_THROWS_WITH(p.roll_back(), HasText("nothing to roll back to: " + p.target + ".previous does not exist"));
    REQUIRE(p.publish(a) == PublishResult::Installed);
    REQUIRE(p.publish(b) == PublishResult::Installed);
    REQUIRE(p.roll_back() == PublishResult::RolledBack);
    CHECK(text_of(p.target) == text_of(a));
    CHECK(text_of(p.target + ".previous") == text_of(b));
    CHECK_THAT(p.out.str(), HasText("jfp publish: rolled " + p.target + " back to model model-a; model model-b is now " +
                                    p.target + ".previous (--rollback again undoes this)\n"));
    REQUIRE(p.roll_back() == PublishResult::RolledBack);
    CHECK(text_of(p.target) == text_of(b));
    CHECK(text_of(p.target + ".previous") == text_of(a));
}

TEST_CASE("publish: an unreadable bundle is refused before the target is looked up") {
    test::TempDir dir;
    PublishRequest r;
    r.bundle = dir.file("none.json");
    r.target = []() -> std::string { throw std::runtime_error("target looked up"); };
    r.store = [] { return std::string(); };
    std::ostringstream out, err;
    CHECK_THROWS_WITH(publish_model(r, out, err), HasText(dir.file("none.json") + ": cannot read"));
}

}  // namespace test_publish
