#include "model/runtime/archive_handoff.h"

#include <algorithm>
#include <cstring>

#include "model/request/request_caps.h"

namespace jfp {

// The submit path's share of archiving: one copy of the script (and environment) into the queue, when
// the budget has room; hashing, compression and SQLite happen on the archive's thread.
void hand_to_archive(ScriptArchiveWriter &w, const SubmitRequest &req, const JobRequest &r, const JoinToken &token, bool with_env,
                     const std::string &cluster) {
    // What the archive keeps is bounded like everything else a user sizes (request_caps.h): a head of the
    // script, and the environment's entries that fit the same size (its entries were capped by normalise()).
    const size_t script_bytes = std::min(r.script.size(), RequestCaps::kArchiveHead);
    const bool env = with_env && req.env && req.env_count;
    size_t env_bytes = 0, env_entries = 0;
    if (env)
        for (; env_entries < req.env_count; ++env_entries) {
            const char *v = req.env[env_entries];
            size_t n = v ? strnlen(v, RequestCaps::kArchiveHead) + 1 : 0;
            if (env_bytes + n > RequestCaps::kArchiveHead) break;
            env_bytes += n;
        }
    auto bytes = static_cast<int64_t>(script_bytes + env_bytes + sizeof(ScriptArchiveEntry));
    if (!w.reserve(bytes)) {
        w.count_drop();
        return;
    }
    ScriptArchiveEntry e;
    e.meta.token = token.str();
    e.meta.cluster = cluster;
    e.meta.submitted = r.submit_time;
    e.meta.uid = req.uid;
    e.meta.user = r.user;
    e.meta.name = r.name;
    e.meta.work_dir = req.work_dir;
    e.meta.script_bytes = static_cast<int64_t>(r.script.size());  // as submitted, when only a head is kept
    e.script.assign(r.script.substr(0, script_bytes));
    if (env) {
        e.env.reserve(env_bytes);
        for (size_t i = 0; i < env_entries; ++i) {
            if (!req.env[i]) continue;
            e.env.append(req.env[i], strnlen(req.env[i], RequestCaps::kArchiveHead));
            e.env.push_back('\0');  // as /proc/PID/environ: NAME=value, each ended by NUL
        }
        e.has_env = true;
    }
    w.push(std::move(e), bytes);
}

}  // namespace jfp
