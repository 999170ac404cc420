// jfp train's engine (tools/train/train_run): the bundle trained, written where asked, and what it reports
// about it the bundle's own record.
#include <filesystem>

#include "catch.h"
#include "test_support.h"
#include "tools/train/train_run.h"

namespace test_train_run {

using namespace jfp;

TEST_CASE("train run: writes the bundle it trained, which loads as the plugin loads it", "[train]") {
    test::TempDir dir;
    TrainRun r;
    r.db = test::build_store(dir, 3000, 71);
    r.out = dir.file("bundle.json");
    r.opt.nthread = 1;
    r.opt.rounds = 10;
    r.opt.kind = "tree";
    const TrainSummary s = run_train(r);
    REQUIRE(std::filesystem::exists(r.out));
    const ModelBundle b = ModelBundle::load_file(r.out);
    CHECK(b.model_id() == s.model_id);
    CHECK(s.kind == "tree");
    CHECK_FALSE(b.is_rules());
    CHECK(b.threshold() == Approx(s.threshold.threshold));
    CHECK(s.train_rows > 0);
    CHECK(s.val_rows > 0);
    CHECK(s.best_iteration >= 1);
    CHECK(s.best_iteration <= 10);

    // --kind rules: a rules bundle, replacing the file.
    r.opt.kind = "rules";
    r.json = true;
    const TrainSummary rules = run_train(r);
    CHECK(rules.kind == "rules");
    CHECK(ModelBundle::load_file(r.out).is_rules());
    CHECK(ModelBundle::load_file(r.out).model_id() == rules.model_id);
}

TEST_CASE("train run: too little history is an error and leaves no bundle", "[train]") {
    test::TempDir dir;
    TrainRun r;
    r.db = test::build_store(dir, 30, 72);
    r.out = dir.file("bundle.json");
    CHECK_THROWS_WITH(run_train(r), HasText("jfp needs at least 50"));
    CHECK_FALSE(std::filesystem::exists(r.out));
}

}  // namespace test_train_run
