// A module tree on disk, as `jfp modules index` looks at it before Lmod's spider reads it: its directories
// (MODULEPATH's, each there and not empty) and the entries someone other than root or this user could
// have written.
#pragma once

#include <sys/stat.h>

#include <ftw.h>

#include <functional>
#include <string>
#include <vector>

namespace jfp {

// nftw(3) with a callable (nftw takes a plain function); links are not followed. A non-zero return stops
// the walk.
using TreeVisit = std::function<int(const char *path, const struct stat *st, int type, const FTW *f)>;
void walk_tree(const std::string &dir, const TreeVisit &visit);

// The first file or directory under dir that someone other than root or this process's user could have
// written (owned by another user, or writable by group or others), or empty. Lmod's spider runs each
// modulefile it reads as this process: such a file is someone else's code running as us. A symbolic
// link's own mode means nothing. At most 500,000 entries are looked at.
std::string untrusted_entry(const std::string &dir);

// MODULEPATH's directories, in order, empty entries skipped.
std::vector<std::string> modulepath_dirs(const std::string &modulepath);

// Throws, naming the directory, when one is not a directory here or is empty: a file system not mounted
// would leave its modules out of the index, and the plugin would tell users they do not exist.
void check_modulepath_mounted(const std::string &modulepath);

}  // namespace jfp
