#include "tools/prune/store_prune.h"

#include <ctime>
#include <stdexcept>

#include "model/store/history_store.h"
#include "model/util/text.h"
#include "model/util/time_util.h"
#include "tools/ingest/snapshot_keeper.h"

namespace jfp {

void prune_store(const PruneRequest &r, std::ostream &out) {
    if (r.age < kMinRetentionDays * 86400 && !r.force && !r.dry_run)
        throw std::runtime_error("--older-than " + r.age_text + " would keep less than " + std::to_string(kMinRetentionDays) +
                                 " days of history; the plugin's history features (a user's last runs of a job name, "
                                 "failure rates, time since the last failure) need it. Give a longer age, or --force");
    require_prune_file(r.db, "history store", "--db");
    const int64_t before = naive_local_now() - r.age;
    const int64_t ingested_before = static_cast<int64_t>(std::time(nullptr)) - r.age;
    HistoryStore store(r.db, r.dry_run ? HistoryStore::Access::ReadOnly : HistoryStore::Access::ReadWrite);
    HistoryStore::PruneCount c;
    try {
        c = store.prune(before, ingested_before, !r.dry_run);
    } catch (const SqliteError &e) {
        throw_prune_busy(e, r.db, "another writer (jfp ingest?)", "nothing was removed");
    }
    std::string o;
    const std::string when = format_sacct_time(before);
    appendf(o, "jfp prune store: %s %llu jobs that ended before %s; %llu job rows %s\n", r.dry_run ? "would remove" : "removed",
            static_cast<unsigned long long>(c.jobs), when.c_str(), static_cast<unsigned long long>(c.kept),
            r.dry_run ? "would remain" : "remain");
    if (c.users_emptied)
        appendf(o, "jfp prune store: %llu users %s no job left (the plugin scores their next jobs as a new user's)\n",
                static_cast<unsigned long long>(c.users_emptied), r.dry_run ? "would have" : "have");
    if (c.ingests)
        appendf(o, "jfp prune store: %s %llu ingest records (with their bad lines) older than that\n",
                r.dry_run ? "would remove" : "removed", static_cast<unsigned long long>(c.ingests));
    if (c.unfinished_older) {
        std::string ids;
        for (const auto &id : c.unfinished_examples) ids += (ids.empty() ? "" : ", ") + id;
        appendf(o, "jfp prune store: kept %llu jobs submitted before then that have no end in the store (such as %s): "
                   "no export jfp ingested reported them ended. They stay until one does; `sacct -j ID` shows what "
                   "Slurm knows of each\n",
                static_cast<unsigned long long>(c.unfinished_older), ids.c_str());
    }
    out << o << std::flush;
    if (r.dry_run) return;
    if (c.jobs)
        out << "jfp prune store: the plugin loads the store whole at its next look (a deletion cannot be applied "
               "in place); the model learned from history that had these jobs: retrain (jfp train, jfp publish)\n"
            << std::flush;
    if (r.vacuum) {
        try {
            store.vacuum();
        } catch (const SqliteError &e) {
            throw_prune_busy(e, r.db, "another writer (jfp ingest?)", "the jobs are removed; the vacuum was not done");
        }
        out << "jfp prune store: vacuumed " << r.db << "\n" << std::flush;
    }
    // The old snapshot holds the removed jobs: the plugin would not use it (the prune count changed), and
    // would replay the store at its next start.
    SnapshotKeeper(r.db, c.jobs > 0 || c.ingests > 0, false).after_change("jfp prune store");
}

}  // namespace jfp
