// The site's module index file (jfp modules index writes it; modules_index in jfp.conf names it), read by
// the commands that check scripts against it as the plugin reads it: at most 64 MiB.
#pragma once

#include <cstddef>
#include <string>

#include "model/script/module_index.h"

namespace jfp {

// What the plugin reads at most (model/runtime: kMaxModulesIndexBytes).
constexpr size_t kMaxModuleIndexBytes = size_t{64} << 20;

// A file's text, at most max bytes; throws naming the file (as what) when it cannot be read or is larger.
std::string read_file_capped(const std::string &path, size_t max, const char *what);

// Throws naming the file and what is wrong with it.
ModuleIndex read_module_index(const std::string &path);

}  // namespace jfp
