#include "tools/scripts/script_show.h"

#include <cstdio>
#include <stdexcept>

#include "model/archive/script_archive.h"
#include "model/util/text.h"
#include "tools/scripts/script_findings_lines.h"
#include "tools/scripts/script_location.h"

namespace jfp {

std::string env_lines(std::string env) {
    for (char &c : env)
        if (c == '\0') c = '\n';
    return env;
}

ShownScript show_script(const ArchivePaths &paths, const ShowRequest &req) {
    ScriptArchive archive(paths.archive, ScriptArchive::Access::ReadOnly);
    auto store = open_history_store(paths, false, "");
    LocatedScript f = locate_script(archive, store.get(), req.squeue, req.job, req.by_token);
    if (req.env && f.sub.env_hash.empty())
        throw std::runtime_error(describe(f) + ": no environment kept (script_archive_env = yes in jfp.conf keeps it)");
    const std::string &hash = req.env ? f.sub.env_hash : f.sub.script_hash;
    ShownScript shown;
    shown.bytes = archive.blob(hash);
    if (!req.quiet) {
        shown.header = "# " + describe(f) + ": " + (req.env ? "environment" : "script") + ", " + std::to_string(shown.bytes.size()) +
                       " bytes, sha256 " + hash + ", token " + f.sub.token + "\n";
        if (!req.env && static_cast<int64_t>(shown.bytes.size()) < f.sub.script_bytes)
            shown.header += "# only its first " + std::to_string(shown.bytes.size()) + " of " + std::to_string(f.sub.script_bytes) +
                            " bytes are kept here (the archive keeps 64 KiB of each script); the whole script of a job that "
                            "ran is slurmdbd's with AccountingStoreFlags=job_script: sacct -j " +
                            printable(f.job_id.empty() ? "JOBID" : f.job_id) + " --batch-script\n";
        if (!req.env) shown.header += script_findings_lines(shown.bytes, f.job, paths.modules_index);
    }
    if (req.env) shown.bytes = env_lines(std::move(shown.bytes));
    return shown;
}

}  // namespace jfp
