// jfp report's engine (tools/report/): the evaluated rows and their metrics, computed apart from the page,
// and the page drawn from them.
#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>
#include <iterator>
#include <string>

#include "catch.h"
#include "model/scoring/feature_sweep.h"
#include "model/util/time_util.h"
#include "bundle_support.h"
#include "test_support.h"
#include "tools/report/report_data.h"
#include "tools/report/report_page.h"

namespace test_report_data {

using namespace jfp;

TEST_CASE("report data: every finished job from --after scored as the sweep scores it", "[report]") {
    test::TempDir dir;
    const std::string db = test::build_store(dir, 3000, 11);
    const std::string model = test::train_small_bundle(dir, db, 10);
    const ModelBundle bundle = ModelBundle::load_file(model);
    // The last third of the store's submissions.
    const int64_t after = test::submit_time_between(HistoryStore(db, HistoryStore::Access::ReadOnly), 2, 3);

    // What the report must count, by the sweep itself.
    size_t n = 0, failed = 0;
    {
        HistoryStore store(db, HistoryStore::Access::ReadOnly);
        sweep_features(store, [&](const JobRecord &j, const FeatureVector &) {
            if (j.submit < after || !is_labeled(j.outcome)) return;
            ++n;
            failed += is_failure(j.outcome);
        });
    }
    REQUIRE(n > 100);

    ReportInputs in;
    in.db = db;
    in.model = model;
    in.after = after;
    in.progress = false;
    const ReportData d = compute_report(in);
    CHECK(d.rows.size() == n);
    CHECK(d.n_failed == failed);
    CHECK(d.model.n == n);
    CHECK(d.model.positives == failed);
    CHECK(d.threshold == Approx(bundle.threshold()));
    CHECK(d.waste.size() == n);
    CHECK_FALSE(d.scripts);
    CHECK_FALSE(d.live);
    for (const auto &r : d.rows) {
        CHECK(r.p >= 0);
        CHECK(r.p <= 1);
        CHECK((r.b1 == 0 || r.b1 == 1));
        CHECK(r.label == (r.actual_class >= 0 ? 1 : 0));
    }
    // A tree bundle's contributions move some feature.
    double moved = 0;
    for (double c : d.contrib_abs) moved += c;
    CHECK(moved > 0);

    in.threshold = 0.25;
    CHECK(compute_report(in).model.threshold == Approx(0.25));

    const std::string html = report_page_html(d);
    CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
    for (const char *id : {"id=\"verdict\"", "id=\"cost\"", "id=\"partitions\"", "id=\"classes\"", "id=\"features\"", "id=\"metadata\""})
        CHECK(html.find(id) != std::string::npos);
    CHECK(html.find("id=\"script-findings\"") == std::string::npos);
    write_report_page(dir.file("r.html"), html);
    std::ifstream f(dir.file("r.html"), std::ios::binary);
    CHECK(std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>()) == html);
}

TEST_CASE("report data: no finished job after --after is an error saying what to do", "[report]") {
    test::TempDir dir;
    const std::string db = test::build_store(dir, 3000, 12);
    ReportInputs in;
    in.db = db;
    in.model = test::train_small_bundle(dir, db, 5);
    in.after = *parse_sacct_time("2099-01-01");
    in.progress = false;
    CHECK_THROWS_WITH(compute_report(in), HasText("choose an earlier --after"));
}

}  // namespace test_report_data
