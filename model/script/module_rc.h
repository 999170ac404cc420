// Names a module tree's rc files make loadable that Lmod's spider does not list: aliases
// (`module_alias("py", "python/3.11.4")`, TCL `module-alias py python/3.11.4`) and symbolic versions
// (`module_version("python/3.11.4", "3.11-latest")`, TCL `module-version python/3.11.4 3.11-latest`,
// `module-version /3.11.4 latest` relative to the module's own directory). Without them the module check
// would tell a user that `module load py` fails when Lmod loads it. Read from .modulerc.lua, .modulerc
// and the global rc files; a call whose arguments are not plain string literals is skipped (its name is
// not knowable without running Lua, and a name left out only means a load not recognised here).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace jfp {

// module_dir: the module's name when the rc file sits in its directory (Core/python/.modulerc.lua:
// "python"), empty for an rc at the top of a tree or a global one. Returns full names ("py",
// "python/3.11-latest"), at most max_names.
std::vector<std::string> module_rc_names(std::string_view text, std::string_view module_dir, size_t max_names = 10000);

}  // namespace jfp
