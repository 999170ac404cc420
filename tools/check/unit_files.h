// The jfp units as systemd will run them, for jfp check: the unit file systemd picks, then its drop-ins, read
// for the settings that decide as whom the unit runs and what it may write (User=, DynamicUser=,
// ProtectSystem=, ReadWritePaths=, StateDirectory=, PrivateTmp=, ProtectHome=), and whether it (or the
// timer that starts it) is enabled. No systemd is asked: jfp check runs where systemd may not (a container,
// a chroot, --root). Not read: ReadOnlyPaths=, InaccessiblePaths=, BindPaths=, specifiers beyond the
// directory ones (%S %C %L %t %T %V %%).
#pragma once

#include <string>
#include <vector>

#include "tools/check/site_check.h"

namespace jfp {

struct UnitFile {
    std::string name;                 // jfp-ingest.service
    std::string path;                 // the file systemd uses; empty when not installed, or masked
    bool masked = false;
    bool enabled = false;             // the service, or the timer that starts it, is wanted or required
    std::string user;                 // User=; empty: root (or the dynamic user)
    bool dynamic_user = false;
    std::string protect_system;       // ProtectSystem=: "no", "yes", "full" or "strict"
    bool private_tmp = false;
    std::string protect_home;         // ProtectHome=: "no", "yes", "read-only" or "tmpfs"
    std::vector<std::string> read_write_paths;  // ReadWritePaths=, absolute
    std::vector<std::string> must_exist;        // those not marked '-': systemd refuses to start without them
    std::vector<std::string> state_paths;       // StateDirectory='s (/var/lib/NAME): systemd creates them

    std::vector<std::string> writable() const;
};

// root: "" for the running system, else a directory standing for / (as systemctl --root); symbolic links
// under it are followed inside it. timer: the timer unit that starts this service ("" for none).
UnitFile read_unit(const std::string &root, const std::string &name, const std::string &timer);

// Empty when the unit may write files in the directory `dir` (absolute); else why not, in a sentence.
std::string sandbox_blocks_write(const UnitFile &unit, const std::string &dir);

// What the shipped units write, from jfp.conf.
struct UnitWrites {
    std::string store, model, feature_log, script_archive;  // script_archive empty: none kept
    std::string modules_index;                              // empty: no module check
};

// The shipped units that are enabled, against SlurmUser and the directories they write: a unit that runs as
// another user, or whose sandbox hides a directory, is a problem with its drop-in as the fix. slurm_user
// empty: unknown (no user comparison). Units not installed give nothing.
std::vector<Finding> check_units(const std::string &root, const UnitWrites &writes, const std::string &slurm_user,
                                 const std::string &slurm_group);

}  // namespace jfp
