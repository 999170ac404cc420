// Slurm's hostlist expressions ("node[01-04,7],gpu1"), as slurm.conf writes NodeName= and a partition's
// Nodes=: expanded to names in Slurm's order. Admin text, but bounded all the same: at most `cap` names.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace jfp {

// The names, in order; false (and a partial list) when the expression is malformed or holds more than cap.
bool expand_hostlist(std::string_view expr, size_t cap, std::vector<std::string> &out);

}  // namespace jfp
