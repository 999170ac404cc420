// Change detection by stat(2), and the trust check for files a root daemon acts on: like ssh with its
// keys, a model or config that someone other than root or SlurmUser could have written is refused.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace jfp {

struct FileSig {
    bool exists = false;
    int64_t mtime_ns = -1;  // -1: never looked at (differs from any stat result, "missing" included)
    int64_t ctime_ns = 0;   // chmod/chown change it: a file made trustworthy is looked at again
    int64_t size = 0;
    uint64_t inode = 0;
    bool operator==(const FileSig &o) const {
        return exists == o.exists && mtime_ns == o.mtime_ns && ctime_ns == o.ctime_ns && size == o.size &&
               inode == o.inode;
    }
    bool operator!=(const FileSig &o) const { return !(*this == o); }
};

FileSig file_sig(const std::string &path);

// The directory a path names its file in: "." for a bare name, "/" for a file at the root.
std::string dir_of(const std::string &path);
// The path of a file named `name` in the same directory as `path` ("/etc/slurm/slurm.conf", "jfp.conf" ->
// "/etc/slurm/jfp.conf"; "/x" -> "/jfp.conf", not "//jfp.conf").
std::string path_beside(const std::string &path, const std::string &name);

// A file's permission bits as chmod takes them: "0644" (the type bits dropped).
std::string file_mode_text(unsigned mode);

// Empty when the file and its directory are owned by a trusted uid and writable by nobody else (group or
// others), or the directory is sticky; otherwise says what is wrong and how to fix it.
std::string trust_problem(const std::string &path, const std::vector<uid_t> &trusted);

// Reads a file a root daemon acts on, checking what it opened rather than what the path named a moment
// before (no check-then-use): a symlink must itself belong to a trusted uid (a user's link in a sticky
// directory is refused), and the file is checked by fstat of the descriptor it is read from. At most
// max_bytes are read; *too_big says there was more (then out is empty).
struct TrustedRead {
    std::string problem;  // empty: out holds the file
    bool too_big = false;
    std::string out;
};
TrustedRead read_trusted_file(const std::string &path, const std::vector<uid_t> &trusted, size_t max_bytes);

// The same checks, leaving the file open for a reader that streams it (the history snapshot).
class TrustedFile {
public:
    TrustedFile(const std::string &path, const std::vector<uid_t> &trusted);
    ~TrustedFile();
    TrustedFile(const TrustedFile &) = delete;
    TrustedFile &operator=(const TrustedFile &) = delete;
    int fd() const { return fd_; }          // -1 unless problem() is empty
    const std::string &problem() const { return problem_; }
    int64_t size() const { return size_; }  // as fstat saw it when opened

private:
    int fd_ = -1;
    std::string problem_;
    int64_t size_ = 0;
};

}  // namespace jfp
