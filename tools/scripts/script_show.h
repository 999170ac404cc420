// `jfp scripts show`: a job's archived script (or submit environment) byte for byte, and the header lines
// that say which job it is and what the script shows.
#pragma once

#include <string>

#include "tools/scripts/archive_paths.h"

namespace jfp {

struct ShowRequest {
    std::string job;  // a job id, or a join token when by_token
    bool by_token = false;
    bool env = false;    // the submit environment instead, a NAME=value line each
    bool quiet = false;  // no header
    std::string squeue = "squeue";
};

struct ShownScript {
    std::string header;  // for stderr; empty when quiet
    std::string bytes;   // for stdout: the exact bytes kept
};

ShownScript show_script(const ArchivePaths &paths, const ShowRequest &req);

// Environments are stored as /proc/PID/environ is: NAME=value entries ended by NUL. Shown a line each.
std::string env_lines(std::string env);

}  // namespace jfp
