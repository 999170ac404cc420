#include "tools/scripts/script_diff.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "model/archive/script_archive.h"
#include "tools/process/subprocess.h"
#include "tools/scripts/script_location.h"
#include "tools/scripts/script_show.h"

namespace jfp {

namespace {

std::string temp_file(const std::string &bytes) {
    char tmpl[] = "/tmp/jfp-scripts.XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) throw std::runtime_error("cannot create a temporary file in /tmp");
    ::close(fd);
    std::ofstream out(tmpl, std::ios::binary);
    out << bytes;
    if (!out) throw std::runtime_error(std::string("cannot write ") + tmpl);
    return tmpl;
}

}  // namespace

std::string diff_scripts(const ArchivePaths &paths, const DiffRequest &req) {
    ScriptArchive archive(paths.archive, ScriptArchive::Access::ReadOnly);
    auto store = open_history_store(paths, req.last_ok, "--last-ok");
    LocatedScript x = locate_script(archive, store.get(), req.squeue, req.job, req.by_token);
    LocatedScript y = req.last_ok ? last_completed_run(archive, *store, x)
                                  : locate_script(archive, store.get(), req.squeue, req.other, req.by_token);
    // Older first: the diff reads as what changed on the way to the newer run.
    if (y.sub.submitted < x.sub.submitted) std::swap(x, y);
    auto content = [&](const LocatedScript &f) {
        if (!req.env) return archive.blob(f.sub.script_hash);
        if (f.sub.env_hash.empty()) throw std::runtime_error(describe(f) + ": no environment kept");
        return env_lines(archive.blob(f.sub.env_hash));
    };
    const std::string bx = content(x), by = content(y);
    if (bx == by)
        return std::string("the ") + (req.env ? "environments" : "scripts") + " of " + describe(x) + " and " + describe(y) +
               " are identical (sha256 " + (req.env ? x.sub.env_hash : x.sub.script_hash) + ")\n";
    const std::string fx = temp_file(bx), fy = temp_file(by);
    SubprocessOptions opt;
    opt.ok_status = {0, 1};  // 1: the files differ
    opt.hint = "is diffutils installed?";
    SubprocessResult r;
    try {
        r = run_program({"diff", "-u", "-a", "--label", describe(x), "--label", describe(y), fx, fy}, opt);
    } catch (...) {
        ::unlink(fx.c_str());
        ::unlink(fy.c_str());
        throw;
    }
    ::unlink(fx.c_str());
    ::unlink(fy.c_str());
    return r.out;
}

}  // namespace jfp
