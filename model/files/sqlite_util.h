// A thin RAII layer over SQLite's C API: errors become exceptions that name the database and the
// statement, so a CLI user sees what failed and where.
#pragma once

#include <sqlite3.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace jfp {

class SqliteError : public std::runtime_error {
public:
    SqliteError(const std::string &what, int code) : std::runtime_error(what), code_(code) {}
    int code() const { return code_; }

private:
    int code_;
};

// A database file of user data (job names, scores, scripts) made private before SQLite opens it for
// writing: created 0600 when missing (its -wal and -shm take the database file's mode), and, when it exists
// and belongs to this process's user, closed to others (chmod o-rwx; a group the admin gave stays). A
// file others could read around PrivateData=jobs is the leak this closes. Throws SqliteError naming the
// file and `check` (what to look at) when it cannot be created. Returns path.
const std::string &private_db_file(const std::string &path, const char *what, const char *check);

class Db {
public:
    Db() = default;
    // flags: SQLITE_OPEN_READONLY or SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE.
    Db(const std::string &path, int flags);
    ~Db();
    Db(Db &&o) noexcept : db_(o.db_), path_(std::move(o.path_)), writer_(o.writer_) { o.db_ = nullptr; }
    Db &operator=(Db &&o) noexcept;
    Db(const Db &) = delete;
    Db &operator=(const Db &) = delete;

    sqlite3 *get() const { return db_; }
    const std::string &path() const { return path_; }
    void exec(const char *sql);
    [[noreturn]] void fail(const std::string &what) const;
    bool open() const { return db_ != nullptr; }

private:
    sqlite3 *db_ = nullptr;
    std::string path_;
    bool writer_ = false;  // opened to write: a read-only file is then worth explaining
};

// For a writer whose database file was renamed or removed under it (logrotate, an admin's rm). The WAL
// keeps the old name, so before the handle goes what it holds is moved into the file itself (renamed: the
// rotated copy is whole) and the WAL truncated; a new database at the old name would otherwise take the
// old WAL as its own ("how to corrupt an SQLite database", section 2). Errors are ignored: this is cleanup.
void checkpoint_before_release(Db &db) noexcept;
// After that handle is closed: the -wal and -shm left at path when no database is there any more.
void remove_orphan_wal(const std::string &path) noexcept;

class Stmt {
public:
    Stmt(const Db &db, const char *sql);
    ~Stmt();
    Stmt(const Stmt &) = delete;
    Stmt &operator=(const Stmt &) = delete;

    Stmt &bind(int i, int64_t v);
    Stmt &bind(int i, double v);  // NaN binds NULL
    Stmt &bind(int i, std::string_view v);
    Stmt &bind_text_or_null(int i, std::string_view v);
    Stmt &bind_null(int i);
    Stmt &bind_blob(int i, const void *p, size_t n);
    // true while a row is available; false when done.
    bool step();
    void reset();
    void run() {
        step();
        reset();
    }

    int64_t int_at(int c) const { return sqlite3_column_int64(s_, c); }
    double real_at(int c) const;  // NULL reads NaN
    bool is_null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
    std::string text_at(int c) const;
    std::string_view view_at(int c) const;
    const void *blob_at(int c, int &n) const;

private:
    const Db &db_;
    sqlite3_stmt *s_ = nullptr;
    std::string sql_;
};

// Puts a database jfp writes in the journal mode its file system can keep (model/files/file_system.h):
// WAL with synchronous=NORMAL on a local one; the rollback journal with synchronous=FULL on a network or
// cluster one. Returns what to say in the log about it, once per file per process (else empty): files/ sits
// below the log. Throws SqliteError naming the file, its file system and the fix when a WAL database there
// cannot leave WAL (another connection holds it open).
[[nodiscard]] std::string set_journal_mode(Db &db);

// For a reader: a database in WAL mode on a network file system is refused (SqliteError naming the file, its
// file system and the fix), since this host cannot see the WAL index another host's writer keeps. Every
// read-only Db checks this as it opens.
void refuse_wal_on_network_fs(const std::string &path);

// Once per process, before SQLite's first use: no memory statistics. Kept, they take a global mutex on
// every sqlite3_malloc and sqlite3_free (a tenth of `jfp ingest`'s writing thread); jfp reads none of
// them. A no-op when something else in the process initialised SQLite first.
void configure_sqlite_once() noexcept;

// A write transaction that cannot be left open: BEGIN at construction (IMMEDIATE unless Deferred is asked,
// so that what a writer reads inside it cannot change before it writes), ROLLBACK at destruction unless
// commit() ran. An exception or an early return between the two rolls back by itself. A failed COMMIT
// leaves it open, and the destructor then rolls back.
class WriteTransaction {
public:
    enum class Lock { Immediate, Deferred };
    explicit WriteTransaction(Db &db, Lock lock = Lock::Immediate);
    ~WriteTransaction();
    WriteTransaction(const WriteTransaction &) = delete;
    WriteTransaction &operator=(const WriteTransaction &) = delete;

    void commit();
    bool committed() const { return committed_; }

private:
    Db &db_;
    bool committed_ = false;
};

// A jfp database file whose schema is versioned by PRAGMA user_version.
struct DbSchema {
    const char *kind;   // in the refusal of a newer file: "store", "archive"
    const char *what;   // "history store": in "(is PATH a jfp history store?)" and private_db_file's error
    const char *check;  // what to check when the file cannot be created (private_db_file)
    const char *sql;    // the tables of a new file
    int version;        // the version this jfp writes
};

struct VersionedDb {
    Db db;
    int found = 0;     // the file's version as opened; 0: new, empty or not jfp's
    std::string note;  // set_journal_mode's, for the log
};

// The one open of a versioned jfp database. Writable: the file is made private (private_db_file), put in
// its journal mode (set_journal_mode) and, when new, given the schema and its version. Refuses a file a
// newer jfp wrote; a file whose version cannot be read is named as not what it should be (and a WAL file
// whose directory is not writable, which SQLite cannot open even to read, says so). Older versions are
// the caller's to migrate.
VersionedDb open_versioned_db(const std::string &path, bool writable, const DbSchema &schema);

}  // namespace jfp
