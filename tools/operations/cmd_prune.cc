// jfp prune: retention for the history store and the plugin's feature log (the script archive has
// `jfp scripts prune`). Run from jfp-prune.timer, as SlurmUser, while slurmctld and `jfp ingest --follow`
// keep working: the store is pruned in one transaction the plugin notices (it then loads the store
// whole), the feature log in small ones its writer never waits long for.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <memory>
#include <stdexcept>

#include "model/archive/script_archive.h"
#include "model/files/sqlite_util.h"
#include "model/store/history_store.h"
#include "model/scoring/feature_log.h"
#include "model/util/time_util.h"
#include "tools/operations/operations.h"
#include "tools/ingest/snapshot_keeper.h"
#include "tools/options/site_conf.h"

namespace jfp {

namespace {

// History features read a user's past runs (recent runs of a name, failure rates, hours since the last
// failure): a store cut to a few days would silently blind them. The feature log holds the vectors of jobs
// still queued or running and what jfp monitor (7 days) and jfp train --feature-log read. Shorter needs --force.
constexpr int64_t kMinDays = 30;

struct PruneArgs {
    ConfDefaults conf;
    std::string db, feature_log, archive, older_than;
    bool dry_run = false, vacuum = false, force = false;
};

std::string count(uint64_t n) { return std::to_string(n); }

void require_file(const std::string &path, const char *what, const char *option) {
    if (::access(path.c_str(), F_OK) != 0)
        throw std::runtime_error(std::string("no ") + what + " at " + path + ": nothing to prune (check " + option +
                                 ", or the path in jfp.conf)");
}

// Another writer held the file past SQLite's 5 s wait (BUSY) or holds a lock in this process's way
// (LOCKED): say what happened and what to do. Called from a catch block: anything else is rethrown.
[[noreturn]] void busy(const SqliteError &e, const std::string &path, const char *who, const std::string &state) {
    const int code = e.code() & 0xff;
    if (code == SQLITE_BUSY)
        throw std::runtime_error(path + ": " + who + " held it for more than 5 s (" + e.what() + "); " + state +
                                 ": run the same jfp prune again");
    if (code == SQLITE_LOCKED)
        throw std::runtime_error(path + ": locked by " + who + " (" + e.what() + "); " + state +
                                 ": run the same jfp prune again");
    throw;
}

void run_prune_store(const PruneArgs &a) {
    const int64_t age = parse_age_seconds(a.older_than, "--older-than");
    if (age < kMinDays * 86400 && !a.force && !a.dry_run)
        throw std::runtime_error("--older-than " + a.older_than + " would keep less than " + std::to_string(kMinDays) +
                                 " days of history; the plugin's history features (a user's last runs of a job name, "
                                 "failure rates, time since the last failure) need it. Give a longer age, or --force");
    require_file(a.db, "history store", "--db");
    const int64_t before = naive_local_now() - age;
    const int64_t ingested_before = static_cast<int64_t>(std::time(nullptr)) - age;
    HistoryStore store(a.db, a.dry_run ? HistoryStore::Access::ReadOnly : HistoryStore::Access::ReadWrite);
    HistoryStore::PruneCount c;
    try {
        c = store.prune(before, ingested_before, !a.dry_run);
    } catch (const SqliteError &e) {
        busy(e, a.db, "another writer (jfp ingest?)", "nothing was removed");
    }
    const std::string when = format_sacct_time(before);
    std::printf("jfp prune store: %s %s jobs that ended before %s; %s job rows %s\n", a.dry_run ? "would remove" : "removed",
                count(c.jobs).c_str(), when.c_str(), count(c.kept).c_str(), a.dry_run ? "would remain" : "remain");
    if (c.users_emptied)
        std::printf("jfp prune store: %s users %s no job left (the plugin scores their next jobs as a new user's)\n",
                    count(c.users_emptied).c_str(), a.dry_run ? "would have" : "have");
    if (c.ingests)
        std::printf("jfp prune store: %s %s ingest records (with their bad lines) older than that\n",
                    a.dry_run ? "would remove" : "removed", count(c.ingests).c_str());
    if (c.unfinished_older) {
        std::string ids;
        for (const auto &id : c.unfinished_examples) ids += (ids.empty() ? "" : ", ") + id;
        std::printf("jfp prune store: kept %s jobs submitted before then that have no end in the store (such as %s): "
                    "no export jfp ingested reported them ended. They stay until one does; `sacct -j ID` shows what "
                    "Slurm knows of each\n",
                    count(c.unfinished_older).c_str(), ids.c_str());
    }
    if (a.dry_run) return;
    if (c.jobs)
        std::printf("jfp prune store: the plugin loads the store whole at its next look (a deletion cannot be applied "
                    "in place); the model learned from history that had these jobs: retrain (jfp train, jfp publish)\n");
    if (a.vacuum) {
        try {
            store.vacuum();
        } catch (const SqliteError &e) {
            busy(e, a.db, "another writer (jfp ingest?)", "the jobs are removed; the vacuum was not done");
        }
        std::printf("jfp prune store: vacuumed %s\n", a.db.c_str());
    }
    // The old snapshot holds the removed jobs: the plugin would not use it (the prune count changed), and
    // would replay the store at its next start.
    SnapshotKeeper(a.db, c.jobs > 0 || c.ingests > 0, false).after_change("jfp prune store");
}

void run_prune_feature_log(const PruneArgs &a) {
    const int64_t age = parse_age_seconds(a.older_than, "--older-than");
    if (age < kMinDays * 86400 && !a.force && !a.dry_run)
        throw std::runtime_error("--older-than " + a.older_than + " would remove rows of jobs scored in the last " +
                                 std::to_string(kMinDays) + " days: jobs still queued or running, and what jfp monitor "
                                 "and jfp train --feature-log read. Give a longer age, or --force");
    if (::access(a.feature_log.c_str(), F_OK) != 0) {
        // The plugin creates it at the first scored job: a site that has scored none has nothing to prune.
        std::printf("jfp prune feature-log: no feature log at %s yet: nothing to prune\n", a.feature_log.c_str());
        return;
    }
    const int64_t before = naive_local_now() - age;
    FeatureLogPrune r;
    try {
        prune_feature_log(a.feature_log, before, !a.dry_run, a.vacuum, r);
    } catch (const SqliteError &e) {
        busy(e, a.feature_log, "the plugin's writer",
             count(r.removed) + " rows were removed before that (they stay removed)" + (a.vacuum ? ", or it was the vacuum" : ""));
    }
    std::printf("jfp prune feature-log: %s %s rows of jobs scored before %s; %s %s\n", a.dry_run ? "would remove" : "removed",
                count(r.removed).c_str(), format_sacct_time(before).c_str(), count(r.kept).c_str(),
                a.dry_run ? "would remain" : "remain");
    if (!a.dry_run && a.vacuum) std::printf("jfp prune feature-log: vacuumed %s\n", a.feature_log.c_str());
}

// What requests that never became jobs left behind (--test-only, a partition or account slurmctld refused,
// any job it refused after job_submit): the plugin judged and recorded them like any other, as it cannot
// know slurmctld's verdict. A row or archived script whose token no job in the store carries, once the
// store has jobs submitted after it plus the grace, is one of those.
void run_prune_orphans(const PruneArgs &a) {
    const int64_t grace = parse_age_seconds(a.older_than, "--grace");
    if (grace < 7 * 86400 && !a.force && !a.dry_run)
        throw std::runtime_error("--grace " + a.older_than + " is under 7 days: a job that waits longer in the queue than "
                                 "the grace would lose its row before jfp ingest sees it. Give a longer grace, or --force");
    require_file(a.db, "history store", "--db");
    int64_t from = 0, to = 0;
    {
        Db store(a.db, SQLITE_OPEN_READONLY);
        Stmt s(store, "SELECT min(submit), max(submit), count(*) FROM jobs WHERE jfp_token IS NOT NULL");
        if (!s.step() || s.int_at(2) == 0) {
            std::printf("jfp prune orphans: %s holds no job with a jfp token yet (it is filled by jfp ingest --from-sacct "
                        "on the cluster the plugin scores for): which requests became jobs cannot be told; nothing removed\n",
                        a.db.c_str());
            return;
        }
        from = s.int_at(0);
        to = std::min(s.int_at(1), naive_local_now()) - grace;
    }
    if (to < from) {
        std::printf("jfp prune orphans: the store's jobs with a token span less than the grace (%s): nothing to judge yet\n",
                    a.older_than.c_str());
        return;
    }
    const std::string window = format_sacct_time(from) + " .. " + format_sacct_time(to);
    const char *verb = a.dry_run ? "would remove" : "removed";
    if (!a.feature_log.empty() && ::access(a.feature_log.c_str(), F_OK) == 0) {
        FeatureLogPrune r;
        try {
            prune_feature_log_orphans(a.feature_log, a.db, from, to, !a.dry_run, r);
        } catch (const SqliteError &e) {
            busy(e, a.feature_log, "the plugin's writer", count(r.removed) + " rows were removed before that (they stay removed)");
        }
        std::printf("jfp prune orphans: feature log: %s %s rows scored %s that no job in the store carries; %s rows remain\n",
                    verb, count(r.removed).c_str(), window.c_str(), count(r.kept).c_str());
    }
    if (!a.archive.empty() && ::access(a.archive.c_str(), F_OK) == 0) {
        ScriptArchive archive(a.archive, a.dry_run ? ScriptArchive::Access::ReadOnly : ScriptArchive::Access::ReadWrite);
        PruneResult r;
        try {
            r = archive.prune_orphans(a.db, from, to, !a.dry_run);
        } catch (const SqliteError &e) {
            busy(e, a.archive, "the plugin's archive writer", "nothing was removed");
        }
        std::printf("jfp prune orphans: script archive: %s %s submissions made %s that no job in the store carries%s\n",
                    verb, count(r.submissions).c_str(), window.c_str(),
                    a.dry_run ? "" : (" (and " + count(r.blobs) + " stored scripts only they used)").c_str());
    }
}

void add_common(Command *c, PruneArgs *a, const char *age_example) {
    c->add_option("--older-than", a->older_than, std::string("age: ") + age_example + ", 12w, 36h or a number of days")->required();
    c->add_flag("--dry-run", a->dry_run, "only count");
    c->add_flag("--vacuum", a->vacuum,
                "then give the freed space back to the file system: rewrites the file under its write lock, which "
                "writers wait for only 5 s (run it when the cluster is quiet; freed pages are reused anyway)");
    c->add_flag("--force", a->force, "allow an age under 30 days");
    a->conf.add_option(c);
}

}  // namespace

void add_prune_command(Command &app) {
    auto *c = app.add_subcommand("prune", "Retention: remove old jobs from the history store, old rows from the feature log, "
                                          "what requests that never became jobs left");
    c->require_subcommand(1);

    auto store_args = std::make_shared<PruneArgs>();
    auto *store = c->add_subcommand("store", "Remove jobs that ended before the age given (never jobs still queued or running)");
    store->add_option("--db", store_args->db, "the history store (store in jfp.conf)");
    add_common(store, store_args.get(), "730d");
    store->callback([a = store_args] {
        a->conf.fill(a->db, ConfPath::Store, "--db", true);
        run_prune_store(*a);
    });

    auto orphan_args = std::make_shared<PruneArgs>();
    auto *orphans = c->add_subcommand(
        "orphans", "Remove the feature-log rows and archived scripts of requests that never became jobs (the store "
                   "holds no job with their token), once the store has jobs submitted a grace after them");
    orphans->add_option("--db", orphan_args->db, "the history store, fed by jfp ingest --from-sacct (store in jfp.conf)");
    orphans->add_option("--feature-log", orphan_args->feature_log, "the plugin's feature log (feature_log in jfp.conf)");
    orphans->add_option("--archive", orphan_args->archive, "the script archive (script_archive in jfp.conf)");
    orphan_args->older_than = "30d";
    orphans->add_option("--grace", orphan_args->older_than, "how long a request may wait in the queue before it counts: 30d, 4w or days")
        ->capture_default_str();
    orphans->add_flag("--dry-run", orphan_args->dry_run, "only count");
    orphans->add_flag("--force", orphan_args->force, "allow a grace under 7 days");
    orphan_args->conf.add_option(orphans);
    orphans->callback([a = orphan_args] {
        a->conf.fill(a->db, ConfPath::Store, "--db", true);
        a->conf.fill(a->feature_log, ConfPath::FeatureLog, "--feature-log", false);
        a->conf.fill(a->archive, ConfPath::ScriptArchive, "--archive", false);
        run_prune_orphans(*a);
    });

    auto log_args = std::make_shared<PruneArgs>();
    auto *log = c->add_subcommand("feature-log", "Remove the plugin's rows of jobs scored before the age given");
    log->add_option("--feature-log", log_args->feature_log, "the plugin's feature log (feature_log in jfp.conf)");
    add_common(log, log_args.get(), "180d");
    log->callback([a = log_args] {
        a->conf.fill(a->feature_log, ConfPath::FeatureLog, "--feature-log", true);
        run_prune_feature_log(*a);
    });
}

}  // namespace jfp
