// Caps on what a user sizes in a request, applied once, first, before anything is judged, cached,
// queued, logged or stored (docs/admin-guide.md, "What a submission costs").
//
// Each string cap is slurmctld's own limit on that field (_test_job_desc_fields, the same in 22.05, 24.11
// and 26.05), which slurmctld applies only after job_submit: a job slurmctld accepts is never cut, and one
// it refuses is judged on its cut form at a bounded cost. A string is cut at its first NUL as slurmctld
// measures it (strlen), so bytes a crafted request carries after one change nothing.
//
// The result is the request's normalised form: normalise() is idempotent, and the decision of a request
// is by construction the decision of its normalised form (test/plugin/test_plugin_properties.cc).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "model/request/submit_request.h"

namespace jfp {

struct RequestCaps {
    static constexpr size_t kName = 1024, kComment = 1024, kAccount = 1024, kQos = 1024, kPartition = 1024;
    static constexpr size_t kTres = 1024;       // each of tres_per_job/node/task/socket
    static constexpr size_t kArrayInx = 4096;
    static constexpr size_t kWorkDir = 4096;    // PATH_MAX
    // slurmctld allows 128 KiB and 1 MiB; jfp reads only whether a dependency is given and keeps neither.
    static constexpr size_t kDependency = 1024, kSubmitLine = 4096;
    // The environment has no Slurm limit; jfp reads it only to archive it (script_archive_env), and stops
    // at kArchiveHead bytes of it.
    static constexpr size_t kEnvEntries = 16384;
    // The script archive keeps a script's first kArchiveHead bytes and an environment's entries within
    // kArchiveHead (docs/admin-guide.md, "The script archive"): a request slurmctld goes on to refuse
    // (--test-only, a bad partition) leaves no more than that, and the copy job_submit makes is bounded.
    // The model reads a script's first kScriptScanBytes; slurmdbd keeps whole scripts of jobs that ran
    // (AccountingStoreFlags=job_script).
    static constexpr size_t kScriptDefault = size_t{4} << 20, kArchiveHead = size_t{64} << 10;
};

// Cuts every string at its first NUL and at its cap, and env_count at kEnvEntries. The script is cut at
// its first NUL only (its scan reads the first kScriptScanBytes; the archive applies its own cap).
void normalise(SubmitRequest &r);

// The distinct entries of a partition list ("a,b,a" -> a, b), in order, empty ones dropped; at most
// max_entries (a list within kPartition holds at most 512).
std::vector<std::string_view> partition_entries(std::string_view list, size_t max_entries = 512);

}  // namespace jfp
