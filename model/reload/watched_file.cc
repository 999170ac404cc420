#include "model/reload/watched_file.h"

namespace jfp {

bool WatchedFile::changed(const std::string &path) {
    FileSig s = path.empty() ? FileSig() : file_sig(path);
    const bool differs = !looked_ || path != path_ || s != sig_;
    looked_ = true;
    path_ = path;
    sig_ = s;
    return differs;
}

bool WatchedFile::new_error(const std::string &err) {
    if (err == last_error_) return false;
    last_error_ = err;
    return true;
}

void WatchedFile::loaded() {
    last_error_.clear();
    faults_.clear();
}

}  // namespace jfp
