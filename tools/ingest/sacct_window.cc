#include "tools/ingest/sacct_window.h"

#include "model/util/time_util.h"

namespace jfp {

std::string sacct_window_start(std::optional<int64_t> latest_end, int64_t now, int64_t overlap) {
    if (!latest_end) return "now-7days";
    int64_t end = *latest_end > now ? now : *latest_end;
    return format_sacct_time(end - overlap);
}

std::vector<std::string> sacct_window_args(const std::string &start, const std::vector<std::string> &extra) {
    std::vector<std::string> args = {"--allusers", "--starttime", start, "--endtime", "now+1days"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

}  // namespace jfp
