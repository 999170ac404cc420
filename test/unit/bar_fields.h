// A sacct row as the tests write it, split at '|' into views of it.
#pragma once

#include <string_view>
#include <vector>

#include "model/util/text.h"

namespace jfp::test {

inline std::vector<std::string_view> bar_fields(std::string_view s) {
    std::vector<std::string_view> out;
    split_into(s, '|', out);
    return out;
}

}  // namespace jfp::test
