// StoreFollower: the history store followed as jfp ingest changes it: missing, loaded whole, updated in
// place on a commit, loaded whole when replaced, and retried after a failure.
#include <unistd.h>

#include "catch.h"
#include "model/store/history_store.h"
#include "model/reload/store_follower.h"
#include "test_support.h"

namespace test_store_follower {

using namespace jfp;

namespace {

const char *kHeader = "JobIDRaw|User|JobName|Submit|Start|End|State\n";

void add_job(const std::string &store_path, const std::string &line) {
    HistoryStore store(store_path, HistoryStore::Access::ReadWrite);
    test::ingest_text(store, std::string(kHeader) + line + "\n");
}

}  // namespace

TEST_CASE("store follower: missing, then loaded whole, then each commit applied in place, a replaced file loaded whole") {
    test::TempDir dir;
    const std::string path = dir.file("h.db");
    HistoryLock lock;
    StoreFollower f(lock, {0, getuid()});
    PublishedState st;

    StoreFollow r = f.follow(path, true, st);
    CHECK(r.changed);
    CHECK_FALSE(r.loaded_whole);
    CHECK(st.history_note.find("missing") != std::string::npos);
    CHECK_FALSE(st.history);
    CHECK_FALSE(f.follow(path, true, st).changed);  // a missing file is said once, and not retried

    add_job(path, "100|amy|x|2025-01-01T00:00:00|2025-01-01T00:00:01|2025-01-01T00:01:00|FAILED");
    r = f.follow(path, false, st);
    CHECK_FALSE(r.changed);  // load false: looked at, not loaded
    r = f.follow(path, true, st);
    CHECK(r.loaded_whole);
    REQUIRE(st.history);
    CHECK(st.history->jobs == 1);
    CHECK(r.line.find("loaded history of 1 jobs") != std::string::npos);
    CHECK_FALSE(f.follow(path, true, st).changed);  // reading a WAL store changes its files, not its data

    const uint64_t g = lock.generation();
    add_job(path, "101|amy|x|2025-01-02T00:00:00|2025-01-02T00:00:01|2025-01-02T00:01:00|COMPLETED");
    r = f.follow(path, true, st);
    CHECK(r.updated);
    CHECK_FALSE(r.loaded_whole);
    CHECK(st.history->jobs == 2);
    CHECK(lock.generation() > g);  // a remembered judgement knows the history moved

    // A store copied over the old one (a new inode) is loaded whole.
    const std::string other = dir.file("other.db");
    add_job(other, "200|bob|y|2025-01-01T00:00:00|2025-01-01T00:00:01|2025-01-01T00:01:00|FAILED");
    REQUIRE(rename(other.c_str(), path.c_str()) == 0);
    unlink((path + "-wal").c_str());
    unlink((path + "-shm").c_str());
    r = f.follow(path, true, st);
    CHECK(r.loaded_whole);
    CHECK(st.history->jobs == 1);
}

TEST_CASE("store follower: a file that is not a store keeps the last history and is said once") {
    test::TempDir dir;
    const std::string path = dir.file("h.db");
    add_job(path, "100|amy|x|2025-01-01T00:00:00|2025-01-01T00:00:01|2025-01-01T00:01:00|FAILED");
    HistoryLock lock;
    StoreFollower f(lock, {0, getuid()});
    PublishedState st;
    REQUIRE(f.follow(path, true, st).loaded_whole);
    const std::string bad = dir.file("bad.db");
    test::write_file(bad, std::string(8192, 'x'));
    REQUIRE(rename(bad.c_str(), path.c_str()) == 0);
    StoreFollow r = f.follow(path, true, st);
    CHECK(r.changed);
    CHECK_FALSE(r.loaded_whole);
    REQUIRE(st.history);
    CHECK(st.history->jobs == 1);  // the last good history stays
    CHECK(st.history_note.find("keeping the last history") != std::string::npos);
    CHECK_FALSE(f.follow(path, true, st).changed);  // retried only after kRetry
}

}  // namespace test_store_follower
