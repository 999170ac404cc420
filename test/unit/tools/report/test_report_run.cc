// jfp report's engine (tools/report/report_run): the report computed, drawn and written as one file.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "catch.h"
#include "model/util/time_util.h"
#include "bundle_support.h"
#include "test_support.h"
#include "tools/report/report_run.h"

namespace test_report_run {

using namespace jfp;

TEST_CASE("report run: writes the whole page it drew; no job to evaluate writes nothing", "[report]") {
    test::TempDir dir;
    ReportInputs in;
    in.db = test::build_store(dir, 3000, 81);
    in.model = test::train_small_bundle(dir, in.db, 5);
    in.progress = false;
    const std::string out = dir.file("report.html");
    const size_t bytes = run_report(in, out);
    std::ifstream f(out, std::ios::binary);
    const std::string html((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    CHECK(html.size() == bytes);
    CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(html.find("id=\"verdict\"") != std::string::npos);

    in.after = *parse_sacct_time("2099-01-01");
    const std::string none = dir.file("none.html");
    CHECK_THROWS_WITH(run_report(in, none), HasText("choose an earlier --after"));
    CHECK_FALSE(std::filesystem::exists(none));
}

}  // namespace test_report_run
