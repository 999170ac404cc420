// `jfp scripts find`: archived submissions, newest first, with their job ids and states, as a table or
// as JSON.
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/scripts/archive_paths.h"
#include "tools/scripts/script_location.h"

namespace jfp {

struct FindRequest {
    std::string user, name;  // empty: any
    int64_t since = INT64_MIN, until = INT64_MAX;  // naive local seconds
    std::string state;  // only jobs the store says ended so (State or outcome name); needs the store
    size_t limit = 50;  // 0: all
    std::string squeue = "squeue";
};

std::vector<LocatedScript> find_scripts(const ArchivePaths &paths, const FindRequest &req);

// One line per row under a header; ASCII JSON (a terminal shows \uXXXX for what a user wrote).
std::string found_scripts_table(const std::vector<LocatedScript> &rows);
std::string found_scripts_json(const std::vector<LocatedScript> &rows);

}  // namespace jfp
