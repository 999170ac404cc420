// The trust checks for the files slurmctld acts on (jfp.conf, the model bundle): what is read is what was
// checked (the descriptor's fstat), a symlink counts only when root or SlurmUser made it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "catch.h"
#include "model/store/history_store.h"
#include "model/files/file_check.h"
#include "model/files/open_file_watch.h"
#include "model/files/unique_fd.h"
#include "test_support.h"

namespace test_file_check {

using namespace jfp;

TEST_CASE("read_trusted_file: a trusted file is read; an untrusted owner or mode is refused with the fix") {
    test::TempDir dir;
    chmod(dir.path().c_str(), 0755);
    std::string f = dir.file("jfp.conf");
    test::write_file(f, "mode = warn\n");
    chmod(f.c_str(), 0644);
    auto r = read_trusted_file(f, {getuid()}, 1 << 20);
    CHECK(r.problem.empty());
    CHECK(r.out == "mode = warn\n");
    CHECK_FALSE(r.too_big);
    chmod(f.c_str(), 0664);
    CHECK(read_trusted_file(f, {getuid()}, 1 << 20).problem.find("writable by group or others (mode 664); chmod go-w it") != std::string::npos);
    chmod(f.c_str(), 0644);
    CHECK(read_trusted_file(f, {getuid() + 1}, 1 << 20).problem.find("not by root or SlurmUser; chown it") != std::string::npos);
    auto big = read_trusted_file(f, {getuid()}, 4);
    CHECK(big.problem.empty());
    CHECK(big.too_big);
    CHECK(big.out.empty());
    CHECK(read_trusted_file(dir.file("missing"), {getuid()}, 100).problem.find("No such file") != std::string::npos);
}

TEST_CASE("read_trusted_file: a FIFO in the file's place is refused without blocking") {
    test::TempDir dir;
    chmod(dir.path().c_str(), 0755);
    std::string p = dir.file("model.json");
    REQUIRE(mkfifo(p.c_str(), 0644) == 0);
    CHECK(read_trusted_file(p, {getuid()}, 100).problem.find("not a regular file") != std::string::npos);
}

TEST_CASE("read_trusted_file: another user's symlink is refused even when it points at a trusted file") {
    if (getuid() != 0) {  // the test command runs as root; a developer's run as a user cannot make the link
        WARN("not root: cannot make a symlink owned by another user; not checked");
        return;
    }
    test::TempDir dir;
    chmod(dir.path().c_str(), 01777);  // a sticky, world-writable directory, like /tmp
    std::string target = dir.file("good.json");
    test::write_file(target, "{}");
    chmod(target.c_str(), 0644);
    std::string link = dir.file("model.json");
    REQUIRE(symlink(target.c_str(), link.c_str()) == 0);
    REQUIRE(lchown(link.c_str(), 65534, 65534) == 0);
    // The old check (stat follows the link) sees the root-owned target and accepts it.
    CHECK(trust_problem(link, {0}).empty());
    auto r = read_trusted_file(link, {0}, 100);
    CHECK(r.problem.find("is a symbolic link owned by uid 65534") != std::string::npos);
    // root's own link is followed, and the target is what gets checked and read.
    REQUIRE(lchown(link.c_str(), 0, 0) == 0);
    auto ok = read_trusted_file(link, {0}, 100);
    CHECK(ok.problem.empty());
    CHECK(ok.out == "{}");
}

TEST_CASE("user data files are private: a new store and its -wal are 0600, an existing one is closed to others") {
    test::TempDir dir;
    std::string path = dir.file("h.db");
    mode_t old = umask(022);  // as slurmctld and a shell have it
    {
        HistoryStore store(path, HistoryStore::Access::ReadWrite);
        test::ingest_text(store, "JobIDRaw|User|JobName|Submit|End|State\n1|amy|x|2024-01-01T00:00:00|2024-01-01T01:00:00|COMPLETED\n");
        struct stat st {};
        REQUIRE(stat(path.c_str(), &st) == 0);
        CHECK((st.st_mode & 0777) == 0600);
        if (stat((path + "-wal").c_str(), &st) == 0) CHECK((st.st_mode & 0777) == 0600);
    }
    // A store an older jfp left readable by everyone: others lose access, the group keeps its bits.
    chmod(path.c_str(), 0644);
    { HistoryStore store(path, HistoryStore::Access::ReadWrite); }
    struct stat st {};
    REQUIRE(stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0640);
    umask(old);
}

TEST_CASE("open file watch: says when the path no longer names the file that was opened") {
    test::TempDir dir;
    std::string path = dir.file("log.db");
    test::write_file(path, "x");
    OpenFileWatch w(std::chrono::milliseconds(0));
    CHECK(w.changed().empty());  // nothing opened yet: nothing to say
    w.opened(path);
    CHECK(w.changed().empty());
    test::write_file(path, "more");  // written in place: the same file
    CHECK(w.changed().empty());
    REQUIRE(::rename(path.c_str(), (path + ".1").c_str()) == 0);
    CHECK_THAT(w.changed(), HasText("removed or renamed"));
    test::write_file(path + ".new", "y");  // a new file at the path
    REQUIRE(::rename((path + ".new").c_str(), path.c_str()) == 0);
    CHECK_THAT(w.changed(), HasText("replaced"));
    w.opened(path);
    CHECK(w.changed().empty());
    OpenFileWatch slow(std::chrono::seconds(3600));
    slow.opened(path);
    ::unlink(path.c_str());
    CHECK(slow.changed().empty());  // not looked at again within its interval
}

TEST_CASE("unique fd: closed once when its owner goes, a throw included; a move hands it over") {
    auto is_open = [](int fd) { return ::fcntl(fd, F_GETFD) != -1; };
    int raw = -1;
    try {
        UniqueFd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
        REQUIRE(fd.valid());
        raw = fd.get();
        CHECK(is_open(raw));
        throw std::runtime_error("leave the scope");
    } catch (const std::runtime_error &) {
    }
    CHECK_FALSE(is_open(raw));

    UniqueFd a(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    const int n = a.get();
    UniqueFd b(std::move(a));
    CHECK_FALSE(a.valid());
    CHECK(b.get() == n);
    CHECK(is_open(n));
    UniqueFd c;
    c = std::move(b);
    CHECK(c.get() == n);
    c.reset();
    CHECK_FALSE(is_open(n));
    CHECK_FALSE(c.valid());
}

TEST_CASE("dir_of and path_beside: a bare name, a file at the root, a nested file") {
    CHECK(dir_of("jfp.conf") == ".");
    CHECK(dir_of("/slurm.conf") == "/");
    CHECK(dir_of("/etc/slurm/slurm.conf") == "/etc/slurm");
    CHECK(path_beside("slurm.conf", "jfp.conf") == "./jfp.conf");
    CHECK(path_beside("/slurm.conf", "jfp.conf") == "/jfp.conf");
    CHECK(path_beside("/etc/slurm/slurm.conf", "jfp.conf") == "/etc/slurm/jfp.conf");
    CHECK(path_beside("/var/lib/jfp/history.db", "features.db") == "/var/lib/jfp/features.db");
}

}  // namespace test_file_check
