// Whether the running slurmctld holds the job_submit_jfp.so that is installed. slurmctld loads plugins
// only at start: after a package upgrade replaced the file, it keeps running the old one (mapped, and
// "(deleted)" in /proc/PID/maps) with no word in its log, until it restarts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jfp {

struct MappedFile {
    std::string path;
    uint64_t inode = 0;
    bool deleted = false;  // the file was removed or replaced since it was mapped
};

// The first mapping in /proc/PID/maps text of a file whose name is file_name; nullopt when none.
std::optional<MappedFile> find_mapping(std::string_view maps, std::string_view file_name);

struct RunningPlugin {
    int pid = 0;
    MappedFile mapped;
    bool stale = false;       // not the installed file: deleted, or another inode than the path holds now
    std::string unreadable;   // why its maps could not be read (another user's process without root)
};

// Every process named `comm` (slurmctld) under proc_root that maps job_submit_jfp.so, against the file at
// its mapped path now.
std::vector<RunningPlugin> running_plugins(const std::string &proc_root = "/proc", const std::string &comm = "slurmctld");

// Whether two paths name the same place (their directories resolved, the file names compared): a mapped
// file may be gone, so it cannot be stat'ed itself.
bool same_file_path(const std::string &a, const std::string &b);

}  // namespace jfp
