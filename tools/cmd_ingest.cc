// jfp ingest: sacct exports into the history store.
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "commands.h"
#include "model/history_store.h"
#include "model/sacct_reader.h"
#include "model/text.h"

namespace jfp {

namespace {

struct IngestArgs {
    std::string db;
    std::string format;
    std::string delimiter = "|";
    std::string cluster = "default";
    std::vector<std::string> files;
    size_t show_errors = 20;
    bool strict = false;
    bool quiet = false;
};

void run_ingest(const IngestArgs &a) {
    SacctReaderOptions opt;
    opt.delimiter = parse_delimiter(a.delimiter);
    opt.cluster = a.cluster;
    if (!a.format.empty())
        for (auto f : split(a.format, ',')) opt.format.emplace_back(trim(f));
    HistoryStore store(a.db, HistoryStore::Access::ReadWrite);
    std::vector<std::string> files = a.files;
    if (files.empty()) files.push_back("-");
    uint64_t jobs = 0, steps = 0;
    SacctReader reader(
        opt,
        [&](JobRecord &&j) {
            store.put_job(j);
            ++jobs;
        },
        [&](StepInfo &&s) {
            store.put_step(s);
            ++steps;
        });
    std::string sources;
    for (const auto &f : files) sources += (sources.empty() ? "" : ",") + f;
    int64_t id = store.begin_ingest(sources);
    // Bad lines are reported per file with their line numbers.
    size_t shown = 0;
    uint64_t bad_before = 0;
    for (const auto &f : files) {
        std::FILE *in = f == "-" ? stdin : std::fopen(f.c_str(), "rb");
        if (!in) {
            store.abort_ingest();
            throw std::runtime_error("cannot open " + f + ": " + std::strerror(errno));
        }
        try {
            reader.read(in, f == "-" ? "<stdin>" : f);
        } catch (...) {
            if (in != stdin) std::fclose(in);
            store.abort_ingest();
            throw;
        }
        if (in != stdin) std::fclose(in);
        const auto &r = reader.report();
        for (size_t i = bad_before; i < r.bad_lines.size() && shown < a.show_errors; ++i, ++shown) {
            const auto &b = r.bad_lines[i];
            std::string where = b.last_line != b.line ? "lines " + std::to_string(b.line) + "-" + std::to_string(b.last_line)
                                                      : "line " + std::to_string(b.line);
            std::fprintf(stderr, "jfp ingest: %s %s: %s\n", f.c_str(), where.c_str(), b.reason.c_str());
        }
        bad_before = r.bad_lines.size();
    }
    const auto &r = reader.report();
    store.finish_ingest(id, r);
    if (!a.quiet) {
        std::printf("jfp ingest: %s: %llu lines read: %llu job rows, %llu step rows, %llu bad",
                    a.db.c_str(), static_cast<unsigned long long>(r.lines), static_cast<unsigned long long>(r.job_rows),
                    static_cast<unsigned long long>(r.step_rows), static_cast<unsigned long long>(r.bad));
        if (r.recovered_pipes) std::printf(", %llu with '|' in free text recovered", static_cast<unsigned long long>(r.recovered_pipes));
        if (r.joined_newlines) std::printf(", %llu with newlines in free text joined", static_cast<unsigned long long>(r.joined_newlines));
        std::printf("; store holds %llu jobs\n", static_cast<unsigned long long>(store.job_count()));
        if (!r.missing_optional.empty()) {
            std::string m;
            for (const auto &c : r.missing_optional) m += (m.empty() ? "" : ", ") + c;
            std::printf("jfp ingest: the export has no %s: those features will be unknown\n", m.c_str());
        }
    }
    if (r.bad > shown)
        std::fprintf(stderr,
                     "jfp ingest: %llu more bad lines not shown; all are kept: sqlite3 %s \"SELECT line, reason FROM "
                     "ingest_errors WHERE ingest_id=%lld\"\n",
                     static_cast<unsigned long long>(r.bad - shown), a.db.c_str(), static_cast<long long>(id));
    if (r.bad > 0 && a.strict) g_exit_status = 2;
}

}  // namespace

void add_ingest_command(CLI::App &app) {
    auto a = std::make_shared<IngestArgs>();
    auto *c = app.add_subcommand("ingest", "Read sacct exports (files or - for stdin) into the history store");
    c->add_option("--db", a->db, "history store (SQLite file; created when missing)")->required();
    c->add_option("--format", a->format,
                  "comma-separated sacct field names, for exports without a header (sacct --noheader --format=...)");
    c->add_option("--delimiter", a->delimiter, "field delimiter: '|' (default), ';', tab, \\x1f ...");
    c->add_option("--cluster", a->cluster, "cluster name for exports without a Cluster column")->capture_default_str();
    c->add_option("--show-errors", a->show_errors, "bad lines to print (all are kept in the store)")->capture_default_str();
    c->add_flag("--strict", a->strict, "exit with status 2 when any line was bad");
    c->add_flag("-q,--quiet", a->quiet, "print only errors");
    c->add_option("files", a->files, "sacct exports; - or nothing reads stdin");
    c->footer(std::string("Export with: sacct --allusers --parsable2 --starttime ... --format=") + recommended_sacct_format());
    c->callback([a] { run_ingest(*a); });
}

}  // namespace jfp
