#include "tools/modules/module_index_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "model/files/unique_fd.h"

namespace jfp {

std::optional<std::string> read_fd_capped(int fd, size_t max) {
    std::string text;
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
        if (n < 0) {
            if (errno == EINTR) continue;
            throw std::system_error(errno, std::generic_category());
        }
        text.append(buf, static_cast<size_t>(n));
        if (text.size() > max) return std::nullopt;
    }
    return text;
}

std::string read_file_capped(const std::string &path, size_t max, const char *what) {
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) throw std::runtime_error("cannot read " + std::string(what) + " " + path + ": " + std::strerror(errno));
    std::optional<std::string> text;
    try {
        text = read_fd_capped(fd.get(), max);
    } catch (const std::system_error &e) {
        throw std::runtime_error("cannot read " + std::string(what) + " " + path + ": " + std::strerror(e.code().value()));
    }
    if (!text) throw std::runtime_error(std::string(what) + " " + path + " is larger than " + std::to_string(max >> 20) + " MiB");
    return std::move(*text);
}

ModuleIndex read_module_index(const std::string &path) {
    std::string text = read_file_capped(path, kMaxModuleIndexBytes, "the module index");
    try {
        return ModuleIndex::parse(text);
    } catch (const std::runtime_error &e) {
        throw std::runtime_error("module index " + path + ": " + e.what());
    }
}

std::unique_ptr<ModuleIndex> optional_module_index(const std::string &path, const char *how_to_name_one, std::string &why_not) {
    if (path.empty()) {
        why_not = std::string("no module index (") + how_to_name_one + ")";
        return nullptr;
    }
    try {
        return std::make_unique<ModuleIndex>(read_module_index(path));
    } catch (const std::exception &e) {
        why_not = e.what();
        return nullptr;
    }
}

}  // namespace jfp
