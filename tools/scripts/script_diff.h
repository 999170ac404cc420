// `jfp scripts diff`: what changed between two jobs' scripts (or submit environments), as diff -u shows
// it, the older run first; the second job may be the user's last completed run of the same job name.
#pragma once

#include <string>

#include "tools/scripts/archive_paths.h"

namespace jfp {

struct DiffRequest {
    std::string job, other;  // other empty: last_ok
    bool last_ok = false;
    bool by_token = false;
    bool env = false;
    std::string squeue = "squeue";
};

// The text to print: diff's unified output, or one line saying the two are identical.
std::string diff_scripts(const ArchivePaths &paths, const DiffRequest &req);

}  // namespace jfp
