#include "tools/modules/lmod_spider.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "model/files/file_check.h"
#include "model/files/unique_fd.h"
#include "model/util/text.h"
#include "tools/modules/module_index_file.h"
#include "tools/process/subprocess.h"

namespace jfp {

std::string find_spider(const std::string &given) {
    if (!given.empty()) return given;
    std::vector<std::string> candidates;
    if (const char *d = std::getenv("LMOD_DIR"); d && *d) candidates.push_back(std::string(d) + "/spider");
    candidates.push_back("/usr/share/lmod/lmod/libexec/spider");  // Debian's lmod, and EPEL's Lmod
    for (const auto &c : candidates)
        if (::access(c.c_str(), X_OK) == 0) return c;
    throw std::runtime_error("Lmod's spider not found (looked at $LMOD_DIR/spider and " + candidates.back() +
                             "): install Lmod (Debian: lmod) or name it with --spider");
}

std::string run_spider(const std::string &spider, const std::string &modulepath) {
    SubprocessOptions opt;
    opt.max_stdout = kMaxModuleIndexBytes;
    opt.hint = "nothing written";
    return run_program({spider, "-o", "spider-json", modulepath}, opt).out;
}

std::string spider_output_file(const std::string &path) {
    auto refuse = [&](const std::string &why) {
        return std::runtime_error(path + " (--from) " + why + "; nothing written (let root's shell write the spider's "
                                  "output into a directory root owns: admin guide, \"Module checks\")");
    };
    const std::string dir = dir_of(path);
    struct stat ds {};
    if (::stat(dir.c_str(), &ds) == 0 && (ds.st_mode & (S_IWGRP | S_IWOTH)))
        throw refuse("is in " + dir + ", mode " + file_mode_text(ds.st_mode) + ", where users other than its owner can create files");
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd.valid()) {
        if (errno == ELOOP) throw refuse("is a symbolic link");
        throw std::runtime_error("cannot read " + path + " (--from): " + std::strerror(errno) + "; nothing written");
    }
    std::optional<std::string> text;
    try {
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0) throw std::runtime_error("cannot read " + path + " (--from): " + std::strerror(errno));
        if (!S_ISREG(st.st_mode)) throw refuse("is not a regular file");
        if (st.st_mode & (S_IWGRP | S_IWOTH))
            throw refuse("has mode " + file_mode_text(st.st_mode) + ": users other than its owner could have written it");
        text = read_fd_capped(fd.get(), kMaxModuleIndexBytes);
    } catch (const std::system_error &e) {
        throw std::runtime_error("cannot read " + path + " (--from): " + std::strerror(e.code().value()) + "; nothing written");
    }
    if (!text)
        throw std::runtime_error("the spider's output " + path + " (--from) is larger than " +
                                 std::to_string(kMaxModuleIndexBytes >> 20) + " MiB, more than the plugin reads; nothing written");
    return std::move(*text);
}

}  // namespace jfp
