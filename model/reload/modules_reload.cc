// The site's module index (modules_index): reloaded when its file changes, checked as the model is; a bad
// file keeps the last good index of the same path.
#include <chrono>

#include "jfp_config.h"
#include "model/files/file_check.h"
#include "model/reload/state_loader.h"
#include "model/util/log.h"

#ifdef HAVE_MALLOC_TRIM
#include <malloc.h>
#endif

namespace jfp {

namespace {

// Lmod's spider-json of a large site (thousands of modules) is a few MiB.
constexpr size_t kMaxModulesIndexBytes = size_t{64} << 20;

}  // namespace

bool StateLoader::load_modules(PublishedState &next) {
    const std::string &path = next.config.modules_index;
    const bool same_path = !modules_.path_changed(path);
    if (!modules_.changed(path)) return false;
    if (path.empty()) {
        const bool had = next.modules != nullptr;
        next.modules.reset();
        if (had) log_info("module check off (no modules_index)");
        return had;
    }
    std::string err;
    if (!modules_.sig().exists) {
        err = "missing (write it with Lmod's spider: see jfp.conf(5), modules_index)";
    } else if (TrustedRead f = read_trusted_file(path, opt_.trusted_uids, kMaxModulesIndexBytes); !f.problem.empty()) {
        err = "refused: " + f.problem;
    } else if (f.too_big) {
        err = "larger than " + std::to_string(kMaxModulesIndexBytes >> 20) + " MiB: not a module index; refused unread";
    } else {
        try {
            auto t0 = std::chrono::steady_clock::now();
            auto ix = std::make_shared<const ModuleIndex>(ModuleIndex::parse(f.out));
#ifdef HAVE_MALLOC_TRIM
            malloc_trim(0);  // JSON parsing leaves freed memory glibc would otherwise keep in slurmctld
#endif
            next.modules = ix;
            modules_.loaded();
            const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
            log_info("loaded module index " + path + ": " + std::to_string(ix->modules()) + " modules of " +
                     std::to_string(ix->names()) + " names in " + std::to_string(ms) + " ms");
            return true;
        } catch (const std::exception &e) {
            err = e.what();
        }
    }
    if (!same_path) next.modules.reset();  // an index of another path says nothing about this one
    if (modules_.new_error(err))
        modules_.report("module index " + path + " not used: " + err + "; " +
                            (next.modules ? "keeping the last good index" : "no module check"),
                        err);
    return true;
}

}  // namespace jfp
