// The rc files of a module tree (.modulerc.lua, .modulerc at any depth) and Lmod's global ones, and the
// names they make loadable (model/script/module_rc.h): aliases and symbolic versions, which Lmod loads
// but its spider does not list. They are added to the spider's output as module files of their own so
// that the plugin finds them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/script/module_index.h"

namespace jfp {

struct RcNames {
    std::vector<std::pair<std::string, std::string>> names;  // (full name, the rc file that gives it)
    size_t files = 0;
};

// The rc files under root, at any depth (at most 10,000 names; a file over 1 MiB is skipped).
void read_rc_files(std::string root, RcNames &out);

// Lmod's global rc files: $LMOD_MODULERCFILE's (colon-separated), then /etc/lmod and Lmod's own etc.
void read_global_rc_files(RcNames &out);

// The spider's JSON with every rc name added under its module (a symbolic version) or as a module of its
// own (an alias), each entry named "FILE#NAME" and marked jfpFrom.
std::string add_rc_names(const std::string &spider_json, const ModuleIndex &ix, const RcNames &rc);

}  // namespace jfp
