"""A systemd service's file-system sandbox, built as systemd builds it, for run_unit.py: ProtectSystem=strict
(everything read-only but /proc, /sys, /dev and ReadWritePaths=), PrivateTmp= (an empty /tmp and /var/tmp),
ProtectHome= (/home, /root, /run/user inaccessible), PrivateDevices= (a /dev of null, zero, full, random,
urandom, tty, the fd links and the host's /dev/shm). Built in the calling process's own mount namespace
(run_unit.py runs under unshare --mount), then entered by chroot: the mounts vanish with the process.

Not built: the seccomp and namespace filters (RestrictAddressFamilies=, RestrictNamespaces=,
RestrictSUIDSGID=, ...), /dev/pts, /dev/log."""
import os
import re
import subprocess
import sys

YES = ("yes", "true", "on", "1")
API = ("/proc", "/sys", "/dev")
# What PrivateTmp= and ProtectHome= replace: systemd resolves ReadWritePaths= inside the namespace, so a
# path under them is not the host's (and a missing one stops the unit, 226/NAMESPACE).
PRIVATE = {"PrivateTmp": ("/tmp", "/var/tmp"), "ProtectHome": ("/home", "/root", "/run/user")}


def fail(msg):
    sys.exit(f"run_unit.py: sandbox: {msg}")


def mount(*args, may_fail=False):
    r = subprocess.run(["mount", *args], capture_output=True, text=True)
    if r.returncode != 0 and not may_fail:
        fail(f"mount {' '.join(args)}: {r.stderr.strip()}")
    return r.returncode == 0


def mount_points():
    """The mount points this namespace lists (mountinfo's 5th field, octal escapes decoded, as bytes: a
    mount point need not be UTF-8)."""
    out = []
    with open("/proc/self/mountinfo", "rb") as f:
        for line in f:
            mp = re.sub(rb"\\([0-7]{3})", lambda m: bytes([int(m.group(1), 8)]), line.split()[4])
            out.append(os.fsdecode(mp))
    return out


def under(path, top):
    return path == top or path.startswith(top.rstrip("/") + "/")


def read_only(path):
    return bool(os.statvfs(path).f_flag & os.ST_RDONLY)


def make_private():
    """Nothing mounted here may reach the parent namespace. Where / is no mount point (a build root entered
    by chroot) --make-rprivate / fails; scripts/release-root enters its roots (marked /.jfp-root) in a
    namespace of their own made private (unshare --propagation private), which is then the guarantee."""
    if mount("--make-rprivate", "/", may_fail=True):
        return
    if not os.path.exists("/.jfp-root"):
        fail("cannot make the mounts private (mount --make-rprivate / failed, and this is no scripts/release-root root)")


def options(lines):
    opts, rw_paths = {}, []
    for k, v in lines:
        if k == "ReadWritePaths":
            rw_paths.extend(v.split())
        else:
            opts[k] = v.strip().lower()
    return opts, rw_paths


def writable_paths(opts, rw_paths, replaces):
    out = []
    for p in rw_paths:
        missing_ok = p.startswith("-")
        p = p.lstrip("-+")
        for key, dirs in PRIVATE.items():
            if opts.get(key) in YES and any(under(p, d) for d in dirs):
                fail(f"ReadWritePaths={p} is under what {key}= replaces: systemd would not find it there")
        for r in replaces:
            old, new = r.split("=", 1)
            p = p.replace(old, new)
        if not os.path.exists(p):
            if missing_ok:
                continue
            fail(f"ReadWritePaths={p} does not exist: systemd would not start the unit (226/NAMESPACE)")
        out.append(p)
    return out


def enter(lines, replaces, visible):
    """Builds the unit's sandbox and chroots into it. lines: the [Service] section's (key, value) pairs;
    replaces: OLD=NEW applied to ReadWritePaths= (the test's paths for the site's); visible: directories
    bound read-only at their own path (what the test keeps outside the site's paths: its cluster)."""
    opts, rw_paths = options(lines)
    protect = opts.get("ProtectSystem", "no")
    if protect not in ("no", "false", "strict"):
        fail(f"ProtectSystem={protect} is not built here (only strict)")
    writable = writable_paths(opts, rw_paths, replaces)
    make_private()
    # The new root's mount point is on a tmpfs of this namespace's own: nothing is left behind.
    mount("-t", "tmpfs", "-o", "mode=700", "tmpfs", "/mnt")
    root = "/mnt/root"
    os.mkdir(root)
    mount("--rbind", "/", root)
    if protect == "strict":
        for mp in sorted(set(mount_points())):
            if not under(mp, root) or any(under(mp, root + api) for api in API):
                continue
            if mount("-o", "remount,bind,ro", mp, may_fail=True):
                continue
            # A mount hidden under another (mounted over it) is not reached by its path: what the path
            # reaches, if anything, must be read-only already.
            if os.path.exists(mp) and not read_only(mp):
                fail(f"cannot make {mp} read-only")
    for key, dirs in PRIVATE.items():
        if opts.get(key) not in YES:
            continue
        for d in dirs:
            if os.path.isdir(root + d):
                if key == "PrivateTmp":
                    mount("-t", "tmpfs", "-o", "mode=1777,nosuid,nodev", "tmpfs", root + d)
                else:
                    mount("-t", "tmpfs", "-o", "ro,mode=000", "tmpfs", root + d)
    if opts.get("PrivateDevices") in YES:
        dev = root + "/dev"
        mount("-t", "tmpfs", "-o", "mode=755,nosuid,noexec", "tmpfs", dev)
        for node in ("null", "zero", "full", "random", "urandom", "tty"):
            if os.path.exists("/dev/" + node):
                open(f"{dev}/{node}", "w").close()
                mount("--bind", "/dev/" + node, f"{dev}/{node}")
        for link, to in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
            os.symlink(to, f"{dev}/{link}")
        if os.path.isdir("/dev/shm"):
            os.mkdir(dev + "/shm")
            mount("--rbind", "/dev/shm", dev + "/shm")
        mount("-o", "remount,ro", dev)
    for p, ro in [(p, False) for p in writable] + [(p, True) for p in visible]:
        target = root + p
        if not os.path.exists(target):
            os.makedirs(target)  # only ever inside a private /tmp: a fresh tmpfs
        mount("--rbind", p, target)
        if ro:
            mount("-o", "remount,bind,ro", target)
    os.chroot(root)
    os.chdir("/")
