#include <cmath>
#include <cstdio>
#include <memory>

#include "catch.h"
#include "model/sacct/sacct_reader.h"
#include "model/store/history_store.h"
#include "test_support.h"
#include "tools/ingest/store_writer.h"
#include "tools/simulate/synth.h"

namespace test_store_writer {

using namespace jfp;

TEST_CASE("store writer: rows written on the second thread equal rows written directly") {
    test::TempDir dir;
    std::string txt = dir.file("w.txt");
    SynthOptions so;
    so.jobs = 6000;  // several batches, steps among them
    so.seed = 4;
    std::FILE *out = std::fopen(txt.c_str(), "wb");
    generate_workload(so, out);
    std::fclose(out);
    auto ingest = [&](const std::string &db, bool threaded) {
        HistoryStore store(db, HistoryStore::Access::ReadWrite);
        auto id = store.begin_ingest(txt);
        std::unique_ptr<StoreWriter> w;
        if (threaded) w = std::make_unique<StoreWriter>(store);
        SacctReader reader({}, [&](JobRecord &&j) { threaded ? w->put(std::move(j)) : store.put_job(j); },
                           [&](StepInfo &&s) { threaded ? w->put(std::move(s)) : store.put_step(s); });
        std::FILE *in = std::fopen(txt.c_str(), "rb");
        reader.read(in, txt);
        std::fclose(in);
        if (w) w->finish();
        store.finish_ingest(id, reader.report());
    };
    ingest(dir.file("direct.db"), false);
    ingest(dir.file("threaded.db"), true);
    HistoryStore a(dir.file("direct.db"), HistoryStore::Access::ReadOnly);
    HistoryStore b(dir.file("threaded.db"), HistoryStore::Access::ReadOnly);
    auto ja = test::all_jobs(a), jb = test::all_jobs(b);
    REQUIRE(ja.size() == jb.size());
    REQUIRE(ja.size() >= 6000);
    size_t with_rss = 0;
    for (size_t i = 0; i < ja.size(); ++i) {
        CHECK(ja[i].job_key == jb[i].job_key);
        CHECK(ja[i].outcome == jb[i].outcome);
        CHECK(ja[i].end == jb[i].end);
        CHECK((std::isnan(ja[i].max_rss_mb) ? std::isnan(jb[i].max_rss_mb) : ja[i].max_rss_mb == jb[i].max_rss_mb));
        with_rss += !std::isnan(jb[i].max_rss_mb);
    }
    CHECK(with_rss > 1000);  // steps were folded in
}

TEST_CASE("store writer: a store that cannot be written fails the ingest with SQLite's reason") {
    test::TempDir dir;
    std::string db = dir.file("ro.db");
    { HistoryStore create(db, HistoryStore::Access::ReadWrite); }
    HistoryStore ro(db, HistoryStore::Access::ReadOnly);
    StoreWriter w(ro);
    JobRecord j;
    j.cluster = "c";
    j.job_key = "1";
    j.user = "amy";
    j.name = "a";
    bool threw = false;
    try {
        for (int i = 0; i < 20000; ++i) w.put(JobRecord(j));  // put() stops once the writer has failed
        w.finish();
    } catch (const std::exception &e) {
        threw = true;
        INFO(e.what());
        CHECK(std::string(e.what()).find("read-only") != std::string::npos);
    }
    CHECK(threw);
}

}  // namespace test_store_writer
