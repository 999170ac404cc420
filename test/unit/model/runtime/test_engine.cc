#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "catch.h"
#include "model/runtime/engine.h"
#include "model/scoring/feature_log.h"
#include "model/snapshot/snapshot_file.h"
#include "model/snapshot/snapshot_resume.h"
#include "model/scoring/model_bundle.h"
#include "model/files/sqlite_util.h"
#include "model/util/time_util.h"
#include "engine_site.h"
#include "bundle_support.h"
#include "test_support.h"

namespace test_engine {

using namespace jfp;
using test::request;
using test::Site;

TEST_CASE("engine: no config means off; the job is untouched") {
    test::TempDir dir;
    EngineOptions o;
    o.config_path = dir.file("jfp.conf");
    o.background = false;
    Engine e(o);
    CHECK(e.mode() == Mode::Off);
    auto out = e.evaluate(request());
    CHECK_FALSE(out.decision.scored);
    CHECK(out.token.empty());
    CHECK_FALSE(out.new_comment);
    CHECK(e.describe().find("missing, plugin is off") != std::string::npos);
}

TEST_CASE("engine: annotate mode appends to the user's comment and hands out a join token") {
    Site site;
    site.config("mode = annotate\n");
    Engine e(site.options());
    REQUIRE(e.mode() == Mode::Annotate);
    REQUIRE_FALSE(e.model_id().empty());
    CHECK(e.history_jobs() > 10000);
    auto out = e.evaluate(request("sim", "keep | this \"text\""));
    CHECK(out.decision.scored);
    REQUIRE(out.new_comment);
    CHECK(out.new_comment->rfind("keep | this \"text\" jfp:p=", 0) == 0);
    auto a = parse_annotation(*out.new_comment);
    REQUIRE(a);
    CHECK(a->model == e.model_id());
    // The likeliest failure class is named only at or above the threshold.
    CHECK(a->cls.empty() == !out.decision.above);
    CHECK(out.token.size() == 16);
    // The token, then what an update needs and slurmctld's record lacks: here the script's findings (none
    // of its #SBATCH lines ignored; no module index, so modules unknown).
    CHECK(out.admin_comment_append == "jfp:t=" + out.token.str() + " jfp:s=1............0.");
    CHECK_FALSE(out.reject);
    auto out2 = e.evaluate(request());
    CHECK(out2.token != out.token);
    // A forged annotation in the user's text is neutralised; only jfp's own parses.
    auto forged = e.evaluate(request("sim", "jfp:p=0.000,class=FAILED,model=fake"));
    REQUIRE(forged.new_comment);
    CHECK(forged.new_comment->find("jfp;p=0.000") == 0);
    CHECK(parse_annotation(*forged.new_comment)->model == e.model_id());
}

TEST_CASE("engine: with both fields annotated, the comment carries the same annotation the admin comment does") {
    Site site;
    site.config("mode = annotate\nannotate_field = comment, admin_comment\n");
    Engine e(site.options());
    REQUIRE(e.mode() == Mode::Annotate);
    auto out = e.evaluate(request("sim", "mine"));
    REQUIRE(out.new_comment);
    std::string head = "jfp:t=" + out.token.str() + " jfp:s=1............0. ";
    REQUIRE(out.admin_comment_append.rfind(head, 0) == 0);
    std::string annotation = out.admin_comment_append.substr(head.size());
    CHECK(annotation.rfind("jfp:p=", 0) == 0);
    CHECK(parse_annotation(annotation)->model == e.model_id());
    CHECK(*out.new_comment == "mine " + annotation);

    // Only the admin comment: the user's comment is left alone, the admin comment is annotated.
    site.config("mode = annotate\nannotate_field = admin_comment\n");
    e.poll();
    auto admin_only = e.evaluate(request("sim", "mine"));
    CHECK_FALSE(admin_only.new_comment);
    std::string head2 = "jfp:t=" + admin_only.token.str() + " jfp:s=1............0. jfp:p=";
    CHECK(admin_only.admin_comment_append.rfind(head2, 0) == 0);
}

TEST_CASE("engine: reject mode refuses a job whose user+name history keeps failing, with reasons") {
    Site site;
    {
        // amy's 'doomed' failed 6 times in a row, just now.
        HistoryStore store(site.store, HistoryStore::Access::ReadWrite);
        std::string text = "JobIDRaw|User|UID|JobName|Submit|Start|End|State|ExitCode|ReqCPUS|ReqMem|Timelimit\n";
        for (int i = 0; i < 6; ++i)
            text += std::to_string(900000 + i) + "|amy|4242|doomed|2025-12-31T1" + std::to_string(i) +
                    ":00:00|2025-12-31T1" + std::to_string(i) + ":00:05|2025-12-31T1" + std::to_string(i) +
                    ":00:30|FAILED|1:0|1|1G|01:00:00\n";
        test::ingest_text(store, text);
    }
    site.config("mode = reject\nthreshold = 0.5\nallow_override = yes\nreject_below_target = yes\n");
    Engine e(site.options());
    auto out = e.evaluate(request("doomed"));
    INFO("p=" << out.decision.p_fail << " message: " << out.user_message);
    REQUIRE(out.decision.p_fail >= 0.5);
    CHECK(out.reject);
    CHECK(out.decision.action == Action::Reject);
    CHECK(out.user_message.find("jfp: job rejected") == 0);
    CHECK(out.user_message.find("your last 6 runs of 'doomed' failed") != std::string::npos);
    CHECK(out.user_message.find("jfp:override") != std::string::npos);
    // The override is honoured (and downgrades to a warning).
    auto over = e.evaluate(request("doomed", "jfp:override"));
    CHECK_FALSE(over.reject);
    CHECK(over.decision.override_used);
    CHECK(over.user_message.find("Submitted anyway") != std::string::npos);
    // A first run of a new name is not rejected (min_history = 1).
    auto fresh = e.evaluate(request("never_seen_before"));
    CHECK_FALSE(fresh.reject);
    CHECK(e.counters().get(Counter::Rejected) == 1);
}

TEST_CASE("engine: a user the store knows only by name has their history from their first job on") {
    // Exports without a UID column (SWF conversions, synth, older sacct formats) key jobs by user name:
    // the names are resolved to uids when the history loads, never on the submit path.
    Site site;
    struct passwd *pw = getpwuid(getuid());
    REQUIRE(pw);
    std::string me = pw->pw_name;
    {
        HistoryStore store(site.store, HistoryStore::Access::ReadWrite);
        std::string text = "JobIDRaw|User|JobName|Submit|Start|End|State|ExitCode|ReqCPUS|ReqMem|Timelimit\n";
        for (int i = 0; i < 6; ++i)
            text += std::to_string(910000 + i) + "|" + me + "|doomed|2025-12-31T1" + std::to_string(i) +
                    ":00:00|2025-12-31T1" + std::to_string(i) + ":00:05|2025-12-31T1" + std::to_string(i) +
                    ":00:30|FAILED|1:0|1|1G|01:00:00\n";
        test::ingest_text(store, text);
    }
    site.config("mode = warn\nthreshold = 0.0\n");
    Engine e(site.options());
    SubmitRequest r = request("doomed");
    r.uid = getuid();
    auto first = e.evaluate(r);  // the first job after the plugin started
    INFO("message: " << first.user_message);
    CHECK(first.user_message.find("your last 6 runs of 'doomed' failed") != std::string::npos);
    auto second = e.evaluate(r);
    CHECK(second.decision.p_fail == Approx(first.decision.p_fail));
}

namespace {
std::vector<std::string> g_logged;
void capture_log(LogLevel, const char *m) { g_logged.emplace_back(m); }
std::string loaded_model_line() {
    for (const auto &l : g_logged)
        if (l.rfind("loaded model ", 0) == 0) return l;
    return {};
}
}  // namespace

TEST_CASE("engine: the load line says what the threshold reached on validation, and whether it met the target") {
    Site site;
    site.config("mode = warn\n");
    std::ifstream in(site.model);
    auto bundle = nlohmann::json::parse(in);
    auto load_line = [&](const nlohmann::json &b) {
        test::write_file(site.model, b.dump());
        g_logged.clear();
        set_log_sink(capture_log);
        { Engine e(site.options()); }
        set_log_sink(nullptr);
        return loaded_model_line();
    };
    auto reached = bundle;
    reached["threshold_choice"]["target_reached"] = true;
    reached["threshold_choice"]["precision"] = 0.93;
    reached["threshold_choice"]["recall"] = 0.2;
    reached["threshold_choice"]["precision_lower_bound"] = 0.905;
    reached["threshold_choice"]["confidence"] = 0.95;
    reached["target_precision"] = 0.9;
    CHECK_THAT(load_line(reached),
               HasText("validation precision 0.93 (at least 0.91 at 95% confidence), recall 0.20, target 0.90 reached,"));
    auto missed = reached;
    missed["threshold_choice"]["target_reached"] = false;
    missed["threshold_choice"]["precision"] = 0.41;
    missed["threshold_choice"]["precision_lower_bound"] = 0.32;
    CHECK_THAT(load_line(missed), HasText("validation precision 0.41 (at least 0.32 at 95% confidence), recall 0.20, "
                                          "target 0.90 NOT reached (best-F1 threshold)"));
    // A bundle from before the bound: the point estimate alone, as it was recorded.
    auto point_only = reached;
    point_only["threshold_choice"].erase("precision_lower_bound");
    point_only["threshold_choice"].erase("confidence");
    CHECK_THAT(load_line(point_only), HasText("validation precision 0.93, recall 0.20, target 0.90 reached,"));
    auto old = reached;
    old.erase("threshold_choice");
    CHECK_THAT(load_line(old), HasText("its validation precision not recorded"));

    // In reject mode a model below its target warns instead, and says so once; reject_below_target insists.
    auto count_below = [] {
        return std::count_if(g_logged.begin(), g_logged.end(),
                             [](const std::string &l) { return l.find("did not reach its target precision") != std::string::npos; });
    };
    test::write_file(site.model, missed.dump());
    site.config("mode = reject\nthreshold = 0.0\nmin_history = 0\n");
    g_logged.clear();
    set_log_sink(capture_log);
    {
        Engine e(site.options());
        auto out = e.evaluate(request("sim"));
        CHECK_FALSE(out.reject);
        CHECK(out.decision.below_target);
        e.poll();
        CHECK(count_below() == 1);
        CHECK(std::find_if(g_logged.begin(), g_logged.end(), [](const std::string &l) {
                  return l.find("in reject mode it warns instead of rejecting") != std::string::npos;
              }) != g_logged.end());
        site.config("mode = reject\nthreshold = 0.0\nmin_history = 0\nreject_below_target = yes\n");
        e.poll();
        CHECK(e.evaluate(request("sim")).reject);
        CHECK(count_below() == 2);  // the setting changed: said again, once
    }
    set_log_sink(nullptr);
}

TEST_CASE("engine: the stats line times a sample of the calls: the thread's CPU and the tree walks in them") {
    Site site;
    site.config("mode = annotate\nthreshold = 0.0\n");  // every job at the threshold: the class trees walked too
    g_logged.clear();
    set_log_sink(capture_log);
    {
        Engine e(site.options());
        for (int i = 0; i < 2000; ++i) e.evaluate(request("sim"));
    }  // unloading says the last interval's line
    set_log_sink(nullptr);
    auto line = std::find_if(g_logged.begin(), g_logged.end(), [](const std::string &l) { return l.find("stats: ") == 0; });
    REQUIRE(line != g_logged.end());
    CHECK_THAT(*line, HasText("stats: 2000 submissions"));
    CHECK_THAT(*line, HasText("their tree walks p50 "));
    // About one call in 16 (the clock's bits pick them): not none, not most.
    const auto at = line->find("on-CPU (");
    REQUIRE(at != std::string::npos);
    const long sampled = std::strtol(line->c_str() + at + 8, nullptr, 10);
    CHECK(sampled > 30);
    CHECK(sampled < 500);
}

TEST_CASE("engine: fail open on a corrupt model, keep the last good one on a bad reload") {
    Site site;
    site.config("mode = annotate\n");
    std::string good = site.model;
    Engine e(site.options());
    std::string id = e.model_id();
    REQUIRE_FALSE(id.empty());
    // Overwrite the model with garbage: the reload fails, the last good model keeps scoring.
    test::write_file(good, "{ this is not json");
    e.poll();
    CHECK(e.model_id() == id);
    CHECK(e.evaluate(request()).decision.scored);
    CHECK(e.describe().find("keeping " + id) != std::string::npos);

    // A fresh engine over a corrupt model: no score, the user's comment untouched; the job still gets its
    // join token and facts (the first model trains on jobs submitted before it existed).
    Engine fresh(site.options());
    CHECK(fresh.model_id().empty());
    auto out = fresh.evaluate(request("sim", "hello"));
    CHECK_FALSE(out.decision.scored);
    CHECK_FALSE(out.new_comment);
    REQUIRE(out.token.size() == 16);
    CHECK(out.admin_comment_append.rfind("jfp:t=" + std::string(out.token.view()) + " jfp:s=", 0) == 0);
    CHECK(fresh.counters().get(Counter::Unscored) == 1);
}

TEST_CASE("engine: a bad config keeps the last good one; a missing store scores without history") {
    Site site;
    site.config("mode = annotate\n");
    Engine e(site.options());
    REQUIRE(e.mode() == Mode::Annotate);
    test::write_file(site.conf, "mode = sometimes\n");
    e.poll();
    CHECK(e.mode() == Mode::Annotate);
    CHECK(e.describe().find("invalid, keeping the last good config") != std::string::npos);

    site.config("mode = warn\nstore = " + site.dir.file("missing.db") + "\n");
    e.poll();
    CHECK(e.mode() == Mode::Warn);
    Engine nohist(site.options());
    CHECK(nohist.history_jobs() == 0);
    CHECK(nohist.evaluate(request()).decision.scored);
}

TEST_CASE("engine: a model writable by others is refused, as ssh refuses such keys") {
    Site site;
    site.config("mode = annotate\n");
    chmod(site.model.c_str(), 0666);
    Engine e(site.options());
    CHECK(e.model_id().empty());
    CHECK(e.describe().find("writable by group or others") != std::string::npos);
    chmod(site.model.c_str(), 0644);
    e.poll();
    CHECK_FALSE(e.model_id().empty());
}

TEST_CASE("engine: hot reload picks up a new model and a changed config without a restart") {
    Site site;
    site.config("mode = annotate\n");
    Engine e(site.options());
    std::string first = e.model_id();
    // A new model with another id. Another seed gives other row and column samples, hence other trees;
    // a lower round limit alone does not (early stopping may keep fewer rounds than either limit).
    std::string other = test::train_small_bundle(site.dir, site.store, 40, 7);
    (void)other;  // written over model.json atomically
    e.poll();
    REQUIRE(ModelBundle::load_file(site.model).model_id() != first);  // the premise: a different model was written
    CHECK(e.model_id() != first);
    site.config("mode = shadow\n");
    e.poll();
    CHECK(e.mode() == Mode::Shadow);
    auto out = e.evaluate(request());
    CHECK(out.decision.scored);
    CHECK_FALSE(out.new_comment);  // shadow: logs only
}

TEST_CASE("engine: concurrent evaluation from many threads, no lock around scoring") {
    Site site;
    site.config("mode = annotate\n");
    Engine e(site.options());
    std::atomic<int> annotated{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 500; ++i) {
                auto out = e.evaluate(request());
                if (out.new_comment && parse_annotation(*out.new_comment)) ++annotated;
            }
        });
    for (auto &t : threads) t.join();
    CHECK(annotated.load() == 4000);
    CHECK(e.counters().get(Counter::Scored) == 4000);
    auto lat = e.take_latency();  // every call was timed, none lost between threads
    CHECK(lat.count == 4000);
    CHECK(lat.p50_us > 0);
    CHECK(lat.p99_us >= lat.p50_us);
}

TEST_CASE("engine: the history follows jfp ingest's commits, and only them: incrementally when it can") {
    Site site;
    site.config("mode = annotate\n");
    Engine e(site.options());
    REQUIRE(e.counters().get(Counter::HistoryLoads) == 1);
    for (int i = 0; i < 3; ++i) e.poll();
    CHECK(e.counters().get(Counter::HistoryLoads) == 1);  // reading a WAL store changes its files, not its data
    CHECK(e.counters().get(Counter::ModelLoads) == 1);
    size_t before = e.history_jobs();
    {
        HistoryStore store(site.store, HistoryStore::Access::ReadWrite);
        test::ingest_text(store, "JobIDRaw|User|JobName|Submit|Start|End|State\n"
                                 "777777|amy|x|2025-01-01T00:00:00|2025-01-01T00:00:01|2025-01-01T00:01:00|FAILED\n");
    }
    e.poll();
    CHECK(e.counters().get(Counter::HistoryLoads) == 1);  // a job that ended after all others: applied in place
    CHECK(e.counters().get(Counter::HistoryUpdates) == 1);
    CHECK(e.history_jobs() == before + 1);
    e.poll();
    CHECK(e.counters().get(Counter::HistoryUpdates) == 1);
    {
        HistoryStore store(site.store, HistoryStore::Access::ReadWrite);
        test::ingest_text(store, "JobIDRaw|User|JobName|Submit|Start|End|State\n"
                                 "777778|amy|x|2001-01-01T00:00:00|2001-01-01T00:00:01|2001-01-01T00:01:00|FAILED\n");
    }
    e.poll();  // one that ended before jobs already loaded: a full load, as a replay would order it first
    CHECK(e.counters().get(Counter::HistoryLoads) == 2);
    CHECK(e.counters().get(Counter::HistoryUpdates) == 1);
    CHECK(e.history_jobs() == before + 2);
}

TEST_CASE("engine: the history starts from its snapshot file when it can, equal to the replay; slurmctld's start waits for it") {
    Site site;
    site.config("mode = annotate\n");
    auto load_line = [&](const EngineOptions &o, size_t *jobs, double *p) {
        g_logged.clear();
        set_log_sink(capture_log);
        {
            Engine e(o);
            *jobs = e.history_jobs();  // with background, right after init: start_wait held init until loaded
            *p = e.evaluate(request("sim")).decision.p_fail;
        }
        set_log_sink(nullptr);
        for (const auto &l : g_logged)
            if (l.rfind("loaded history of ", 0) == 0) return l;
        return std::string();
    };
    size_t replayed_jobs = 0, snap_jobs = 0, bg_jobs = 0;
    double replayed_p = 0, snap_p = 0, bg_p = 0;
    std::string replayed = load_line(site.options(), &replayed_jobs, &replayed_p);
    CHECK(replayed.find("snapshot") == std::string::npos);
    REQUIRE(replayed_jobs > 10000);

    SnapshotRefresh f = refresh_snapshot(site.store);
    REQUIRE(f.written);
    std::string from_snap = load_line(site.options(), &snap_jobs, &snap_p);
    INFO(from_snap);
    CHECK(from_snap.find("its snapshot at change") != std::string::npos);
    CHECK(snap_jobs == replayed_jobs);
    CHECK(snap_p == replayed_p);

    EngineOptions bg = site.options();
    bg.background = true;
    std::string started = load_line(bg, &bg_jobs, &bg_p);
    CHECK(bg_jobs == replayed_jobs);
    CHECK(bg_p == replayed_p);
    bool waited = false;
    for (const auto &l : g_logged) waited |= l.find("slurmctld's start waited") != std::string::npos;
    CHECK(waited);

    // A damaged snapshot is not used: the store is replayed, and the log says why.
    test::write_file(snapshot_path_for(site.store), "garbage");
    std::string damaged = load_line(site.options(), &snap_jobs, &snap_p);
    CHECK(damaged.find("snapshot") == std::string::npos);
    CHECK(snap_jobs == replayed_jobs);
    bool said = false;
    for (const auto &l : g_logged)
        said |= l.find("history snapshot not used") != std::string::npos && l.find("not a zstd frame") != std::string::npos;
    CHECK(said);
}

TEST_CASE("engine: a module the site's index does not have is told at submission; the index reloads without a restart") {
    Site site;
    const std::string index = site.dir.file("modules.json");
    test::write_file(index, R"({"python": {"/m/python/3.11.4.lua": {"fullName": "python/3.11.4"}}})");
    site.config("mode = warn\nthreshold = 0.99\nmodules_index = " + index + "\n");
    Engine e(site.options());
    SubmitRequest r = request("sim");
    r.script = "#!/bin/bash\n#SBATCH -n 1\nmodule load pyhton/3.11\nsrun ./a.out\n";
    auto out = e.evaluate(r);
    INFO(out.user_message);
    CHECK(out.user_message.find("line 3: 'module load pyhton/3.11': this cluster has no module 'pyhton'; did you mean python?") !=
          std::string::npos);
    CHECK_FALSE(out.reject);
    CHECK(e.counters().get(Counter::MissingModules) == 1);
    r.script = "#!/bin/bash\nmodule load python/3.11\nsrun ./a.out\n";
    CHECK(e.evaluate(r).user_message.find("module") == std::string::npos);
    // The site installs pyhton (a new index): the same script passes, no restart.
    test::write_file(index, R"({"pyhton": {"/m/pyhton/3.11.lua": {"fullName": "pyhton/3.11"}}})");
    e.poll();
    r.script = "#!/bin/bash\nmodule load pyhton/3.11\n";
    CHECK(e.evaluate(r).user_message.find("no module") == std::string::npos);
    // An index anyone could have written is refused: the last good one of that path stays.
    chmod(index.c_str(), 0666);
    test::write_file(index, "{}");
    chmod(index.c_str(), 0666);
    e.poll();
    CHECK(e.evaluate(r).user_message.find("no module") == std::string::npos);
    r.script = "#!/bin/bash\nmodule load python/3.11\n";
    CHECK(e.evaluate(r).user_message.find("this cluster has no module 'python'") != std::string::npos);
}

TEST_CASE("engine: a store put back in place after a failed load is loaded whole, not updated in place") {
    Site site;
    site.config("mode = annotate\n");
    Engine e(site.options());
    REQUIRE(e.counters().get(Counter::HistoryLoads) == 1);
    std::string copy = site.dir.file("copy.db");
    Db(site.store, SQLITE_OPEN_READONLY).exec(("VACUUM INTO '" + copy + "'").c_str());
    // As `rm store; sqlite3 copy "VACUUM INTO 'store'"` looks to a poll that lands in between: first
    // missing, then an empty file (no jobs table), then the whole store, the same file all along.
    REQUIRE(unlink(site.store.c_str()) == 0);
    e.poll();
    CHECK(e.describe().find("missing") != std::string::npos);
    test::write_file(site.store, "");
    e.poll();
    CHECK(e.describe().find("no jobs table") != std::string::npos);
    CHECK(e.counters().get(Counter::HistoryLoads) == 1);
    Db(copy, SQLITE_OPEN_READONLY).exec(("VACUUM INTO '" + site.store + "'").c_str());
    e.poll();
    // Its change numbers equal the history held, which came from the deleted file: an in-place update
    // would apply nothing and never say so; a whole load does, and clears the error.
    CHECK(e.counters().get(Counter::HistoryLoads) == 2);
    CHECK(e.counters().get(Counter::HistoryUpdates) == 0);
    CHECK(e.describe().find("no jobs table") == std::string::npos);
}

TEST_CASE("engine: a feature log moved by jfp.conf closes the old writer once no submission holds it") {
    Site site;
    std::string a = site.dir.file("a.db"), b = site.dir.file("b.db");
    site.config("mode = annotate\nreload_interval = 0.05\nfeature_log = " + a + "\n");
    EngineOptions o = site.options();
    o.background = true;
    Engine e(o);
    auto wait_for = [](auto pred) {
        for (int i = 0; i < 1200 && !pred(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
        return pred();
    };
    REQUIRE(wait_for([&] { return e.model_id() != "" && e.background_writers() == 1; }));
    std::string first = e.evaluate(request()).token.str();
    REQUIRE_FALSE(first.empty());

    site.config("mode = annotate\nreload_interval = 0.05\nfeature_log = " + b + "\n");
    // Submissions go on through the change; the old writer closes (writing what it had) once the
    // snapshots holding it are gone, and the new one takes the later jobs.
    std::string later;
    CHECK(wait_for([&] {
        later = e.evaluate(request()).token.str();
        return access(b.c_str(), F_OK) == 0 && e.background_writers() == 1;
    }));
    auto logged_a = read_feature_log(a);
    CHECK(logged_a.count(first) == 1);
    CHECK(logged_a.count(later) == 0);
    CHECK(wait_for([&] {
        try {
            return read_feature_log(b).count(later) == 1;
        } catch (const std::exception &) {
            return false;  // the writer may not have created its table yet
        }
    }));
}

TEST_CASE("engine: a change to a file slurm.conf includes reloads the partition defaults, as one to slurm.conf does") {
    Site site;
    const std::string parts = site.dir.file("partitions.conf");
    test::write_file(parts, "PartitionName=batch Default=YES DefaultTime=60\nPartitionName=long DefaultTime=600\n");
    test::write_file(site.slurm_conf, "ClusterName=c\nInclude partitions.conf\nDefMemPerCPU=1000\n");
    site.config("mode = reject\nthreshold = 1.0\nthreshold.partition.long = 0.0\nmin_history = 0\nreject_below_target = yes\n");
    Engine e(site.options());
    SubmitRequest r = request("steady_job");
    r.partition = {};  // the default partition's
    CHECK_FALSE(e.evaluate(r).reject);  // batch: threshold 1.0
    // The included file makes long the default; slurm.conf itself is untouched.
    test::write_file(parts, "PartitionName=batch DefaultTime=60\nPartitionName=long Default=YES DefaultTime=600\n");
    struct timespec later[2] = {{0, UTIME_NOW}, {time(nullptr) + 5, 0}};  // a new mtime whatever the clock's grain
    utimensat(AT_FDCWD, parts.c_str(), later, 0);
    e.poll();
    CHECK(e.evaluate(r).reject);  // long: threshold 0
}

TEST_CASE("engine: an update is judged as the job slurmctld holds will be after it, with or without history") {
    Site site;
    for (bool with_store : {true, false}) {
        CAPTURE(with_store);
        std::string store_line = with_store ? "" : "store = " + site.dir.file("missing.db") + "\n";
        site.config("mode = reject\nthreshold = 1.0\nthreshold.partition.long = 0.0\nmin_history = 0\nreject_below_target = yes\n" + store_line);
        Engine e(site.options());
        auto out = e.evaluate(request("steady_job"));
        REQUIRE(out.decision.scored);
        REQUIRE_FALSE(out.reject);  // threshold 1.0
        JobRecordView job;
        job.readable = true;
        job.owner_uid = 4242;
        job.job = request("steady_job", "mine jfp:p=0.100");
        std::string admin = out.admin_comment_append;
        job.admin_comment = admin;
        SubmitRequest delta;
        delta.uid = 4242;
        delta.partition = "long";  // threshold 0 there
        auto upd = e.evaluate_update("8888", delta, 4242, job);
        CHECK(upd.decision.scored);
        // Refused; without a history reject only warns (no evidence), but the update is still judged.
        CHECK(upd.reject == with_store);
        CHECK(upd.decision.no_history == !with_store);
        CHECK(upd.token.str() == out.token.str());
        CHECK(upd.admin_comment_append.empty());  // slurmctld refuses an AdminComment in a user's update
        // Another user's update of the job is not judged (slurmctld refuses it).
        CHECK_FALSE(e.evaluate_update("8888", delta, 4343, job).decision.scored);
        // A record jfp cannot read: judged as a fresh submission of the update, with no token to log under.
        auto fresh = e.evaluate_update("8888", delta, 4242, JobRecordView{});
        CHECK(fresh.decision.scored);
        CHECK(fresh.reject == with_store);
        CHECK(fresh.token.empty());
        // An update that changes nothing the judgement reads is not judged.
        SubmitRequest nothing;
        CHECK_FALSE(e.evaluate_update("8888", nothing, 4242, job).decision.scored);
    }
}

TEST_CASE("engine: the metrics file holds the counters, the latency histogram and the model, in Prometheus' text format") {
    Site site;
    std::string prom = site.dir.file("jfp.prom");
    site.config("mode = annotate\nmetrics_file = " + prom + "\n");
    Engine e(site.options());
    for (int i = 0; i < 5; ++i) e.evaluate(request());
    e.count_fault();
    e.write_metrics(true);
    std::ifstream in(prom);
    REQUIRE(in);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(text);
    CHECK(text.find("jfp_jobs_total{cluster=\"\",decision=\"scored\"} 5\n") != std::string::npos);
    CHECK(text.find("jfp_jobs_total{cluster=\"\",decision=\"annotated\"} 5\n") != std::string::npos);
    CHECK(text.find("jfp_faults_total{cluster=\"\"} 1\n") != std::string::npos);
    CHECK(text.find("jfp_submit_seconds_count{cluster=\"\"} 5\n") != std::string::npos);
    CHECK(text.find("jfp_submit_seconds_bucket{cluster=\"\",le=\"+Inf\"} 5\n") != std::string::npos);
    CHECK(text.find("jfp_model_info{cluster=\"\",model=\"" + e.model_id() + "\",kind=\"tree\",mode=\"annotate\"} 1\n") != std::string::npos);
    CHECK(text.find("jfp_history_jobs{cluster=\"\"} ") != std::string::npos);
    CHECK(text.size() > 20);
    CHECK(text.back() == '\n');
    // The text format node_exporter reads: every sample's family declared by name before it (a counter as
    // NAME_total, a histogram's _bucket/_count/_sum), only its types, no OpenMetrics-only lines.
    std::string declared;
    std::istringstream lines(text);
    for (std::string l; std::getline(lines, l);) {
        if (l.rfind("# TYPE ", 0) == 0) {
            std::istringstream w(l.substr(7));
            std::string name, type;
            w >> name >> type;
            CHECK((type == "counter" || type == "gauge" || type == "histogram"));
            if (type == "counter") CHECK(name.size() > 6);
            if (type == "counter") CHECK(name.substr(name.size() - 6) == "_total");
            declared = name;
            continue;
        }
        if (l.rfind("# HELP ", 0) == 0) continue;
        REQUIRE(l.rfind("#", 0) != 0);  // no "# EOF", "# UNIT"
        std::string name = l.substr(0, l.find_first_of("{ "));
        INFO(l);
        CHECK((name == declared || name == declared + "_bucket" || name == declared + "_count" || name == declared + "_sum"));
    }
    // Buckets are cumulative: never decreasing.
    uint64_t prev = 0;
    for (size_t pos = text.find("jfp_submit_seconds_bucket"); pos != std::string::npos; pos = text.find("jfp_submit_seconds_bucket", pos + 1)) {
        uint64_t v = std::stoull(text.substr(text.find("} ", pos) + 2));
        CHECK(v >= prev);
        prev = v;
    }
    struct stat st {};
    REQUIRE(stat(prom.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0644);
}

TEST_CASE("engine: the annotation says what the script shows for certain, whatever the score") {
    Site site;
    const std::string index = site.dir.file("modules.json");
    test::write_file(index, R"({"python": {"/m/python/3.11.4.lua": {"fullName": "python/3.11.4"}}})");
    site.config("mode = annotate\nthreshold = 0.99\nmodules_index = " + index + "\n");
    Engine e(site.options());
    SubmitRequest r = request("sim");
    auto annotation = [&](const std::string &script) {
        r.script = script;
        auto out = e.evaluate(r);
        REQUIRE(out.new_comment);
        auto a = parse_annotation(*out.new_comment);
        REQUIRE(a);
        return a->script;
    };
    CHECK(annotation("#!/bin/bash\nmodule load python/3.11\nsrun ./a.out\n").empty());
    CHECK(annotation("#!/bin/bash\nmodule load pyhton/3.11\nsrun ./a.out\n") == "missing_module");
    CHECK(annotation("#!/bin/bash\nsrun ./a.out\n#SBATCH --mem=4G\n") == "ignored_sbatch");
    CHECK(annotation("#!/bin/bash\nmodule load pyhton\n#SBATCH --mem=4G\n") == "ignored_sbatch+missing_module");
    // Off in jfp.conf: not looked for, not said.
    site.config("mode = annotate\nthreshold = 0.99\nmodules_index = " + index + "\nmissing_modules = off\nignored_directives = off\n");
    e.poll();
    CHECK(annotation("#!/bin/bash\nmodule load pyhton\n#SBATCH --mem=4G\n").empty());
}

TEST_CASE("engine: an array whose size is unknown at submission is unknown at its update too") {
    Site site;
    site.config("mode = annotate\nmin_history = 0\n");
    Engine e(site.options());
    SubmitRequest r = request("steady_job");
    r.array_inx = "0-11856%4";  // past slurm.conf's MaxArraySize (1001): slurmctld refuses it, jfp cannot count it
    auto out = e.evaluate(r);
    REQUIRE(out.decision.scored);
    INFO(out.admin_comment_append);
    auto facts = parse_submission_facts(out.admin_comment_append);
    REQUIRE(facts);
    CHECK(std::isnan(facts->array_size));
    JobRecordView job;
    job.readable = true;
    job.owner_uid = 4242;
    job.job = r;
    job.admin_comment = out.admin_comment_append;
    SubmitRequest delta;
    delta.uid = 4242;
    delta.time_limit_min = 30;
    auto upd = e.evaluate_update("8888", delta, 4242, job);
    SubmitRequest fresh = r;
    fresh.time_limit_min = 30;
    fresh.submit_time = 0;  // now, as the update is judged (the hour is a feature)
    auto again = e.evaluate(fresh);
    CHECK(upd.decision.p_fail == Approx(again.decision.p_fail).margin(1e-6));
}

}  // namespace test_engine
