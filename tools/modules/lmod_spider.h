// Lmod's spider, which lists a module tree as JSON (spider -o spider-json MODULEPATH): found, run through
// tools/process, or its output read from a file another, unprivileged user wrote (--from).
#pragma once

#include <string>

namespace jfp {

// given when not empty, else $LMOD_DIR/spider, else Debian's and EPEL's path; throws when none runs.
std::string find_spider(const std::string &given);

// The spider's JSON over modulepath, capped as the plugin reads an index; throws SubprocessError.
std::string run_spider(const std::string &spider, const std::string &modulepath);

// The spider's output another user wrote, read through one descriptor: not a symbolic link (one could point
// at any file this user may read, and the index is written world-readable), not a FIFO (one would hang
// us), not writable by group or others, in a directory group and others cannot write (in /tmp anyone can
// leave a file). Capped as the plugin reads an index.
std::string spider_output_file(const std::string &path);

}  // namespace jfp
