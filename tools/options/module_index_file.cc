#include "tools/options/module_index_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace jfp {

std::string read_file_capped(const std::string &path, size_t max, const char *what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + std::string(what) + " " + path + ": " + std::strerror(errno));
    std::string text(max + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    if (text.size() > max)
        throw std::runtime_error(std::string(what) + " " + path + " is larger than " + std::to_string(max >> 20) + " MiB");
    return text;
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
