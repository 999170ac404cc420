#!/usr/bin/python3
"""Every sentence jfp shows a user is true: checks the messages of `jfp predict --explain-all` against the store.

For every scored submission, the history is recomputed here from the store's rows (jobs that ended strictly
before the submission, in end order), independently of jfp's C++ HistoryIndex. Each sentence of the
message must match a known form, and every name, count, time and size it quotes must equal what that
history holds. Exit 1 with the first failures listed; exit 0 with coverage counts per form.

    check_messages.py --db STORE --predictions PREDICT.csv [--max-failures N]
    check_messages.py --self-test      # the checker rejects known-false messages
"""
import argparse
import bisect
import collections
import csv
import math
import re
import sqlite3
import sys

COMPLETED, FAILED, TIMEOUT, OOM, NODE_FAIL, UNFINISHED = 0, 1, 2, 3, 4, 8
FAILURES = {FAILED, TIMEOUT, OOM, NODE_FAIL}
LABELED = FAILURES | {COMPLETED}
RECENT = 10
CLASSES = ("FAILED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL")


def name_stem(name):
    e = len(name)
    while e > 0 and (name[e - 1].isdigit() and name[e - 1].isascii() or name[e - 1] in "_-."):
        e -= 1
    return name if e == 0 else name[:e]


import icu  # PyICU (Debian's python3-icu): Unicode's rules, computed apart from jfp's C++

_NFKC_CF = icu.Normalizer2.getNFKCCasefoldInstance()
_NFD = icu.Normalizer2.getNFDInstance()
_SPOOF = icu.SpoofChecker()


def identity(name):
    """A name's history keys as jfp forms them (model/history/name_identity.h): its first 256 bytes, NFKC
    case folding, decomposed without nonspacing marks, no white space, control or format characters, its
    first 256 characters, then TR39's skeleton case folded again ('0' is 'O', then 'o'); the series is the
    folded name's stem (a version mark '_v' dropped after the number) under the same skeleton."""
    raw = name.encode("utf-8", "surrogateescape")
    if len(raw) > 256:
        n = 256
        while n > 0 and (raw[n] & 0xC0) == 0x80:
            n -= 1
        raw = raw[:n]
    text = raw.decode("utf-8", "replace")
    folded = "".join(c for c in _NFD.normalize(_NFKC_CF.normalize(text))
                     if not icu.Char.isUWhiteSpace(c)
                     and icu.Char.charType(c) not in (icu.UCharCategory.CONTROL_CHAR, icu.UCharCategory.FORMAT_CHAR,
                                                      icu.UCharCategory.NON_SPACING_MARK))[:256]
    return (_NFKC_CF.normalize(_SPOOF.getSkeleton(0, folded)),
            _NFKC_CF.normalize(_SPOOF.getSkeleton(0, name_series(folded))))


def name_series(name):
    stem = name_stem(name)
    if len(stem) < len(name) and len(stem) >= 3 and stem[-1] in "vV" and stem[-2] in "_-.":
        return name_stem(stem[:-1])
    return stem


def quoted(s):
    """As jfp's quote_for_message(s, 40): control characters and bytes of no well-formed UTF-8 character as
    \\xNN, cut before the character that would pass 40 bytes, with '...'."""
    raw = s.encode("utf-8", "surrogateescape")
    out, i = [], 0
    while i < len(raw):
        c = raw[i]
        n = 1 if c < 0x80 else 2 if 0xC2 <= c <= 0xDF else 3 if 0xE0 <= c <= 0xEF else 4 if 0xF0 <= c <= 0xF4 else 0
        if n > 1:
            try:
                raw[i:i + n].decode("utf-8")  # Python's strict decoder: the same rules as RFC 3629
                if len(raw[i:i + n]) < n:
                    n = 0
            except UnicodeDecodeError:
                n = 0
        escape = c < 0x20 or c == 0x7F or n == 0
        n = 1 if escape else n
        if i + n > 40:
            out.append(b"...")
            break
        out.append(b"\\x%02x" % c if escape else raw[i:i + n])
        i += n
    return "'" + b"".join(out).decode("utf-8", "surrogateescape") + "'"


def fmt_minutes(m):
    if math.isinf(m) or m >= 1e7:
        return "UNLIMITED"
    m = int(math.floor(m + 0.5))
    if m >= 1440:
        return "%d-%02d:%02d:00" % (m // 1440, m // 60 % 24, m % 60)
    return "%02d:%02d:00" % (m // 60, m % 60)


def fmt_mb(mb):
    if mb >= 1024 * 1024:
        return "%.1fT" % (mb / 1024 / 1024)
    if mb >= 1024:
        return "%.1fG" % (mb / 1024)
    return "%.0fM" % mb


def fmt_seconds(s):
    """A run's elapsed time as the messages give it: whole seconds, rounded up."""
    s = int(math.ceil(s - 1e-9))
    if s >= 86400:
        return "%d-%02d:%02d:%02d" % (s // 86400, s // 3600 % 24, s // 60 % 60, s % 60)
    return "%02d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)


def fmt_mb_used(mb):
    """Memory a run used: fmt_mb's units, rounded up to the digit shown."""
    up = lambda v: math.ceil(v * 10 - 1e-9) / 10
    if mb >= 1024 * 1024:
        return "%.1fT" % up(mb / 1024 / 1024)
    if mb >= 1024:
        return "%.1fG" % up(mb / 1024)
    return "%.0fM" % math.ceil(mb - 1e-9)


def suggest_minutes(m):
    return math.ceil(m * 1.25 / 5.0) * 5.0


def suggest_mem(mb):
    v = max(256, math.ceil(mb * 1.25 / 256.0) * 256)
    return "%dG" % (v // 1024) if v % 1024 == 0 else "%dM" % v


def known(v):
    return v is not None and not (isinstance(v, float) and math.isnan(v))


class Series:
    """One history key's ended jobs in end order, with prefix aggregates so any submit time is O(log n)."""

    def __init__(self):
        self.ends, self.outcomes, self.rows = [], [], []
        self.ready = False

    def add(self, row):
        self.ends.append(row["end_time"])
        self.outcomes.append(row["outcome"])
        self.rows.append(row)

    def prepare(self):
        # Per prefix length k (jobs 0..k-1): labeled count, failures, streak, and the latest row of a kind.
        n_lab, n_fail, streak = [0], [0], [0]
        lab_fail = []  # failure flags of labeled jobs, in order
        latest = {"timeout": [None], "oom": [None], "fail": [None]}
        max_ok, max_rss, max_ok_rss = [None], [None], [None]
        for r, o in zip(self.rows, self.outcomes):
            lab = o in LABELED
            f = o in FAILURES
            n_lab.append(n_lab[-1] + lab)
            n_fail.append(n_fail[-1] + (lab and f))
            streak.append((streak[-1] + 1 if f else 0) if lab else streak[-1])
            if lab:
                lab_fail.append(f)
            latest["timeout"].append(r if o == TIMEOUT else latest["timeout"][-1])
            latest["oom"].append(r if o == OOM else latest["oom"][-1])
            latest["fail"].append(r if f else latest["fail"][-1])
            e = r["elapsed_s"] if o == COMPLETED and known(r["elapsed_s"]) else None
            max_ok.append(e if max_ok[-1] is None or (e is not None and e > max_ok[-1]) else max_ok[-1])
            m = r["max_rss_mb"] if known(r["max_rss_mb"]) else None
            max_rss.append(m if max_rss[-1] is None or (m is not None and m > max_rss[-1]) else max_rss[-1])
            m = m if o == COMPLETED else None
            max_ok_rss.append(m if max_ok_rss[-1] is None or (m is not None and m > max_ok_rss[-1]) else max_ok_rss[-1])
        self.n_lab, self.n_fail, self.streak, self.lab_fail = n_lab, n_fail, streak, lab_fail
        self.latest, self.max_ok, self.max_rss, self.max_ok_rss = latest, max_ok, max_rss, max_ok_rss
        self.ready = True

    def before(self, t):
        """History of jobs that ended strictly before t."""
        if not self.ready:
            self.prepare()
        return History(self, bisect.bisect_left(self.ends, t))


class History:
    def __init__(self, s, n):
        self.n = n
        self.n_labeled, self.n_fail, self.streak = s.n_lab[n], s.n_fail[n], s.streak[n]
        window = s.lab_fail[max(0, self.n_labeled - RECENT):self.n_labeled]
        self.recent_n, self.recent_fail = len(window), sum(window)
        self.last = s.outcomes[n - 1] if n > 0 else None
        self.latest_timeout, self.latest_oom, self.latest_fail = (s.latest[k][n] for k in ("timeout", "oom", "fail"))
        self.max_ok_elapsed, self.max_rss, self.max_ok_rss = s.max_ok[n], s.max_rss[n], s.max_ok_rss[n]


EMPTY = Series()


FORMS = [
    ("streak", r"your last (\d+) runs of ('[^']*') failed((?: \(counting only runs that completed or failed\))?)"),
    ("streak1", r"your last run of ('[^']*') failed((?: \(counting only runs that completed or failed\))?)(?=[;.])"),
    ("recent", r"(\d+) of your last (\d+) runs of ('[^']*') failed((?: \(counting only runs that completed or failed\))?)"),
    ("earlier", r"(\d+) of your (\d+) earlier runs of ('[^']*') failed((?: \(counting only runs that completed or failed\))?)"),
    ("no-run", r"no earlier run of ('[^']*') has finished yet"),
    ("time-model", r"it asks for ([0-9:-]+|UNLIMITED), a time limit the model associates with timeouts"),
    ("time-asks", r"it asks for ([0-9:-]+|UNLIMITED)(?=; )"),
    ("last-timeout", r"your last run of ('[^']*') that hit its time limit had ([0-9:-]+|UNLIMITED)"),
    ("longest-ok", r"[Yy]our longest successful run of ('[^']*') took ([0-9:-]+)"
                   r"((?:; if it needs as long, ask for that and a margin \(-t ([0-9:-]+)\)\.)?)"
                   r"((?:, within the ([0-9:-]+|UNLIMITED) it asks for: if this run may take longer \(larger inputs, a "
                   r"slower node\), ask for more \(-t\), or make it checkpoint and resume\.)?)"),
    ("mem-model", r"it requests ([0-9.]+[MGT]) of memory, an amount the model associates with running out of memory"),
    ("mem-asks", r"it requests ([0-9.]+[MGT]) of memory(?=; )"),
    ("last-oom", r"your last run of ('[^']*') that ran out of memory asked for ([0-9.]+[MGT])"),
    ("max-ok-rss", r"Your completed runs of ('[^']*') used up to ([0-9.]+[MGT]) \(MaxRSS\)(?:; ask for that and a margin "
                   r"\(--mem=(\d+[MG])\)\.|, within the ([0-9.]+[MGT]) it requests: if this run needs more \(larger "
                   r"inputs\), ask for more \(--mem\)\.)"),
    ("max-rss-none-ok", r"Your runs of ('[^']*') used up to ([0-9.]+[MGT]) \(MaxRSS\)( but none completed|; its completed "
                        r"runs recorded no memory use); it may need more than that \(--mem\)\."),
    ("max-rss-within", r"Your runs of ('[^']*') used up to ([0-9.]+[MGT]) \(MaxRSS\), within the ([0-9.]+[MGT]) it requests\."),
    # Replays carry no scripts: the form is known, its claim about the script is not checkable here.
    ("checkpoint", r"Its script shows no checkpoint/restart: \S+ tells how to make it resume after a time limit instead "
                   r"of starting over\."),
    ("max-rss", r"[Yy]our runs of ('[^']*') used up to ([0-9.]+[MGT])"
                r"((?: \(MaxRSS\); ask for that and a margin \(--mem=(\d+[MG])\)\.)?)"),
    ("user", r"(\d+) of your last (\d+) jobs failed((?: \(counting only jobs that completed or failed\))?)"),
    ("partition", r"(\d+) of the last (\d+) completed or failed jobs in partition ('[^']*') failed"),
    ("account", r"(\d+) of the last (\d+) completed or failed jobs of account ('[^']*') failed"),
    ("request", r"the model associates its request \(([^)]*)\) with failure"),
    ("script", r"its job script has traits the model associates with failure"),
    ("script-finding", r"its job script (?:loads a module this cluster does not have|has #SBATCH lines that sbatch ignored)"),
    ("resembles", r"it resembles jobs that failed"),
    ("check-last", r"Check the error output of your last (failed )?run of ('[^']*')"
                   r"((?: \(sacct -X -u \$USER --name=\S+ -S (\d{4}-\d\d-\d\d) -o JobID,State,ExitCode,End\))?)"
                   r" and fix the cause first\."),
    ("first-test", r"Test it first with a short time limit \(for example -t 10\) before a long run\."),
    ("first-short", r"Check its output before you submit it at a larger scale or for longer\."),
    # The period stays: the advice after it is a sentence of its own form.
    ("last-hit-limit", r"Your last run of ('[^']*') hit its time limit(?=\. )"),
    ("last-ran-oom", r"Your last run of ('[^']*') ran out of memory(?=\. )"),
    ("differs", r"Check what differs from your completed runs of ('[^']*') \(script, inputs, modules\)\."),
    ("time-generic", r"If it needs longer, ask for more time \(-t\), or make it checkpoint and resume\."),
    ("mem-generic", r"If it needs more memory, ask for it \(--mem or --mem-per-cpu\)\."),
    ("node-fail", r"Node failures are rarely the job's fault; if it keeps happening, tell your admins\."),
]


def required_literal(pattern):
    """The longest run of plain characters every match of PATTERN contains (a fast `in` test before the
    regex: most forms are absent from most messages, and searching for them was most of the check's time)."""
    parser = getattr(re, "_parser", None)
    if parser is None:
        import sre_parse as parser  # Python < 3.11
    best, run = "", ""
    for op, av in parser.parse(pattern):
        if op == parser.LITERAL:
            run += chr(av)
            best = max(best, run, key=len)
        else:
            run = ""
    return best


# Each form starts a sentence or a clause.
FORMS = [(form, re.compile(r"(?:^|(?<=; )|(?<=\. ))" + p), required_literal(p)) for form, p in FORMS]
QUAL_RUNS = " (counting only runs that completed or failed)"



class Checker:
    def __init__(self, jobs):
        self.series = collections.defaultdict(Series)
        for r in sorted((j for j in jobs if j["outcome"] != UNFINISHED and (j["end_time"] or 0) > 0),
                        key=lambda j: (j["end_time"], j["cluster"], j["job_key"])):
            u, n = r["user"] or "", r["name"] or ""
            key, series = identity(n)
            self.series[("un", u, key)].add(r)
            self.series[("us", u, series)].add(r)
            self.series[("u", u)].add(r)
            if r["partition"]:
                self.series[("p", r["partition"].split(",")[0])].add(r)
            if r["account"]:
                self.series[("a", r["account"])].add(r)
        self.coverage = collections.Counter()

    def hist(self, key, t):
        return self.series.get(key, EMPTY).before(t)

    def check(self, job, row):
        """Problems with one prediction row's message (empty list: every sentence is true)."""
        msg = row["message"]
        t, user, name = job["submit"], job["user"] or "", job["name"] or ""
        problems = []

        def bad(what):
            problems.append(what)

        if "''" in msg:
            bad("an empty quoted name")
        if re.search(r"\b(nan|inf)\b", msg, re.I) or "uid:" in msg:
            bad("an unknown value printed")
        head = re.match(r"jfp: warning: this job (will probably fail|may fail) \(p=(\d\.\d\d), most likely ([A-Z_]+)\): ", msg)
        if not head:
            return ["the message does not start as a warning does: " + msg[:80]]
        if (head.group(1) == "will probably fail") != (float(head.group(2)) >= 0.5):
            bad("'%s' said at p=%s" % (head.group(1), head.group(2)))
        if abs(float(head.group(2)) - float(row["p_fail"])) > 0.005 + 1e-6:
            bad("p=%s but the score is %s" % (head.group(2), row["p_fail"]))
        if head.group(3) != row["predicted_class"]:
            bad("class %s but predicted %s" % (head.group(3), row["predicted_class"]))
        body = msg[head.end():]

        seen = {}

        def series_for(q):
            """The history a quoted run name refers to: the job's own name, or its stem with '*'."""
            if q not in seen:
                if name and q == quoted(name):
                    seen[q] = self.hist(("un", user, identity(name)[0]), t)
                elif name and q == quoted(name_series(name) + "*") and name_series(name) != name:
                    seen[q] = self.hist(("us", user, identity(name)[1]), t)
                else:
                    seen[q] = None
            if seen[q] is None:
                bad("names %s, which is neither the job's name %s nor its stem" % (q, quoted(name)))
            return seen[q]

        rest = body
        for form, pattern, literal in FORMS:
            if literal not in rest or not pattern.search(rest):
                continue
            for m in list(pattern.finditer(rest)):
                self.coverage[form] += 1
                self.verify(form, m, job, t, user, name, series_for, bad, QUAL_RUNS)
            rest = pattern.sub("\x00", rest)
        leftover = re.sub(r"[\x00;. ]", "", rest)
        if leftover:
            bad("a sentence of no known form: %r" % rest.replace("\x00", "|"))
        return problems

    def verify(self, form, m, job, t, user, name, series_for, bad, qual_runs):
        g = m.groups()
        if form in ("streak", "streak1", "recent", "earlier"):
            q = g[{"streak": 1, "streak1": 0, "recent": 2, "earlier": 2}[form]]
            h = series_for(q)
            if h is None:
                return
            if (g[-1] == qual_runs) != (h.n > h.n_labeled):
                bad("%s: the 'counting only' note is %s but %d of %d runs completed or failed"
                    % (m.group(0), "given" if g[-1] else "missing", h.n_labeled, h.n))
            if form == "streak" and int(g[0]) != h.streak:
                bad("%s: the history's streak is %d" % (m.group(0), h.streak))
            if form == "streak1" and h.streak != 1:
                bad("%s: the history's streak is %d" % (m.group(0), h.streak))
            if form == "recent" and (int(g[0]), int(g[1])) != (h.recent_fail, h.recent_n):
                bad("%s: the history has %d of the last %d" % (m.group(0), h.recent_fail, h.recent_n))
            if form == "earlier" and (int(g[0]), int(g[1])) != (h.n_fail, h.n_labeled):
                bad("%s: the history has %d of %d" % (m.group(0), h.n_fail, h.n_labeled))
        elif form == "no-run":
            h = series_for(g[0])
            if h is not None and h.n != 0:
                bad("%s: %d earlier runs had finished" % (m.group(0), h.n))
        elif form in ("time-model", "time-asks"):
            tl = job["timelimit_min"]
            if not known(tl) or tl <= 0 or fmt_minutes(tl) != g[0]:
                bad("%s: the request's time limit is %s" % (m.group(0), tl))
        elif form == "last-timeout":
            h = series_for(g[0])
            r = h and h.latest_timeout
            if h is not None and (r is None or not known(r["timelimit_min"]) or fmt_minutes(r["timelimit_min"]) != g[1]):
                bad("%s: the latest TIMEOUT run had %s" % (m.group(0), r and r["timelimit_min"]))
        elif form == "longest-ok":
            h = series_for(g[0])
            v = h and h.max_ok_elapsed
            tl = job["timelimit_min"]
            if h is not None and (v is None or v <= 0 or fmt_seconds(v) != g[1]):
                bad("%s: the longest completed run took %s s" % (m.group(0), v))
            elif g[3] and fmt_minutes(suggest_minutes(v / 60.0)) != g[3]:
                bad("%s: suggested -t %s is not the longest run plus the margin" % (m.group(0), g[3]))
            elif g[3] and known(tl) and tl >= suggest_minutes(v / 60.0):
                bad("%s: suggests -t %s to a job that asks for %s min already" % (m.group(0), g[3], tl))
            elif g[5] and (not known(tl) or fmt_minutes(tl) != g[5] or tl < suggest_minutes(v / 60.0)):
                bad("%s: the request's time limit is %s" % (m.group(0), tl))
        elif form in ("mem-model", "mem-asks"):
            v = job["req_mem_mb"]
            if not known(v) or v <= 0 or fmt_mb(v) != g[0]:
                bad("%s: the request's memory is %s" % (m.group(0), v))
        elif form == "last-oom":
            h = series_for(g[0])
            r = h and h.latest_oom
            if h is not None and (r is None or not known(r["req_mem_mb"]) or fmt_mb(r["req_mem_mb"]) != g[1]):
                bad("%s: the latest OUT_OF_MEMORY run asked for %s" % (m.group(0), r and r["req_mem_mb"]))
        elif form == "max-ok-rss":
            h = series_for(g[0])
            v = h and h.max_ok_rss
            rm = job["req_mem_mb"]
            if h is not None and (v is None or v <= 0 or fmt_mb_used(v) != g[1]):
                bad("%s: the largest MaxRSS of a completed run was %s" % (m.group(0), v))
            elif h is not None and g[2] and suggest_mem(v) != g[2]:
                bad("%s: suggested --mem=%s is not MaxRSS plus the margin" % (m.group(0), g[2]))
            elif h is not None and g[3] and (not known(rm) or fmt_mb(rm) != g[3]):
                bad("%s: the request's memory is %s" % (m.group(0), rm))
        elif form == "max-rss-none-ok":
            h = series_for(g[0])
            if h is not None and (h.max_rss is None or fmt_mb_used(h.max_rss) != g[1] or h.max_ok_rss is not None):
                bad("%s: MaxRSS %s, of completed runs %s" % (m.group(0), h.max_rss, h.max_ok_rss))
            elif h is not None and (g[2] == " but none completed") != (h.n_labeled == h.n_fail):
                bad("%s: %d of %d finished runs completed" % (m.group(0), h.n_labeled - h.n_fail, h.n_labeled))
            elif known(job["req_mem_mb"]) and h is not None and h.max_rss is not None and job["req_mem_mb"] > h.max_rss:
                bad("%s: the job asks for %s, above every MaxRSS" % (m.group(0), job["req_mem_mb"]))
        elif form == "max-rss-within":
            h = series_for(g[0])
            rm = job["req_mem_mb"]
            if h is not None and (h.max_rss is None or fmt_mb_used(h.max_rss) != g[1] or h.max_ok_rss is not None):
                bad("%s: MaxRSS %s, of completed runs %s" % (m.group(0), h.max_rss, h.max_ok_rss))
            elif not known(rm) or fmt_mb(rm) != g[2] or (h is not None and h.max_rss is not None and not rm > h.max_rss):
                bad("%s: the request's memory is %s" % (m.group(0), rm))
        elif form == "checkpoint":
            pass
        elif form == "max-rss":
            h = series_for(g[0])
            v = h and h.max_rss
            if h is not None and (v is None or v <= 0 or fmt_mb_used(v) != g[1]):
                bad("%s: the largest MaxRSS was %s" % (m.group(0), v))
            elif g[3] and suggest_mem(v) != g[3]:
                bad("%s: suggested --mem=%s is not MaxRSS plus the margin" % (m.group(0), g[3]))
        elif form == "user":
            h = self.hist(("u", user), t)
            if (int(g[0]), int(g[1])) != (h.recent_fail, h.recent_n) or h.recent_fail == 0:
                bad("%s: the user's history has %d of the last %d" % (m.group(0), h.recent_fail, h.recent_n))
            if bool(g[2]) != (h.n > h.n_labeled):
                bad("%s: the 'counting only' note does not match the history" % m.group(0))
        elif form in ("partition", "account"):
            value = (job["partition"] or "").split(",")[0] if form == "partition" else (job["account"] or "")
            if not value or g[2] != quoted(value):
                bad("%s: the job's %s is %r" % (m.group(0), form, value))
                return
            h = self.hist((form[0], value), t)
            if (int(g[0]), int(g[1])) != (h.recent_fail, h.recent_n) or h.recent_fail == 0:
                bad("%s: the history has %d of the last %d" % (m.group(0), h.recent_fail, h.recent_n))
        elif form == "request":
            want = []
            if known(job["req_cpus"]) and job["req_cpus"] > 0:
                want.append("%.0f CPU%s" % (job["req_cpus"], "" if job["req_cpus"] == 1 else "s"))
            if known(job["req_nodes"]) and job["req_nodes"] > 0:
                want.append(("on " if want else "") + "%.0f node%s" % (job["req_nodes"], "" if job["req_nodes"] == 1 else "s"))
            text = " ".join(want)
            if known(job["req_gpus"]) and job["req_gpus"] > 0:
                text += ", with GPUs" if text else "GPUs"
            if g[0] != text:
                bad("%s: the request is (%s)" % (m.group(0), text))
        elif form in ("script", "script-finding"):
            bad("%s: a replay from sacct has no job script" % m.group(0))
        elif form == "check-last":
            h = series_for(g[1])
            if h is None:
                return
            if g[0] and h.n_fail == 0:
                bad("%s: no earlier run failed" % m.group(0))
            if not g[0] and h.last not in FAILURES:
                bad("%s: the last run ended %s" % (m.group(0), h.last))
            if g[3]:
                r = h.latest_fail
                day = r and fmt_day(r["end_time"])
                if day != g[3]:
                    bad("%s: the last failure ended on %s" % (m.group(0), day))
        elif form == "first-test":
            h = self.hist(("un", user, identity(name)[0]), t)
            if name and h.n_labeled > 0:
                bad("%s: %d runs of %s completed or failed before" % (m.group(0), h.n_labeled, quoted(name)))
        elif form == "first-short":
            h = self.hist(("un", user, identity(name)[0]), t)
            if name and h.n_labeled > 0:
                bad("%s: %d runs of %s completed or failed before" % (m.group(0), h.n_labeled, quoted(name)))
            tl = job["timelimit_min"]
            if not known(tl) or tl > 10:
                bad("%s: the request's time limit is %s, not a short one" % (m.group(0), tl))
        elif form in ("last-hit-limit", "last-ran-oom"):
            h = series_for(g[0])
            want = TIMEOUT if form == "last-hit-limit" else OOM
            if h is not None and h.last != want:
                bad("%s: the last run ended %s" % (m.group(0), h.last))
        elif form == "differs":
            h = series_for(g[0])
            if h is not None and (h.n_labeled == 0 or h.n_fail > 0):
                bad("%s: %d of %d runs failed" % (m.group(0), h.n_fail, h.n_labeled))


def fmt_day(naive):
    days = naive // 86400
    # civil_from_days (Howard Hinnant), as the store's naive-local seconds are.
    z = days + 719468
    era = (z if z >= 0 else z - 146096) // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    mo = mp + 3 if mp < 10 else mp - 9
    return "%04d-%02d-%02d" % (y + (mo <= 2), mo, d)


COLUMNS = ("cluster, job_key, user, account, partition, name, submit, end_time, outcome, timelimit_min, "
           "req_mem_mb, elapsed_s, max_rss_mb, req_cpus, req_nodes, req_gpus")


def load_jobs(db):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    con.row_factory = sqlite3.Row
    jobs = [dict(r) for r in con.execute("SELECT %s FROM jobs" % COLUMNS)]
    con.close()
    return jobs


def run(jobs, rows, max_failures, out=sys.stdout):
    by_key = {(j["cluster"], j["job_key"]): j for j in jobs}
    checker = Checker(jobs)
    failures, checked = [], 0
    for row in rows:
        job = by_key.get((row["Cluster"], row["JobIDRaw"]))
        if job is None:
            failures.append((row["JobIDRaw"], ["not in the store"], ""))
            continue
        checked += 1
        problems = checker.check(job, row)
        if problems:
            failures.append((row["JobIDRaw"], problems, row["message"]))
    print("check_messages: %d messages checked, %d with a false or unknown sentence" % (checked, len(failures)), file=out)
    print("check_messages: sentences by form: " + ", ".join("%s %d" % kv for kv in sorted(checker.coverage.items())), file=out)
    for job_id, problems, msg in failures[:max_failures]:
        print("  job %s: %s\n    message: %s" % (job_id, "; ".join(problems), msg), file=out)
    return checked, failures


def self_test():
    """The checker must reject the false messages issue 15 quoted, and accept true ones."""
    day = 86400 * 20000
    jobs = [
        dict(cluster="c", job_key="1", user="u", account="", partition="debug", name="ok.sh", submit=day,
             end_time=0, outcome=UNFINISHED, timelimit_min=60.0, req_mem_mb=None, elapsed_s=None, max_rss_mb=None,
             req_cpus=1.0, req_nodes=1.0, req_gpus=None),
    ]
    for i, outcome in enumerate([COMPLETED, FAILED, FAILED]):
        jobs.append(dict(cluster="c", job_key=str(10 + i), user="v", account="a", partition="debug", name="run",
                         submit=day - 5000 + i * 100, end_time=day - 4000 + i * 100, outcome=outcome,
                         timelimit_min=60.0, req_mem_mb=None, elapsed_s=600.0, max_rss_mb=None, req_cpus=1.0,
                         req_nodes=1.0, req_gpus=None))
    jobs.append(dict(jobs[-1], job_key="20", submit=day, end_time=0, outcome=UNFINISHED))
    jobs.append(dict(jobs[-1], job_key="29", user="w", account="b", name="slow", submit=day - 3000, end_time=day - 2000,
                     outcome=TIMEOUT))
    jobs.append(dict(jobs[-1], job_key="30", submit=day, end_time=0, outcome=UNFINISHED))

    def row(key, msg):
        return {"Cluster": "c", "JobIDRaw": key, "p_fail": "0.12", "predicted_class": "FAILED", "message": msg}

    head = "jfp: warning: this job may fail (p=0.12, most likely FAILED): "
    false_rows = [
        row("1", head + "this is the first run of 'ok.sh'; jobs of account '' have been failing lately. Check the "
                        "error output of your last run of 'ok.sh' (sacct -u $USER --name='ok.sh') and fix the cause first."),
        row("1", head + "no earlier run of 'ok.sh' has finished yet. Check the error output of your last run of 'ok.sh' "
                        "and fix the cause first."),
        row("20", head + "your last 3 runs of 'run' failed. Test it first with a short time limit (for example -t 10) "
                         "before a long run."),
        row("20", head + "1 of the last 2 completed or failed jobs of account 'a' failed. Check what differs from "
                         "your completed runs of 'run' (script, inputs, modules)."),
        row("20", head + "your last 2 runs of 'run' failed. Your last run of 'run' hit its time limit. If it needs "
                         "longer, ask for more time (-t), or make it checkpoint and resume."),
        row("1", head + "no earlier run of 'ok.sh' has finished yet. Check its output before you submit it at a larger "
                        "scale or for longer."),
    ]
    true_rows = [
        row("1", head + "no earlier run of 'ok.sh' has finished yet; the model associates its request (1 CPU on 1 node) "
                        "with failure. Test it first with a short time limit (for example -t 10) before a long run."),
        row("30", head + "your last run of 'slow' failed. Your last run of 'slow' hit its time limit. If it needs "
                         "longer, ask for more time (-t), or make it checkpoint and resume."),
        row("20", head + "your last 2 runs of 'run' failed; 2 of the last 3 completed or failed jobs of account 'a' "
                         "failed. Check the error output of your last run of 'run' (sacct -X -u $USER --name=run -S "
                         + fmt_day(day - 3800) + " -o JobID,State,ExitCode,End) and fix the cause first."),
    ]
    import io
    sink = io.StringIO()
    ok = True
    for r in false_rows:
        _, failures = run(jobs, [r], 0, sink)
        if not failures:
            print("self-test: accepted a false message: " + r["message"])
            ok = False
    _, failures = run(jobs, true_rows, 5, sink)
    if failures:
        print("self-test: rejected a true message:\n" + sink.getvalue())
        ok = False
    print("check_messages self-test: %s (%d false messages rejected, %d true ones accepted)"
          % ("passed" if ok else "FAILED", len(false_rows), len(true_rows)))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db")
    ap.add_argument("--predictions", help="CSV written by jfp predict --explain-all")
    ap.add_argument("--max-failures", type=int, default=8)
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        sys.exit(0 if self_test() else 1)
    if not a.db or not a.predictions:
        ap.error("--db and --predictions are required (or --self-test)")
    with open(a.predictions, newline="") as f:
        rows = list(csv.DictReader(f))
    if rows and "message" not in rows[0]:
        sys.exit("check_messages: %s has no message column: write it with jfp predict --explain-all" % a.predictions)
    checked, failures = run(load_jobs(a.db), rows, a.max_failures)
    if checked == 0:
        sys.exit("check_messages: no messages to check")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
