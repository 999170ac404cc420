// `jfp scripts show`: a job's archived script (or submit environment) byte for byte, and the header lines
// that say which job it is and what the script shows; with --identity, the script as its fingerprint reads
// it (script_normalizer.h), so that an admin can see why two scripts are, or are not, one script.
#pragma once

#include <string>

#include "tools/scripts/archive_paths.h"

namespace jfp {

struct ShowRequest {
    std::string job;  // a job id, or a join token when by_token
    bool by_token = false;
    bool env = false;    // the submit environment instead, a NAME=value line each
    bool quiet = false;  // no header
    bool identity = false;  // the normalised commands the fingerprint covers, not the bytes
    std::string file;    // a script file instead of an archived job's (no archive needed)
    std::string squeue = "squeue";
};

struct ShownScript {
    std::string header;  // for stderr; empty when quiet
    std::string bytes;   // for stdout: the exact bytes kept
};

ShownScript show_script(const ArchivePaths &paths, const ShowRequest &req);

// The header line that gives a script's fingerprint as jfp records it; whole: the bytes are the whole script;
// logged: what the store holds for the job (0: nothing), said when it differs.
std::string identity_header(const std::string &script, bool whole, uint64_t logged);
// The text the fingerprint covers, a line each, the cut between its head and its tail marked by a comment.
std::string identity_text(const std::string &script);

// Environments are stored as /proc/PID/environ is: NAME=value entries ended by NUL. Shown a line each.
std::string env_lines(std::string env);

}  // namespace jfp
