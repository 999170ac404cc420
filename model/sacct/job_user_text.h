// What a job's user wrote, by JobIDRaw, from sacct --json (model/accounting/slurm_json.h reads it): the
// name, and the submit line where the release prints one (23.02+; absent on 22.05). The text reader takes
// these instead of the export's own user-written columns.
#pragma once

#include <string>
#include <unordered_map>

namespace jfp {

struct JobUserText {
    std::string name;
    bool has_submit_line = false;
    std::string submit_line;
};
using JobUserTextById = std::unordered_map<std::string, JobUserText>;

}  // namespace jfp
