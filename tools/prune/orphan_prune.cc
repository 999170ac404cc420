#include "tools/prune/orphan_prune.h"

#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include "model/archive/script_archive.h"
#include "model/scoring/feature_log.h"
#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

void prune_orphans(const PruneRequest &r, std::ostream &out) {
    if (r.age < 7 * 86400 && !r.force && !r.dry_run)
        throw std::runtime_error("--grace " + r.age_text + " is under 7 days: a job that waits longer in the queue than "
                                 "the grace would lose its row before jfp ingest sees it. Give a longer grace, or --force");
    require_prune_file(r.db, "history store", "--db");
    int64_t from = 0, to = 0;
    {
        Db store(r.db, SQLITE_OPEN_READONLY);
        Stmt s(store, "SELECT min(submit), max(submit), count(*) FROM jobs WHERE jfp_token IS NOT NULL");
        if (!s.step() || s.int_at(2) == 0) {
            out << "jfp prune orphans: " << r.db
                << " holds no job with a jfp token yet (it is filled by jfp ingest --from-sacct on the cluster the plugin "
                   "scores for): which requests became jobs cannot be told; nothing removed\n"
                << std::flush;
            return;
        }
        from = s.int_at(0);
        to = std::min(s.int_at(1), naive_local_now()) - r.age;
    }
    if (to < from) {
        out << "jfp prune orphans: the store's jobs with a token span less than the grace (" << r.age_text
            << "): nothing to judge yet\n" << std::flush;
        return;
    }
    const std::string window = format_sacct_time(from) + " .. " + format_sacct_time(to);
    const char *verb = r.dry_run ? "would remove" : "removed";
    if (!r.feature_log.empty() && ::access(r.feature_log.c_str(), F_OK) == 0) {
        FeatureLogPrune p;
        try {
            prune_feature_log_orphans(r.feature_log, r.db, from, to, !r.dry_run, p);
        } catch (const SqliteError &e) {
            throw_prune_busy(e, r.feature_log, "the plugin's writer",
                             std::to_string(p.removed) + " rows were removed before that (they stay removed)");
        }
        std::string o;
        appendf(o, "jfp prune orphans: feature log: %s %llu rows scored %s that no job in the store carries; %llu rows remain\n",
                verb, static_cast<unsigned long long>(p.removed), window.c_str(), static_cast<unsigned long long>(p.kept));
        out << o << std::flush;
    }
    if (!r.archive.empty() && ::access(r.archive.c_str(), F_OK) == 0) {
        ScriptArchive archive(r.archive, r.dry_run ? ScriptArchive::Access::ReadOnly : ScriptArchive::Access::ReadWrite);
        PruneResult p;
        try {
            p = archive.prune_orphans(r.db, from, to, !r.dry_run);
        } catch (const SqliteError &e) {
            throw_prune_busy(e, r.archive, "the plugin's archive writer", "nothing was removed");
        }
        std::string o;
        appendf(o, "jfp prune orphans: script archive: %s %llu submissions made %s that no job in the store carries%s\n",
                verb, static_cast<unsigned long long>(p.submissions), window.c_str(),
                r.dry_run ? "" : (" (and " + std::to_string(p.blobs) + " stored scripts only they used)").c_str());
        out << o << std::flush;
    }
}

}  // namespace jfp
