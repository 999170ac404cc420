// Where jfp's files live, as a site built with NFS and a backup controller meets them: the file system of
// each file the plugin and the CLI write (a WAL database on a shared file system is a problem), and with
// two controllers, whether both see the same store, feature log and archive.
#pragma once

#include <string>
#include <vector>

#include "tools/check/site_check.h"

namespace jfp {

struct StoredFile {
    std::string what;  // "store", "feature log", ...
    std::string path;  // empty: not configured
    bool sqlite = true;
};

// controllers: slurm.conf's SlurmctldHost names, primary first; state_save: its StateSaveLocation.
std::vector<Finding> check_storage(const std::vector<StoredFile> &files, const std::vector<std::string> &controllers,
                                   const std::string &state_save);

}  // namespace jfp
