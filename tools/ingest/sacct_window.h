// The window jfp ingest --from-sacct asks sacct for: from the store's latest end minus an overlap (slurmdbd
// may complete a job's record seconds after it ended, and an overlapping window picks the full record up)
// to a day ahead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace jfp {

// sacct's --starttime: latest_end - overlap, a store's end in the future counted as now (one written
// before ingest refused such ends must not stop the window); "now-7days" for an empty store.
std::string sacct_window_start(std::optional<int64_t> latest_end, int64_t now, int64_t overlap);

// The arguments after the program: every user's jobs in the window, then the site's own (--sacct-arg).
std::vector<std::string> sacct_window_args(const std::string &start, const std::vector<std::string> &extra);

}  // namespace jfp
