#include "tools/ingest/slurm_queue.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "model/accounting/slurm_json.h"

namespace jfp {

std::string shell_quote(const std::string &s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

std::vector<std::pair<std::string, std::string>> queue_tokens(const std::string &squeue, const std::string &job) {
    // squeue 22.05 ignores filters with --json: every job comes, and the one asked for is picked here.
    std::string cmd = shell_quote(squeue) + " --all --json";
    std::FILE *p = popen(cmd.c_str(), "r");
    if (!p) throw std::runtime_error("cannot run " + cmd + ": " + std::strerror(errno));
    std::vector<std::pair<std::string, std::string>> all;
    try {
        all = squeue_json_tokens(p, cmd);
    } catch (...) {
        pclose(p);
        throw;
    }
    int rc = pclose(p);
    if (rc != 0) throw std::runtime_error(cmd + " failed (status " + std::to_string(rc) + ")");
    if (job.empty()) return all;
    std::vector<std::pair<std::string, std::string>> out;
    for (auto &t : all)
        if (t.first == job) out.push_back(std::move(t));
    return out;
}

}  // namespace jfp
