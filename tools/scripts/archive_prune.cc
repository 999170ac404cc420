#include "tools/scripts/archive_prune.h"

#include "model/archive/script_archive.h"
#include "model/util/time_util.h"
#include "tools/scripts/archive_stats.h"

namespace jfp {

void prune_archive(const ArchivePruneRequest &req, const std::function<void(const std::string &line)> &say) {
    const std::string before = format_sacct_time(req.before);
    if (req.dry_run) {
        ScriptArchive archive(req.archive, ScriptArchive::Access::ReadOnly);
        ArchiveQuery q;
        q.until = req.before;
        say("jfp scripts prune: would remove " + std::to_string(archive.find(q).size()) + " submissions made before " + before +
            " (and the scripts only they use)");
        return;
    }
    ScriptArchive archive(req.archive, ScriptArchive::Access::ReadWrite);
    PruneResult r = archive.prune(req.before);
    say("jfp scripts prune: removed " + std::to_string(r.submissions) + " submissions made before " + before + " and " +
        std::to_string(r.blobs) + " stored scripts or environments nothing references any more");
    if (req.vacuum) {
        archive.vacuum();
        say("jfp scripts prune: vacuumed; the file is now " + human_bytes(archive.stats().file_bytes));
    } else if (r.blobs) {
        say("jfp scripts prune: SQLite reuses the freed pages; --vacuum gives them back to the file system");
    }
}

}  // namespace jfp
