// Helpers for unit tests: temporary directories, synthetic stores, small trained bundles.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "model/sacct/sacct_reader.h"
#include "model/store/history_store.h"
#include "model/scoring/features.h"
#include "tools/simulate/synth.h"

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

}  // namespace jfp::test
