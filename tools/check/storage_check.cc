#include "tools/check/storage_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include "model/files/file_check.h"
#include "model/files/file_system.h"

namespace jfp {

namespace {

using Level = Finding::Level;

// The device of path, or of its nearest existing directory.
bool device_of(const std::string &path, dev_t &dev) {
    std::string p = path;
    for (int depth = 0; depth < 256; ++depth) {
        struct stat st {};
        if (::stat(p.c_str(), &st) == 0) {
            dev = st.st_dev;
            return true;
        }
        std::string up = dir_of(p);
        if (up == p) return false;
        p = up;
    }
    return false;
}

std::string host_name() {
    char h[256] = {0};
    if (::gethostname(h, sizeof h - 1) != 0) return "";
    std::string s = h;
    return s.substr(0, s.find('.'));
}

std::string join(const std::vector<std::string> &v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i] + (i == 0 ? " (primary)" : " (backup)");
    return out;
}

}  // namespace

std::vector<Finding> check_storage(const std::vector<StoredFile> &files, const std::vector<std::string> &controllers,
                                   const std::string &state_save) {
    std::vector<Finding> out;
    const bool backup = controllers.size() > 1;
    dev_t state_dev = 0;
    const bool have_state = backup && !state_save.empty() && device_of(state_save, state_dev);
    if (backup) {
        std::string me = host_name();
        bool listed = false;
        for (const auto &c : controllers) listed = listed || c.substr(0, c.find('.')) == me;  // names may be FQDNs
        Finding f;
        f.what = "slurm.conf names " + std::to_string(controllers.size()) + " controllers: " + join(controllers) +
                 "; this host is " + (me.empty() ? "unnamed" : me);
        if (!listed) {
            f.level = Level::Warning;
            f.fix = "run jfp check on each controller: the files are checked as this host sees them";
        }
        out.push_back(f);
    }
    for (const StoredFile &sf : files) {
        if (sf.path.empty()) continue;
        FileSystemKind fs = file_system_of(sf.path);
        const std::string where = "the " + sf.what + " " + sf.path + " is on " + fs.name;
        if (fs.network && sf.sqlite && journal_mode_in_header(sf.path) == "WAL") {
            out.push_back({Level::Problem,
                           where + ", shared between hosts, in SQLite's WAL mode: WAL's index is memory shared on one "
                                   "host, so another host reads it torn, and the plugin refuses it",
                           "stop slurmctld on every controller and jfp ingest --follow, run the jfp command that writes it "
                           "once (jfp ingest for the store; the plugin for the feature log and archive) or sqlite3 " +
                               sf.path + " 'PRAGMA journal_mode=DELETE'"});
            continue;
        }
        if (fs.network && sf.sqlite) {
            out.push_back({Level::Warning,
                           where + ", shared between hosts: jfp keeps it in SQLite's rollback journal there, which is "
                                   "only as safe as the file system's POSIX locks",
                           "mount with working locks (NFSv4, or NFSv3 with lockd; never 'nolock'), and run jfp ingest, "
                           "retrain and prune on one host (docs/admin-guide.md, \"Network file systems\")"});
            continue;
        }
        if (fs.network) {
            out.push_back({Level::Ok, where + ", shared between hosts: replaced by rename, read by both controllers", ""});
            continue;
        }
        dev_t dev = 0;
        if (have_state && device_of(sf.path, dev) && dev != state_dev) {
            out.push_back({Level::Warning,
                           where + ", local to this host, not on StateSaveLocation's file system (" + state_save +
                               "): after a takeover the other controller " +
                               (sf.sqlite ? "keeps its own copy, and jobs are split between hosts" : "reads its own copy"),
                           "keep jfp's files where both controllers see them, beside StateSaveLocation "
                           "(docs/admin-guide.md, \"Backup controllers\")"});
            continue;
        }
        out.push_back({Level::Ok,
                       where + ", local to this host" +
                           (have_state ? ", on the same file system as StateSaveLocation" : "") +
                           (sf.sqlite ? std::string(": SQLite's WAL mode") : std::string()),
                       ""});
    }
    return out;
}

}  // namespace jfp
