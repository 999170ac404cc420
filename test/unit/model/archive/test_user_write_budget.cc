// Issue 48, class 5: what one user's requests add to the files the plugin writes (feature-log rows, the
// script archive's rows and contents) is metered in full, per user and day, and bounded by the budget.
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "catch.h"
#include "model/archive/script_archive.h"
#include "model/archive/script_archive_writer.h"
#include "model/archive/user_write_budget.h"
#include "model/files/sqlite_util.h"
#include "model/scoring/feature_log.h"
#include "test_support.h"

namespace test_user_write_budget {

using namespace jfp;

namespace {

using File = UserWriteBudget::File;
constexpr int64_t kDay = 20000;  // days since the epoch
constexpr int64_t kDay0 = kDay * 86400;

// Text a user writes: ASCII, accented and CJK letters (bytes, not characters, are what a file takes).
std::string text(std::mt19937 &rng, size_t max_chars) {
    static const char *pieces[] = {"a", "Z", "_", "é", "ß", "漢", "字", "-", "7", " "};
    std::string s;
    const size_t n = 1 + rng() % max_chars;
    for (size_t i = 0; i < n; ++i) s += pieces[rng() % 10];
    return s;
}

std::string random_script(std::mt19937 &rng, size_t bytes) {
    std::string s = "#!/bin/bash\n";
    while (s.size() < bytes) s.push_back(static_cast<char>('a' + rng() % 26));
    return s;
}

// The file's logical size: its pages, those in the WAL included, as a reader sees them.
int64_t logical_bytes(const std::string &path) {
    Db db(path, SQLITE_OPEN_READONLY);
    Stmt pc(db, "PRAGMA page_count"), ps(db, "PRAGMA page_size");
    REQUIRE(pc.step());
    REQUIRE(ps.step());
    return pc.int_at(0) * ps.int_at(0);
}

int64_t rows_of(const std::string &path, const char *table, uint32_t uid) {
    Db db(path, SQLITE_OPEN_READONLY);
    Stmt q(db, (std::string("SELECT count(*) FROM ") + table + " WHERE uid = ?1").c_str());
    q.bind(1, static_cast<int64_t>(uid));
    REQUIRE(q.step());
    return q.int_at(0);
}

struct Site {
    std::shared_ptr<UserWriteBudget> budget;
    std::unique_ptr<FeatureLogWriter> log;
    std::unique_ptr<ScriptArchiveWriter> archive;
    Site(const test::TempDir &dir, int64_t limit)
        : budget(std::make_shared<UserWriteBudget>(limit)),
          log(std::make_unique<FeatureLogWriter>(dir.file("f.db"), 4096, FeatureLogWriter::kMaxHeadsInUse,
                                                 FeatureLogWriter::kIdleWait, budget)),
          archive(std::make_unique<ScriptArchiveWriter>(dir.file("s.db"), 4096, int64_t(256) << 20, budget)) {
        // As the engine: the budget reads both files before its first admission of a day.
        const std::string log_path = dir.file("f.db");
        budget->set_source(File::FeatureLog, [log_path](int64_t since) { return feature_log_bytes_by_user_since(log_path, since); });
        budget->set_source(File::ScriptArchive, archive_bytes_source(dir.file("s.db")));
    }
    // One request as the engine records it: a feature-log row and an archived script.
    void submit(std::mt19937 &rng, uint32_t uid, int64_t at, int i, size_t name_bytes, size_t dir_bytes, size_t script_bytes) {
        const std::string token = "t" + std::to_string(uid) + "_" + std::to_string(i) + "_" + std::to_string(rng());
        FeatureLogEntry f;
        f.token = token;
        f.scored_at = at;
        f.model_id = std::make_shared<const std::string>("model-1");
        f.uid = uid;
        f.user = "user" + std::to_string(uid);
        f.name = std::string(name_bytes, 'n') + std::to_string(i);
        f.x.fill(0.5f);
        REQUIRE(log->push(std::move(f)));
        ScriptArchiveEntry e;
        e.meta.token = token;
        e.meta.cluster = "c1";
        e.meta.submitted = at;
        e.meta.uid = uid;
        e.meta.user = "user" + std::to_string(uid);
        e.meta.name = std::string(name_bytes, 'n') + std::to_string(i);
        e.meta.work_dir = "/home/" + std::string(dir_bytes, 'd') + std::to_string(i);
        e.assign(random_script(rng, script_bytes));
        REQUIRE(archive->reserve(1000));
        archive->push(std::move(e), 1000);
    }
    void flush() {
        log->flush();
        archive->flush();
    }
};

}  // namespace

TEST_CASE("user write budget: a day rolls over, a seed keeps the larger figure, a new limit judges again") {
    UserWriteBudget b(1000);
    CHECK(b.admit(File::FeatureLog, 7, kDay));
    CHECK_FALSE(b.charge(File::FeatureLog, 7, kDay, 600));
    CHECK(b.charge(File::ScriptArchive, 7, kDay, 400));  // 1,000 over both files: spent, said once
    CHECK_FALSE(b.charge(File::ScriptArchive, 7, kDay, 1));
    CHECK_FALSE(b.admit(File::FeatureLog, 7, kDay));
    CHECK_FALSE(b.admit(File::ScriptArchive, 7, kDay));
    CHECK(b.refused(File::FeatureLog) == 1);
    CHECK(b.refused(File::ScriptArchive) == 1);
    CHECK(b.admit(File::FeatureLog, 8, kDay));  // another user's day is their own
    CHECK(b.users_over_on(kDay) == 1);
    // An entry of yesterday, late in a queue, is today's: no way back to a fresh day.
    CHECK_FALSE(b.admit(File::FeatureLog, 7, kDay - 1));
    b.set_limit(5000);
    CHECK(b.admit(File::FeatureLog, 7, kDay));
    CHECK(b.users_over_on(kDay) == 0);
    // A rotated (empty) file seeds less than memory holds: memory keeps the larger.
    b.seed(File::FeatureLog, kDay, {{7, 10}});
    CHECK(b.spent(7) == 1001);
    b.seed(File::FeatureLog, kDay, {{7, 4700}});
    CHECK(b.spent(7) == 4700 + 401);
    CHECK_FALSE(b.admit(File::ScriptArchive, 7, kDay));
    CHECK(b.admit(File::ScriptArchive, 7, kDay + 1));  // the next day
    CHECK(b.spent(7) == 0);
    CHECK(b.users_over_on(kDay + 1) == 0);
    // The gauge follows the clock: a day no entry has reached yet has no one over.
    CHECK_FALSE(b.charge(File::FeatureLog, 9, kDay + 1, 10));
    CHECK(b.charge(File::FeatureLog, 9, kDay + 1, 5000));
    CHECK(b.users_over_on(kDay + 1) == 1);
    CHECK(b.users_over_on(kDay + 2) == 0);
    // A rolled-back batch gives its charge back.
    b.refund(File::FeatureLog, 9, kDay + 1, 5000);
    CHECK(b.spent(9) == 10);
    CHECK(b.users_over_on(kDay + 1) == 0);
}

TEST_CASE("user write budget: what the archive's put() charges is what the archive says each user added") {
    // The seed after a restart and the charges before it must agree, or a restart gives a budget back.
    for (unsigned seed : {1u, 2u, 3u}) {
        test::TempDir dir;
        std::mt19937 rng(seed);
        std::vector<std::string> pool;
        for (int i = 0; i < 12; ++i) pool.push_back(random_script(rng, 50 + rng() % 20000));
        std::unordered_map<uint32_t, uint64_t> charged;
        ScriptArchive a(dir.file("s.db"), ScriptArchive::Access::ReadWrite);
        a.begin();
        for (int i = 0; i < 300; ++i) {
            ArchivedSubmission m;
            m.token = "tok" + std::to_string(i);
            m.cluster = "c1";
            m.submitted = kDay0 - 3600 + i * 60;  // the first hour is yesterday's
            m.uid = 1 + rng() % 4;
            m.user = text(rng, 12);
            m.name = text(rng, 200);
            m.work_dir = "/" + text(rng, 600);
            const std::string env = text(rng, 400);
            const std::string_view env_view(env);
            const bool with_env = rng() % 2;
            uint64_t added = 0;
            a.put(m, pool[rng() % pool.size()], with_env ? &env_view : nullptr, &added);
            if (m.submitted >= kDay0) charged[m.uid] += added;
        }
        a.commit();
        INFO("seed " << seed);
        CHECK(a.bytes_by_user_since(kDay0) == charged);
    }
}

TEST_CASE("user write budget: a feature-log row charges what the log says each user added") {
    for (unsigned seed : {4u, 5u}) {
        test::TempDir dir;
        std::mt19937 rng(seed);
        std::unordered_map<uint32_t, uint64_t> charged;
        {
            FeatureLogWriter w(dir.file("f.db"), 4096);
            for (int i = 0; i < 400; ++i) {
                FeatureLogEntry e;
                e.token = "tok" + std::to_string(i);
                e.scored_at = kDay0 - 3600 + i * 30;
                e.model_id = std::make_shared<const std::string>(text(rng, 30));
                e.uid = 1 + rng() % 5;
                e.user = text(rng, 10);
                e.name = text(rng, 300);
                e.x.fill(1.0f);
                if (e.scored_at >= kDay0) charged[e.uid] += feature_log_row_bytes(e);
                REQUIRE(w.push(std::move(e)));
            }
            w.flush();
        }
        INFO("seed " << seed);
        CHECK(feature_log_bytes_by_user_since(dir.file("f.db"), kDay0) == charged);
    }
}

TEST_CASE("user write budget: one user's flood of distinct requests grows both files by about the budget, then by nothing") {
    // The red team's loop: --test-only requests, each with a distinct long name, working directory and script.
    test::TempDir dir;
    std::mt19937 rng(48);
    const int64_t limit = int64_t(1) << 20;
    int i = 0;
    int64_t log0 = 0, archive0 = 0;
    {
        Site site(dir, limit);
        site.submit(rng, 2, kDay0 + 1, i++, 10, 10, 100);  // another user's first: the files exist
        site.flush();
        log0 = logical_bytes(dir.file("f.db"));
        archive0 = logical_bytes(dir.file("s.db"));
        // 2,000 requests of ~14 KiB each (a 1,024-byte name, a 4,096-byte directory, an 8 KiB script): 28 MiB
        // unmetered.
        for (int k = 0; k < 2000; ++k) {
            site.submit(rng, 1, kDay0 + 100 + k, i++, 1024, 4096, 8192);
            if (k % 200 == 199) site.flush();
        }
        site.flush();
        const int64_t grown = logical_bytes(dir.file("f.db")) - log0 + logical_bytes(dir.file("s.db")) - archive0;
        INFO("both files grew by " << grown << " bytes for a budget of " << limit);
        // The budget meters what rows take (UserWriteBudget::row_bytes): 0.95 of a budget measured here.
        CHECK(grown <= limit * 3 / 2);
        CHECK(grown >= limit / 2);
        CHECK(site.budget->refused(File::FeatureLog) > 1500);
        CHECK(site.budget->refused(File::ScriptArchive) > 1500);
        CHECK(site.archive->counters().over_user_budget == site.budget->refused(File::ScriptArchive));
        CHECK(site.log->over_budget() == site.budget->refused(File::FeatureLog));
        const int64_t rows = rows_of(dir.file("f.db"), "scored", 1);
        CHECK(rows < 300);  // ~1.2 KiB a row: ~200
        CHECK(rows_of(dir.file("s.db"), "submissions", 1) < 100);  // ~12 KiB a script and row: ~70
        // Spent: nothing more of this user's that day; another user's rows still come.
        for (int k = 0; k < 50; ++k) site.submit(rng, 1, kDay0 + 5000 + k, i++, 1024, 4096, 8192);
        site.submit(rng, 3, kDay0 + 6000, i++, 1024, 4096, 8192);
        site.flush();
        CHECK(rows_of(dir.file("f.db"), "scored", 1) == rows);
        CHECK(rows_of(dir.file("s.db"), "submissions", 3) == 1);
        CHECK(rows_of(dir.file("f.db"), "scored", 3) == 1);
    }
    // slurmctld restarted: a new budget reads the day back from the files.
    const int64_t before = rows_of(dir.file("f.db"), "scored", 1) + rows_of(dir.file("s.db"), "submissions", 1);
    {
        Site site(dir, limit);
        for (int k = 0; k < 20; ++k) site.submit(rng, 1, kDay0 + 7000 + k, i++, 1024, 4096, 8192);
        site.flush();
        CHECK(rows_of(dir.file("f.db"), "scored", 1) + rows_of(dir.file("s.db"), "submissions", 1) == before);
        CHECK(site.budget->users_over_on(kDay) == 1);
        // The next day is a budget again.
        site.submit(rng, 1, kDay0 + 86400 + 5, i++, 10, 10, 100);
        site.flush();
        CHECK(rows_of(dir.file("f.db"), "scored", 1) + rows_of(dir.file("s.db"), "submissions", 1) == before + 2);
    }
}

TEST_CASE("user write budget: an update replacing its job's row is not charged again; one of a job with no row is") {
    test::TempDir dir;
    auto budget = std::make_shared<UserWriteBudget>(int64_t(1) << 30);
    {
        FeatureLogWriter w(dir.file("f.db"), 4096, FeatureLogWriter::kMaxHeadsInUse, FeatureLogWriter::kIdleWait, budget);
        auto entry = [](const std::string &token, bool update) {
            FeatureLogEntry e;
            e.token = token;
            e.scored_at = kDay0 + 60;
            e.model_id = std::make_shared<const std::string>("model-1");
            e.uid = 7;
            e.user = "amy";
            e.name = std::string(500, 'n');
            e.x.fill(0.5f);
            e.update = update;
            return e;
        };
        REQUIRE(w.push(entry("t1", false)));
        w.flush();
        const uint64_t one_row = budget->spent(7);
        CHECK(one_row == feature_log_row_bytes(entry("t1", false)));
        for (int i = 0; i < 50; ++i) REQUIRE(w.push(entry("t1", true)));  // scontrol update, 50 times
        w.flush();
        CHECK(budget->spent(7) == one_row);
        REQUIRE(w.push(entry("t2", true)));  // a job the log has no row of (submitted before jfp)
        w.flush();
        CHECK(budget->spent(7) == 2 * one_row);
    }
    // What the budget holds is what the file says.
    CHECK(feature_log_bytes_by_user_since(dir.file("f.db"), kDay0)[7] == 2 * feature_log_row_bytes([] {
              FeatureLogEntry e;
              e.token = "t1";
              e.model_id = std::make_shared<const std::string>("model-1");
              e.user = "amy";
              e.name = std::string(500, 'n');
              return e;
          }()));
}

}  // namespace test_user_write_budget
