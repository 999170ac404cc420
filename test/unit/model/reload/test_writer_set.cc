// WriterSet: the writers follow the config; a replaced writer closes only once nothing holds it.
#include "catch.h"
#include "model/reload/writer_set.h"
#include "test_support.h"

namespace test_writer_set {

using namespace jfp;

namespace {

Config config_with(const std::string &feature_log, const std::string &archive = "") {
    Config c;
    c.feature_log_path = feature_log;
    c.script_archive_path = archive;
    return c;
}

}  // namespace

TEST_CASE("writer set: off in tests without threads; the budget follows the config all the same") {
    test::TempDir dir;
    WriterSet set(false);
    EngineWriters w;
    Config c = config_with(dir.file("f.db"), dir.file("a.db"));
    c.user_write_bytes_per_day = 12345;
    CHECK_FALSE(set.follow(c, w));
    CHECK_FALSE(w.feature_log);
    CHECK_FALSE(w.script_archive);
    CHECK(set.live() == 0);
    CHECK(set.budget().limit() == 12345);
}

TEST_CASE("writer set: a writer the config moves is retired, and closed once no state holds it") {
    test::TempDir dir;
    WriterSet set(true);
    EngineWriters w;
    REQUIRE(set.follow(config_with(dir.file("a.db")), w));
    REQUIRE(w.feature_log);
    CHECK(set.live() == 1);
    CHECK_FALSE(set.follow(config_with(dir.file("a.db")), w));  // nothing changed: the same writer
    EngineWriters held = w;                                      // a submission in flight holds the old state
    REQUIRE(set.follow(config_with(dir.file("b.db")), w));
    CHECK(w.feature_log != held.feature_log);
    CHECK(set.live() == 2);
    set.close_retired();
    CHECK(set.live() == 2);  // still held
    held = EngineWriters();
    set.close_retired();
    CHECK(set.live() == 1);

    REQUIRE(set.follow(config_with(dir.file("b.db"), dir.file("s.db")), w));  // an archive named
    REQUIRE(w.script_archive);
    CHECK(set.live() == 2);
    CHECK(WriterSet::flush(w, std::chrono::milliseconds(5000)));
    REQUIRE(set.follow(config_with(dir.file("b.db")), w));  // and taken away
    CHECK_FALSE(w.script_archive);
    set.close_retired();
    CHECK(set.live() == 1);
}

}  // namespace test_writer_set
