// jfp ingest: sacct exports into the history store.
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "progress.h"
#include "model/history_store.h"
#include "model/sacct_reader.h"
#include "model/swf_reader.h"
#include "model/text.h"
#include "model/time_util.h"
#include "store_writer.h"

namespace jfp {

namespace {

struct IngestArgs {
    std::string db;
    bool from_sacct = false;
    bool queue = true;
    std::string scontrol = "scontrol";
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
void ingest_streams(const IngestArgs &a, const std::vector<Source> &sources, FileProgress *progress = nullptr);
void ingest_swf(const IngestArgs &a, const std::vector<Source> &sources, FileProgress *progress);
void run_ingest_files(const IngestArgs &a);
std::vector<std::pair<std::string, std::string>> queue_tokens(const IngestArgs &a);

std::string shell_quote(const std::string &s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

// One sacct run from the store's latest end minus the overlap (slurmdbd may complete a job's record
// seconds after it ended, and an overlapping window picks the full record up), into the store.
void ingest_from_sacct(const IngestArgs &a) {
    std::string start;
    {
        HistoryStore store(a.db, HistoryStore::Access::ReadWrite);
        auto latest = store.latest_end();
        start = latest ? format_sacct_time(*latest - a.overlap) : "now-7days";
    }
    std::string cmd = shell_quote(a.sacct) + " --allusers --parsable2 --starttime " + shell_quote(start) +
                      " --endtime now+1days --format=" + recommended_sacct_format();
    for (const auto &x : a.sacct_args) cmd += " " + shell_quote(x);
    std::FILE *p = popen(cmd.c_str(), "r");
    if (!p) throw std::runtime_error("cannot run " + cmd + ": " + std::strerror(errno));
    try {
        ingest_streams(a, {{p, "sacct"}});
    } catch (...) {
        pclose(p);
        throw;
    }
    int rc = pclose(p);
    if (rc != 0) throw std::runtime_error("sacct failed (" + cmd + ", status " + std::to_string(rc) + ")");
    if (a.queue) {
        auto tokens = queue_tokens(a);
        HistoryStore store(a.db, HistoryStore::Access::ReadWrite);
        store.replace_queue_tokens(tokens);
        if (!a.quiet) std::printf("jfp ingest: %zu queued job ids with a jfp token\n", tokens.size());
    }
}

// Job id -> join token of every job slurmctld holds, from `scontrol -o show job` (one job a line).
std::vector<std::pair<std::string, std::string>> queue_tokens(const IngestArgs &a) {
    std::string cmd = shell_quote(a.scontrol) + " -o show job";
    std::FILE *p = popen(cmd.c_str(), "r");
    if (!p) throw std::runtime_error("cannot run " + cmd + ": " + std::strerror(errno));
    std::vector<std::pair<std::string, std::string>> out;
    char *buf = nullptr;
    size_t cap = 0;
    auto field = [](std::string_view line, std::string_view key) -> std::string {
        size_t pos = 0;
        while ((pos = line.find(key, pos)) != std::string_view::npos) {
            if (pos == 0 || line[pos - 1] == ' ') {
                auto v = line.substr(pos + key.size());
                return std::string(v.substr(0, v.find(' ')));
            }
            pos += key.size();
        }
        return {};
    };
    while (getline(&buf, &cap, p) >= 0) {
        std::string_view line(buf);
        std::string token = extract_jfp_token(std::string(line));
        if (token.size() != 16) continue;
        std::string id = field(line, "JobId=");
        if (id.empty()) continue;
        out.emplace_back(id, token);
        std::string array = field(line, "ArrayJobId="), task = field(line, "ArrayTaskId=");
        if (!array.empty() && !task.empty()) out.emplace_back(array + "_" + task, token);
    }
    std::free(buf);
    int rc = pclose(p);
    if (rc != 0) throw std::runtime_error("scontrol failed (" + cmd + ", status " + std::to_string(rc) + ")");
    return out;
}

void run_ingest(const IngestArgs &a) {
    if (!a.from_sacct && !a.follow) return run_ingest_files(a);
    if (!a.files.empty()) throw std::runtime_error("give export files or --from-sacct/--follow, not both");
    if (a.format == "swf") throw std::runtime_error("--format swf reads SWF log files; sacct's own output is not SWF");
    while (true) {
        try {
            ingest_from_sacct(a);
        } catch (const std::exception &e) {
            if (!a.follow) throw;
            std::fprintf(stderr, "jfp ingest: %s; retrying in %.0f s\n", e.what(), a.interval);
        }
        if (!a.follow) return;
        std::fflush(stdout);
        usleep(static_cast<useconds_t>(a.interval * 1e6));
    }
}

void run_ingest_files(const IngestArgs &a) {
    std::vector<std::string> files = a.files;
    if (files.empty()) files.push_back("-");
    std::vector<Source> sources;
    auto close_all = [&] {
        for (auto &s : sources) close_source(s);
        sources.clear();
    };
    for (const auto &f : files) {
        if (f == "-") {
            sources.push_back({stdin, "<stdin>"});
            continue;
        }
        std::FILE *in = std::fopen(f.c_str(), "rb");
        if (!in) {
            close_all();
            throw std::runtime_error("cannot open " + f + ": " + std::strerror(errno));
        }
        struct stat st{};
        long size = fstat(fileno(in), &st) == 0 && S_ISREG(st.st_mode) ? static_cast<long>(st.st_size) : 0;
        if (ends_with(f, ".gz")) {
            // gzip is in every Debian and RHEL base system; its exit status catches a truncated file. It
            // reads our descriptor, so the offset progress samples is the compressed file's.
            std::FILE *gz = in;
            in = popen(("exec gzip -dc <&" + std::to_string(fileno(gz))).c_str(), "r");
            if (!in) {
                std::fclose(gz);
                close_all();
                throw std::runtime_error("cannot run gzip -dc for " + f + ": " + std::strerror(errno));
            }
            sources.push_back({in, f, true, gz, size});
        } else {
            sources.push_back({in, f, false, nullptr, size});
        }
    }
    try {
        FileProgress progress(!a.quiet, "bytes read");
        ingest_streams(a, sources, &progress);
    } catch (...) {
        close_all();
        throw;
    }
    for (auto &s : sources) {
        if (!s.pipe) continue;
        int rc = pclose(s.in);
        std::fclose(s.gz);
        s.in = stdin;  // closed
        if (rc != 0)
            throw std::runtime_error("gzip -dc " + s.name + " failed (status " + std::to_string(rc) +
                                     "): the file is damaged or truncated; what was read before the damage is stored");
    }
    close_all();
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
        writer_ = std::make_unique<StoreWriter>(store_);
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
        for (const auto &n : reader.notes()) std::fprintf(stderr, "jfp ingest: %s: %s\n", src.name.c_str(), n.c_str());
        total.lines += r.lines;
        total.header_lines += r.header_lines;
        total.blank_lines += r.blank_lines;
        total.job_rows += r.job_rows;
        total.bad += r.bad;
        total.bad_lines.insert(total.bad_lines.end(), r.bad_lines.begin(), r.bad_lines.end());
    }
    if (progress) progress->stop();
    ingest.finish(total);
    if (!a.quiet)
        std::printf("jfp ingest: %s: %llu SWF lines read: %llu header lines, %llu job rows, %llu bad; store holds %llu jobs\n",
                    a.db.c_str(), static_cast<unsigned long long>(total.lines),
                    static_cast<unsigned long long>(total.header_lines), static_cast<unsigned long long>(total.job_rows),
                    static_cast<unsigned long long>(total.bad), static_cast<unsigned long long>(ingest.store().job_count()));
    finish_report(a, total.bad, shown, ingest.id());
}

void ingest_streams(const IngestArgs &a, const std::vector<Source> &sources, FileProgress *progress) {
    if (a.format == "swf") return ingest_swf(a, sources, progress);
    SacctReaderOptions opt;
    opt.delimiter = parse_delimiter(a.delimiter);
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
    if (progress) progress->stop();
    const auto &r = reader.report();
    ingest.finish(r);
    if (!a.quiet) {
        std::printf("jfp ingest: %s: %llu lines read: %llu job rows, %llu step rows, %llu bad",
                    a.db.c_str(), static_cast<unsigned long long>(r.lines), static_cast<unsigned long long>(r.job_rows),
                    static_cast<unsigned long long>(r.step_rows), static_cast<unsigned long long>(r.bad));
        if (r.recovered_pipes) std::printf(", %llu with '|' in free text recovered", static_cast<unsigned long long>(r.recovered_pipes));
        if (r.joined_newlines) std::printf(", %llu with newlines in free text joined", static_cast<unsigned long long>(r.joined_newlines));
        std::printf("; store holds %llu jobs\n", static_cast<unsigned long long>(ingest.store().job_count()));
        if (!r.missing_optional.empty()) {
            std::string m;
            for (const auto &c : r.missing_optional) m += (m.empty() ? "" : ", ") + c;
            std::printf("jfp ingest: the export has no %s: those features will be unknown\n", m.c_str());
        }
    }
    finish_report(a, r.bad, shown, ingest.id());
}

}  // namespace

void add_ingest_command(CLI::App &app) {
    auto a = std::make_shared<IngestArgs>();
    auto *c = app.add_subcommand("ingest", "Read sacct exports (files or - for stdin) into the history store");
    c->add_option("--db", a->db, "history store (SQLite file; created when missing)")->required();
    c->add_option("--format", a->format,
                  "comma-separated sacct field names, for exports without a header (sacct --noheader --format=...); "
                  "or 'swf' for Parallel Workloads Archive logs (Standard Workload Format)");
    c->add_option("--delimiter", a->delimiter, "field delimiter: '|' (default), ';', tab, \\x1f ...");
    c->add_option("--cluster", a->cluster, "cluster name for exports without a Cluster column")->capture_default_str();
    c->add_option("--show-errors", a->show_errors, "bad lines to print (all are kept in the store)")->capture_default_str();
    c->add_flag("--strict", a->strict, "exit with status 2 when any line was bad");
    c->add_flag("-q,--quiet", a->quiet, "print only errors");
    c->add_flag("--from-sacct", a->from_sacct,
                "run sacct from the store's latest end time (minus --overlap) and ingest its output");
    c->add_flag("--follow", a->follow, "like --from-sacct, again every --interval seconds, until stopped");
    c->add_option("--interval", a->interval, "seconds between --follow runs")->capture_default_str()->check(CLI::Range(1.0, 86400.0));
    c->add_option("--overlap", a->overlap, "seconds before the latest end time to start sacct from")->capture_default_str();
    c->add_option("--sacct", a->sacct, "the sacct command")->capture_default_str();
    c->add_flag("!--no-queue", a->queue,
                "with --from-sacct: do not record queued jobs' tokens from scontrol (job_modify then re-scores only "
                "jobs the store already knows)");
    c->add_option("--scontrol", a->scontrol, "the scontrol command")->capture_default_str();
    c->add_option("--sacct-arg", a->sacct_args, "extra argument for sacct (repeatable), e.g. --sacct-arg=--clusters=c1");
    c->add_option("files", a->files, "sacct exports or SWF logs; FILE.gz is read through gzip -dc; - or nothing reads stdin");
    c->footer(std::string("Export with: sacct --allusers --parsable2 --starttime ... --format=") + recommended_sacct_format());
    c->callback([a] { run_ingest(*a); });
}

}  // namespace jfp
