// Helpers for unit tests: temporary directories, synthetic stores, small trained bundles.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "model/sacct/sacct_reader.h"
#include "model/store/history_store.h"
#include "model/scoring/features.h"
#include "tools/ingest/synth.h"
#include "tools/train/trainer.h"

namespace jfp::test {

class TempDir {
public:
    TempDir() {
        char tmpl[] = "/tmp/jfp-unit.XXXXXX";
        if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
        path_ = tmpl;
    }
    ~TempDir() {
        std::error_code ignored;  // a destructor must not throw; a leftover /tmp directory is harmless
        std::filesystem::remove_all(path_, ignored);
    }
    std::string file(const std::string &name) const { return path_ + "/" + name; }
    const std::string &path() const { return path_; }

private:
    std::string path_;
};

// Property tests draw from a fixed seed (red only when the code changes); JFP_PROPERTY_SEED explores others.
inline uint64_t property_seed() {
    const char *s = std::getenv("JFP_PROPERTY_SEED");
    return s ? std::strtoull(s, nullptr, 10) : 20261126;
}

inline void write_file(const std::string &path, const std::string &text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + path);
}

inline void ingest_text(HistoryStore &store, const std::string &text, SacctReaderOptions opt = {}) {
    SacctReader reader(opt, [&](JobRecord &&j) { store.put_job(j); }, [&](StepInfo &&s) { store.put_step(s); });
    auto id = store.begin_ingest("test");
    reader.read_text(text, "test");
    store.finish_ingest(id, reader.report());
}

// Every job in the store, in submit order.
inline std::vector<JobRecord> all_jobs(const HistoryStore &store) {
    std::vector<JobRecord> out;
    store.for_each_job([&](JobRecord &&j) { out.push_back(std::move(j)); });
    return out;
}

// A store at dir/h.db filled with a synthetic workload; returns its path.
inline std::string build_store(const TempDir &dir, uint64_t jobs, uint64_t seed, const std::string &name = "h.db") {
    SynthOptions opt;
    opt.jobs = jobs;
    opt.seed = seed;
    std::string db = dir.file(name);
    HistoryStore store(db, HistoryStore::Access::ReadWrite);
    synthesize_into_store(opt, store, dir.file(name + ".txt"));
    return db;
}

// A small bundle trained on the store, written to dir/model.json.
// ignore: features it may not learn from (TrainOptions::ignore_features).
inline std::string train_small_bundle(const TempDir &dir, const std::string &db, int rounds = 40, int seed = 0,
                                      std::vector<std::string> ignore = {}) {
    HistoryStore store(db, HistoryStore::Access::ReadOnly);
    TrainOptions opt;
    opt.nthread = 1;
    opt.rounds = rounds;
    opt.seed = seed;
    opt.ignore_features = std::move(ignore);
    opt.kind = "tree";  // the tests of scoring, reasons and reloads are about the tree walk
    TrainSummary s;
    auto bundle = train_bundle(store, opt, s);
    std::string path = dir.file("model.json");
    write_bundle(bundle, path);
    return path;
}

// The bundle as a jfp of feature schema 2 wrote it (its trees must not split past schema 2's features):
// fewer names, num_feature and reference rows to match.
inline nlohmann::json as_schema_2(nlohmann::json b) {
    const int n = feature_count_of_schema(2);
    b["feature_schema"]["version"] = 2;
    auto &names = b["feature_schema"]["names"];
    names.erase(names.begin() + n, names.end());
    for (const char *m : {"failure_model", "class_model"})
        if (b.contains(m) && !b[m].is_null()) b[m]["learner"]["learner_model_param"]["num_feature"] = std::to_string(n);
    for (auto &row : b["reference_rows"]) row["x"].erase(row["x"].begin() + n, row["x"].end());
    return b;
}

}  // namespace jfp::test
