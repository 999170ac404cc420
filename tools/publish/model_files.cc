#include "tools/publish/model_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "model/files/atomic_file.h"

namespace jfp {

namespace {

// Temporary copies not renamed into place are removed when publishing stops early.
struct TempFiles {
    std::vector<std::string> paths;
    ~TempFiles() {
        for (const auto &p : paths) ::unlink(p.c_str());
    }
    const std::string &add(std::string p) { return paths.emplace_back(std::move(p)); }
    void done(const std::string &p) { paths.erase(std::remove(paths.begin(), paths.end(), p), paths.end()); }
};

bool exists(const std::string &path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace

std::string read_file_text(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot read: " + std::strerror(errno));
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string model_id_at(const std::string &path) {
    try {
        return ModelBundle::load_file(path).model_id();
    } catch (const std::exception &) {
        return "(unreadable)";
    }
}

std::optional<ModelBundle> load_installed_model(const std::string &target, std::string &why) {
    why.clear();
    if (!exists(target)) return std::nullopt;
    try {
        return ModelBundle::load_file(target);
    } catch (const std::exception &e) {
        why = e.what();
        return std::nullopt;
    }
}

InstalledModel install_model_text(const std::string &target, const std::string &text) {
    InstalledModel r;
    r.replaced = exists(target);
    TempFiles tmp;
    const std::string fresh = tmp.add(write_beside(target, text, 0644, "publish"));
    if (r.replaced) {
        const std::string prev = tmp.add(write_beside(target + ".previous", read_file_text(target), 0644, "publish"));
        rename_into_place(prev, target + ".previous");
        tmp.done(prev);
        r.replaced_id = model_id_at(target + ".previous");
    }
    rename_into_place(fresh, target);
    tmp.done(fresh);
    sync_directory_of(target);
    return r;
}

RolledBack roll_back_model(const std::string &target) {
    const std::string previous = target + ".previous";
    ModelBundle prev = ModelBundle::load_file(previous);  // refuse to put back what the plugin would refuse
    RolledBack r;
    r.restored_id = prev.model_id();
    r.replaced_id = exists(target) ? model_id_at(target) : "";
    // Both copies are made before anything is renamed, and .previous is replaced first: a failure in
    // between leaves the live model as it was.
    TempFiles tmp;
    const std::string hold = tmp.add(write_beside(target, read_file_text(previous), 0644, "publish"));
    std::string keep;
    if (!r.replaced_id.empty()) keep = tmp.add(write_beside(previous, read_file_text(target), 0644, "publish"));
    if (!keep.empty()) {
        rename_into_place(keep, previous);
        tmp.done(keep);
    }
    rename_into_place(hold, target);
    tmp.done(hold);
    sync_directory_of(target);
    return r;
}

}  // namespace jfp
