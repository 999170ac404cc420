// The two halves of reading an sacct row, without the line reader in front: which field is which
// (SacctLayout) and what a placed row says (read_sacct_row).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "bar_fields.h"
#include "catch.h"
#include "model/sacct/sacct_layout.h"
#include "model/sacct/sacct_row.h"
#include "model/util/text.h"

namespace test_sacct_layout {

using namespace jfp;

namespace {


const char *kNames = "JobIDRaw|JobID|User|UID|State|Submit|End|ReqCPUS|ReqMem|JobName|Bogus|jobname|MaxRSS";

}  // namespace

TEST_CASE("sacct layout: positions, free text, ignored and missing columns") {
    SacctLayout layout;
    layout.set(test::bar_fields(kNames), "x.txt");
    CHECK(layout.width() == 13);
    CHECK(layout.at(SacctCol::JobIDRaw) == 0);
    CHECK(layout.at(SacctCol::JobName) == 9);  // the first of a repeated column
    CHECK(layout.col(11) == SacctCol::Unknown);
    CHECK_FALSE(layout.has(SacctCol::Partition));
    CHECK(layout.first_col_is_id());
    CHECK(layout.free_text_positions() == std::vector<size_t>{9});
    CHECK(layout.ignored_columns() == std::vector<std::string>{"Bogus", "jobname"});
    const auto &missing = layout.missing_optional();
    CHECK(std::find(missing.begin(), missing.end(), "Partition") != missing.end());
    CHECK(std::find(missing.begin(), missing.end(), "ReqMem") == missing.end());
    CHECK(std::find(missing.begin(), missing.end(), "Timelimit") != missing.end());

    // A second header replaces the first wholly.
    layout.set(test::bar_fields("JobID|User|Submit|State"), "y.txt");
    CHECK(layout.width() == 4);
    CHECK_FALSE(layout.has(SacctCol::JobName));
    CHECK(layout.free_text_positions().empty());
    CHECK(layout.ignored_columns().empty());
}

TEST_CASE("sacct layout: a header needs an id, a user, Submit and State; the error says how to re-export") {
    SacctLayout layout;
    try {
        layout.set(test::bar_fields("JobID|User|State|End"), "old.txt");
        FAIL("a header without Submit was taken");
    } catch (const SacctFormatError &e) {
        std::string m = e.what();
        CHECK(m.find("old.txt") != std::string::npos);
        CHECK(m.find("no Submit column") != std::string::npos);
        CHECK(m.find(recommended_sacct_format()) != std::string::npos);
    }
    CHECK(SacctLayout::looks_like_header(test::bar_fields("JobID|NodeList|State")));  // sacct fields jfp does not use
    CHECK_FALSE(SacctLayout::looks_like_header(test::bar_fields("123|alice|COMPLETED")));
    CHECK_FALSE(SacctLayout::looks_like_header(test::bar_fields("JobID")));
}

TEST_CASE("sacct layout: validate names the first field that does not parse") {
    SacctLayout layout;
    layout.set(test::bar_fields(kNames), "x.txt");
    auto ok = test::bar_fields("7|7|bob|1001|FAILED|2024-01-01T00:00:00|2024-01-01T00:05:00|2|4G|a|x|y|1.5G");
    CHECK(layout.validate(ok).empty());
    struct Case {
        size_t field;
        const char *value, *problem;
    };
    for (const Case &c : {Case{4, "SMILING", "State 'SMILING' is not a Slurm job state"},
                          Case{7, "two", "column 8 'two' is not a number"},
                          Case{8, "lots", "ReqMem 'lots' is not a memory size"},
                          Case{0, "job7", "job id 'job7' is not a Slurm job id"},
                          Case{5, "yesterday", "Submit 'yesterday' is not a time (expected YYYY-MM-DDTHH:MM:SS)"}}) {
        auto row = ok;
        row[c.field] = c.value;
        CHECK(layout.validate(row) == c.problem);
    }
    auto padded = ok;
    padded[0] = " 7 ";
    padded[4] = " FAILED";
    CHECK(layout.validate(padded).empty());  // fields are read trimmed
}

TEST_CASE("sacct row: a job row, a batch step, a step, and a job without a user") {
    SacctLayout layout;
    layout.set(test::bar_fields(kNames), "x.txt");
    auto job = read_sacct_row(
        layout, test::bar_fields("7|7_3| bob |1001|FAILED|2024-01-01T00:00:00|2024-01-01T00:05:00|2|4G|sim|x|y|"), "north");
    REQUIRE(job.kind == SacctRow::Kind::Job);
    CHECK(job.job.cluster == "north");
    CHECK(job.job.job_key == "7");
    CHECK(job.job.array_job == "7");
    CHECK(job.job.user == "bob");  // fields are trimmed
    CHECK(job.job.uid == 1001);
    CHECK(job.job.outcome == Outcome::Failed);
    CHECK(job.job.req_mem_mb == 4096);
    CHECK(job.job.name == "sim");

    auto batch = read_sacct_row(
        layout, test::bar_fields("7.batch|7.batch||||2024-01-01T00:00:00|2024-01-01T00:05:00||||||900M"), "north");
    REQUIRE(batch.kind == SacctRow::Kind::Step);
    CHECK(batch.batch_step);
    CHECK(batch.step.job_key == "7");
    CHECK(batch.step.max_rss_mb == 900);
    auto step0 = read_sacct_row(layout, test::bar_fields("7.0|7.0||||2024-01-01T00:00:00|2024-01-01T00:05:00|||||||"), "n");
    REQUIRE(step0.kind == SacctRow::Kind::Step);
    CHECK_FALSE(step0.batch_step);

    auto nobody = read_sacct_row(
        layout, test::bar_fields("8|8|||COMPLETED|2024-01-01T00:00:00|2024-01-01T00:05:00|1|1G||||"), "north");
    CHECK(nobody.kind == SacctRow::Kind::Bad);
    CHECK(nobody.problem == "empty User on a job row");
}

}  // namespace test_sacct_layout
