#include "tools/ingest/ingest_run.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "model/accounting/sacct_json.h"
#include "model/sacct/sacct_reader.h"
#include "model/accounting/swf_reader.h"
#include "model/store/history_store.h"
#include "model/scoring/feature_log.h"
#include "model/util/text.h"
#include "model/util/time_util.h"
#include "tools/ingest/ingest_source.h"
#include "tools/ingest/sacct_window.h"
#include "tools/ingest/slurm_queue.h"
#include "tools/ingest/snapshot_keeper.h"
#include "tools/ingest/store_writer.h"
#include "tools/process/subprocess.h"
#include "tools/terminal/progress.h"

namespace jfp {

namespace {

// One ingest: the store, its ingest record and the writer thread. Anything that throws inside run() stops
// the writer before the store rolls back, so a failed ingest leaves the store as it was.
class StoreIngest {
public:
    StoreIngest(const IngestOptions &a, const std::vector<IngestSource> &sources, SnapshotKeeper &snapshot)
        : store_(a.db, HistoryStore::Access::ReadWrite), snapshot_(snapshot) {
        std::string names;
        for (const auto &src : sources) names += (names.empty() ? "" : ",") + src.name;
        snapshot_.before_ingest(store_);
        id_ = store_.begin_ingest(names);
        snapshot_.ingest_began(store_);
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
            snapshot_.ingest_failed();
            throw;
        }
    }
    void finish(const SacctReadReport &r) {
        run([&] { writer_->finish(); });
        run([&] { store_.finish_ingest(id_, r); });
        snapshot_.ingest_done(store_);
    }
    StoreWriter &writer() { return *writer_; }
    HistoryStore &store() { return store_; }
    int64_t id() const { return id_; }

private:
    HistoryStore store_;
    SnapshotKeeper &snapshot_;
    std::unordered_map<std::string, uint64_t> fingerprints_;
    int64_t id_ = 0;
    std::unique_ptr<StoreWriter> writer_;
};

// A temporary file holding BYTES, rewound; what the sacct reader reads rows from.
std::FILE *temp_file_of(const std::string &bytes, const std::string &what) {
    std::FILE *tmp = std::tmpfile();
    if (!tmp || std::fwrite(bytes.data(), 1, bytes.size(), tmp) != bytes.size()) {
        if (tmp) std::fclose(tmp);
        throw std::runtime_error("cannot keep " + what + " in a temporary file (" + std::strerror(errno) + "; is TMPDIR full?)");
    }
    std::rewind(tmp);
    return tmp;
}

struct TempFile {
    std::FILE *f;
    ~TempFile() {
        if (f) std::fclose(f);
    }
};

class Ingest {
public:
    Ingest(const IngestOptions &a, SnapshotKeeper &snapshot) : a_(a), snapshot_(snapshot) {}
    int status = 0;

    void files();
    void from_sacct();
    void streams(const IngestOptions &a, const std::vector<IngestSource> &sources, FileProgress *progress,
                 const JobUserTextById *user_text = nullptr);

private:
    void swf(const std::vector<IngestSource> &sources, FileProgress *progress);
    void sacct_json(const IngestSource &src);
    void print_bad_line(const std::string &source, const BadLine &b);
    void finish_report(uint64_t bad, size_t shown, int64_t id);
    const IngestOptions &a_;
    SnapshotKeeper &snapshot_;
};

void Ingest::print_bad_line(const std::string &source, const BadLine &b) {
    std::string where = b.last_line != b.line ? "lines " + std::to_string(b.line) + "-" + std::to_string(b.last_line)
                                              : "line " + std::to_string(b.line);
    std::fprintf(stderr, "jfp ingest: %s %s: %s\n", source.c_str(), where.c_str(), b.reason.c_str());
}

// The end every ingest shares: where the bad lines not shown are kept, and --strict.
void Ingest::finish_report(uint64_t bad, size_t shown, int64_t id) {
    if (bad > shown)
        std::fprintf(stderr,
                     "jfp ingest: %llu more bad lines not shown; all are kept: sqlite3 %s \"SELECT line, reason FROM "
                     "ingest_errors WHERE ingest_id=%lld\"\n",
                     static_cast<unsigned long long>(bad - shown), a_.db.c_str(), static_cast<long long>(id));
    if (bad > 0 && a_.strict) status = 2;
}

// One ingest from sacct. Users write job names and submit lines, and sacct prints them raw in its text
// output, where a name holding a newline reads as one more record: so the text output (--parsable2) carries
// only columns no user writes, and the names and submit lines come from sacct --json, run after it (a job it
// lists had ended, so the second run lists it too), joined by job id.
void Ingest::from_sacct() {
    std::string start;
    {
        HistoryStore store(a_.db, HistoryStore::Access::ReadWrite);
        start = sacct_window_start(store.latest_end(), naive_local_now(), a_.overlap);
    }
    std::vector<std::string> typed = {a_.sacct}, json = {a_.sacct};
    for (const auto &x : sacct_window_args(start, a_.sacct_args)) typed.push_back(x), json.push_back(x);
    typed.push_back("--parsable2");
    typed.push_back(std::string("--format=") + structured_sacct_format());
    json.push_back("--json");
    SubprocessOptions opt;
    opt.hint = "is slurmdbd up (sacctmgr show cluster), and --sacct a Slurm sacct?";
    // The rows stream into a temporary file (a year of a cluster's jobs is gigabytes): they are read after
    // the names they are joined with.
    TempFile rows{std::tmpfile()};
    if (!rows.f) throw std::runtime_error(std::string("cannot create a temporary file for sacct's output (") + std::strerror(errno) + "; is TMPDIR full?)");
    read_program_output(typed, opt, [&](std::FILE *out) {
        char buf[1 << 16];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, out)) > 0)
            if (std::fwrite(buf, 1, n, rows.f) != n)
                throw std::runtime_error(std::string("cannot keep sacct's output in a temporary file (") + std::strerror(errno) +
                                         "; is TMPDIR full?)");
    });
    std::rewind(rows.f);
    opt.name = a_.sacct + " --json";
    JobUserTextById user_text;
    read_program_output(json, opt, [&](std::FILE *out) { user_text = read_sacct_json_user_text(out, "sacct --json"); });
    IngestSource src;
    src.in = rows.f;
    src.name = "sacct";
    streams(a_, {src}, nullptr, &user_text);
    if (a_.queue) {
        auto tokens = queue_tokens(a_.squeue);
        HistoryStore store(a_.db, HistoryStore::Access::ReadWrite);
        store.replace_queue_tokens(tokens);
        // squeue --json lists every job slurmctld holds: pending, running, and ended ones it still keeps
        // (MinJobAge), so "queued" would overcount.
        if (!a_.quiet)
            std::printf("jfp ingest: %zu jobs slurmctld holds (pending, running or ended within MinJobAge) carry a jfp token\n",
                        tokens.size());
    }
}

// sacct --json: the format for users' jobs in a file (model/accounting/sacct_json.h). Read through the same
// path --from-sacct takes: rows of the columns no user writes, names and submit lines by job id.
void Ingest::sacct_json(const IngestSource &src) {
    SacctJsonExport x = sacct_json_export(src.in, src.name);
    TempFile tmp{temp_file_of(x.rows, src.name + "'s rows")};
    IngestOptions b = a_;
    b.format.clear();
    b.delimiter = "|";
    IngestSource rows;
    rows.in = tmp.f;
    rows.name = src.name;
    streams(b, {rows}, nullptr, &x.user_text);
}

// Each file is its own ingest: a file that cannot be read (or is not an export) is reported and skipped,
// and every other file's rows are stored. Only a failure of the store itself stops the run.
void Ingest::files() {
    std::vector<std::string> files = a_.files;
    if (files.empty()) files.push_back("-");
    FileProgress progress(!a_.quiet, "bytes read");
    std::vector<std::string> failed;
    for (const auto &f : files) {
        try {
            IngestSource src = open_source(f);
            try {
                if (a_.format != "swf" && starts_json(src.in)) sacct_json(src);
                else streams(a_, {src}, &progress);
            } catch (...) {
                close_source(src);
                throw;
            }
            finish_source(src);
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
    status = 1;
    if (files.size() > 1) {
        std::string names;
        for (const auto &f : failed) names += " " + f;
        std::fprintf(stderr,
                     "jfp ingest: %zu of %zu files failed (%s); the other files' rows are stored. Fix those and ingest "
                     "them again: a job ingested twice is replaced, not duplicated\n",
                     failed.size(), files.size(), names.substr(1).c_str());
    }
}

// SWF logs (Parallel Workloads Archive): no steps, no delimiter choices.
void Ingest::swf(const std::vector<IngestSource> &sources, FileProgress *progress) {
    StoreIngest ingest(a_, sources, snapshot_);
    SacctReadReport total;
    size_t shown = 0;
    for (const auto &src : sources) {
        SwfReaderOptions opt;
        opt.cluster = a_.cluster;
        SwfReader reader(opt, [&](JobRecord &&j) { ingest.writer().put(std::move(j)); });
        if (progress) progress->watch(src.watch_fd(), src.size);
        ingest.run([&] { reader.read(src.in, src.name); });
        const auto &r = reader.report();
        for (size_t i = 0; i < r.bad_lines.size() && shown < a_.show_errors; ++i, ++shown) print_bad_line(src.name, r.bad_lines[i]);
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
    if (!a_.quiet)
        std::printf("jfp ingest: %s: %llu SWF lines read: %llu header lines, %llu job rows, %llu bad; %s holds %s\n",
                    sources.size() == 1 ? sources[0].name.c_str() : a_.db.c_str(), static_cast<unsigned long long>(total.lines),
                    static_cast<unsigned long long>(total.header_lines), static_cast<unsigned long long>(total.job_rows),
                    static_cast<unsigned long long>(total.bad), a_.db.c_str(), counted(ingest.store().job_count(), "job", "jobs").c_str());
    finish_report(total.bad, shown, ingest.id());
}

void Ingest::streams(const IngestOptions &a, const std::vector<IngestSource> &sources, FileProgress *progress,
                     const JobUserTextById *user_text) {
    if (a.format == "swf") return swf(sources, progress);
    SacctReaderOptions opt;
    opt.user_text = user_text;
    opt.delimiter = a.delimiter;
    // Names from sacct --json (user_text) are not read from the delimited text: nothing to forge there.
    opt.trust_user_text = a.trusted_export || user_text != nullptr;
    opt.cluster = a.cluster;
    if (!a.format.empty())
        for (auto f : split(a.format, ',')) opt.format.emplace_back(trim(f));
    StoreIngest ingest(a, sources, snapshot_);
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
    finish_report(r.bad, shown, ingest.id());
}

}  // namespace

int run_ingest(const IngestOptions &a) {
    // Followed ingests refresh the snapshot at most every --snapshot-interval: at 10M jobs writing it takes
    // seconds, and slurmctld applies the changes since the last one in milliseconds. Other ingests build it
    // from their rows as they are written: no replay of the store after them.
    SnapshotKeeper snapshot(a.db, a.snapshot, a.quiet,
                            std::chrono::seconds(a.follow ? static_cast<int64_t>(a.snapshot_interval) : 0), !a.follow);
    Ingest ingest(a, snapshot);
    if (!a.from_sacct && !a.follow) {
        ingest.files();
        snapshot.after_change("jfp ingest");
        return ingest.status;
    }
    if (!a.files.empty()) throw std::runtime_error("give export files or --from-sacct/--follow, not both");
    if (a.format == "swf") throw std::runtime_error("--format swf reads SWF log files; sacct's own output is not SWF");
    while (true) {
        try {
            ingest.from_sacct();
            snapshot.after_change("jfp ingest");
        } catch (const std::exception &e) {
            if (!a.follow) throw;
            std::fprintf(stderr, "jfp ingest: %s; retrying in %.0f s\n", printable(e.what(), std::string::npos, true).c_str(), a.interval);
        }
        if (!a.follow) return ingest.status;
        std::fflush(stdout);
        usleep(static_cast<useconds_t>(a.interval * 1e6));
    }
}

}  // namespace jfp
