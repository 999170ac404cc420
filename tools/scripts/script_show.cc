#include "tools/scripts/script_show.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "model/archive/script_archive.h"
#include "model/script/script_fingerprint.h"
#include "model/util/text.h"
#include "tools/scripts/script_findings_lines.h"
#include "tools/scripts/script_location.h"

namespace jfp {

std::string env_lines(std::string env) {
    for (char &c : env)
        if (c == '\0') c = '\n';
    return env;
}

std::string identity_header(const std::string &script, bool whole, uint64_t logged) {
    const uint64_t fp = script_fingerprint(script);
    auto hex = [](uint64_t v) {
        char b[24];
        std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
        return std::string(b);
    };
    std::string line = fp == 0 ? "# script fingerprint: none (no commands: empty, binary, or comments and blank lines only)"
                               : "# script fingerprint " + hex(fp) + " (script_fp " + std::to_string(static_cast<int64_t>(fp)) +
                                     " in the feature log and the store)";
    if (logged != 0 && logged != fp)
        line += "; the store holds " + hex(logged) + " (script_fp " + std::to_string(static_cast<int64_t>(logged)) +
                ") for this job: the plugin took it " + (whole ? "with an older jfp, which read scripts otherwise" : "from the whole script, of which these bytes are the head");
    else if (logged == 0 && !whole && fp != 0)
        line += ", of the bytes kept: the plugin's, of the whole script, can differ";
    return line + "\n";
}

std::string identity_text(const std::string &script) {
    std::string text = normalized_script(script);
    const size_t cut = text.find('\x1e');
    if (cut != std::string::npos) text.replace(cut, 1, "# ... (past the first 1 KiB, only the last lines are read)\n");
    return text;
}

namespace {
// A script file, whole: what sbatch would send (the fingerprint reads its first kFingerprintReach bytes).
std::string read_script_file(const std::string &path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw std::runtime_error("cannot read " + printable(path) + ": " + std::strerror(errno) + "; give a job script's path");
    if (!S_ISREG(st.st_mode)) throw std::runtime_error(printable(path) + " is not a file; give a job script's path");
    // Four times what sbatch takes by default (SlurmConf's max_script_size, 4 MiB): past it, not a job script.
    constexpr off_t kMaxScript = off_t{16} << 20;
    if (st.st_size > kMaxScript) throw std::runtime_error(printable(path) + " is larger than 16 MiB: not a job script");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + printable(path) + ": " + std::strerror(errno) + "; give a job script's path");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}
}  // namespace

ShownScript show_script(const ArchivePaths &paths, const ShowRequest &req) {
    if (!req.file.empty()) {
        ShownScript shown;
        shown.bytes = read_script_file(req.file);
        if (!req.quiet) shown.header = "# " + printable(req.file) + ": " + std::to_string(shown.bytes.size()) + " bytes\n" + identity_header(shown.bytes, true, 0);
        if (req.identity) shown.bytes = identity_text(shown.bytes);
        return shown;
    }
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
        if (!req.env)
            shown.header += identity_header(shown.bytes, static_cast<int64_t>(shown.bytes.size()) >= f.sub.script_bytes,
                                            f.job ? f.job->script_fingerprint : 0) +
                            script_findings_lines(shown.bytes, f.job, paths.modules_index);
    }
    if (req.env) shown.bytes = env_lines(std::move(shown.bytes));
    else if (req.identity) shown.bytes = identity_text(shown.bytes);
    return shown;
}

}  // namespace jfp
