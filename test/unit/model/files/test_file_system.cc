// Network file systems: each database jfp writes takes the journal mode its file system can keep, and a
// WAL database on a shared one is refused with the file, the file system and the fix.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>

#include "catch.h"
#include "model/archive/script_archive.h"
#include "model/files/file_system.h"
#include "model/files/sqlite_util.h"
#include "model/store/history_store.h"
#include "model/scoring/feature_log.h"
#include "tools/check/storage_check.h"
#include "test_support.h"

namespace test_file_system {

using namespace jfp;
using jfp::test::TempDir;

namespace {

// Every path containing "/nfs" answers as NFS; the rest as ext4.
int fake_probe(const std::string &path, uint64_t &magic) {
    magic = path.find("/nfs") != std::string::npos ? 0x6969 : 0xEF53;
    return 0;
}

struct InjectedProbe {
    InjectedProbe() { set_file_system_probe(fake_probe); }
    ~InjectedProbe() { set_file_system_probe(nullptr); }
};

std::string journal_of(const std::string &path) {
    Db db(path, SQLITE_OPEN_READONLY);
    Stmt s(db, "PRAGMA journal_mode");
    return s.step() ? s.text_at(0) : "";
}

std::string make_wal_store(const std::string &path) {
    { HistoryStore s(path, HistoryStore::Access::ReadWrite); }
    REQUIRE(journal_mode_in_header(path) == "WAL");
    return path;
}

}  // namespace

TEST_CASE("file system: statfs magic numbers name the file system and say whether hosts share it") {
    CHECK(file_system_kind(0x6969).name == "nfs");
    CHECK(file_system_kind(0x6969).network);
    CHECK(file_system_kind(0x0BD00BD0).name == "lustre");
    CHECK(file_system_kind(0x47504653).network);
    CHECK(file_system_kind(0xFF534D42).network);
    CHECK_FALSE(file_system_kind(0xEF53).network);
    CHECK_FALSE(file_system_kind(0x01021994).network);
    CHECK(file_system_kind(0x12345678).name == "0x12345678");
    CHECK_FALSE(file_system_kind(0x12345678).network);
    CHECK(std::string(journal_mode_for(file_system_kind(0x6969))) == "DELETE");
    CHECK(std::string(journal_mode_for(file_system_kind(0xEF53))) == "WAL");
}

TEST_CASE("file system: a path that does not exist yet is judged by its nearest existing directory") {
    TempDir dir;
    FileSystemKind here = file_system_of(dir.path());
    REQUIRE(here.known);
    FileSystemKind below = file_system_of(dir.file("not/yet/there.db"));
    CHECK(below.known);
    CHECK(below.magic == here.magic);
    // Random relative and absolute paths: the walk up always ends, with an answer from some ancestor.
    std::mt19937 rng(11);
    const std::string alphabet = "ab/./..";
    for (int i = 0; i < 2000; ++i) {
        std::string p = rng() % 2 ? "/" : "";
        for (size_t k = 0, n = rng() % 20; k < n; ++k) p += alphabet[rng() % alphabet.size()];
        CHECK(file_system_of(p).known);
    }
}

TEST_CASE("file system: on NFS the store, feature log and archive use the rollback journal; on local disk WAL") {
    TempDir dir;
    InjectedProbe probe;
    REQUIRE(::mkdir(dir.file("nfs").c_str(), 0700) == 0);
    REQUIRE(::mkdir(dir.file("local").c_str(), 0700) == 0);
    for (const std::string sub : {"nfs", "local"}) {
        const bool nfs = sub == "nfs";
        std::string store = dir.file(sub + "/history.db"), log = dir.file(sub + "/features.db"),
                    archive = dir.file(sub + "/scripts.db");
        { HistoryStore s(store, HistoryStore::Access::ReadWrite); }
        {
            FeatureLogWriter w(log, 16);
            FeatureLogEntry e;
            e.token = JoinToken::hex(1);
            e.x.fill(0.5f);
            REQUIRE(w.push(std::move(e)));
            w.flush();
            REQUIRE(w.written() == 1);
        }
        { ScriptArchive a(archive, ScriptArchive::Access::ReadWrite); }
        for (const std::string &f : {store, log, archive}) {
            INFO(f);
            CHECK(journal_of(f) == (nfs ? "delete" : "wal"));
            CHECK(journal_mode_in_header(f) == (nfs ? "rollback" : "WAL"));
        }
        // Read back through the readers the plugin and the CLI use.
        CHECK_NOTHROW(HistoryStore(store, HistoryStore::Access::ReadOnly));
        CHECK(read_feature_log(log).size() == 1);
    }
}

TEST_CASE("file system: a WAL store moved onto NFS is refused by a reader and switched by a writer") {
    TempDir dir;
    REQUIRE(::mkdir(dir.file("nfs").c_str(), 0700) == 0);
    std::string store = make_wal_store(dir.file("nfs/history.db"));  // written while statfs said local
    InjectedProbe probe;
    try {
        HistoryStore r(store, HistoryStore::Access::ReadOnly);
        FAIL("a WAL store on NFS was opened to read");
    } catch (const SqliteError &e) {
        std::string m = e.what();
        CHECK(m.find(store) != std::string::npos);
        CHECK(m.find("nfs") != std::string::npos);
        CHECK(m.find("journal_mode=DELETE") != std::string::npos);
    }
    // A writer switches it, when nothing else holds it open.
    { HistoryStore w(store, HistoryStore::Access::ReadWrite); }
    CHECK(journal_mode_in_header(store) == "rollback");
    CHECK_NOTHROW(HistoryStore(store, HistoryStore::Access::ReadOnly));
}

TEST_CASE("file system: a writer that cannot leave WAL on NFS refuses, naming the file, the file system and the fix") {
    TempDir dir;
    REQUIRE(::mkdir(dir.file("nfs").c_str(), 0700) == 0);
    std::string store = make_wal_store(dir.file("nfs/history.db"));
    Db holder(store, SQLITE_OPEN_READONLY);  // as slurmctld's open connection on the store
    Stmt hold(holder, "SELECT count(*) FROM sqlite_master");
    REQUIRE(hold.step());
    InjectedProbe probe;
    try {
        HistoryStore w(store, HistoryStore::Access::ReadWrite);
        FAIL("a WAL store held open on NFS was opened to write without leaving WAL");
    } catch (const SqliteError &e) {
        std::string m = e.what();
        CHECK(m.find(store) != std::string::npos);
        CHECK(m.find("nfs") != std::string::npos);
        CHECK(m.find("slurmctld on every controller") != std::string::npos);
    }
    CHECK(journal_mode_in_header(store) == "WAL");
}

TEST_CASE("file system: jfp check's storage findings, as each host and file system meets them") {
    TempDir dir;
    REQUIRE(::mkdir(dir.file("nfs").c_str(), 0700) == 0);
    std::string wal = make_wal_store(dir.file("nfs/wal.db"));
    std::string rollback = dir.file("nfs/rollback.db");
    InjectedProbe probe;
    { HistoryStore s(rollback, HistoryStore::Access::ReadWrite); }
    auto level_of = [](const std::vector<Finding> &fs, const std::string &text) {
        for (const auto &f : fs)
            if (f.what.find(text) != std::string::npos) return static_cast<int>(f.level);
        return -1;
    };
    auto one = check_storage({{"store", wal, true}, {"feature log", rollback, true}, {"model", dir.file("nfs/m.json"), false},
                              {"script archive", "", true}, {"store2", dir.file("local.db"), true}},
                             {"ctl1"}, "");
    CHECK(level_of(one, "the store " + wal + " is on nfs, shared between hosts, in SQLite's WAL mode") == 2);
    CHECK(level_of(one, "the feature log " + rollback + " is on nfs, shared between hosts: jfp keeps it in SQLite's rollback journal") == 1);
    CHECK(level_of(one, "the model " + dir.file("nfs/m.json") + " is on nfs") == 0);
    CHECK(level_of(one, "the store2 " + dir.file("local.db") + " is on ext2/3/4, local to this host") == 0);
    CHECK(level_of(one, "slurm.conf names") == -1);  // one controller: nothing said about backups
    CHECK(one.size() == 4);                     // the unset archive is skipped
    for (const auto &f : one) CHECK((f.level == Finding::Level::Ok) == f.fix.empty());
    // Two controllers, StateSaveLocation on another device than the local files: they are split.
    struct stat a {}, b {};
    if (::stat("/dev/shm", &a) == 0 && ::stat(dir.path().c_str(), &b) == 0 && a.st_dev != b.st_dev) {
        auto two = check_storage({{"feature log", dir.file("local.db"), true}}, {"ctl1", "ctl2"}, "/dev/shm");
        CHECK(level_of(two, "slurm.conf names 2 controllers: ctl1 (primary), ctl2 (backup)") >= 0);
        CHECK(level_of(two, "not on StateSaveLocation's file system (/dev/shm)") == 1);
        auto same = check_storage({{"feature log", dir.file("local.db"), true}}, {"ctl1", "ctl2"}, dir.path());
        CHECK(level_of(same, "on the same file system as StateSaveLocation") == 0);
    }
}

TEST_CASE("feature log: flush_for waits no longer than its limit for a writer held up, then completes") {
    TempDir dir;
    std::string log = dir.file("features.db");
    FeatureLogWriter w(log, 64);
    auto entry = [](uint64_t id) {
        FeatureLogEntry e;
        e.token = JoinToken::hex(id);
        e.x.fill(0.25f);
        return e;
    };
    REQUIRE(w.push(entry(1)));
    REQUIRE(w.flush_for(std::chrono::seconds(10)));
    // Another connection holds the write lock (as a prune could): the writer waits on SQLite's busy timeout.
    Db other(log, SQLITE_OPEN_READWRITE);
    other.exec("BEGIN EXCLUSIVE");
    REQUIRE(w.push(entry(2)));
    auto t0 = std::chrono::steady_clock::now();
    CHECK_FALSE(w.flush_for(std::chrono::milliseconds(300)));
    auto waited = std::chrono::steady_clock::now() - t0;
    CHECK(waited >= std::chrono::milliseconds(300));
    CHECK(waited < std::chrono::seconds(3));
    other.exec("COMMIT");
    CHECK(w.flush_for(std::chrono::seconds(10)));
    CHECK(w.written() == 2);
    CHECK(read_feature_log(log).size() == 2);
}

TEST_CASE("file system: reading a database's header keeps this process's SQLite locks on it") {
    // Closing any descriptor of a file drops every POSIX lock the process holds on it. Seen: the plugin
    // checked the store's header with open()+close() while its watch connection held the store, and the
    // next jfp ingest, taking itself for the last connection, deleted the WAL under slurmctld, which then
    // never saw another commit.
    TempDir dir;
    std::string store = make_wal_store(dir.file("history.db"));
    Db reader(store, SQLITE_OPEN_READONLY);
    {
        Stmt s(reader, "SELECT count(*) FROM sqlite_master");
        REQUIRE(s.step());
    }
    CHECK(journal_mode_in_header(store) == "WAL");
    CHECK_NOTHROW(refuse_wal_on_network_fs(store));
    // Another process's writer (a fresh program, as jfp ingest is: SQLite's state must not be forked).
    std::string cmd = "sqlite3 '" + store + "' 'CREATE TABLE t(x); INSERT INTO t VALUES (1)'";
    REQUIRE(std::system(cmd.c_str()) == 0);
    struct stat st {};
    CHECK(::stat((store + "-wal").c_str(), &st) == 0);  // the reader still holds it: not deleted
    Stmt v(reader, "SELECT count(*) FROM sqlite_master WHERE name = 't'");
    REQUIRE(v.step());
    CHECK(v.int_at(0) == 1);  // and sees the other process's commit
}

}  // namespace test_file_system
