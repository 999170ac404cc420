// jfp ingest: sacct exports into the history store.
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

#include "model/accounting/sacct_json.h"
#include "model/sacct/sacct_reader.h"
#include "model/accounting/swf_reader.h"
#include "model/history/history_store.h"
#include "model/util/text.h"
#include "model/util/time_util.h"
#include "tools/commands/commands.h"
#include "tools/options/site_conf.h"
#include "tools/ingest/slurm_queue.h"
#include "tools/ingest/snapshot_keeper.h"
#include "model/scoring/feature_log.h"
#include "tools/ingest/store_writer.h"
#include "tools/terminal/progress.h"

namespace jfp {

namespace {

struct IngestArgs {
    ConfDefaults conf;  // --conf: the paths not given
    std::string db;
    bool from_sacct = false;
    bool queue = true;
    std::string squeue = "squeue";
    bool follow = false;
    double interval = 300;
    int64_t overlap = 3600;
    std::string sacct = "sacct";
    std::vector<std::string> sacct_args;
    std::string format;
    std::string delimiter = "|";
    std::string cluster = "default";
    std::vector<std::string> files;
    size_t show_errors = 20;
    bool strict = false;
    bool quiet = false;
    bool snapshot = true;
    double snapshot_interval = 600;
    bool trusted_export = false;  // a typable delimiter with JobName etc.: read anyway
    std::string feature_log;      // where the plugin logged each token's script fingerprint
};

struct Source {
    std::FILE *in;
    std::string name;
    bool pipe = false;  // a gzip -dc child: pclose, and its status says whether the file was whole
    std::FILE *gz = nullptr;  // the compressed file gzip reads on its stdin
    long size = 0;            // bytes of the file on disk, for progress (0: unknown)
    int watch_fd() const { return gz ? fileno(gz) : (in ? fileno(in) : -1); }
};
void close_source(const Source &s);
void ingest_streams(const IngestArgs &a, const std::vector<Source> &sources, FileProgress *progress = nullptr,
                    const JobUserTextById *user_text = nullptr);
void ingest_swf(const IngestArgs &a, const std::vector<Source> &sources, FileProgress *progress);
void run_ingest_files(const IngestArgs &a);
Source open_source(const std::string &f);

// Runs CMD, its output into a temporary file (rewound), or throws naming CMD.
std::FILE *run_to_file(const std::string &cmd) {
    std::FILE *p = popen(cmd.c_str(), "r");
    if (!p) throw std::runtime_error("cannot run " + cmd + ": " + std::strerror(errno));
    std::FILE *tmp = std::tmpfile();
    char buf[1 << 16];
    size_t n;
    bool written = tmp != nullptr;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
        if (written && std::fwrite(buf, 1, n, tmp) != n) written = false;
    int rc = pclose(p);
    if (!written) {
        if (tmp) std::fclose(tmp);
        throw std::runtime_error("cannot keep the output of " + cmd + " in a temporary file (" + std::strerror(errno) +
                                 "; is TMPDIR full?)");
    }
    if (rc != 0) {
        std::fclose(tmp);
        throw std::runtime_error(cmd + " failed (status " + std::to_string(rc) + ")");
    }
    std::rewind(tmp);
    return tmp;
}

// One ingest from sacct, from the store's latest end minus the overlap (slurmdbd may complete a job's
// record seconds after it ended, and an overlapping window picks the full record up). Users write job
// names and submit lines, and sacct prints them raw in its text output, where a name holding a newline
// reads as one more record: so the text output (--parsable2) carries only columns no user writes, and the
// names and submit lines come from sacct --json, run after it (a job it lists had ended, so the second run
// lists it too), joined by job id.
void ingest_from_sacct(const IngestArgs &a) {
    std::string start;
    {
        HistoryStore store(a.db, HistoryStore::Access::ReadWrite);
        auto latest = store.latest_end();
        // A store may hold an end in the future (written before ingest refused them): the window never
        // starts after now.
        if (latest && *latest > naive_local_now()) latest = naive_local_now();
        start = latest ? format_sacct_time(*latest - a.overlap) : "now-7days";
    }
    std::string window = " --allusers --starttime " + shell_quote(start) + " --endtime now+1days";
    for (const auto &x : a.sacct_args) window += " " + shell_quote(x);
    std::string typed = shell_quote(a.sacct) + window + " --parsable2 --format=" + structured_sacct_format();
    std::string json = shell_quote(a.sacct) + window + " --json";
    std::FILE *rows = run_to_file(typed);
    try {
        std::FILE *p = popen(json.c_str(), "r");
        if (!p) throw std::runtime_error("cannot run " + json + ": " + std::strerror(errno));
        JobUserTextById user_text;
        try {
            user_text = read_sacct_json_user_text(p, "sacct --json");
        } catch (...) {
            pclose(p);
            throw;
        }
        int rc = pclose(p);
        if (rc != 0) throw std::runtime_error(json + " failed (status " + std::to_string(rc) + ")");
        ingest_streams(a, {{rows, "sacct"}}, nullptr, &user_text);
    } catch (...) {
        std::fclose(rows);
        throw;
    }
    std::fclose(rows);
    if (a.queue) {
        auto tokens = queue_tokens(a.squeue);
        HistoryStore store(a.db, HistoryStore::Access::ReadWrite);
        store.replace_queue_tokens(tokens);
        // squeue --json lists every job slurmctld holds: pending, running, and ended ones it still keeps
        // (MinJobAge), so "queued" would overcount.
        if (!a.quiet)
            std::printf("jfp ingest: %zu jobs slurmctld holds (pending, running or ended within MinJobAge) carry a jfp token\n",
                        tokens.size());
    }
}

void run_ingest(const IngestArgs &a) {
    // Followed ingests refresh the snapshot at most every --snapshot-interval: at 10M jobs writing it takes
    // seconds, and slurmctld applies the changes since the last one in milliseconds.
    SnapshotKeeper snapshot(a.db, a.snapshot, a.quiet,
                            std::chrono::seconds(a.follow ? static_cast<int64_t>(a.snapshot_interval) : 0));
    if (!a.from_sacct && !a.follow) {
        run_ingest_files(a);
        return snapshot.after_change("jfp ingest");
    }
    if (!a.files.empty()) throw std::runtime_error("give export files or --from-sacct/--follow, not both");
    if (a.format == "swf") throw std::runtime_error("--format swf reads SWF log files; sacct's own output is not SWF");
    while (true) {
        try {
            ingest_from_sacct(a);
            snapshot.after_change("jfp ingest");
        } catch (const std::exception &e) {
            if (!a.follow) throw;
            std::fprintf(stderr, "jfp ingest: %s; retrying in %.0f s\n", printable(e.what(), std::string::npos, true).c_str(), a.interval);
        }
        if (!a.follow) return;
        std::fflush(stdout);
        usleep(static_cast<useconds_t>(a.interval * 1e6));
    }
}

// Opens FILE (FILE.gz through gzip -dc; - is stdin).
Source open_source(const std::string &f) {
    if (f == "-") return {stdin, "<stdin>"};
    struct stat st{};
    if (stat(f.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw std::runtime_error(f + " is a directory, not an export; give the files in it (jfp ingest --db ... " + f + "/*)");
    std::FILE *in = std::fopen(f.c_str(), "rb");
    if (!in) throw std::runtime_error("cannot open " + f + ": " + std::strerror(errno));
    long size = fstat(fileno(in), &st) == 0 && S_ISREG(st.st_mode) ? static_cast<long>(st.st_size) : 0;
    if (!ends_with(f, ".gz")) return {in, f, false, nullptr, size};
    // gzip is in every Debian and RHEL base system; its exit status catches a truncated file. It reads our
    // descriptor, so the offset progress samples is the compressed file's.
    std::FILE *out = popen(("exec gzip -dc <&" + std::to_string(fileno(in))).c_str(), "r");
    if (!out) {
        std::fclose(in);
        throw std::runtime_error("cannot run gzip -dc for " + f + ": " + std::strerror(errno));
    }
    return {out, f, true, in, size};
}

bool starts_json(std::FILE *in) {
    int c = std::getc(in);
    if (c == EOF) return false;
    std::ungetc(c, in);
    return c == '{';
}

// sacct --json: the format for users' jobs in a file (model/accounting/sacct_json.h). Read through the same
// path --from-sacct takes: rows of the columns no user writes, names and submit lines by job id.
void ingest_sacct_json(const IngestArgs &a, const Source &src) {
    SacctJsonExport x = sacct_json_export(src.in, src.name);
    std::FILE *tmp = std::tmpfile();
    if (!tmp || std::fwrite(x.rows.data(), 1, x.rows.size(), tmp) != x.rows.size())
        throw std::runtime_error("cannot keep " + src.name + "'s rows in a temporary file (" + std::strerror(errno) +
                                 "; is TMPDIR full?)");
    std::rewind(tmp);
    IngestArgs b = a;
    b.format.clear();
    b.delimiter = "|";
    try {
        ingest_streams(b, {{tmp, src.name}}, nullptr, &x.user_text);
    } catch (...) {
        std::fclose(tmp);
        throw;
    }
    std::fclose(tmp);
}

// Each file is its own ingest: a file that cannot be read (or is not an export) is reported and skipped,
// and every other file's rows are stored. Only a failure of the store itself stops the run.
void run_ingest_files(const IngestArgs &a) {
    std::vector<std::string> files = a.files;
    if (files.empty()) files.push_back("-");
    FileProgress progress(!a.quiet, "bytes read");
    std::vector<std::string> failed;
    for (const auto &f : files) {
        try {
            Source src = open_source(f);
            try {
                if (a.format != "swf" && starts_json(src.in)) ingest_sacct_json(a, src);
                else ingest_streams(a, {src}, &progress);
            } catch (...) {
                close_source(src);
                throw;
            }
            if (src.pipe) {
                int rc = pclose(src.in);
                std::fclose(src.gz);
                if (rc != 0)
                    throw std::runtime_error("gzip -dc " + src.name + " failed (status " + std::to_string(rc) +
                                             "): the file is damaged or truncated; what was read before the damage is stored");
            } else {
                close_source(src);
            }
        } catch (const SqliteError &) {
            progress.pause();
            throw;
        } catch (const std::exception &e) {
            progress.pause();
            std::fprintf(stderr, "jfp: error: %s\n", printable(e.what(), std::string::npos, true).c_str());
            failed.push_back(f);
        }
    }
    if (failed.empty()) return;
    g_exit_status = 1;
    if (files.size() > 1) {
        std::string names;
        for (const auto &f : failed) names += " " + f;
        std::fprintf(stderr,
                     "jfp ingest: %zu of %zu files failed (%s); the other files' rows are stored. Fix those and ingest "
                     "them again: a job ingested twice is replaced, not duplicated\n",
                     failed.size(), files.size(), names.substr(1).c_str());
    }
}

void close_source(const Source &s) {
    if (s.in == stdin) return;
    if (s.pipe) {
        pclose(s.in);
        std::fclose(s.gz);
    } else {
        std::fclose(s.in);
    }
}

// One ingest: the store, its ingest record and the writer thread. Anything that throws inside run() stops
// the writer before the store rolls back, so a failed ingest leaves the store as it was.
class IngestRun {
public:
    IngestRun(const IngestArgs &a, const std::vector<Source> &sources) : store_(a.db, HistoryStore::Access::ReadWrite) {
        std::string names;
        for (const auto &src : sources) names += (names.empty() ? "" : ",") + src.name;
        id_ = store_.begin_ingest(names);
        // Each job's script fingerprint is the one the plugin logged at submission for its token.
        if (!a.feature_log.empty()) fingerprints_ = logged_script_fingerprints(a.feature_log);
        writer_ = std::make_unique<StoreWriter>(store_, fingerprints_.empty() ? nullptr : &fingerprints_);
    }
    template <class F> void run(F &&f) {
        try {
            f();
        } catch (...) {
            writer_.reset();
            store_.abort_ingest();
            throw;
        }
    }
    void finish(const SacctReadReport &r) {
        run([&] { writer_->finish(); });
        store_.finish_ingest(id_, r);
    }
    StoreWriter &writer() { return *writer_; }
    HistoryStore &store() { return store_; }
    int64_t id() const { return id_; }

private:
    HistoryStore store_;
    std::unordered_map<std::string, uint64_t> fingerprints_;
    int64_t id_ = 0;
    std::unique_ptr<StoreWriter> writer_;
};

void print_bad_line(const std::string &source, const BadLine &b) {
    std::string where = b.last_line != b.line ? "lines " + std::to_string(b.line) + "-" + std::to_string(b.last_line)
                                              : "line " + std::to_string(b.line);
    std::fprintf(stderr, "jfp ingest: %s %s: %s\n", source.c_str(), where.c_str(), b.reason.c_str());
}

// The end every ingest shares: where the bad lines not shown are kept, and --strict.
void finish_report(const IngestArgs &a, uint64_t bad, size_t shown, int64_t id) {
    if (bad > shown)
        std::fprintf(stderr,
                     "jfp ingest: %llu more bad lines not shown; all are kept: sqlite3 %s \"SELECT line, reason FROM "
                     "ingest_errors WHERE ingest_id=%lld\"\n",
                     static_cast<unsigned long long>(bad - shown), a.db.c_str(), static_cast<long long>(id));
    if (bad > 0 && a.strict) g_exit_status = 2;
}

// SWF logs (Parallel Workloads Archive): no steps, no delimiter choices.
void ingest_swf(const IngestArgs &a, const std::vector<Source> &sources, FileProgress *progress) {
    IngestRun ingest(a, sources);
    SacctReadReport total;
    size_t shown = 0;
    for (const auto &src : sources) {
        SwfReaderOptions opt;
        opt.cluster = a.cluster;
        SwfReader reader(opt, [&](JobRecord &&j) { ingest.writer().put(std::move(j)); });
        if (progress) progress->watch(src.watch_fd(), src.size);
        ingest.run([&] { reader.read(src.in, src.name); });
        const auto &r = reader.report();
        for (size_t i = 0; i < r.bad_lines.size() && shown < a.show_errors; ++i, ++shown) print_bad_line(src.name, r.bad_lines[i]);
        for (const auto &n : reader.notes()) std::fprintf(stderr, "jfp ingest: %s: %s\n", printable(src.name).c_str(), printable(n).c_str());
        total.lines += r.lines;
        total.header_lines += r.header_lines;
        total.blank_lines += r.blank_lines;
        total.job_rows += r.job_rows;
        total.bad += r.bad;
        total.bad_lines.insert(total.bad_lines.end(), r.bad_lines.begin(), r.bad_lines.end());
    }
    if (progress) progress->pause();
    ingest.finish(total);
    if (!a.quiet)
        std::printf("jfp ingest: %s: %llu SWF lines read: %llu header lines, %llu job rows, %llu bad; %s holds %s\n",
                    sources.size() == 1 ? sources[0].name.c_str() : a.db.c_str(), static_cast<unsigned long long>(total.lines),
                    static_cast<unsigned long long>(total.header_lines), static_cast<unsigned long long>(total.job_rows),
                    static_cast<unsigned long long>(total.bad), a.db.c_str(), counted(ingest.store().job_count(), "job", "jobs").c_str());
    finish_report(a, total.bad, shown, ingest.id());
}

void ingest_streams(const IngestArgs &a, const std::vector<Source> &sources, FileProgress *progress,
                    const JobUserTextById *user_text) {
    if (a.format == "swf") return ingest_swf(a, sources, progress);
    SacctReaderOptions opt;
    opt.user_text = user_text;
    opt.delimiter = parse_delimiter(a.delimiter);
    // Names from sacct --json (user_text) are not read from the delimited text: nothing to forge there.
    opt.trust_user_text = a.trusted_export || user_text != nullptr;
    opt.cluster = a.cluster;
    if (!a.format.empty())
        for (auto f : split(a.format, ',')) opt.format.emplace_back(trim(f));
    IngestRun ingest(a, sources);
    SacctReader reader(
        opt, [&](JobRecord &&j) { ingest.writer().put(std::move(j)); }, [&](StepInfo &&s) { ingest.writer().put(std::move(s)); });
    size_t shown = 0;
    uint64_t bad_before = 0;
    for (const auto &src : sources) {
        if (progress) progress->watch(src.watch_fd(), src.size);
        ingest.run([&] { reader.read(src.in, src.name); });
        const auto &r = reader.report();
        for (size_t i = bad_before; i < r.bad_lines.size() && shown < a.show_errors; ++i, ++shown)
            print_bad_line(src.name, r.bad_lines[i]);
        bad_before = r.bad_lines.size();
    }
    if (progress) progress->pause();
    const auto &r = reader.report();
    ingest.finish(r);
    if (!a.quiet) {
        std::printf("jfp ingest: %s: %llu lines read: %llu job rows, %llu step rows, %llu bad",
                    sources.size() == 1 ? sources[0].name.c_str() : a.db.c_str(), static_cast<unsigned long long>(r.lines), static_cast<unsigned long long>(r.job_rows),
                    static_cast<unsigned long long>(r.step_rows), static_cast<unsigned long long>(r.bad));
        if (r.recovered_pipes) std::printf(", %llu with '|' in free text recovered", static_cast<unsigned long long>(r.recovered_pipes));
        if (r.joined_newlines) std::printf(", %llu with newlines in free text joined", static_cast<unsigned long long>(r.joined_newlines));
        std::printf("; %s holds %s\n", a.db.c_str(), counted(ingest.store().job_count(), "job", "jobs").c_str());
        std::string m;
        for (const auto &c : r.missing_optional)
            if (c != "UID") m += (m.empty() ? "" : ", ") + c;
        if (!m.empty()) std::printf("jfp ingest: the export has no %s: those features will be unknown\n", m.c_str());
    }
    // Said even with -q: without it a user's first job after slurmctld starts could miss their history.
    if (std::find(r.missing_optional.begin(), r.missing_optional.end(), "UID") != r.missing_optional.end() && r.job_rows)
        std::fprintf(stderr,
                     "jfp ingest: warning: the export has no UID column: the plugin looks these users' names up in "
                     "the password database when it loads the history, and scores a user it cannot find there "
                     "without their history; re-export with UID (sacct --format=...,User,UID,...)\n");
    finish_report(a, r.bad, shown, ingest.id());
}

}  // namespace

void add_ingest_command(CLI::App &app) {
    auto a = std::make_shared<IngestArgs>();
    auto *c = app.add_subcommand("ingest", "Read sacct exports (files or - for stdin) into the history store");
    c->add_option("--db", a->db, "history store (SQLite file; created when missing)");
    c->add_option("--format", a->format,
                  "comma-separated sacct field names, for exports without a header (sacct --noheader --format=...); "
                  "or 'swf' for Parallel Workloads Archive logs (Standard Workload Format)");
    c->add_option("--delimiter", a->delimiter, "field delimiter: '|' (default), ';', tab, \\x1f, or a string (sacct takes one): a random "
                  "one per export is what no job name can hold");
    c->add_option("--cluster", a->cluster, "cluster name for exports without a Cluster column")->capture_default_str();
    c->add_option("--show-errors", a->show_errors, "bad lines to print (all are kept in the store)")->capture_default_str();
    c->add_flag("--strict", a->strict, "exit with status 2 when any line was bad");
    c->add_flag("--trusted-export", a->trusted_export,
                "read a --parsable2 export whose delimiter a user could type (fewer than 16 random hex digits) and a "
                "column users write (JobName, SubmitLine, Comment, WorkDir, Container, WCKey): refused without it, "
                "since such text can forge other users' rows there");
    c->add_flag("-q,--quiet", a->quiet, "print only errors");
    c->add_flag("--from-sacct", a->from_sacct,
                "run sacct from the store's latest end time (minus --overlap) and ingest its output");
    c->add_flag("--follow", a->follow, "like --from-sacct, again every --interval seconds, until stopped");
    c->add_option("--interval", a->interval, "seconds between --follow runs")->capture_default_str()->check(CLI::Range(1.0, 86400.0));
    c->add_option("--overlap", a->overlap, "seconds before the latest end time to start sacct from")->capture_default_str();
    c->add_option("--sacct", a->sacct, "the sacct command")->capture_default_str();
    c->add_flag("!--no-queue", a->queue,
                "with --from-sacct: do not record queued jobs' tokens from squeue --json (jfp scripts show then "
                "finds only jobs the store already knows)");
    c->add_option("--squeue", a->squeue, "the squeue command")->capture_default_str();
    c->add_flag("!--no-snapshot", a->snapshot,
                "do not write the history snapshot (STORE.snapshot) slurmctld starts from in seconds; without it, it "
                "replays the store (half a minute at 10M jobs)");
    c->add_option("--snapshot-interval", a->snapshot_interval, "with --follow: seconds between snapshot refreshes")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 86400.0));
    c->add_option("--sacct-arg", a->sacct_args, "extra argument for sacct (repeatable), e.g. --sacct-arg=--clusters=c1");
    c->add_option("files", a->files, "sacct exports or SWF logs; FILE.gz is read through gzip -dc; - or nothing reads stdin");
    c->footer("Export with: sacct --allusers --json --starttime ... > FILE.json (read as JSON when it starts with '{').\n"
              "In sacct's text output (--parsable2) a job name a user wrote with newlines and '|' can read as jobs of "
              "other users, and no reader can tell: such an export is refused unless its delimiter is a string no "
              "user can type (sacct --delimiter=\"$d\", jfp ingest --delimiter=\"$d\") or you add --trusted-export. "
              "Recommended columns: --format=" + std::string(recommended_sacct_format()) +
              ". --from-sacct reads names from sacct --json itself.");
    c->add_option("--feature-log", a->feature_log,
                  "the plugin's feature log, for each job's script fingerprint (default: jfp.conf's feature_log)");
    a->conf.add_option(c);
    c->callback([a] {
        a->conf.fill(a->db, ConfPath::Store, "--db", true);
        a->conf.fill(a->feature_log, ConfPath::FeatureLog, "--feature-log", false);
        run_ingest(*a);
    });
}

}  // namespace jfp
