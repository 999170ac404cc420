// The write-transaction guard and the versioned open that every jfp database goes through.
#include "catch.h"

#include <sys/stat.h>

#include <stdexcept>
#include <string>

#include "model/files/sqlite_util.h"
#include "test_support.h"

using namespace jfp;

namespace {

int64_t rows(const Db &db) {
    Stmt s(db, "SELECT count(*) FROM t");
    return s.step() ? s.int_at(0) : -1;
}

bool in_transaction(const Db &db) { return !sqlite3_get_autocommit(db.get()); }

const DbSchema kTest{"widget", "widget file", "check the widget path", "CREATE TABLE w (x INTEGER);", 3};

int user_version(const Db &db) {
    Stmt s(db, "PRAGMA user_version");
    return s.step() ? static_cast<int>(s.int_at(0)) : -1;
}

}  // namespace

TEST_CASE("write transaction: commit keeps the writes; an exception or an early return rolls them back") {
    test::TempDir dir;
    Db db(dir.file("t.db"), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    db.exec("CREATE TABLE t (x INTEGER)");
    {
        WriteTransaction tx(db);
        CHECK(in_transaction(db));
        db.exec("INSERT INTO t VALUES (1)");
        tx.commit();
        CHECK(tx.committed());
    }
    CHECK_FALSE(in_transaction(db));
    CHECK(rows(db) == 1);

    CHECK_THROWS_AS(([&] {
                        WriteTransaction tx(db);
                        db.exec("INSERT INTO t VALUES (2)");
                        throw std::runtime_error("fault between the writes");
                    }()),
                    std::runtime_error);
    CHECK_FALSE(in_transaction(db));
    CHECK(rows(db) == 1);

    auto early = [&](bool leave) {
        WriteTransaction tx(db, WriteTransaction::Lock::Deferred);
        db.exec("INSERT INTO t VALUES (3)");
        if (leave) return false;
        tx.commit();
        return true;
    };
    CHECK_FALSE(early(true));
    CHECK_FALSE(in_transaction(db));
    CHECK(rows(db) == 1);
    CHECK(early(false));
    CHECK(rows(db) == 2);

    // A statement that fails inside the transaction: the guard still rolls back the writes before it.
    CHECK_THROWS_AS(([&] {
                        WriteTransaction tx(db);
                        db.exec("INSERT INTO t VALUES (4)");
                        db.exec("INSERT INTO no_such_table VALUES (1)");
                        tx.commit();
                    }()),
                    SqliteError);
    CHECK_FALSE(in_transaction(db));
    CHECK(rows(db) == 2);
}

TEST_CASE("write transaction: IMMEDIATE takes the write lock at BEGIN; a second writer waits, then fails, and leaves nothing open") {
    test::TempDir dir;
    const std::string path = dir.file("t.db");
    Db a(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    a.exec("CREATE TABLE t (x INTEGER)");
    Db b(path, SQLITE_OPEN_READWRITE);
    sqlite3_busy_timeout(b.get(), 50);
    WriteTransaction held(a);
    CHECK_THROWS_AS(WriteTransaction(b), SqliteError);
    CHECK_FALSE(in_transaction(b));
    {
        WriteTransaction deferred(b, WriteTransaction::Lock::Deferred);  // takes no lock until it writes
        CHECK(in_transaction(b));
    }
    CHECK_FALSE(in_transaction(b));
}

TEST_CASE("versioned open: a new file gets the schema and the version; a newer file is refused; an older one is the caller's") {
    test::TempDir dir;
    const std::string path = dir.file("w.db");
    {
        VersionedDb v = open_versioned_db(path, true, kTest);
        CHECK(v.found == 0);
        CHECK(user_version(v.db) == 3);
        Stmt t(v.db, "SELECT count(*) FROM sqlite_master WHERE name = 'w'");
        CHECK((t.step() && t.int_at(0) == 1));
    }
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    {
        VersionedDb v = open_versioned_db(path, false, kTest);
        CHECK(v.found == 3);
    }
    {
        Db db(path, SQLITE_OPEN_READWRITE);
        db.exec("PRAGMA user_version=2");
    }
    CHECK(open_versioned_db(path, true, kTest).found == 2);  // left as it is: migrating is the caller's
    {
        Db db(path, SQLITE_OPEN_READWRITE);
        db.exec("PRAGMA user_version=4");
    }
    CHECK_THROWS_WITH(open_versioned_db(path, false, kTest), HasText("newer jfp") && HasText("widget schema 4"));
    CHECK_THROWS_WITH(open_versioned_db(path, true, kTest), HasText("newer jfp"));
}

TEST_CASE("versioned open: a file that is no database is named as not the kind expected") {
    test::TempDir dir;
    const std::string path = dir.file("junk.db");
    {
        FILE *f = std::fopen(path.c_str(), "w");
        REQUIRE(f);
        std::fputs("this is not an SQLite database, not even close; padding padding padding padding padding\n", f);
        std::fclose(f);
    }
    CHECK_THROWS_WITH(open_versioned_db(path, false, kTest), HasText("a jfp widget file?"));
    CHECK_THROWS_WITH(open_versioned_db(dir.file("missing/w.db"), true, kTest), HasText("check the widget path"));
}
