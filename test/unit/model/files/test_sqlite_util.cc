// The write-transaction guard and the versioned open that every jfp database goes through.
#include "catch.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "model/files/sqlite_util.h"
#include "test_support.h"

namespace test_sqlite_util {

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

TEST_CASE("SQLite keeps no memory statistics once jfp opened a database (their global mutex cost every allocation)") {
    test::TempDir dir;
    Db db(dir.path() + "/m.db", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    db.exec("CREATE TABLE t (x BLOB); INSERT INTO t VALUES (zeroblob(100000));");
    Stmt s(db, "SELECT x FROM t");
    REQUIRE(s.step());
    // Counted, these would hold the page cache and the statement just run.
    CHECK(sqlite3_memory_used() == 0);
    CHECK(sqlite3_memory_highwater(0) == 0);
}

}  // namespace test_sqlite_util
