#include "model/files/file_system.h"

#include <sys/stat.h>
#include <sys/vfs.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <sqlite3.h>

#include "model/files/file_check.h"
#include "model/files/sqlite_util.h"

namespace jfp {

namespace {

struct KnownFs {
    uint64_t magic;
    const char *name;
    bool network;
};

// From linux/magic.h and the vendors' headers. Network and cluster file systems first; FUSE is counted
// as shared because it is what sshfs, s3fs and several parallel file systems' clients mount.
constexpr std::array<KnownFs, 31> kKnown{{
    {0x6969, "nfs", true},
    {0x517B, "smb", true},
    {0xFF534D42, "cifs", true},
    {0xFE534D42, "smb2", true},
    {0x0BD00BD0, "lustre", true},
    {0x47504653, "gpfs", true},
    {0x00C36400, "ceph", true},
    {0x19830326, "beegfs", true},
    {0xAAD7AAEA, "panfs", true},
    {0x5346414F, "afs", true},
    {0x6B414653, "afs", true},
    {0x01021997, "9p", true},
    {0x01161970, "gfs2", true},
    {0x7461636F, "ocfs2", true},
    {0x73757245, "coda", true},
    {0x564C, "ncp", true},
    {0x65735546, "fuse", true},
    {0xEF53, "ext2/3/4", false},
    {0x58465342, "xfs", false},
    {0x9123683E, "btrfs", false},
    {0x2FC12FC1, "zfs", false},
    {0x01021994, "tmpfs", false},
    {0x794C7630, "overlay", false},
    {0xF2F52010, "f2fs", false},
    {0x4D44, "vfat", false},
    {0x5346544E, "ntfs", false},
    {0x3153464A, "jfs", false},
    {0x52654973, "reiserfs", false},
    {0x858458F6, "ramfs", false},
    {0x62656572, "sysfs", false},
    {0x9FA0, "proc", false},
}};

int statfs_probe(const std::string &path, uint64_t &magic) {
    struct statfs s {};
    if (::statfs(path.c_str(), &s) != 0) return errno;
    magic = static_cast<uint64_t>(static_cast<uint32_t>(s.f_type));
    return 0;
}

std::atomic<FileSystemProbe> g_probe{statfs_probe};

}  // namespace

FileSystemKind file_system_kind(uint64_t magic) {
    FileSystemKind k;
    k.magic = magic;
    k.known = true;
    for (const KnownFs &f : kKnown)
        if (f.magic == magic) {
            k.name = f.name;
            k.network = f.network;
            return k;
        }
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(magic));
    k.name = hex;
    return k;
}

FileSystemKind file_system_of(const std::string &path) {
    FileSystemProbe probe = g_probe.load();
    std::string p = path;
    for (int depth = 0; depth < 256; ++depth) {
        uint64_t magic = 0;
        int err = probe(p, magic);
        if (err == 0) return file_system_kind(magic);
        // Only a path that is not there yet is judged by its directory: a refusal (EACCES on a FUSE mount
        // of another user) says nothing about the parent's file system.
        if (err != ENOENT && err != ENOTDIR) break;
        std::string up = dir_of(p);
        if (up == p) break;
        p = up;
    }
    return FileSystemKind{};
}

void set_file_system_probe(FileSystemProbe probe) { g_probe.store(probe ? probe : statfs_probe); }

const char *journal_mode_for(const FileSystemKind &fs) { return fs.network ? "DELETE" : "WAL"; }

std::string journal_mode_in_header(const std::string &path) {
    // Read through SQLite's own file handle, never open()+close(): closing any descriptor of a file drops
    // every POSIX lock this process holds on it, SQLite's connections' included (a reader's lock lost, a
    // writer elsewhere takes itself for the last one and deletes the WAL under it). SQLite's VFS keeps
    // such a descriptor open until its other connections release their locks.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
    sqlite3 *db = nullptr;
    std::string mode;
    configure_sqlite_once();
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_file *f = nullptr;
        unsigned char h[20] = {0};
        if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &f) == SQLITE_OK && f && f->pMethods &&
            f->pMethods->xRead(f, h, sizeof h, 0) == SQLITE_OK &&
            std::string(reinterpret_cast<char *>(h), 16) == std::string("SQLite format 3\0", 16))
            mode = h[18] == 2 && h[19] == 2 ? "WAL" : "rollback";
    }
    sqlite3_close(db);
    return mode;
}

}  // namespace jfp
