// jfp ingest's engine (tools/ingest/): the sacct window, and a whole ingest of a small export into a
// store, its bad lines counted and kept by line.
#include <string>

#include "catch.h"
#include "model/files/sqlite_util.h"
#include "model/store/history_store.h"
#include "model/util/time_util.h"
#include "test_support.h"
#include "tools/ingest/ingest_run.h"
#include "tools/ingest/ingest_source.h"
#include "tools/ingest/sacct_window.h"

namespace test_ingest_run {

using namespace jfp;

TEST_CASE("the sacct window starts at the latest end minus the overlap, never after now", "[ingest]") {
    const int64_t now = *parse_sacct_time("2026-11-29T12:00:00");
    CHECK(sacct_window_start(std::nullopt, now, 3600) == "now-7days");
    CHECK(sacct_window_start(*parse_sacct_time("2026-11-29T10:30:00"), now, 3600) == "2026-11-29T09:30:00");
    CHECK(sacct_window_start(*parse_sacct_time("2027-01-01T00:00:00"), now, 600) == "2026-11-29T11:50:00");
    CHECK(sacct_window_start(now, now, 0) == "2026-11-29T12:00:00");
    auto args = sacct_window_args("2026-11-29T09:30:00", {"--clusters=c1", "a b"});
    CHECK(args == std::vector<std::string>{"--allusers", "--starttime", "2026-11-29T09:30:00", "--endtime", "now+1days",
                                           "--clusters=c1", "a b"});
}

namespace {

const char *kHeader = "JobIDRaw|JobID|Cluster|User|UID|Account|Partition|Submit|Start|End|ElapsedRaw|State|ExitCode|JobName|ReqCPUS\n";

std::string job_line(int id, const char *state) {
    return std::to_string(id) + "|" + std::to_string(id) + "|c1|alice|1001|acct|batch|2026-11-01T10:00:0" + std::to_string(id % 10) +
           "|2026-11-01T10:01:00|2026-11-01T10:11:00|600|" + state + "|0:0|job" + std::to_string(id) + "|4\n";
}

}  // namespace

TEST_CASE("an ingest of a small export stores its jobs and keeps each bad line by its number", "[ingest]") {
    test::TempDir dir;
    std::string text = kHeader;
    text += job_line(1, "COMPLETED");
    text += job_line(2, "FAILED");
    text += "3|3|c1|bob|1002|acct|batch|not-a-time|x|y|z|COMPLETED|0:0|j|1\n";  // line 4
    text += job_line(4, "COMPLETED");
    text += "5|5|c1|bob\n";  // line 6: too few fields
    test::write_file(dir.file("export.txt"), text);

    IngestOptions o;
    o.db = dir.file("h.db");
    o.files = {dir.file("export.txt")};
    o.trusted_export = true;
    o.quiet = true;
    o.snapshot = false;
    o.show_errors = 0;
    CHECK(run_ingest(o) == 0);
    o.strict = true;
    CHECK(run_ingest(o) == 2);  // the same export again: replaced, and --strict says lines were bad

    HistoryStore store(o.db, HistoryStore::Access::ReadOnly);
    CHECK(store.job_count() == 3);
    Db db(o.db, SQLITE_OPEN_READONLY);
    Stmt s(db, "SELECT line FROM ingest_errors WHERE ingest_id = (SELECT max(ingest_id) FROM ingest_errors) ORDER BY line");
    std::vector<int64_t> lines;
    while (s.step()) lines.push_back(s.int_at(0));
    CHECK(lines == std::vector<int64_t>{4, 6});
}

TEST_CASE("a file that cannot be read fails alone; the others are stored", "[ingest]") {
    test::TempDir dir;
    test::write_file(dir.file("good.txt"), std::string(kHeader) + job_line(1, "COMPLETED"));
    IngestOptions o;
    o.db = dir.file("h.db");
    o.files = {dir.file("missing.txt"), dir.file("good.txt")};
    o.trusted_export = true;
    o.quiet = true;
    o.snapshot = false;
    CHECK(run_ingest(o) == 1);
    CHECK(HistoryStore(o.db, HistoryStore::Access::ReadOnly).job_count() == 1);
}

TEST_CASE("a .gz export is read through gzip, and a cut one is an error naming the file", "[ingest]") {
    test::TempDir dir;
    std::string text = kHeader;
    for (int i = 1; i <= 200; ++i) text += job_line(i, i % 3 ? "COMPLETED" : "FAILED");
    test::write_file(dir.file("e.txt"), text);
    REQUIRE(std::system(("gzip -c " + dir.file("e.txt") + " > " + dir.file("e.txt.gz")).c_str()) == 0);
    IngestSource s = open_source(dir.file("e.txt.gz"));
    std::string read;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, s.in)) > 0) read.append(buf, n);
    finish_source(s);
    CHECK(read == text);

    REQUIRE(std::system(("head -c 300 " + dir.file("e.txt.gz") + " > " + dir.file("cut.txt.gz")).c_str()) == 0);
    IngestSource c = open_source(dir.file("cut.txt.gz"));
    while (std::fread(buf, 1, sizeof buf, c.in) > 0) {
    }
    try {
        finish_source(c);
        FAIL("a cut .gz was accepted");
    } catch (const SubprocessError &e) {
        std::string w = e.what();
        CHECK(w.rfind("gzip -dc " + dir.file("cut.txt.gz") + " exited with status 1: ", 0) == 0);
        CHECK(w.find("; the file is damaged or truncated; what was read before the damage is stored") != std::string::npos);
    }
}

}  // namespace test_ingest_run
