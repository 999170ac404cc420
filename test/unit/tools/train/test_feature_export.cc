// jfp export-features: the rows a distributed trainer reads are exactly the rows jfp train uses.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "catch.h"
#include "test_support.h"
#include "tools/train/feature_export.h"

namespace test_feature_export {

using namespace jfp;
using jfp::test::TempDir;

namespace {

std::vector<std::string> split_csv_simple(const std::string &line) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : line) {
        if (c == ',') {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

struct ExportedRow {
    std::string job, split;
    int label, cls;
    std::vector<float> x;
};

std::vector<ExportedRow> read_export(const std::string &dir, const nlohmann::json &manifest) {
    std::vector<ExportedRow> rows;
    for (const auto &part : manifest.at("parts")) {
        std::ifstream in(dir + "/" + part.get<std::string>());
        std::string line;
        std::getline(in, line);  // header
        while (std::getline(in, line)) {
            auto f = split_csv_simple(line);
            REQUIRE(f.size() == 7 + kNumFeatures);
            ExportedRow r{f[1], f[4], std::stoi(f[5]), std::stoi(f[6]), {}};
            for (int i = 0; i < kNumFeatures; ++i) {
                const std::string &v = f[7 + static_cast<size_t>(i)];
                // As a reader does: decimal to double, then to float.
                r.x.push_back(v.empty() ? std::nanf("") : static_cast<float>(std::strtod(v.c_str(), nullptr)));
            }
            rows.push_back(std::move(r));
        }
    }
    return rows;
}

bool same_float(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

TEST_CASE("export-features: every training and validation row, bit for bit, in jfp train's split") {
    TempDir dir;
    std::string db = jfp::test::build_store(dir, 6000, 5);
    HistoryStore store(db, HistoryStore::Access::ReadOnly);
    TrainOptions opt;
    opt.train_fraction = 0.7;
    ExportOptions out;
    out.dir = dir.file("features");
    out.rows_per_part = 1000;
    ExportSummary s = export_features(store, opt, out);

    nlohmann::json m = nlohmann::json::parse(std::ifstream(out.dir + "/manifest.json"));
    CHECK(m.at("format") == kFeatureExportFormat);
    CHECK(m.at("storage") == "csv");
    CHECK(m.at("parts").size() == s.parts);
    CHECK(s.parts > 1);
    CHECK(m.at("feature_schema").at("names").size() == static_cast<size_t>(kNumFeatures));
    CHECK(m.at("params").at("monotone_constraints") == monotone_constraints());

    // What jfp train sees, through the same window.
    TrainingWindow w = choose_training_window(store, opt);
    std::vector<ExportedRow> want;
    sweep_training_rows(store, opt, w, [&](const JobRecord &j, const FeatureVector &x, Split split) {
        want.push_back({j.job_key, split_name(split), is_failure(j.outcome) ? 1 : 0, failure_class_index(j.outcome),
                        std::vector<float>(x.begin(), x.end())});
    });
    auto got = read_export(out.dir, m);
    REQUIRE(got.size() == want.size());
    REQUIRE(got.size() == s.train_rows + s.val_rows);
    CHECK(m.at("rows").at("train") == s.train_rows);
    CHECK(m.at("rows").at("validation_failures") == s.val_failures);
    size_t nan_seen = 0, val_seen = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        INFO("row " << i << " job " << want[i].job);
        CHECK(got[i].job == want[i].job);
        CHECK(got[i].split == want[i].split);
        CHECK(got[i].label == want[i].label);
        CHECK(got[i].cls == want[i].cls);
        for (int f = 0; f < kNumFeatures; ++f) {
            nan_seen += std::isnan(want[i].x[static_cast<size_t>(f)]);
            if (!same_float(got[i].x[static_cast<size_t>(f)], want[i].x[static_cast<size_t>(f)])) {
                FAIL("feature " << feature_names()[static_cast<size_t>(f)] << ": exported "
                                << got[i].x[static_cast<size_t>(f)] << ", trainer " << want[i].x[static_cast<size_t>(f)]);
            }
        }
        val_seen += got[i].split == "validation";
    }
    CHECK(nan_seen > 0);  // unknown values travel as empty fields
    CHECK(val_seen == s.val_rows);
    CHECK(s.val_rows > 0);
    CHECK(s.train_failures > 0);
}

TEST_CASE("export-features: refuses a directory it did not write, replaces its own only when asked") {
    TempDir dir;
    std::string db = jfp::test::build_store(dir, 1500, 2);
    HistoryStore store(db, HistoryStore::Access::ReadOnly);
    TrainOptions opt;
    ExportOptions out;
    out.dir = dir.file("features");
    export_features(store, opt, out);

    // Again without --replace: refused, the export untouched.
    try {
        export_features(store, opt, out);
        FAIL("a second export into the same directory was accepted");
    } catch (const std::runtime_error &e) {
        CHECK(std::string(e.what()).find("--replace") != std::string::npos);
    }
    std::ifstream still(out.dir + "/manifest.json");
    CHECK(still.good());
    out.replace = true;
    CHECK_NOTHROW(export_features(store, opt, out));

    // A directory holding anything else is never emptied, even with --replace.
    jfp::test::write_file(out.dir + "/notes.txt", "mine");
    try {
        export_features(store, opt, out);
        FAIL("an export into a directory holding notes.txt was accepted");
    } catch (const std::runtime_error &e) {
        CHECK(std::string(e.what()).find("notes.txt") != std::string::npos);
    }
    std::ifstream notes(out.dir + "/notes.txt");
    CHECK(notes.good());

    // Too little history: said before the directory is created.
    TempDir small;
    std::string tiny = jfp::test::build_store(small, 20, 1);
    HistoryStore tiny_store(tiny, HistoryStore::Access::ReadOnly);
    ExportOptions tiny_out;
    tiny_out.dir = small.file("features");
    CHECK_THROWS_WITH(export_features(tiny_store, opt, tiny_out), HasText("jfp needs at least"));
    std::ifstream none(tiny_out.dir + "/manifest.json");
    CHECK_FALSE(none.good());
}

TEST_CASE("export-features run: opens the store and exports what export_features would") {
    TempDir dir;
    std::string db = jfp::test::build_store(dir, 1500, 3);
    TrainOptions opt;
    ExportOptions out;
    out.dir = dir.file("features");
    const ExportSummary s = run_export(db, opt, out, true);
    CHECK(s.parts >= 1);
    CHECK(s.train_rows + s.val_rows > 0);
    nlohmann::json m = nlohmann::json::parse(std::ifstream(out.dir + "/manifest.json"));
    CHECK(m.at("format") == kFeatureExportFormat);
    // A second run into the same directory without --replace is refused, as export_features refuses it.
    CHECK_THROWS_WITH(run_export(db, opt, out, true), HasText("--replace"));
}

}  // namespace test_feature_export
