#include "model/files/sqlite_util.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>

#include "model/files/file_check.h"
#include "model/files/file_system.h"

namespace jfp {

namespace {
std::string user_name(uid_t uid) {
    struct passwd pw {}, *res = nullptr;
    char buf[1024];
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res) return res->pw_name;
    return "?";
}

std::string uid_text(uid_t uid) { return "uid " + std::to_string(uid) + " (" + user_name(uid) + ")"; }

}  // namespace

const std::string &private_db_file(const std::string &path, const char *what, const char *check) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0) {
        ::close(fd);
        return path;
    }
    if (errno != EEXIST)
        throw SqliteError(std::string("cannot create the ") + what + " " + path + ": " + std::strerror(errno) + " (" +
                              check + ")",
                          SQLITE_CANTOPEN);
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() && (st.st_mode & 07))
        (void)::chmod(path.c_str(), st.st_mode & 0770);
    return path;
}

void checkpoint_before_release(Db &db) noexcept {
    if (db.get()) sqlite3_exec(db.get(), "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
}

void remove_orphan_wal(const std::string &path) noexcept {
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) return;  // a database is there: the files are its own
    ::unlink((path + "-wal").c_str());
    ::unlink((path + "-shm").c_str());
}

// SQLite says "unable to open database file" for a missing file and a forbidden one alike: say which,
// and what to do.
static std::string why_unopenable(const std::string &path, int flags, const std::string &sqlite_msg) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (errno == ENOENT && !(flags & SQLITE_OPEN_CREATE)) return "no such file (check the path: jfp ingest creates the history store; the plugin creates the feature log and the script archive once it scores jobs)";
        if (errno == EACCES) return "permission denied on a directory above it (" + sqlite_msg + ")";
        return std::strerror(errno);
    }
    const bool write = (flags & SQLITE_OPEN_READWRITE) != 0;
    if (::access(path.c_str(), write ? R_OK | W_OK : R_OK) != 0 && errno == EACCES) {
        return "permission denied: it is mode " + file_mode_text(st.st_mode) + ", owned by " + uid_text(st.st_uid) + ", and this is " +
               uid_text(::geteuid()) + "; run as its owner (SlurmUser for jfp's files) or root";
    }
    return sqlite_msg;
}

// SQLite opens a file it may not write read-only without a word, and says only "attempt to write a readonly
// database" at the first write: say why it is read-only, and what to do.
static std::string why_readonly(const std::string &path) {
    const std::string dir = dir_of(path);
    for (const std::string &f : {path, dir}) {
        struct statvfs fs {};
        if (::statvfs(f.c_str(), &fs) == 0 && (fs.f_flag & ST_RDONLY))
            return "the file system holding " + f + " is mounted read-only here (under systemd, a unit with "
                   "ProtectSystem=strict may write only its ReadWritePaths=: add " + dir + " there)";
    }
    for (const std::string &f : {path, dir}) {
        struct stat st {};
        if (::stat(f.c_str(), &st) != 0 || ::faccessat(AT_FDCWD, f.c_str(), W_OK, AT_EACCESS) == 0 ||
            errno != EACCES)
            continue;
        std::string why = f + " is not writable by " + uid_text(::geteuid()) + ": mode " + file_mode_text(st.st_mode) +
                          ", owned by " + uid_text(st.st_uid);
        return why + (st.st_uid == ::geteuid() ? "; give its owner write permission (chmod u+w)"
                                               : "; run as its owner (SlurmUser for jfp's files) or root");
    }
    return "";
}

// Only for a connection opened to write: one opened read-only on purpose has nothing to explain.
static std::string with_readonly_hint(bool writer, const std::string &path, int code, std::string msg) {
    if (!writer || (code & 0xff) != SQLITE_READONLY) return msg;
    std::string why = why_readonly(path);
    return why.empty() ? msg : msg + ": " + why;
}

void configure_sqlite_once() noexcept {
    static std::once_flag once;
    std::call_once(once, [] { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
}

Db::Db(const std::string &path, int flags) : path_(path), writer_((flags & SQLITE_OPEN_READWRITE) != 0) {
    configure_sqlite_once();
    if (!writer_) refuse_wal_on_network_fs(path);
    int rc = sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
        sqlite3_close(db_);
        db_ = nullptr;
        throw SqliteError("cannot open " + path + ": " + why_unopenable(path, flags, msg), rc);
    }
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, 5000);
}

Db::~Db() {
    if (db_) sqlite3_close_v2(db_);
}

Db &Db::operator=(Db &&o) noexcept {
    if (this != &o) {
        if (db_) sqlite3_close_v2(db_);
        db_ = o.db_;
        path_ = std::move(o.path_);
        writer_ = o.writer_;
        o.db_ = nullptr;
    }
    return *this;
}

void Db::fail(const std::string &what) const {
    int code = sqlite3_extended_errcode(db_);
    throw SqliteError(path_ + ": " + what + ": " + with_readonly_hint(writer_, path_, code, sqlite3_errmsg(db_)), code);
}

void Db::exec(const char *sql) {
    char *err = nullptr;
    int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
        std::string msg = err ? err : sqlite3_errstr(rc);
        sqlite3_free(err);
        std::string head(sql);
        if (head.size() > 60) head = head.substr(0, 60) + "...";
        throw SqliteError(path_ + ": " + with_readonly_hint(writer_, path_, rc, msg) + " (in: " + head + ")", rc);
    }
}

Stmt::Stmt(const Db &db, const char *sql) : db_(db), sql_(sql) {
    if (sqlite3_prepare_v2(db.get(), sql, -1, &s_, nullptr) != SQLITE_OK)
        db.fail(std::string("preparing '") + sql_.substr(0, 60) + "'");
}

Stmt::~Stmt() { sqlite3_finalize(s_); }

Stmt &Stmt::bind(int i, int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
}

Stmt &Stmt::bind(int i, double v) {
    if (std::isnan(v)) sqlite3_bind_null(s_, i);
    else sqlite3_bind_double(s_, i, v);
    return *this;
}

Stmt &Stmt::bind(int i, std::string_view v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
}

Stmt &Stmt::bind_text_or_null(int i, std::string_view v) {
    if (v.empty()) sqlite3_bind_null(s_, i);
    else bind(i, v);
    return *this;
}

Stmt &Stmt::bind_null(int i) {
    sqlite3_bind_null(s_, i);
    return *this;
}

Stmt &Stmt::bind_blob(int i, const void *p, size_t n) {
    sqlite3_bind_blob(s_, i, p, static_cast<int>(n), SQLITE_TRANSIENT);
    return *this;
}

bool Stmt::step() {
    int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    std::string what = "running '" + sql_.substr(0, 60) + "'";
    sqlite3_reset(s_);
    db_.fail(what);
}

void Stmt::reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
}

double Stmt::real_at(int c) const {
    if (sqlite3_column_type(s_, c) == SQLITE_NULL) return std::numeric_limits<double>::quiet_NaN();
    return sqlite3_column_double(s_, c);
}

std::string Stmt::text_at(int c) const { return std::string(view_at(c)); }

std::string_view Stmt::view_at(int c) const {
    const unsigned char *p = sqlite3_column_text(s_, c);
    if (!p) return {};
    return std::string_view(reinterpret_cast<const char *>(p), static_cast<size_t>(sqlite3_column_bytes(s_, c)));
}

const void *Stmt::blob_at(int c, int &n) const {
    const void *p = sqlite3_column_blob(s_, c);
    n = sqlite3_column_bytes(s_, c);
    return p;
}

std::string set_journal_mode(Db &db) {
    FileSystemKind fs = file_system_of(db.path());
    std::string want = journal_mode_for(fs), got;
    try {
        Stmt s(db, ("PRAGMA journal_mode=" + want).c_str());
        if (s.step()) got = s.text_at(0);
    } catch (const SqliteError &e) {
        got = e.what();
    }
    for (char &c : got) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (fs.network) {
        if (got != want)
            throw SqliteError(db.path() + " is on " + fs.name + ", a file system shared between hosts, and stays in "
                                  "SQLite's WAL mode, which needs memory shared on one host (" + got + "): stop "
                                  "what holds it open (slurmctld on every controller, jfp ingest --follow), then run "
                                  "the jfp command that writes it once (it switches the file to the rollback journal), "
                                  "or sqlite3 " + db.path() + " 'PRAGMA journal_mode=DELETE'",
                              SQLITE_BUSY);
        db.exec("PRAGMA synchronous=FULL");
        // Never freed: a writer thread may open a database while slurmctld's exit runs static destructors.
        static auto *mu = new std::mutex;
        static auto *said = new std::set<std::string>;
        std::lock_guard<std::mutex> lk(*mu);
        if (said->size() < 64 && said->insert(db.path()).second)
            return db.path() + " is on " + fs.name + ", shared between hosts: jfp keeps it in SQLite's rollback "
                   "journal (journal_mode=DELETE), which relies on the file system's POSIX locks, not WAL";
        return "";
    }
    // NORMAL is safe with WAL only: a file that stayed in the rollback journal (held open) gets FULL.
    db.exec(got == "WAL" ? "PRAGMA synchronous=NORMAL" : "PRAGMA synchronous=FULL");
    return "";
}

void refuse_wal_on_network_fs(const std::string &path) {
    FileSystemKind fs = file_system_of(path);  // statfs first: the header is read only on a shared file system
    if (!fs.network || journal_mode_in_header(path) != "WAL") return;
    throw SqliteError("the database " + path + " is on " + fs.name + ", a file system shared between "
                          "hosts, in SQLite's WAL mode, whose index a reader on another host cannot see: stop what "
                          "holds it open, then run the jfp command that writes it once (it switches the file to the "
                          "rollback journal), or sqlite3 " + path + " 'PRAGMA journal_mode=DELETE'",
                      SQLITE_CANTOPEN);
}

WriteTransaction::WriteTransaction(Db &db, Lock lock) : db_(db) {
    db_.exec(lock == Lock::Immediate ? "BEGIN IMMEDIATE" : "BEGIN");
}

WriteTransaction::~WriteTransaction() {
    // SQLite may have rolled back by itself (a full disk): then there is nothing to roll back.
    if (!committed_ && db_.get() && !sqlite3_get_autocommit(db_.get()))
        sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void WriteTransaction::commit() {
    db_.exec("COMMIT");
    committed_ = true;
}

VersionedDb open_versioned_db(const std::string &path, bool writable, const DbSchema &schema) {
    VersionedDb v;
    v.db = writable ? Db(private_db_file(path, schema.what, schema.check), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
                    : Db(path, SQLITE_OPEN_READONLY);
    try {
        Stmt s(v.db, "PRAGMA user_version");
        if (s.step()) v.found = static_cast<int>(s.int_at(0));
    } catch (const SqliteError &e) {
        // A WAL file cannot be opened, even to read, where SQLite cannot create PATH-shm beside it.
        const std::string dir = dir_of(path);
        if ((e.code() & 0xff) == SQLITE_CANTOPEN && ::access(dir.c_str(), W_OK) != 0)
            throw SqliteError(std::string(e.what()) + ": its directory " + dir + " is not writable (" +
                                  std::strerror(errno) + "), and SQLite must create " + path +
                                  "-shm there even to read " + (schema.kind[0] == 'a' ? "an " : "a ") + schema.kind +
                                  " in WAL mode; make it writable by SlurmUser or keep the " + schema.kind +
                                  " on a writable file system",
                              e.code());
        throw SqliteError(std::string(e.what()) + " (is " + path + " a jfp " + schema.what + "?)", e.code());
    }
    if (v.found > schema.version)
        throw SqliteError(path + " was written by a newer jfp (" + schema.kind + " schema " + std::to_string(v.found) +
                              ", this jfp reads up to " + std::to_string(schema.version) + "); upgrade jfp",
                          SQLITE_ERROR);
    if (!writable) return v;
    v.note = set_journal_mode(v.db);
    if (v.found == 0) {
        WriteTransaction tx(v.db);
        v.db.exec(schema.sql);
        v.db.exec(("PRAGMA user_version=" + std::to_string(schema.version)).c_str());
        tx.commit();
    }
    return v;
}

}  // namespace jfp
