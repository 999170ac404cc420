// Which job_submit_jfp.so a running slurmctld holds (tools/check/running_plugin.h): an upgrade replaces the
// file under it, and only a restart loads the new one.
#include <sys/stat.h>

#include <cstdio>
#include <string>

#include "catch.h"
#include "test_support.h"
#include "tools/check/running_plugin.h"

namespace test_running_plugin {

using namespace jfp;

TEST_CASE("running plugin: the mapping of job_submit_jfp.so in /proc/PID/maps, deleted or not") {
    const std::string maps =
        "55d0c0a00000-55d0c0a2a000 r--p 00000000 fd:01 1311 /usr/sbin/slurmctld\n"
        "7f1c2d000000-7f1c2d021000 r--p 00000000 fd:01 4242 /usr/lib/x86_64-linux-gnu/slurm-wlm/job_submit_jfp.so (deleted)\n"
        "7f1c2d021000-7f1c2d0ff000 r-xp 00021000 fd:01 4242 /usr/lib/x86_64-linux-gnu/slurm-wlm/job_submit_jfp.so (deleted)\n"
        "7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]\n"
        "7f1c2e000000-7f1c2e001000 r--p 00000000 fd:01 77 /opt/my dir/job_submit_lua.so\n";
    auto m = find_mapping(maps, "job_submit_jfp.so");
    REQUIRE(m);
    CHECK(m->path == "/usr/lib/x86_64-linux-gnu/slurm-wlm/job_submit_jfp.so");
    CHECK(m->inode == 4242);
    CHECK(m->deleted);
    auto lua = find_mapping(maps, "job_submit_lua.so");
    REQUIRE(lua);
    CHECK(lua->path == "/opt/my dir/job_submit_lua.so");  // a path with a space
    CHECK_FALSE(lua->deleted);
    CHECK_FALSE(find_mapping(maps, "job_submit_pbs.so"));
    CHECK_FALSE(find_mapping("", "job_submit_jfp.so"));
    CHECK_FALSE(find_mapping("garbage\nmore garbage here\n", "job_submit_jfp.so"));
}

TEST_CASE("running plugin: a slurmctld whose plugin file was replaced since it started is stale") {
    test::TempDir dir;
    const std::string so = dir.file("job_submit_jfp.so");
    test::write_file(so, "old plugin");
    struct stat st {};
    REQUIRE(::stat(so.c_str(), &st) == 0);
    const std::string proc = dir.file("proc");
    ::mkdir(proc.c_str(), 0755);
    auto process = [&](const char *pid, const char *comm, const std::string &maps) {
        const std::string d = proc + "/" + pid;
        ::mkdir(d.c_str(), 0755);
        test::write_file(d + "/comm", std::string(comm) + "\n");
        test::write_file(d + "/maps", maps);
    };
    const std::string line = "7f1c2d000000-7f1c2d021000 r-xp 00000000 fd:01 " + std::to_string(st.st_ino) + " " + so + "\n";
    process("100", "slurmctld", line);
    process("200", "slurmd", line);  // not slurmctld: not looked at
    process("300", "slurmctld", "7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]\n");  // jfp not loaded
    auto now = running_plugins(proc);
    REQUIRE(now.size() == 1);
    CHECK(now[0].pid == 100);
    CHECK_FALSE(now[0].stale);

    // An upgrade: the package manager writes the new file and renames it over the old one.
    test::write_file(so + ".dpkg-new", "new plugin");
    REQUIRE(std::rename((so + ".dpkg-new").c_str(), so.c_str()) == 0);
    auto after = running_plugins(proc);
    REQUIRE(after.size() == 1);
    CHECK(after[0].stale);
    // As the kernel shows it once the old file is gone.
    process("100", "slurmctld", "7f1c2d000000-7f1c2d021000 r-xp 00000000 fd:01 " + std::to_string(st.st_ino) + " " + so + " (deleted)\n");
    auto deleted = running_plugins(proc);
    REQUIRE(deleted.size() == 1);
    CHECK(deleted[0].stale);
    CHECK(deleted[0].mapped.deleted);
}

}  // namespace test_running_plugin
