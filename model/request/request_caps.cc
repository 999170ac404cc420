#include "model/request/request_caps.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

namespace jfp {

namespace {

std::string_view cut(std::string_view s, size_t cap) {
    if (s.empty()) return s;
    if (const void *nul = std::memchr(s.data(), '\0', std::min(s.size(), cap)))
        return s.substr(0, static_cast<size_t>(static_cast<const char *>(nul) - s.data()));
    return s.substr(0, std::min(s.size(), cap));
}

}  // namespace

void normalise(SubmitRequest &r) {
    using C = RequestCaps;
    r.name = cut(r.name, C::kName);
    r.comment = cut(r.comment, C::kComment);
    r.account = cut(r.account, C::kAccount);
    r.qos = cut(r.qos, C::kQos);
    r.partition = cut(r.partition, C::kPartition);
    r.tres_per_job = cut(r.tres_per_job, C::kTres);
    r.tres_per_node = cut(r.tres_per_node, C::kTres);
    r.tres_per_task = cut(r.tres_per_task, C::kTres);
    r.tres_per_socket = cut(r.tres_per_socket, C::kTres);
    r.array_inx = cut(r.array_inx, C::kArrayInx);
    r.work_dir = cut(r.work_dir, C::kWorkDir);
    r.dependency = cut(r.dependency, C::kDependency);
    r.submit_line = cut(r.submit_line, C::kSubmitLine);
    // What slurmctld writes to disk and runs is the script up to its first NUL.
    r.script = cut(r.script, r.script.size());
    if (r.env_count > C::kEnvEntries) r.env_count = C::kEnvEntries;
}

std::vector<std::string_view> partition_entries(std::string_view list, size_t max_entries) {
    std::vector<std::string_view> out;
    std::unordered_set<std::string_view> seen;
    size_t start = 0;
    while (start <= list.size() && out.size() < max_entries) {
        size_t comma = list.find(',', start);
        std::string_view e = list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        if (!e.empty()) {
            // A list of one or two (nearly every job) is compared directly; a long one through the set.
            bool dup = out.size() < 8 ? std::find(out.begin(), out.end(), e) != out.end() : !seen.insert(e).second;
            if (!dup) {
                out.push_back(e);
                if (out.size() == 8) seen.insert(out.begin(), out.end());
            }
        }
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

}  // namespace jfp
