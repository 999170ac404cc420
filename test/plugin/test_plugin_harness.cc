// Drives the built job_submit_jfp.so in-process, the way slurmctld does: dlopen it next to
// libslurmfull (which provides slurm_xstrdup, slurm_info, ...), call init(), then job_submit() with
// real job_desc_msg_t structures from slurm_init_job_desc_msg(). No daemons; milliseconds per case.
#include <dlfcn.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/wait.h>

#include <atomic>
#include <fstream>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "../unit/catch.h"
#include "harness_support.h"
#include "model/files/sqlite_util.h"
#include "model/policy/policy.h"
#include "fake_job_record.h"
#include "plugin/job_desc_adapter.h"

namespace {

// A job descriptor whose strings come from Slurm's allocator, as slurmctld's would.
struct Job {
    job_desc_msg_t d;
    char *err = nullptr;
    Job(const char *name, const char *comment, const char *script = "#!/bin/bash\nsrun ./a.out\n") {
        slurm_init_job_desc_msg(&d);
        d.user_id = getuid();
        d.name = slurm_xstrdup(name);
        if (comment) d.comment = slurm_xstrdup(comment);
        if (script) d.script = slurm_xstrdup(script);
    }
    ~Job() {
        slurm_xfree(reinterpret_cast<void **>(&d.name));
        slurm_xfree(reinterpret_cast<void **>(&d.comment));
        slurm_xfree(reinterpret_cast<void **>(&d.admin_comment));
        slurm_xfree(reinterpret_cast<void **>(&d.script));
        slurm_xfree(reinterpret_cast<void **>(&err));
    }
    std::string comment() const { return d.comment ? d.comment : ""; }
    std::string admin() const { return d.admin_comment ? d.admin_comment : ""; }
    std::string error() const { return err ? err : ""; }
};

// Submit until the annotation reflects a loaded model.
std::string annotated_comment(Plugin &p, const char *name, const char *comment) {
    for (Deadline d(30); !d.passed();) {
        Job j(name, comment);
        REQUIRE(p.submit(&j.d, getuid(), &j.err) == SLURM_SUCCESS);
        if (jfp::parse_annotation(j.comment())) return j.comment();
        usleep(20000);
    }
    return {};
}

}  // namespace

TEST_CASE("harness: no jfp.conf: every job passes untouched") {
    Site site;
    Plugin p;
    REQUIRE(p.init() == SLURM_SUCCESS);
    Job j("sim", "mine");
    CHECK(p.submit(&j.d, getuid(), &j.err) == SLURM_SUCCESS);
    CHECK(j.comment() == "mine");
    CHECK(j.admin().empty());
    CHECK(j.err == nullptr);
}

TEST_CASE("harness: annotate appends within Slurm's limit and writes the join token to admin_comment") {
    Site site;
    site.conf("mode = annotate\n");
    Plugin p;
    REQUIRE(p.init() == SLURM_SUCCESS);
    std::string c = annotated_comment(p, "sim", "keep | \"this\" 'text'");
    REQUIRE_FALSE(c.empty());
    CHECK(c.rfind("keep | \"this\" 'text' jfp:p=", 0) == 0);

    Job j("sim", "");
    j.d.admin_comment = slurm_xstrdup("set by an admin");
    REQUIRE(p.submit(&j.d, getuid(), &j.err) == SLURM_SUCCESS);
    CHECK(j.admin().rfind("set by an admin jfp:t=", 0) == 0);
    // The token (16 hex digits), then what an update needs: the script's findings (none ignored; no index).
    CHECK(j.admin().substr(std::string("set by an admin jfp:t=").size() + 16) == " jfp:s=1............0.");

    std::string near_full(1000, 'c');
    Job full("sim", near_full.c_str());
    REQUIRE(p.submit(&full.d, getuid(), &full.err) == SLURM_SUCCESS);
    CHECK(full.comment().size() <= 1024);
    CHECK(full.comment().substr(0, 1000) == near_full);

    std::string big_script = "#!/bin/bash\n" + std::string((4 << 20) - 12, '#');  // Slurm's default limit, 4 MiB
    Job big("sim", "", big_script.c_str());
    CHECK(p.submit(&big.d, getuid(), &big.err) == SLURM_SUCCESS);
    CHECK(jfp::parse_annotation(big.comment()));
    // One byte past it: slurmctld refuses the job itself, unless its limit is not what slurm.conf says now
    // (it reads max_script_size once). jfp does not guess: the job is judged like any other.
    big_script += '\n';
    Job too_big("sim", "", big_script.c_str());
    CHECK(p.submit(&too_big.d, getuid(), &too_big.err) == SLURM_SUCCESS);
    CHECK(jfp::parse_annotation(too_big.comment()));
    CHECK(too_big.admin().rfind("jfp:t=", 0) == 0);
    std::string binary("\x7f" "ELF\0\0\x01\x02", 9);
    Job bin("sim", "", nullptr);
    bin.d.script = slurm_xstrdup(binary.c_str());
    CHECK(p.submit(&bin.d, getuid(), &bin.err) == SLURM_SUCCESS);
    Job salloc("interactive", "", nullptr);  // salloc/srun: no script
    CHECK(p.submit(&salloc.d, getuid(), &salloc.err) == SLURM_SUCCESS);
    CHECK(jfp::parse_annotation(salloc.comment()));
}

TEST_CASE("harness: warn keeps what an earlier plugin said in err_msg; reject refuses") {
    Site site;
    site.conf("mode = warn\nthreshold = 0.0\n");
    Plugin p;
    REQUIRE(p.init() == SLURM_SUCCESS);
    bool warned = false;
    for (Deadline d(30); !warned && !d.passed();) {
        Job j("sim", "");
        j.err = slurm_xstrdup("earlier plugin: hello");
        REQUIRE(p.submit(&j.d, getuid(), &j.err) == SLURM_SUCCESS);
        std::string e = j.error();
        if (e.find("jfp: warning") != std::string::npos) {
            warned = true;
            CHECK(e.rfind("earlier plugin: hello\njfp: warning: this job ", 0) == 0);
        }
        usleep(20000);
    }
    CHECK(warned);

    site.conf("mode = reject\nthreshold = 0.0\nmin_history = 0\nreject_privileged = yes\nreject_below_target = yes\n");  // the harness runs as root
    bool rejected = false;
    for (Deadline d(30); !rejected && !d.passed();) {
        Job j("sim", "");
        int rc = p.submit(&j.d, getuid(), &j.err);
        if (rc != SLURM_SUCCESS) {
            rejected = true;
            CHECK(rc == ESLURM_ACCESS_DENIED);
            CHECK(j.error().rfind("jfp: job rejected", 0) == 0);
        }
        usleep(20000);
    }
    CHECK(rejected);
}

TEST_CASE("harness: a corrupt model or config never blocks a job") {
    Site site;
    jfp::test::write_file(site.model, "garbage");
    site.conf("mode = reject\nthreshold = 0.0\nmin_history = 0\nreject_privileged = yes\nreject_below_target = yes\n");  // the harness runs as root
    Plugin p;
    REQUIRE(p.init() == SLURM_SUCCESS);
    for (int i = 0; i < 20; ++i) {
        Job j("sim", "x");
        CHECK(p.submit(&j.d, getuid(), &j.err) == SLURM_SUCCESS);
        CHECK(j.comment() == "x");
        usleep(10000);
    }
    jfp::test::write_file(site.dir.file("jfp.conf"), "mode = reject\nbogus line\n");
    usleep(200000);
    Job j("sim", "x");
    CHECK(p.submit(&j.d, getuid(), &j.err) == SLURM_SUCCESS);
}

TEST_CASE("harness: concurrent job_submit calls (23.02+ runs them in parallel): none lost, all annotated") {
    Site site;
    site.conf("mode = annotate\n");
    Plugin p;
    REQUIRE(p.init() == SLURM_SUCCESS);
    REQUIRE_FALSE(annotated_comment(p, "warmup", "").empty());
    std::atomic<int> annotated{0}, failed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 200; ++i) {
                Job j("sim", "c");
                if (p.submit(&j.d, getuid(), &j.err) != SLURM_SUCCESS) ++failed;
                if (jfp::parse_annotation(j.comment()) && j.admin().rfind("jfp:t=", 0) == 0) ++annotated;
            }
        });
    for (auto &t : threads) t.join();
    CHECK(failed.load() == 0);
    CHECK(annotated.load() == 1600);
}

TEST_CASE("harness: job_modify neutralises a forged annotation in an updated comment") {
    Site site;
    site.conf("mode = annotate\n");
    Plugin p;
    REQUIRE(p.init() == SLURM_SUCCESS);
    REQUIRE_FALSE(annotated_comment(p, "warmup", "").empty());
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id_str = slurm_xstrdup("12345");
    d.comment = slurm_xstrdup("jfp:p=0.000,class=FAILED,model=forged");
    char *err = nullptr;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
    CHECK(p.modify(&d, nullptr, getuid(), &err) == SLURM_SUCCESS);
#else
    CHECK(p.modify(&d, nullptr, getuid()) == SLURM_SUCCESS);
#endif
    CHECK(std::string(d.comment).rfind("jfp;p=0.000", 0) == 0);
    slurm_xfree(reinterpret_cast<void **>(&d.comment));
    slurm_xfree(reinterpret_cast<void **>(&d.job_id_str));
    slurm_xfree(reinterpret_cast<void **>(&err));
}

#if JFP_JOB_RECORD_LAYOUT
TEST_CASE("harness: job_modify judges the job as slurmctld's record says it will be after the update") {
    Site site;
    site.conf("mode = reject\nthreshold = 1.0\nthreshold.partition.long = 0.0\nmin_history = 0\nreject_privileged = yes\nreject_below_target = yes\n");
    Plugin p;
    REQUIRE(p.init() == SLURM_SUCCESS);
    std::string admin;
    for (Deadline dl(30); admin.empty() && !dl.passed(); usleep(20000)) {
        Job j("steady_job", nullptr);
        REQUIRE(p.submit(&j.d, getuid(), &j.err) == SLURM_SUCCESS);  // threshold 1.0 in debug: accepted
        admin = j.admin();  // the token, once the model has loaded and the job is scored
    }
    REQUIRE(admin.rfind("jfp:t=", 0) == 0);
    const auto &L = jfp_plugin::kJobRecordLayout;
    char name[] = "steady_job", debug[] = "debug";
    // update(): the owner 4242's job 777 is moved to a partition (threshold 0 in long: any score refused)
    auto update = [&](const char *partition, uint32_t updater, uint32_t magic = jfp_plugin::kJobMagic) {
        FakeRecord rec(777, 4242);
        rec.put(rec.job, L.magic, magic);
        rec.put(rec.job, L.admin_comment, admin.c_str());
        rec.put(rec.job, L.name, name);
        rec.put(rec.job, L.partition, debug);
        rec.put(rec.job, L.batch_flag, uint16_t{1});
        job_desc_msg_t d;
        slurm_init_job_desc_msg(&d);
        d.job_id_str = slurm_xstrdup("777");
        if (partition) d.partition = slurm_xstrdup(partition);
        d.time_limit = 30;
        char *err = nullptr;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
        int rc = p.modify(&d, const_cast<job_record *>(rec.record()), updater, &err);
#else
        int rc = p.modify(&d, const_cast<job_record *>(rec.record()), updater);
#endif
        slurm_xfree(reinterpret_cast<void **>(&d.partition));
        slurm_xfree(reinterpret_cast<void **>(&d.job_id_str));
        slurm_xfree(reinterpret_cast<void **>(&err));
        return rc;
    };
    // Until the history has loaded (in the background) reject acts as warn: wait for it, by deadline.
    int rc = SLURM_SUCCESS;
    for (Deadline dl(30); rc == SLURM_SUCCESS && !dl.passed(); usleep(20000)) rc = update("long", 4242);
    CHECK(rc != SLURM_SUCCESS);                    // the owner moves it to long: refused
    CHECK(update(nullptr, 4242) == SLURM_SUCCESS);  // a new time limit, still in debug: accepted
    CHECK(update("debug,long", 4242) != SLURM_SUCCESS);  // a list is judged by its strictest entry
    // Another ordinary user's update of the job is slurmctld's to refuse: not judged here.
    CHECK(update("long", 4343) == SLURM_SUCCESS);
    // A record jfp cannot read: the update is judged as a fresh submission of what it says (long).
    CHECK(update("long", 4242, 0x12345678) != SLURM_SUCCESS);
    CHECK(update(nullptr, 4242, 0x12345678) == SLURM_SUCCESS);
}

// One update RPC: slurmctld hands every record the same descriptor and copies its comment into each. The
// comment jfp wrote for one record must not reach the next (plugin/update_comment.h).
TEST_CASE("harness: one update RPC over several records gives each its own comment, never the one before's") {
    Site site;
    site.conf("mode = annotate\nmin_history = 0\n");
    Plugin p;
    REQUIRE(p.init() == SLURM_SUCCESS);
    std::string admin;
    for (Deadline dl(30); admin.empty() && !dl.passed(); usleep(20000)) {
        Job j("steady_job", nullptr);
        REQUIRE(p.submit(&j.d, getuid(), &j.err) == SLURM_SUCCESS);
        admin = j.admin();
    }
    REQUIRE(admin.rfind("jfp:t=", 0) == 0);
    const auto &L = jfp_plugin::kJobRecordLayout;
    char name[] = "steady_job", debug[] = "debug", mine[] = "mine";
    job_desc_msg_t d;  // the RPC's descriptor: a new time limit, no comment
    slurm_init_job_desc_msg(&d);
    d.job_id_str = slurm_xstrdup("777");
    d.time_limit = 20;
    std::vector<std::string> comments;
    for (uint32_t owner : {4242u, 4242u, 4242u, 4343u}) {  // the last record is another user's: not judged
        FakeRecord rec(777, owner);
        rec.put(rec.job, L.admin_comment, admin.c_str());
        rec.put(rec.job, L.name, name);
        rec.put(rec.job, L.partition, debug);
        rec.put(rec.job, L.comment, mine);
        rec.put(rec.job, L.batch_flag, uint16_t{1});
        char *err = nullptr;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
        CHECK(p.modify(&d, const_cast<job_record *>(rec.record()), 4242, &err) == SLURM_SUCCESS);
#else
        CHECK(p.modify(&d, const_cast<job_record *>(rec.record()), 4242) == SLURM_SUCCESS);
#endif
        comments.push_back(d.comment ? d.comment : "(none)");  // what slurmctld copies into this record
        slurm_xfree(reinterpret_cast<void **>(&err));
    }
    INFO(comments[0] << " | " << comments[1] << " | " << comments[2] << " | " << comments[3]);
    CHECK(comments[0].rfind("mine jfp:p=", 0) == 0);
    CHECK(comments[1] == comments[0]);  // the same job judged the same: its own annotation, once
    CHECK(comments[2] == comments[0]);
    CHECK(comments[3] == "(none)");     // the user sent no comment: none for the record jfp did not judge
    slurm_xfree(reinterpret_cast<void **>(&d.comment));
    slurm_xfree(reinterpret_cast<void **>(&d.job_id_str));
}
#endif

// slurmctld leaves by exit() without fini when it stops or gives control to a backup: the plugin's exit
// handler writes what is still queued. Libraries the writers use register exit handlers of their own at
// first use, after the plugin's, and so run before it (seen on 24.11: OpenSSL's cleanup ran first and the
// last script before a takeover was never archived). A child process plays slurmctld: it scores, archives,
// queues a burst and exits at once; it must exit cleanly with every row and script written.
TEST_CASE("harness: slurmctld's exit writes every queued row and script, whatever exit handlers libraries added") {
    Site site;
    const std::string archive = site.dir.file("scripts.db"), tokens = site.dir.file("tokens");
    site.conf("mode = annotate\nscript_archive = " + archive + "\n");
    for (int round = 0; round < 3; ++round) {
        pid_t child = fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            // No Catch here: the child reports by exit status and by the tokens it writes.
            Plugin p;
            if (p.init() != SLURM_SUCCESS) _exit(3);
            std::string out;
            bool scored = false;
            for (Deadline d(30); !scored && !d.passed(); usleep(20000)) {
                Job j("warmup", "", ("#!/bin/bash\necho warmup " + std::to_string(round) + "\n").c_str());
                p.submit(&j.d, getuid(), &j.err);
                scored = j.admin().rfind("jfp:t=", 0) == 0;
                if (scored) out += j.admin().substr(6, 16) + "\n";
            }
            if (!scored) _exit(4);
            usleep(300000);  // the warm-up job archived: the archive's libraries are initialised by now
            for (int i = 0; i < 40; ++i) {
                std::string script = "#!/bin/bash\necho burst " + std::to_string(round) + " " + std::to_string(i) + "\n";
                Job j("burst", "", script.c_str());
                p.submit(&j.d, getuid(), &j.err);
                if (j.admin().rfind("jfp:t=", 0) != 0) _exit(5);
                out += j.admin().substr(6, 16) + "\n";
            }
            jfp::test::write_file(tokens, out);
            std::exit(0);  // as slurmctld: no fini, the writers' queues not empty
        }
        int status = 0;
        REQUIRE(waitpid(child, &status, 0) == child);
        INFO("round " << round << ": child status " << status);
        REQUIRE(WIFEXITED(status));
        REQUIRE(WEXITSTATUS(status) == 0);
        std::vector<std::string> want;
        std::ifstream in(tokens);
        for (std::string t; std::getline(in, t);) want.push_back(t);
        REQUIRE(want.size() == 41);
        jfp::Db db(archive, SQLITE_OPEN_READONLY);
        jfp::Db log(site.dir.file("features.db"), SQLITE_OPEN_READONLY);
        int unarchived = 0, unlogged = 0;
        for (const auto &t : want) {
            jfp::Stmt a(db, "SELECT 1 FROM submissions WHERE token = ?1");
            a.bind(1, std::string_view(t));
            if (!a.step()) ++unarchived;
            jfp::Stmt f(log, "SELECT 1 FROM scored WHERE token = ?1");
            f.bind(1, std::string_view(t));
            if (!f.step()) ++unlogged;
        }
        CHECK(unarchived == 0);
        CHECK(unlogged == 0);
    }
}
