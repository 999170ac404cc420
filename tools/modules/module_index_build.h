// `jfp modules index`: the site's module index built from Lmod's spider over the compute nodes'
// MODULEPATH (or from its output, run elsewhere), with the rc files' aliases and symbolic versions, and
// written in place of the last one unless what was found looks like a tree not mounted (empty, or less
// than half the last index: in reject mode the plugin would refuse every job that loads a module missing).
#pragma once

#include <cstddef>
#include <string>

namespace jfp {

struct ModuleIndexRequest {
    std::string out;         // the index file
    std::string modulepath;  // colon-separated, as the compute nodes' MODULEPATH
    std::string spider;      // Lmod's spider; empty: found (lmod_spider.h)
    std::string from;        // the spider's output another user wrote; empty: run the spider here
    bool allow_shrink = false;
    bool allow_writers = false;  // a tree others may write (implied by from)
};

struct ModuleIndexWritten {
    size_t modules = 0, names = 0, behind_hierarchy = 0;
    size_t rc_names = 0, rc_files = 0;  // aliases and symbolic versions, and the rc files that gave them
};

// Writes req.out (mode 0644) or throws saying why nothing was written.
ModuleIndexWritten build_module_index(ModuleIndexRequest req);

// "jfp modules index: wrote OUT: N module files of M names (...), from MODULEPATH"
std::string module_index_summary(const ModuleIndexRequest &req, const ModuleIndexWritten &w);

}  // namespace jfp
