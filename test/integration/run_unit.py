#!/usr/bin/python3
"""Runs a systemd service unit's ExecStart= commands the way systemd would, where no systemd can run (a
container, a build root): for the shipped units' test (test/integration/units_run.sh).

    run_unit.py UNIT [--user NAME] [--env-file FILE] [--replace OLD=NEW ...] [--timeout S]
                     [--visible DIR ...]

What systemd does and this does too: Environment= defaults, then EnvironmentFile= (here the one file
given: the test's /etc/default/jfp); each ExecStart= line split into words with systemd's quoting; a word
$VAR split into words, ${VAR} in place, $$ a dollar, %% a percent; systemd's PATH for services; the
commands run in order as the unit's User= (with its groups; --user maps the unit's User= to the test
cluster's SlurmUser), and a oneshot unit stops at the first that fails. --replace rewrites paths the units
name (/usr/bin/jfp, /var/lib/jfp) to the test's, in the commands and in ReadWritePaths=.

The unit's file-system sandbox too (test/integration/unit_sandbox.py): a command that writes anywhere but
ReadWritePaths= fails here as under systemd. --visible DIR keeps DIR readable inside it, read-only: the test
cluster's directory, which stands in for the site's /etc/slurm and munge socket.

Exit status: the failing command's, or 0."""
import argparse
import ctypes
import grp
import os
import pwd
import re
import shlex
import signal
import subprocess
import sys

import unit_sandbox


def unit_lines(path):
    """(key, value) of the [Service] section, continuation lines joined."""
    out, section, cont = [], None, ""
    with open(path) as f:
        for raw in f:
            line = cont + raw.rstrip("\n")
            cont = ""
            if line.endswith("\\"):
                cont = line[:-1] + " "
                continue
            s = line.strip()
            if not s or s[0] in "#;":
                continue
            if s.startswith("["):
                section = s
                continue
            if section == "[Service]" and "=" in s:
                k, v = s.split("=", 1)
                out.append((k.strip(), v.strip()))
    return out


def env_assignments(value):
    """Environment="A=1" "B=2" B3=x: systemd's quoting is the shell's here."""
    env = {}
    for word in shlex.split(value):
        if "=" in word:
            k, v = word.split("=", 1)
            env[k] = v
    return env


def env_file(path):
    env = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#;" or "=" not in line:
                continue
            k, v = line.split("=", 1)
            v = v.strip()
            if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
                v = v[1:-1]
            env[k.strip()] = v
    return env


BRACED = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand(line, env):
    """systemd.service(5), "Command lines": the line is split into words (quotes as the shell's); a word that
    is only $VAR becomes the value split into words (quotes honoured); ${VAR} anywhere becomes the value as
    is; $$ is a dollar, %% a percent. A $VAR inside a longer word is not expanded by systemd: refused here,
    so that a unit relying on it fails this test rather than run differently under systemd."""
    line = line.replace("%%", "\x00")
    if "%" in line:
        sys.exit(f"run_unit.py: a specifier in '{line}' (only %% is handled)")
    words = []
    for word in shlex.split(line):
        word = word.replace("\x00", "%")
        m = re.fullmatch(r"\$([A-Za-z_][A-Za-z0-9_]*)", word)
        if m:
            words.extend(shlex.split(env.get(m.group(1), "")))
            continue
        if re.search(r"(?<!\$)\$[A-Za-z_]", word.replace("$$", "")):
            sys.exit(f"run_unit.py: '{word}' holds $VAR inside a word, which systemd does not expand: write ${{VAR}}")
        words.append(BRACED.sub(lambda m: "$" if m.group(0) == "$$" else env.get(m.group(1), ""), word))
    return words


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("unit")
    ap.add_argument("--user", help="the account to run as instead of the unit's User=")
    ap.add_argument("--env-file", help="read after the unit's Environment= defaults, as its EnvironmentFile=")
    ap.add_argument("--replace", action="append", default=[], help="OLD=NEW, in every command word")
    ap.add_argument("--timeout", type=float, default=None, help="seconds a command may run")
    ap.add_argument("--visible", action="append", default=[], help="a directory kept readable (read-only)")
    ap.add_argument("--in-namespace", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if not a.in_namespace:
        # util-linux's unshare executes the command in this process (no fork): the test's SIGTERM still
        # reaches us.
        # (propagation is made private by enter_sandbox: unshare's own fails where / is no mount point, as
        # in a build root entered by chroot)
        os.execvp("unshare", ["unshare", "--mount", "--propagation", "unchanged", "--",
                              sys.executable, os.path.abspath(__file__), *sys.argv[1:], "--in-namespace"])

    lines = unit_lines(a.unit)
    env = {}
    for k, v in lines:
        if k == "Environment":
            env.update(env_assignments(v))
    if a.env_file:
        env.update(env_file(a.env_file))
    user = a.user or next((v for k, v in lines if k == "User"), None)
    group = next((v for k, v in lines if k == "Group"), None)
    if a.user:
        group = None  # the mapped user's own group
    if not user:
        sys.exit(f"run_unit.py: {a.unit} sets no User=: jfp's units never run as root")
    pw = pwd.getpwnam(user)
    gid = grp.getgrnam(group).gr_gid if group else pw.pw_gid

    # The unit's environment is its own plus systemd's few; the test's SLURM_CONF stands in for the site's
    # /etc/slurm.
    # systemd's own PATH for services (not the test's): sacct and squeue must be found through it.
    child_env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": pw.pw_dir,
                 "USER": user, "LOGNAME": user, "LANG": "C.UTF-8"}
    for k in ("SLURM_CONF",):
        if k in os.environ:
            child_env[k] = os.environ[k]
    child_env.update(env)

    no_new_privs = next((v for k, v in lines if k == "NoNewPrivileges"), "no").lower() in ("yes", "true", "on", "1")
    libc = ctypes.CDLL(None, use_errno=True)

    def as_user():
        os.initgroups(user, gid)  # as systemd: the user's supplementary groups too
        os.setgid(gid)
        os.setuid(pw.pw_uid)
        if no_new_privs and libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")

    unit_sandbox.enter(lines, a.replace, a.visible)

    execs = [v for k, v in lines if k == "ExecStart"]
    if not execs:
        sys.exit(f"run_unit.py: {a.unit} has no ExecStart=")
    # `systemctl stop` sends SIGTERM to the service's processes: pass it on, whenever it comes.
    running = {"child": None, "stopped": False}

    def stop(*_):
        running["stopped"] = True
        if running["child"]:
            running["child"].send_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    for line in execs:
        if running["stopped"]:
            return 128 + signal.SIGTERM
        ignore = line.startswith("-")
        words = expand(line.lstrip("-@:+!"), env)
        for r in a.replace:
            old, new = r.split("=", 1)
            words = [w.replace(old, new) for w in words]
        print("run_unit.py: " + " ".join(shlex.quote(w) for w in words), flush=True)
        p = running["child"] = subprocess.Popen(words, env=child_env, preexec_fn=as_user, cwd="/")
        if running["stopped"]:
            p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(timeout=a.timeout)
        except subprocess.TimeoutExpired:
            p.terminate()
            p.wait()
            print(f"run_unit.py: {words[0]} ran past {a.timeout} s", flush=True)
            return 124
        if rc < 0:  # ended by a signal: the shell's 128 + N
            print(f"run_unit.py: ended by signal {-rc}", flush=True)
            return 128 - rc
        if rc != 0 and not ignore:
            print(f"run_unit.py: exit status {rc}", flush=True)
            return rc
    return 0


if __name__ == "__main__":
    sys.exit(main())
