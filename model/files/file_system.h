// Which file system a file jfp writes lives on, and the SQLite journal mode it can keep. WAL keeps its
// index in memory shared by the processes of one host (the -shm file is mapped), so on a network or
// cluster file system a second host, or the server's cache, can see a torn database. There jfp uses
// SQLite's rollback journal, which needs only the file system's POSIX locks (NFSv4, or NFSv3 with lockd).
#pragma once

#include <cstdint>
#include <string>

namespace jfp {

struct FileSystemKind {
    std::string name = "unknown";  // "ext4", "nfs", "lustre", ...; the magic in hex when not in jfp's table
    uint64_t magic = 0;
    bool network = false;          // shared between hosts: WAL is unsafe there
    bool known = false;            // statfs answered
};

// statfs(2) of path, or of its nearest existing directory when path does not exist yet.
FileSystemKind file_system_of(const std::string &path);

// The kind of a statfs magic number (exposed for tests and for jfp check's wording).
FileSystemKind file_system_kind(uint64_t magic);

// Tests replace statfs: the probe returns 0 and sets magic, or an errno. The walk goes up to the parent
// only when the path does not exist (ENOENT, ENOTDIR). nullptr restores statfs.
using FileSystemProbe = int (*)(const std::string &path, uint64_t &magic);
void set_file_system_probe(FileSystemProbe probe);

// "WAL" on a local file system, "DELETE" (the rollback journal) on a network or cluster one.
const char *journal_mode_for(const FileSystemKind &fs);

// The journal mode recorded in a database file's header (bytes 18-19: 2 is WAL): "WAL", "rollback", or ""
// when the file is missing or not an SQLite database. Read through SQLite, so that a process holding
// connections to the file keeps its locks.
std::string journal_mode_in_header(const std::string &path);

}  // namespace jfp
