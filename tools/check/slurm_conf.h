// The few slurm.conf settings jfp depends on, read the way slurmctld reads them: "Key=Value" words,
// case-insensitive keys, '#' comments, Include files, the last setting winning.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace jfp {

struct SlurmConf {
    std::string path;
    bool found = false;
    std::map<std::string, std::string> values;  // lower-case key -> value
    std::vector<std::string> unreadable_includes;
    // Every SlurmctldHost (or ControlMachine, then BackupController) in order: the primary first. Names only,
    // without the "(address)".
    std::vector<std::string> controllers;

    // The value, or `fallback` when slurm.conf does not set the key.
    std::string get(const std::string &key, const std::string &fallback = "") const;
};

SlurmConf read_slurm_conf(const std::string &path);

// "jfp", "job_submit/jfp" among JobSubmitPlugins' comma list.
bool lists_jfp(const std::string &job_submit_plugins);

}  // namespace jfp
