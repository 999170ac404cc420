// `jfp scripts prune`: the archive's retention, submissions older than a time and the scripts and
// environments nothing else references, then (if asked) the freed pages given back to the file system.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace jfp {

struct ArchivePruneRequest {
    std::string archive;
    int64_t before = 0;  // naive local seconds
    bool dry_run = false;  // only count
    bool vacuum = false;
};

// Each line to print handed to say() as the work is done (what was removed is said before a vacuum that
// fails).
void prune_archive(const ArchivePruneRequest &req, const std::function<void(const std::string &line)> &say);

}  // namespace jfp
