// The jfp units as systemd will run them, for jfp check: the unit file systemd picks, then its drop-ins, read
// for the few settings that decide what the unit may write and as whom (User=, ReadWritePaths=,
// ProtectSystem=, PrivateTmp=, ProtectHome=), and whether it (or the timer that starts it) is enabled.
// No systemd is asked: jfp check runs where systemd may not (a container, a chroot, --root).
#pragma once

#include <string>
#include <vector>

#include "tools/check/site_check.h"

namespace jfp {

struct UnitFile {
    std::string name;                 // jfp-ingest.service
    std::string path;                 // the file systemd uses; empty when not installed (or masked)
    std::vector<std::string> dropins; // in the order systemd applies them
    bool enabled = false;             // the service, or the timer that starts it, is in a .wants/ directory
    std::string user;                 // User=; empty: root
    std::string protect_system;       // ProtectSystem=, lower case; empty when unset
    bool private_tmp = false;
    std::string protect_home;         // ProtectHome=, lower case; empty when unset
    std::vector<std::string> read_write_paths;  // after empty assignments reset the list; -/+ prefixes removed
};

// root: "" for the running system, else a directory standing for / (as systemctl --root). timer: the
// timer unit that starts this service ("" for none).
UnitFile read_unit(const std::string &root, const std::string &name, const std::string &timer);

// Empty when the unit may write files in `dir`; else why not, in a sentence.
std::string sandbox_blocks_write(const UnitFile &unit, const std::string &dir);

// What each shipped unit writes, from jfp.conf.
struct UnitWrites {
    std::string store, model, feature_log, script_archive;  // script_archive empty: none kept
};

// The shipped units that are enabled, against SlurmUser and the paths they write: a unit that runs as
// another user, or whose sandbox hides a path, is a problem with its drop-in as the fix. slurm_user empty:
// unknown (no User= comparison). Units not installed give nothing.
std::vector<Finding> check_units(const std::string &root, const UnitWrites &writes, const std::string &slurm_user,
                                 const std::string &slurm_group);

}  // namespace jfp
