// Files other processes read whole (the model bundle, the metrics file): written beside their place,
// synced, and renamed over it, so a reader sees the old file or the new one, never half of one.
#pragma once

#include <sys/types.h>

#include <string>

namespace jfp {

// A new file "<path>.<tag>.<pid>" holding text, with mode, synced; returns its name. Throws
// std::runtime_error naming the file and the error.
std::string write_beside(const std::string &path, const std::string &text, mode_t mode, const char *tag, bool sync = true);
// rename(2) tmp over path; on failure removes tmp and throws.
void rename_into_place(const std::string &tmp, const std::string &path);
// fsync(2) of the directory holding path: renames in it survive a crash.
void sync_directory_of(const std::string &path);
// Both, then the directory synced (sync false: neither the file nor the directory, for files another
// writing soon replaces anyway).
void write_file_atomically(const std::string &path, const std::string &text, mode_t mode, const char *tag = "tmp",
                           bool sync = true);

}  // namespace jfp
