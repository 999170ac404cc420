#include "tools/ingest/slurm_queue.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "model/jobs/job_record.h"

namespace jfp {

std::string shell_quote(const std::string &s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

namespace {
std::string field(std::string_view line, std::string_view key) {
    size_t pos = 0;
    while ((pos = line.find(key, pos)) != std::string_view::npos) {
        if (pos == 0 || line[pos - 1] == ' ') {
            auto v = line.substr(pos + key.size());
            return std::string(v.substr(0, v.find(' ')));
        }
        pos += key.size();
    }
    return {};
}
}  // namespace

std::vector<std::pair<std::string, std::string>> queue_tokens(const std::string &scontrol, const std::string &job) {
    std::string cmd = shell_quote(scontrol) + " -o show job";
    if (!job.empty()) cmd += " " + shell_quote(job) + " 2>/dev/null";
    std::FILE *p = popen(cmd.c_str(), "r");
    if (!p) throw std::runtime_error("cannot run " + cmd + ": " + std::strerror(errno));
    std::vector<std::pair<std::string, std::string>> out;
    char *buf = nullptr;
    size_t cap = 0;
    while (getline(&buf, &cap, p) >= 0) {
        std::string_view line(buf);
        size_t ac = line.find(" AdminComment=");
        if (ac == std::string_view::npos) continue;
        std::string_view admin = line.substr(ac + 14);
        if (size_t c = admin.find(" Comment="); c != std::string_view::npos) admin = admin.substr(0, c);
        std::string token = extract_jfp_token(std::string(admin));
        if (token.size() != 16) continue;
        std::string id = field(line, "JobId=");
        if (id.empty()) continue;
        out.emplace_back(id, token);
        std::string array = field(line, "ArrayJobId="), task = field(line, "ArrayTaskId=");
        if (!array.empty() && !task.empty()) out.emplace_back(array + "_" + task, token);
    }
    std::free(buf);
    int rc = pclose(p);
    if (rc != 0 && job.empty()) throw std::runtime_error("scontrol failed (" + cmd + ", status " + std::to_string(rc) + ")");
    return out;
}

}  // namespace jfp
