#include "tools/ingest/slurm_queue.h"

#include "model/accounting/slurm_json.h"
#include "tools/process/subprocess.h"

namespace jfp {

std::vector<std::pair<std::string, std::string>> queue_tokens(const std::string &squeue, const std::string &job) {
    // squeue 22.05 ignores filters with --json: every job comes, and the one asked for is picked here.
    SubprocessOptions opt;
    opt.hint = "is slurmctld up (scontrol ping), and --squeue a Slurm squeue?";
    std::vector<std::pair<std::string, std::string>> all;
    read_program_output({squeue, "--all", "--json"}, opt,
                        [&](std::FILE *out) { all = squeue_json_tokens(out, squeue + " --all --json"); });
    if (job.empty()) return all;
    std::vector<std::pair<std::string, std::string>> out;
    for (auto &t : all)
        if (t.first == job) out.push_back(std::move(t));
    return out;
}

}  // namespace jfp
