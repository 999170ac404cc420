// A file the plugin reloads when it changes (jfp.conf, the model, slurm.conf, the module index): what it
// looked like when last read, and the error last said about it, so that a file that stays broken is said
// once and a fault that keeps changing at most once a minute (FaultLog).
#pragma once

#include <string>

#include "model/files/file_check.h"
#include "model/util/log.h"

namespace jfp {

class WatchedFile {
public:
    // True when path differs from the last look's, or its file does (stat: inode, size, times); remembers both.
    bool changed(const std::string &path);
    const FileSig &sig() const { return sig_; }
    const std::string &path() const { return path_; }
    bool path_changed(const std::string &path) const { return path != path_; }

    // A load that failed with err: true when err is not the error said last (the caller then says its line,
    // through report() or at its own level).
    bool new_error(const std::string &err);
    void report(const std::string &line, const std::string &err) { faults_.report(line, err); }
    bool failing() const { return !last_error_.empty(); }
    void loaded();  // the fault is over
    void tick() { faults_.tick(); }

private:
    std::string path_;
    FileSig sig_;
    bool looked_ = false;
    std::string last_error_;
    FaultLog faults_{60};
};

}  // namespace jfp
