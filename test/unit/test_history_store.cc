#include <cmath>
#include <ctime>
#include <fstream>
#include <memory>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catch.h"
#include "model/sacct/sacct_reader.h"
#include "model/history/history_store.h"
#include "model/util/time_util.h"
#include "test_support.h"
#include "tools/ingest/store_writer.h"
#include "tools/ingest/synth.h"

using namespace jfp;

namespace {


std::vector<JobRecord> all_jobs(const HistoryStore &store) {
    std::vector<JobRecord> out;
    store.for_each_job([&](JobRecord &&j) { out.push_back(std::move(j)); });
    return out;
}

const char *kExport =
    "JobIDRaw|JobID|User|JobName|Submit|Start|End|State|ReqMem|MaxRSS\n"
    "1|1|amy|a|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:10:00|COMPLETED|1G|\n"
    "1.batch|1.batch||batch|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:10:00|COMPLETED||500M\n"
    "2|2|amy|a|2024-01-01T01:00:00|2024-01-01T01:00:10|2024-01-01T01:05:00|FAILED|1G|\n"
    "3|3|bob|b|2024-01-01T02:00:00|Unknown|Unknown|RUNNING|2G|\n";

}  // namespace

TEST_CASE("store: re-ingesting the same export never duplicates") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    test::ingest_text(store, kExport);
    test::ingest_text(store, kExport);
    auto jobs = all_jobs(store);
    REQUIRE(jobs.size() == 3);
    CHECK(store.job_count() == 3);
    CHECK(jobs[0].job_key == "1");
    CHECK(jobs[0].max_rss_mb == Approx(500));
    CHECK(jobs[1].outcome == Outcome::Failed);
}

TEST_CASE("store: an overlapping newer export updates; an older one never regresses a final state") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    test::ingest_text(store, kExport);
    const char *newer = "JobIDRaw|JobID|User|JobName|Submit|Start|End|State\n"
                        "3|3|bob|b|2024-01-01T02:00:00|2024-01-01T02:00:05|2024-01-01T03:00:00|TIMEOUT\n"
                        "4|4|bob|b|2024-01-01T04:00:00|2024-01-01T04:00:05|2024-01-01T04:30:00|COMPLETED\n";
    test::ingest_text(store, newer);
    test::ingest_text(store, kExport);  // the older export again: job 3 must stay TIMEOUT
    auto jobs = all_jobs(store);
    REQUIRE(jobs.size() == 4);
    CHECK(jobs[2].job_key == "3");
    CHECK(jobs[2].outcome == Outcome::Timeout);
    CHECK(jobs[2].end > 0);
}

TEST_CASE("store: the same job id on two clusters is two jobs") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    SacctReaderOptions a, b;
    a.cluster = "alpha";
    b.cluster = "beta";
    test::ingest_text(store, kExport, a);
    test::ingest_text(store, kExport, b);
    CHECK(store.job_count() == 6);
}

TEST_CASE("store: a step row ingested before its job row still folds in (OOM verdict, MaxRSS)") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    test::ingest_text(store, "JobIDRaw|User|Submit|End|State|MaxRSS\n"
                       "9.batch||2024-01-01T00:00:00|2024-01-01T00:01:00|OUT_OF_MEMORY|3G\n");
    CHECK(store.job_count() == 0);  // a step alone is not a job
    test::ingest_text(store, "JobIDRaw|User|Submit|End|State|MaxRSS\n"
                       "9|amy|2024-01-01T00:00:00|2024-01-01T00:01:00|FAILED|\n");
    auto jobs = all_jobs(store);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].outcome == Outcome::OutOfMemory);
    CHECK(jobs[0].max_rss_mb == Approx(3072));
}

TEST_CASE("store: ended jobs come back in end order; unfinished ones are not history") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    test::ingest_text(store, kExport);
    std::vector<std::string> keys;
    store.for_each_ended_job([&](JobRecord &&j) { keys.push_back(j.job_key); });
    CHECK(keys == std::vector<std::string>{"1", "2"});
    REQUIRE(store.latest_end());
    CHECK(*store.latest_end() == *parse_sacct_time("2024-01-01T01:05:00"));
}

TEST_CASE("store: bad lines are kept with line numbers") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    SacctReader reader({}, [&](JobRecord &&j) { store.put_job(j); }, [&](StepInfo &&s) { store.put_step(s); });
    auto id = store.begin_ingest("t");
    reader.read_text("JobIDRaw|User|Submit|End|State\n1|amy|2024-01-01T00:00:00|2024-01-01T00:01:00|BOGUS\n", "t");
    store.finish_ingest(id, reader.report());
    auto bad = store.bad_lines(id);
    REQUIRE(bad.size() == 1);
    CHECK(bad[0].line == 2);
    CHECK(bad[0].reason.find("BOGUS") != std::string::npos);
}

TEST_CASE("store: files that are not a store give errors that say so") {
    test::TempDir dir;
    {
        std::ofstream f(dir.file("garbage.db"));
        f << "this is not an SQLite database, just text that is long enough to have a header...........\n";
    }
    try {
        HistoryStore s(dir.file("garbage.db"), HistoryStore::Access::ReadOnly);
        FAIL("expected an error");
    } catch (const SqliteError &e) {
        CHECK(std::string(e.what()).find("garbage.db") != std::string::npos);
    }
    CHECK_THROWS_AS(HistoryStore(dir.file("missing.db"), HistoryStore::Access::ReadOnly), SqliteError);
    {
        Db db(dir.file("other.db"), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        db.exec("CREATE TABLE t(x)");
    }
    try {
        HistoryStore s(dir.file("other.db"), HistoryStore::Access::ReadOnly);
        FAIL("expected an error");
    } catch (const SqliteError &e) {
        CHECK(std::string(e.what()).find("not a jfp history store") != std::string::npos);
    }
    {
        Db db(dir.file("newer.db"), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        db.exec("PRAGMA user_version=99");
    }
    try {
        HistoryStore s(dir.file("newer.db"), HistoryStore::Access::ReadWrite);
        FAIL("expected an error");
    } catch (const SqliteError &e) {
        CHECK(std::string(e.what()).find("newer jfp") != std::string::npos);
    }
}

TEST_CASE("store: a truncated database file is refused with the path in the message") {
    test::TempDir dir;
    {
        HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
        test::ingest_text(store, kExport);
    }
    // Keep the header page but cut the rest: the file claims more pages than it has.
    REQUIRE(truncate(dir.file("h.db").c_str(), 1024) == 0);
    (void)unlink(dir.file("h.db-wal").c_str());
    bool threw = false;
    try {
        HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadOnly);
        store.for_each_job([](JobRecord &&) {});
    } catch (const SqliteError &e) {
        threw = true;
        CHECK(std::string(e.what()).find("h.db") != std::string::npos);
    }
    CHECK(threw);
}

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
    auto ja = all_jobs(a), jb = all_jobs(b);
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

TEST_CASE("store: prune removes ended jobs and old ingest records, keeps jobs not ended and the newest ingest") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    test::ingest_text(store, kExport);
    test::ingest_text(store, "JobIDRaw|JobID|User|JobName|Submit|Start|End|State\n"
                             "9|9|cy|c|2024-03-01T00:00:00|2024-03-01T00:00:10|2024-03-01T00:10:00|COMPLETED\n"
                             "10|10|cy|c|not a time|x|y|COMPLETED|extra|fields\n");
    const int64_t cutoff = *parse_sacct_time("2024-02-01");
    const int64_t all_ingests = static_cast<int64_t>(std::time(nullptr)) + 3600;
    auto dry = store.prune(cutoff, all_ingests, false);
    CHECK(dry.jobs == 2);              // amy's two
    CHECK(dry.users_emptied == 1);     // amy; bob's job is running, cy's ended after the cutoff
    CHECK(dry.kept == 2);
    CHECK(dry.unfinished_older == 1);  // bob's, submitted before the cutoff, never ended here
    CHECK(dry.ingests == 1);           // the newest of the two stays
    CHECK(store.job_count() == 4);

    auto c = store.prune(cutoff, all_ingests, true);
    CHECK(c.jobs == 2);
    CHECK(store.job_count() == 2);
    CHECK(store.prune_count() == 1);
    auto jobs = all_jobs(store);
    REQUIRE(jobs.size() == 2);
    CHECK(jobs[0].user == "bob");
    CHECK(jobs[1].user == "cy");
    Db db(store.path(), SQLITE_OPEN_READONLY);
    Stmt ingests(db, "SELECT count(*), (SELECT count(*) FROM ingest_errors) FROM ingests");
    REQUIRE(ingests.step());
    CHECK(ingests.int_at(0) == 1);
    CHECK(ingests.int_at(1) == 1);  // the newest ingest's bad line stays with it
}

// What a write to a file jfp may not write says, as a user who is not root (a child process that drops to
// nobody: root writes everything). SQLite alone says only "attempt to write a readonly database".
static std::string write_error_as_nobody(const std::string &path) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        std::string msg = "no error";
        if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) msg = "cannot become nobody";
        else try {
                Db db(path, SQLITE_OPEN_READWRITE);
                db.exec("INSERT INTO t VALUES (1)");
            } catch (const std::exception &e) {
                msg = e.what();
            }
        (void)!write(fds[1], msg.data(), msg.size());
        _exit(0);
    }
    close(fds[1]);
    std::string out;
    char buf[512];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return out;
}

TEST_CASE("a database jfp may not write: the error says whose it is, its mode, and what to do") {
    if (geteuid() != 0) {
        WARN("not run: needs root, to drop to another user (the suite runs as root)");
        return;
    }
    test::TempDir dir;
    chmod(dir.path().c_str(), 0755);
    const std::string f = dir.file("s.db");
    {
        Db db(f, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        db.exec("CREATE TABLE t(x)");
    }
    chmod(f.c_str(), 0644);  // root's
    std::string e = write_error_as_nobody(f);
    CHECK(e.find("attempt to write a readonly database") != std::string::npos);
    CHECK(e.find(f + " is not writable by uid 65534 (nobody): mode 0644, owned by uid 0 (root); run as its owner") != std::string::npos);
    // nobody's own, but read-only to it
    REQUIRE(chown(f.c_str(), 65534, 65534) == 0);
    chmod(f.c_str(), 0444);
    e = write_error_as_nobody(f);
    CHECK(e.find(f + " is not writable by uid 65534 (nobody): mode 0444, owned by uid 65534 (nobody); give its owner write permission (chmod u+w)") != std::string::npos);
}
