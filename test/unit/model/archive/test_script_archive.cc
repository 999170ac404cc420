#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <thread>

#include "catch.h"
#include "model/archive/archived_scripts.h"
#include "model/archive/blob_codec.h"
#include "model/archive/script_archive.h"
#include "model/archive/script_archive_writer.h"
#include "model/policy/config.h"
#include "model/runtime/engine.h"
#include "model/request/request_caps.h"
#include "model/scoring/feature_sweep.h"
#include "model/util/time_util.h"
#include "bundle_support.h"
#include "test_support.h"

namespace test_script_archive {

using namespace jfp;

namespace {

ArchivedSubmission meta(const std::string &token, int64_t submitted, const std::string &user = "amy",
                        const std::string &name = "sim") {
    ArchivedSubmission m;
    m.token = token;
    m.cluster = "c1";
    m.submitted = submitted;
    m.uid = 1000;
    m.user = user;
    m.name = name;
    m.work_dir = "/home/" + user;
    return m;
}

// Scripts of the shapes a cluster sees.
std::vector<std::string> shapes() {
    std::string binary;
    for (int i = 0; i < 256; ++i) binary.push_back(static_cast<char>(i));
    binary += std::string("\0\0\xff\xfe", 4);
    std::string big;
    while (big.size() < (1u << 20)) big += "srun ./step --input data/" + std::to_string(big.size()) + ".h5\n";
    return {"#!/bin/bash\n#SBATCH -n 4\nmodule load gcc\nsrun ./a.out\n",
            "#!/bin/sh\r\n#SBATCH -t 10\r\necho hi\r\n",
            "#!/usr/bin/env python3\nimport os\nprint(os.environ['SLURM_JOB_ID'])\n",
            "",
            binary,
            big};
}

}  // namespace

TEST_CASE("blob codec: SHA-256 and zstd round trip; damage is detected") {
    CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    for (const auto &s : shapes()) CHECK(zstd_decompress(zstd_compress(s), s.size()) == s);
    std::string z = zstd_compress("hello hello hello hello");
    CHECK_THROWS(zstd_decompress(z, 5));
    CHECK_THROWS(zstd_decompress("not zstd at all", 15));
}

TEST_CASE("script archive: every shape back byte for byte; the same script is stored once") {
    test::TempDir dir;
    std::string path = dir.file("scripts.db");
    auto all = shapes();
    {
        ScriptArchive a(path, ScriptArchive::Access::ReadWrite);
        a.begin();
        for (size_t i = 0; i < all.size(); ++i) {
            auto m = meta("t" + std::to_string(i), 1000 + static_cast<int64_t>(i));
            CHECK(a.put(m, all[i], nullptr) == ScriptArchive::PutOutcome::NewScript);
        }
        // 500 submissions of one script: one blob.
        for (int i = 0; i < 500; ++i) {
            auto m = meta("r" + std::to_string(i), 2000 + i, "bob", "loop");
            CHECK(a.put(m, all[0], nullptr) == ScriptArchive::PutOutcome::Stored);
        }
        std::string env = std::string("PATH=/usr/bin\0HOME=/home/amy\0", 29);
        std::string_view ev(env);
        auto m = meta("withenv", 3000);
        a.put(m, all[2], &ev);
        a.commit();
    }
    struct stat sb {};
    REQUIRE(stat(path.c_str(), &sb) == 0);
    CHECK((sb.st_mode & 0777) == 0600);  // scripts may hold secrets

    ScriptArchive a(path, ScriptArchive::Access::ReadOnly);
    for (size_t i = 0; i < all.size(); ++i) {
        auto s = a.by_token("t" + std::to_string(i));
        REQUIRE(s);
        CHECK(s->script_bytes == static_cast<int64_t>(all[i].size()));
        CHECK(a.blob(s->script_hash) == all[i]);
        CHECK(s->env_hash.empty());
    }
    auto e = a.by_token("withenv");
    REQUIRE(e);
    CHECK(a.blob(e->env_hash) == std::string("PATH=/usr/bin\0HOME=/home/amy\0", 29));
    CHECK_FALSE(a.by_token("nope"));

    ArchiveStats st = a.stats();
    CHECK(st.submissions == all.size() + 501);
    CHECK(st.scripts == all.size());
    CHECK(st.with_env == 1);
    CHECK(st.blobs == all.size() + 1);
    CHECK(st.stored_bytes < st.unique_bytes);  // the 1 MB script compresses
    CHECK(st.first == 1000);
    CHECK(st.last == 3000);

    ArchiveQuery q;
    q.user = "bob";
    q.limit = 3;
    auto found = a.find(q);
    REQUIRE(found.size() == 3);
    CHECK(found[0].token == "r499");  // newest first
    q = ArchiveQuery();
    q.name = "loop";
    q.since = 2400;
    CHECK(a.find(q).size() == 100);
}

TEST_CASE("script archive: prune drops old submissions and only the blobs nothing references") {
    test::TempDir dir;
    std::string path = dir.file("scripts.db");
    ScriptArchive a(path, ScriptArchive::Access::ReadWrite);
    a.begin();
    auto m1 = meta("old1", 100), m2 = meta("old2", 200), m3 = meta("new", 900);
    a.put(m1, "only old", nullptr);
    a.put(m2, "shared", nullptr);
    a.put(m3, "shared", nullptr);
    a.commit();
    PruneResult r = a.prune(500);
    CHECK(r.submissions == 2);
    CHECK(r.blobs == 1);  // "only old"; "shared" is still referenced
    CHECK_FALSE(a.by_token("old1"));
    CHECK(a.blob(a.by_token("new")->script_hash) == "shared");
    CHECK_THROWS_WITH(a.blob(m1.script_hash), HasText("pruned"));
}

TEST_CASE("script archive: damage, foreign files and newer schemas give clear errors") {
    test::TempDir dir;
    std::string path = dir.file("scripts.db");
    {
        ScriptArchive a(path, ScriptArchive::Access::ReadWrite);
        a.begin();
        auto m = meta("t", 1);
        a.put(m, "#!/bin/bash\necho one two three one two three one two three\n", nullptr);
        a.commit();
        Db db(path, SQLITE_OPEN_READWRITE);
        db.exec("UPDATE blobs SET data = x'00112233'");
        CHECK_THROWS_WITH(a.blob(m.script_hash), HasText("damaged"));
        db.exec("PRAGMA user_version=99");
    }
    CHECK_THROWS_WITH(ScriptArchive(path, ScriptArchive::Access::ReadOnly), HasText("newer jfp"));
    test::write_file(dir.file("empty.db"), "");
    CHECK_THROWS_WITH(ScriptArchive(dir.file("empty.db"), ScriptArchive::Access::ReadOnly),
                      HasText("not a jfp script archive"));
    CHECK_THROWS_WITH(ScriptArchive("/nonexistent/dir/s.db", ScriptArchive::Access::ReadWrite),
                      HasText("script_archive in jfp.conf"));
}

TEST_CASE("script archive writer: over its budget it drops and counts; an unwritable archive never blocks") {
    test::TempDir dir;
    {
        ScriptArchiveWriter w(dir.file("s.db"), 1024, 10000, nullptr);
        CHECK(w.reserve(6000));
        CHECK_FALSE(w.reserve(6000));  // 12,000 bytes would pass the 10,000 budget
        w.count_drop();
        ScriptArchiveEntry e;
        e.meta = meta("a", 1);
        e.assign(std::string(5000, 'x'));
        w.push(std::move(e), 6000);
        w.flush();
        CHECK(w.reserve(6000));  // the written entry gave its bytes back
        ScriptArchiveEntry e2;
        e2.meta = meta("b", 2);
        e2.assign(std::string(5000, 'x'));
        w.push(std::move(e2), 6000);
        w.flush();
        auto c = w.counters();
        CHECK(c.archived == 2);
        CHECK(c.new_scripts == 1);
        CHECK(c.dropped == 1);
        CHECK(c.failed == 0);
    }
    ScriptArchiveWriter bad("/nonexistent/dir/s.db", 16, 1 << 20, nullptr);
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 5; ++i) {
        REQUIRE(bad.reserve(10));
        ScriptArchiveEntry e;
        e.meta = meta("x" + std::to_string(i), i);
        bad.push(std::move(e), 10);
    }
    // Pushing never waits on the failing writer (a scheduler's hiccup on a loaded machine is well under this).
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1));
    bad.flush();
    CHECK(bad.counters().failed == 5);
    CHECK(bad.counters().archived == 0);
}

TEST_CASE("script archive: a submission whose token another job's row has stores nothing; the earlier row is kept") {
    test::TempDir dir;
    {
        ScriptArchive a(dir.file("s.db"), ScriptArchive::Access::ReadWrite);
        a.begin();
        auto m1 = meta("6b0cc90012345678", 100, "amy");
        CHECK(a.put(m1, "#!/bin/bash\necho amy\n", nullptr) == ScriptArchive::PutOutcome::NewScript);
        // Another controller's job, its token issued in the same second: bob's script must not become amy's.
        auto m2 = meta("6b0cc90012345678", 100, "bob");
        uint64_t added = 99;
        CHECK(a.put(m2, "#!/bin/bash\necho bob secret\n", nullptr, &added) == ScriptArchive::PutOutcome::TokenTaken);
        CHECK(added == 0);
        a.commit();
        auto s = a.by_token("6b0cc90012345678");
        REQUIRE(s);
        CHECK(s->user == "amy");
        CHECK(a.blob(s->script_hash) == "#!/bin/bash\necho amy\n");
        // Nothing of bob's was stored: no blob waits for a prune.
        CHECK_THROWS(a.blob(m2.script_hash));
    }
    ScriptArchiveWriter w(dir.file("s.db"), 1024, 1 << 20, nullptr);
    ScriptArchiveEntry e;
    e.meta = meta("6b0cc90012345678", 101, "carol");
    e.assign("#!/bin/bash\necho carol\n");
    REQUIRE(w.reserve(100));
    w.push(std::move(e), 100);
    ScriptArchiveEntry e2;
    e2.meta = meta("6b0cc90087654321", 101, "carol");
    e2.assign("#!/bin/bash\necho carol\n");
    REQUIRE(w.reserve(100));
    w.push(std::move(e2), 100);
    w.flush();
    auto c = w.counters();
    CHECK(c.archived == 1);  // the batch went on past the one whose token was taken
    CHECK(c.failed == 1);
    CHECK(c.new_scripts == 1);
}

TEST_CASE("config: script_archive keys") {
    auto r = parse_config("script_archive = /var/lib/jfp/scripts.db\nscript_archive_env = yes\nscript_archive_queue_mb = 8\n", "t");
    REQUIRE(r.ok());
    CHECK(r.config.script_archive_path == "/var/lib/jfp/scripts.db");
    CHECK(r.config.script_archive_env);
    CHECK(r.config.script_archive_queue_bytes == 8 << 20);
    CHECK(parse_config("", "t").config.script_archive_path.empty());
    CHECK_FALSE(parse_config("script_archive = relative.db\n", "t").ok());
    CHECK_FALSE(parse_config("script_archive_env = maybe\n", "t").ok());
    CHECK_FALSE(parse_config("script_archive_queue_mb = 0\n", "t").ok());
    CHECK(parse_config("", "t").config.user_write_bytes_per_day == int64_t(256) << 20);
    CHECK(parse_config("user_mb_per_day = 3\n", "t").config.user_write_bytes_per_day == 3 << 20);
    CHECK(parse_config("script_archive_user_mb_per_day = 5\n", "t").config.user_write_bytes_per_day == 5 << 20);  // its old name
    CHECK_FALSE(parse_config("user_mb_per_day = 0\n", "t").ok());
    CHECK_FALSE(parse_config("user_mb_per_day = 2097152\n", "t").ok());
}

TEST_CASE("engine: with script_archive set, each scored batch script is archived under its join token") {
    test::TempDir dir;
    chmod(dir.path().c_str(), 0755);
    std::string store = test::build_store(dir, 6000, 5);
    std::string model = test::train_small_bundle(dir, store);
    std::string archive = dir.file("scripts.db");
    std::string conf = dir.file("jfp.conf");
    test::write_file(conf, "mode = annotate\nmodel = " + model + "\nstore = " + store + "\nreload_interval = 0.05\n" +
                               "script_archive = " + archive + "\nscript_archive_env = yes\n");
    EngineOptions o;
    o.config_path = conf;
    o.trusted_uids = {0, getuid()};
    o.cluster_name = "unitc";
    Engine e(o);
    for (int i = 0; i < 1200 && e.model_id().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    REQUIRE_FALSE(e.model_id().empty());
    const char *env[] = {"PATH=/usr/bin", "SECRET=x", nullptr};
    SubmitRequest s;
    s.uid = 4242;
    s.name = "crlf";
    s.has_script = true;
    std::string script = "#!/bin/sh\r\necho \xff\xfe\r\n";
    s.script = script;
    s.work_dir = "/scratch/amy";
    s.env = env;
    s.env_count = 2;
    s.submit_time = *parse_sacct_time("2026-01-01T12:00:00");
    std::string token = e.evaluate(s).token.str();
    REQUIRE_FALSE(token.empty());
    SubmitRequest no_script = s;
    no_script.has_script = false;
    no_script.script = {};
    std::string token2 = e.evaluate(no_script).token.str();  // salloc/srun: nothing to archive
    // A 3 MiB script (within max_script_size: slurmctld may accept it, or refuse it for --test-only or a
    // bad partition after job_submit) and 200 KiB of environment: the archive keeps 64 KiB heads of each.
    SubmitRequest big = s;
    std::string big_script = "#!/bin/sh\n" + std::string(3 << 20, 'x');
    big.script = big_script;
    std::vector<std::string> big_env_text;
    for (int i = 0; i < 50; ++i) big_env_text.push_back("V" + std::to_string(i) + "=" + std::string(4000, 'v'));
    std::vector<const char *> big_env;
    for (auto &t : big_env_text) big_env.push_back(t.c_str());
    big.env = big_env.data();
    big.env_count = big_env.size();
    std::string token3 = e.evaluate(big).token.str();
    for (int i = 0; i < 1200 && e.script_archive_counters().archived < 2; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    CHECK(e.script_archive_counters().archived == 2);
    ScriptArchive a(archive, ScriptArchive::Access::ReadOnly);
    auto got = a.by_token(token);
    REQUIRE(got);
    CHECK(a.blob(got->script_hash) == script);
    CHECK(a.blob(got->env_hash) == std::string("PATH=/usr/bin\0SECRET=x\0", 23));
    CHECK(got->cluster == "unitc");
    CHECK(got->work_dir == "/scratch/amy");
    CHECK(got->name == "crlf");
    CHECK(got->submitted == s.submit_time);
    CHECK_FALSE(a.by_token(token2));
    auto head = a.by_token(token3);
    REQUIRE(head);
    CHECK(a.blob(head->script_hash) == big_script.substr(0, RequestCaps::kArchiveHead));
    CHECK(head->script_bytes == static_cast<int64_t>(big_script.size()));  // what was submitted, said
    const std::string env_kept = a.blob(head->env_hash);
    CHECK(env_kept.size() <= RequestCaps::kArchiveHead);
    CHECK(env_kept.size() > RequestCaps::kArchiveHead - 4100);  // whole entries, as many as fit
    CHECK(env_kept.back() == '\0');
}

TEST_CASE("training: script features come from the archive by join token, as the plugin's scanner computes them") {
    // Jobs fail when their script loads a broken module, whoever submits them: only the script can tell.
    test::TempDir dir;
    std::string db = dir.file("h.db"), archive_path = dir.file("scripts.db");
    const std::string good = "#!/bin/bash\n#SBATCH -n 4\nmodule load gcc/12\nsrun ./solver\n";
    const std::string bad = "#!/bin/bash\n#SBATCH -n 4\nmodule load gcc/12\nmodule load broken/0.1\nsrun ./solver\n#SBATCH --mem=64G\n";
    std::string text = "JobIDRaw|User|JobName|Submit|Start|End|State|ExitCode|ReqCPUS|AdminComment\n";
    std::mt19937_64 rng(3);
    {
        ScriptArchive archive(archive_path, ScriptArchive::Access::ReadWrite);
        archive.begin();
        int64_t t0 = *parse_sacct_time("2026-01-01T00:00:00");
        for (int i = 0; i < 1200; ++i) {
            bool fails = rng() % 4 == 0;
            char token[17];
            std::snprintf(token, sizeof token, "%016x", 0x100000 + i);
            int64_t submit = t0 + i * 600;
            text += std::to_string(5000 + i) + "|u" + std::to_string(rng() % 20) + "|job" + std::to_string(rng() % 5) + "|" +
                    format_sacct_time(submit) + "|" + format_sacct_time(submit + 10) + "|" + format_sacct_time(submit + 300) +
                    "|" + (fails ? "FAILED|1:0" : "COMPLETED|0:0") + "|4|jfp:t=" + token + "\n";
            auto m = meta(token, submit);
            archive.put(m, fails ? bad : good, nullptr);
        }
        archive.commit();
        HistoryStore store(db, HistoryStore::Access::ReadWrite);
        test::ingest_text(store, text);
    }
    HistoryStore store(db, HistoryStore::Access::ReadOnly);
    ArchivedScripts scripts(archive_path);
    uint64_t seen = 0;
    FeatureVector want_bad{};
    fill_script_features(scan_script(bad), want_bad);
    sweep_features(store, [&](const JobRecord &j, const FeatureVector &x) {
        ++seen;
        bool failed = j.outcome == Outcome::Failed;
        CHECK(x[F_script_module_loads] == (failed ? 2.0f : 1.0f));
        CHECK(x[F_script_ignored_sbatch] == (failed ? 1.0f : 0.0f));  // counted from the archive as the plugin counts it
        if (failed)
            for (int f = F_script_bytes; f <= F_script_set_e; ++f) CHECK(x[static_cast<size_t>(f)] == want_bad[static_cast<size_t>(f)]);
    }, nullptr, nullptr, &scripts);
    CHECK(seen == 1200);
    CHECK(scripts.found() == 1200);
    CHECK(scripts.distinct() == 2);  // each distinct script read and scanned once

    TrainOptions opt;
    opt.nthread = 1;
    opt.rounds = 30;
    opt.kind = "tree";  // whether trees split on script features
    TrainSummary with, without;
    opt.script_archive = archive_path;
    train_bundle(store, opt, with);
    CHECK(with.archived_scripts == 1200);
    CHECK(with.uses_script_features);
    CHECK(with.validation.pr_auc > 0.95);
    opt.script_archive.clear();
    train_bundle(store, opt, without);
    CHECK_FALSE(without.uses_script_features);  // sacct alone has no script: nothing to split on
    CHECK(without.validation.pr_auc < with.validation.pr_auc);
}

TEST_CASE("script archive writer: an archive rotated under it is closed and the next script starts a new one") {
    test::TempDir dir;
    std::string path = dir.file("s.db");
    ScriptArchiveWriter w(path, 1024, 1 << 20, nullptr);
    auto put = [&](const std::string &token) {
        REQUIRE(w.reserve(100));
        ScriptArchiveEntry e;
        e.meta = meta(token, 1);
        e.assign("#!/bin/sh\necho " + token + "\n");
        w.push(std::move(e), 100);
        w.flush();
    };
    put("first");
    REQUIRE(::rename(path.c_str(), (path + ".1").c_str()) == 0);
    int n = 0;
    struct stat st {};
    for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(15);
         ::stat(path.c_str(), &st) != 0 && std::chrono::steady_clock::now() < end; ++n) {
        put("later" + std::to_string(n));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    ScriptArchive old(path + ".1", ScriptArchive::Access::ReadOnly);
    CHECK(old.by_token("first"));
    ScriptArchive fresh(path, ScriptArchive::Access::ReadOnly);
    CHECK(fresh.by_token("later" + std::to_string(n - 1)));
    CHECK(w.counters().failed == 0);
}

}  // namespace test_script_archive
