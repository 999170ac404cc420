// The model's files where the plugin reads it (tools/publish/model_files.h): installing keeps the model
// replaced as MODEL.previous; a rollback swaps the two; what cannot be loaded is said, not installed.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "catch.h"
#include "test_support.h"
#include "model/scoring/features.h"
#include "model/scoring/rules.h"
#include "tools/publish/model_files.h"

namespace test_model_files {

using namespace jfp;

namespace {

// A loadable rules bundle named id.
std::string rules_bundle(const std::string &id) {
    nlohmann::json b = {{"format", "jfp-model-bundle"},
                        {"format_version", 1},
                        {"model_id", id},
                        {"kind", "rules"},
                        {"rule", rule_id(kRules[0])},
                        {"threshold", 0.5},
                        {"feature_schema", {{"version", kFeatureSchemaVersion}, {"names", nlohmann::json::array()}}}};
    for (const char *n : feature_names()) b["feature_schema"]["names"].push_back(n);
    return b.dump();
}

size_t files_in(const std::string &dir) {
    size_t n = 0;
    for (const auto &e : std::filesystem::directory_iterator(dir)) n += e.is_regular_file();
    return n;
}

}  // namespace

TEST_CASE("model files: install keeps the model replaced; rollback swaps; no temporary file is left") {
    test::TempDir dir;
    const std::string target = dir.file("model.json");
    const std::string a = rules_bundle("rules-a"), b = rules_bundle("rules-b");
    {
        const ModelBundle loaded = ModelBundle::load_text(a, "a");
        CHECK(loaded.model_id() == "rules-a");
    }
    InstalledModel first = install_model_text(target, a);
    CHECK_FALSE(first.replaced);
    CHECK(read_file_text(target) == a);
    InstalledModel second = install_model_text(target, b);
    CHECK(second.replaced);
    CHECK(second.replaced_id == "rules-a");
    CHECK(read_file_text(target) == b);
    CHECK(read_file_text(target + ".previous") == a);
    CHECK(files_in(dir.path()) == 2);

    RolledBack rb = roll_back_model(target);
    CHECK(rb.restored_id == "rules-a");
    CHECK(rb.replaced_id == "rules-b");
    CHECK(read_file_text(target) == a);
    CHECK(read_file_text(target + ".previous") == b);
    CHECK(files_in(dir.path()) == 2);
}

TEST_CASE("model files: a previous model the plugin would refuse is not put back") {
    test::TempDir dir;
    const std::string target = dir.file("model.json");
    test::write_file(target, rules_bundle("live"));
    test::write_file(target + ".previous", "{not a bundle");
    CHECK_THROWS(roll_back_model(target));
    CHECK(read_file_text(target) == rules_bundle("live"));
    CHECK(model_id_at(target + ".previous") == "(unreadable)");
    CHECK(model_id_at(target) == "live");
}

TEST_CASE("model files: the installed model, absent, loadable, or not loadable with the reason") {
    test::TempDir dir;
    const std::string target = dir.file("model.json");
    std::string why = "stale";
    CHECK_FALSE(load_installed_model(target, why));
    CHECK(why.empty());
    test::write_file(target, rules_bundle("live"));
    auto m = load_installed_model(target, why);
    REQUIRE(m);
    CHECK(m->model_id() == "live");
    test::write_file(target, "{}");
    CHECK_FALSE(load_installed_model(target, why));
    CHECK_FALSE(why.empty());
    CHECK_THROWS_WITH(read_file_text(dir.file("none")), HasText(dir.file("none") + ": cannot read: No such file"));
}

}  // namespace test_model_files
