// `jfp scripts stats` (tools/scripts/archive_stats.h): what the archive holds, as text and JSON.
#include <nlohmann/json.hpp>

#include "catch.h"
#include "model/util/time_util.h"
#include "scripts_fixture.h"
#include "tools/scripts/archive_stats.h"

namespace test_archive_stats {

using namespace jfp;

TEST_CASE("archive stats: byte sizes as people read them", "[scripts]") {
    CHECK(human_bytes(0) == "0 bytes");
    CHECK(human_bytes(1023) == "1023 bytes");
    CHECK(human_bytes(1536) == "1.5 KiB");
    CHECK(human_bytes(uint64_t{3} << 20) == "3.0 MiB");
    CHECK(human_bytes((uint64_t{5} << 30) + (uint64_t{1} << 29)) == "5.5 GiB");
}

TEST_CASE("archive stats: submissions, unique scripts and dedup, in text and JSON", "[scripts]") {
    test::ScriptsFixture fx;
    const int64_t t = 1790000000;
    fx.archive_script("1111111111111111", t, "#!/bin/sh\necho same\n");
    fx.archive_script("2222222222222222", t + 60, "#!/bin/sh\necho same\n");
    const std::string text = archive_stats_report(fx.archive, false);
    CHECK(text.rfind("script archive " + fx.archive + "\n", 0) == 0);
    CHECK_THAT(text, HasText("\n  submissions            2 (0 with their environment)\n"));
    CHECK_THAT(text, HasText("\n  submitted              " + format_sacct_time(t) + " .. " + format_sacct_time(t + 60) + "\n"));
    CHECK_THAT(text, HasText("\n  unique scripts         1\n"));
    CHECK_THAT(text, HasText("\n  script bytes submitted 40 bytes; unique 20 bytes: dedup 2.0x\n"));

    auto j = nlohmann::json::parse(archive_stats_report(fx.archive, true));
    CHECK(j["submissions"] == 2);
    CHECK(j["unique_scripts"] == 1);
    CHECK(j["dedup_ratio"] == 2.0);
    CHECK(j["first"] == format_sacct_time(t));

    ArchiveStats empty;
    CHECK_THAT(archive_stats_text("x.db", empty), !HasText("submitted  "));
    CHECK(nlohmann::json::parse(archive_stats_json(empty))["last"].is_null());
}

}  // namespace test_archive_stats
