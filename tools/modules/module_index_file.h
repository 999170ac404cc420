// The site's module index file (jfp modules index writes it; modules_index in jfp.conf names it), read by
// the commands that check scripts against it as the plugin reads it: at most 64 MiB.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "model/script/module_index.h"

namespace jfp {

// What the plugin reads at most (model/runtime: kMaxModulesIndexBytes).
constexpr size_t kMaxModuleIndexBytes = size_t{64} << 20;

// A file's text, at most max bytes; throws naming the file (as what) when it cannot be read or is larger.
std::string read_file_capped(const std::string &path, size_t max, const char *what);
// What an open descriptor reads to its end, at most max bytes: nullopt when there is more (the caller
// says what that means). Throws std::system_error on a read error.
std::optional<std::string> read_fd_capped(int fd, size_t max);

// Throws naming the file and what is wrong with it.
ModuleIndex read_module_index(const std::string &path);

// For the commands whose index is optional: the index at path, or null with why_not set ("no module index
// (HOW_TO_NAME_ONE)" when path is empty, else what read_module_index said).
std::unique_ptr<ModuleIndex> optional_module_index(const std::string &path, const char *how_to_name_one, std::string &why_not);

}  // namespace jfp
