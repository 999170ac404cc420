#include "tools/scripts/script_find.h"

#include <cstdarg>
#include <cstdio>
#include <optional>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "model/jobs/outcome.h"
#include "model/util/text.h"
#include "model/util/time_util.h"
#include "tools/ingest/slurm_queue.h"

namespace jfp {

namespace {

__attribute__((format(printf, 1, 2))) std::string line(const char *fmt, ...) {
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    const int n = std::vsnprintf(nullptr, 0, fmt, ap);
    va_end(ap);
    std::string s(n > 0 ? static_cast<size_t>(n) + 1 : 1, '\0');
    std::vsnprintf(s.data(), s.size(), fmt, again);
    va_end(again);
    s.pop_back();
    return s;
}

}  // namespace

std::vector<LocatedScript> find_scripts(const ArchivePaths &paths, const FindRequest &req) {
    ScriptArchive archive(paths.archive, ScriptArchive::Access::ReadOnly);
    auto store = open_history_store(paths, !req.state.empty(), "--state");
    ArchiveQuery q;
    q.user = req.user;
    q.name = req.name;
    q.since = req.since;
    q.until = req.until;
    // With a state filter, rows are filtered after the join: read them all, stop at the limit.
    if (req.state.empty()) q.limit = req.limit;
    std::vector<LocatedScript> rows;
    // Jobs not ingested yet: their ids from slurmctld's queue (as `jfp scripts show ID` finds them), read
    // once, when a row needs it.
    std::optional<std::unordered_map<std::string, std::string>> queued;  // token -> job id
    auto queued_id = [&](const std::string &token) -> std::string {
        if (!queued) {
            queued.emplace();
            try {
                for (auto &[id, t] : queue_tokens(req.squeue)) (*queued)[t] = id;
            } catch (const std::exception &) {  // no squeue here (an archive copied elsewhere): ids stay unknown
            }
        }
        auto it = queued->find(token);
        return it == queued->end() ? std::string() : it->second;
    };
    for (auto &s : archive.find(q)) {
        LocatedScript f;
        f.sub = std::move(s);
        if (store) f.job = store->job_with_token(f.sub.token);
        if (f.job) f.job_id = f.job->job_id;
        else if (req.state.empty()) f.job_id = queued_id(f.sub.token);
        if (!req.state.empty() && (!f.job || (f.job->state != req.state && outcome_name(f.job->outcome) != req.state))) continue;
        rows.push_back(std::move(f));
        if (req.limit && rows.size() >= req.limit) break;
    }
    return rows;
}

std::string found_scripts_json(const std::vector<LocatedScript> &rows) {
    auto arr = nlohmann::json::array();
    for (const auto &f : rows)
        arr.push_back({{"job_id", f.job_id.empty() ? nlohmann::json() : nlohmann::json(f.job_id)},
                       {"token", f.sub.token},
                       {"cluster", f.sub.cluster},
                       {"submitted", format_sacct_time(f.sub.submitted)},
                       {"user", f.sub.user},
                       {"name", f.sub.name},
                       {"work_dir", f.sub.work_dir},
                       {"state", f.job ? nlohmann::json(state_of(f)) : nlohmann::json()},
                       {"script_sha256", f.sub.script_hash},
                       {"script_bytes", f.sub.script_bytes},
                       {"env_kept", !f.sub.env_hash.empty()}});
    return arr.dump(2, ' ', true, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string found_scripts_table(const std::vector<LocatedScript> &rows) {
    std::string out = line("%-14s %-19s %-12s %-24s %-14s %9s  %s\n", "JOBID", "SUBMITTED", "USER", "NAME", "STATE", "BYTES", "SCRIPT");
    for (const auto &f : rows)
        out += line("%-14s %-19s %-12s %-24s %-14s %9lld  %s\n", f.job_id.empty() ? "-" : printable(f.job_id).c_str(),
                    format_sacct_time(f.sub.submitted).c_str(), printable(f.sub.user).c_str(), printable(f.sub.name).c_str(),
                    printable(state_of(f)).c_str(), static_cast<long long>(f.sub.script_bytes),
                    printable(f.sub.script_hash.substr(0, 12)).c_str());
    return out;
}

}  // namespace jfp
