#include "model/runtime/archive_handoff.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "model/request/request_caps.h"

namespace jfp {

namespace {

// The environment's entries an archive keeps: whole entries, in order, while their bytes (each with its
// NUL) fit kArchiveHead. lens: the first kLens entries' lengths, so the copy need not measure them again.
struct EnvExtent {
    static constexpr size_t kLens = 256;  // sbatch sends ~50-200 entries; more are measured again
    size_t bytes = 0, entries = 0;
    uint32_t lens[kLens];
};

void measure_env(const SubmitRequest &req, EnvExtent &x) {
    for (; x.entries < req.env_count; ++x.entries) {
        const char *v = req.env[x.entries];
        const size_t n = v ? strnlen(v, RequestCaps::kArchiveHead) + 1 : 0;
        if (x.bytes + n > RequestCaps::kArchiveHead) break;
        if (x.entries < EnvExtent::kLens) x.lens[x.entries] = static_cast<uint32_t>(n);
        x.bytes += n;
    }
}

// As /proc/PID/environ: NAME=value, each ended by its NUL (measure_env put every NUL within x.bytes).
void copy_env(const SubmitRequest &req, const EnvExtent &x, char *out) {
    char *const end = out + x.bytes;
    for (size_t i = 0; i < x.entries && out; ++i) {
        const char *v = req.env[i];
        if (!v) continue;
        if (i < EnvExtent::kLens) {
            std::memcpy(out, v, x.lens[i]);
            out += x.lens[i];
        } else {
            out = static_cast<char *>(memccpy(out, v, '\0', static_cast<size_t>(end - out)));
        }
    }
}

}  // namespace

// The submit path's share of archiving: one copy of the script (and environment) into the queue, when
// the budget has room; hashing, compression and SQLite happen on the archive's thread.
void hand_to_archive(ScriptArchiveWriter &w, const SubmitRequest &req, const JobRequest &r, const JoinToken &token, bool with_env,
                     const std::string &cluster) {
    // What the archive keeps is bounded like everything else a user sizes (request_caps.h): a head of the
    // script, and the environment's entries that fit the same size (its entries were capped by normalise()).
    const size_t script_bytes = std::min(r.script.size(), RequestCaps::kArchiveHead);
    const bool env = with_env && req.env && req.env_count;
    EnvExtent ex;
    if (env) measure_env(req, ex);
    auto bytes = static_cast<int64_t>(script_bytes + ex.bytes + sizeof(ScriptArchiveEntry));
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
    char *text = e.allocate(script_bytes, ex.bytes);
    if (script_bytes) std::memcpy(text, r.script.data(), script_bytes);
    if (env) {
        copy_env(req, ex, text + script_bytes);
        e.has_env = true;
    }
    w.push(std::move(e), bytes);
}

}  // namespace jfp
