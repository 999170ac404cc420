#include "tools/prune/prune_request.h"

#include <unistd.h>

#include <stdexcept>

namespace jfp {

void require_prune_file(const std::string &path, const char *what, const char *option) {
    if (::access(path.c_str(), F_OK) != 0)
        throw std::runtime_error(std::string("no ") + what + " at " + path + ": nothing to prune (check " + option +
                                 ", or the path in jfp.conf)");
}

void throw_prune_busy(const SqliteError &e, const std::string &path, const char *who, const std::string &state) {
    const int code = e.code() & 0xff;
    if (code == SQLITE_BUSY)
        throw std::runtime_error(path + ": " + who + " held it for more than 5 s (" + e.what() + "); " + state +
                                 ": run the same jfp prune again");
    if (code == SQLITE_LOCKED)
        throw std::runtime_error(path + ": locked by " + who + " (" + e.what() + "); " + state +
                                 ": run the same jfp prune again");
    throw;
}

}  // namespace jfp
