#include "model/sacct/sacct_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>

#include "model/sacct/field_placement.h"
#include "model/sacct/job_folder.h"
#include "model/sacct/record_joiner.h"
#include "model/sacct/sacct_row.h"
#include "model/jobs/slurm_text.h"
#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

namespace {

// Whether users could have typed the delimiter into their text before the export was made: anything but a
// string holding 16 hex digits or more (64 random bits, as the recipe in the refusal makes: one per export).
// '||' or ';;' is as typable as '|' (rows were forged with '||').
bool typable_delimiter(std::string_view d) {
    size_t hex = 0;
    for (char c : d) hex += (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    return hex < 16;
}

}  // namespace

struct SacctReader::Impl {
    SacctReaderOptions opt;
    SacctReadReport report;
    JobFolder jobs;

    SacctLayout layout;  // of the current stream
    std::string header_line;  // as read, to skip repeats in concatenated exports
    bool have_layout = false;
    std::string source;
    std::vector<std::string_view> fields;

    ProcessRecord process_record = [this](std::string_view text, uint64_t first, uint64_t last, bool final) {
        return process(text, first, last, final);
    };
    IdLedJoiner id_led{opt.delimiter, process_record};
    ShortLineJoiner short_lines{opt.delimiter, process_record};
    JoinCounts counts{report.blank_lines, report.joined_newlines};

    Impl(SacctReaderOptions options, JobSink on_job, StepSink on_step)
        : opt(std::move(options)), jobs(std::move(on_job), std::move(on_step)) {}

    void bad(uint64_t first, uint64_t last, std::string reason, std::string_view text) {
        ++report.bad;
        if (report.bad_lines.size() < opt.max_reported_bad_lines) {
            BadLine b;
            b.line = first;
            b.last_line = last;
            b.reason = std::move(reason);
            b.text = std::string(text.substr(0, 200));
            report.bad_lines.push_back(std::move(b));
        }
    }

    void start(const std::string &source_name) {
        source = source_name;
        jobs.start(naive_local_now());
        have_layout = false;
        header_line.clear();
    }

    void set_layout(const std::vector<std::string_view> &names) {
        layout.set(names, source);
        if (!opt.trust_user_text && typable_delimiter(opt.delimiter)) {
            std::string col = layout.first_user_written();
            if (!col.empty())
                throw SacctFormatError(
                    source + ": column " + col + " is text users write, and with the delimiter " +
                    quote_for_message(opt.delimiter, 40) +
                    " (fewer than 16 random hex digits: a user can type it) text holding newlines and it reads as other "
                    "users' jobs, which no reader can tell; nothing was read. Export with a delimiter no user can type and give jfp the same: "
                    "d=\"|$(od -An -N8 -tx1 /dev/urandom | tr -d ' \\n')|\"; sacct --parsable2 --delimiter=\"$d\" ...; "
                    "jfp ingest --delimiter=\"$d\" FILE (or export with sacct --json, or run jfp ingest --from-sacct). "
                    "If you trust every user in this export, add --trusted-export.");
        }
        report.ignored_columns = layout.ignored_columns();
        report.missing_optional = layout.missing_optional();
        if (opt.user_text)  // names and submit lines come from sacct --json
            report.missing_optional.erase(std::remove_if(report.missing_optional.begin(), report.missing_optional.end(),
                                                         [](const std::string &c) { return c == "JobName" || c == "SubmitLine"; }),
                                          report.missing_optional.end());
        have_layout = true;
    }

    void build(const std::vector<std::string_view> &f, uint64_t first_line, uint64_t last_line, std::string_view text) {
        SacctRow row = read_sacct_row(layout, f, opt.cluster);
        if (row.kind == SacctRow::Kind::Bad) {
            bad(first_line, last_line, std::move(row.problem), text);
            return;
        }
        const JobUserTextById *user_text = opt.user_text && !layout.has(SacctCol::JobName) ? opt.user_text : nullptr;
        if (auto why = jobs.add(std::move(row), user_text)) bad(first_line, last_line, std::move(*why), text);
        report.job_rows = jobs.job_rows();
        report.step_rows = jobs.step_rows();
    }

    // One record (one line, or several joined). False when it is short of fields and not final, so that the
    // joiner may add the next line.
    bool process(std::string_view text, uint64_t first_line, uint64_t last_line, bool final_attempt) {
        split_into(text, opt.delimiter, fields);
        const size_t expected = layout.width();
        if (fields.size() == expected) {
            auto problem = layout.validate(fields);
            if (!problem.empty()) bad(first_line, last_line, problem, text);
            else build(fields, first_line, last_line, text);
            return true;
        }
        if (fields.size() < expected) {
            if (!final_attempt) return false;
            bad(first_line, last_line,
                std::to_string(fields.size()) + " fields where the header has " + std::to_string(expected) + " (truncated line?)",
                text);
            return true;
        }
        const FieldPlacement placed = place_extra_fields(layout, fields);
        if (placed.verdict == FieldPlacement::Verdict::Placed) {
            ++report.recovered_pipes;
            build(placed.fields, first_line, last_line, text);
            return true;
        }
        std::string why;
        if (last_line > first_line)
            why = "a record short of fields (cut off, or a field holding a newline) read together with the " +
                  std::to_string(last_line - first_line) + " line(s) after it, as a field's newline may hide a "
                  "whole record in a job name: ";
        why += std::to_string(fields.size()) + " fields where the header has " + std::to_string(expected) +
               ": " + quote_for_message(opt.delimiter) + " inside free text (JobName, WorkDir, SubmitLine, Comment) ";
        why += placed.verdict == FieldPlacement::Verdict::Impossible ? "that no placement can explain"
                                                                     : "that cannot be placed unambiguously";
        why += "; re-export with a delimiter no user can have typed, e.g. d=\"|$(od -An -N8 -tx1 /dev/urandom | tr -d ' \\n')|\"; "
               "sacct --parsable2 --delimiter=\"$d\" ... and jfp ingest --delimiter=\"$d\" (or export sacct --json)";
        bad(first_line, last_line, why, text);
        return true;
    }

    // The first line: the header, or (with --format) the first record or a header that repeats the format.
    bool header(std::string_view l, uint64_t lineno) {
        split_into(l, opt.delimiter, fields);
        if (!opt.format.empty()) {
            std::vector<std::string_view> names(opt.format.begin(), opt.format.end());
            set_layout(names);
            if (SacctLayout::looks_like_header(fields) && fields.size() == names.size()) {
                bool same = true;
                for (size_t i = 0; i < names.size(); ++i)
                    if (to_lower(trim(fields[i])) != to_lower(trim(names[i]))) same = false;
                if (same) {
                    header_line = std::string(l);
                    ++report.header_lines;
                    return true;
                }
            }
            return false;
        }
        if (!l.empty() && l[0] == ';')
            throw SacctFormatError(source + ":" + std::to_string(lineno) + ": " + quote_for_message(l, 60) +
                                   " opens a Standard Workload Format log (Parallel Workloads Archive), not a "
                                   "sacct export; ingest it with jfp ingest --format swf");
        if (!SacctLayout::looks_like_header(fields))
            throw SacctFormatError(source + ":" + std::to_string(lineno) + ": the first line is not a sacct header (" +
                                   quote_for_message(l, 60) +
                                   "); export with sacct --parsable2 (which prints one), or give the columns with "
                                   "jfp ingest --format=JobIDRaw,User,... and the delimiter with --delimiter");
        std::vector<std::string_view> names(fields.begin(), fields.end());
        set_layout(names);
        header_line = std::string(l);
        ++report.header_lines;
        return true;
    }

    void flush_records() {
        id_led.flush(layout, counts);
        short_lines.flush();
    }

    void line(std::string_view l, uint64_t lineno) {
        ++report.lines;
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        if (!have_layout) {
            if (trim(l).empty()) {
                ++report.blank_lines;
                return;
            }
            if (header(l, lineno)) return;
        }
        if (l == header_line) {  // concatenated exports repeat the header
            flush_records();
            ++report.header_lines;
            return;
        }
        if (layout.first_col_is_id()) id_led.line(l, lineno, layout, counts);
        else short_lines.line(l, lineno, layout, counts);
    }

    void end_stream() {
        flush_records();
        jobs.flush();
    }
};

SacctReader::SacctReader(SacctReaderOptions options, JobSink on_job, StepSink on_step)
    : impl_(new Impl(std::move(options), std::move(on_job), std::move(on_step))) {}

SacctReader::~SacctReader() { delete impl_; }

const SacctReadReport &SacctReader::report() const { return impl_->report; }

void SacctReader::finish() { impl_->end_stream(); }

void SacctReader::read(std::FILE *in, const std::string &source_name) {
    impl_->start(source_name);
    char *buf = nullptr;
    size_t cap = 0;
    uint64_t lineno = 0;
    struct Free {
        char **p;
        ~Free() { std::free(*p); }
    } guard{&buf};
    ssize_t n;
    while ((n = getline(&buf, &cap, in)) >= 0) {
        ++lineno;
        std::string_view l(buf, static_cast<size_t>(n));
        if (!l.empty() && l.back() == '\n') l.remove_suffix(1);
        impl_->line(l, lineno);
    }
    if (std::ferror(in)) throw SacctFormatError(source_name + ": read error: " + std::strerror(errno));
    // sacct prints its header even when no job matched: nothing at all is a failed export, not a quiet day.
    if (lineno == 0)
        throw SacctFormatError(source_name + " is empty: nothing to ingest. sacct --parsable2 prints a header even "
                                             "when no job matched, so an empty export usually means sacct failed; "
                                             "run it again and check its error output");
    impl_->end_stream();
}

void SacctReader::read_text(const std::string &text, const std::string &source_name) {
    impl_->start(source_name);
    uint64_t lineno = 0;
    size_t start = 0;
    while (start < text.size()) {
        size_t nl = text.find('\n', start);
        size_t end = nl == std::string::npos ? text.size() : nl;
        impl_->line(std::string_view(text).substr(start, end - start), ++lineno);
        start = end + 1;
    }
    impl_->end_stream();
}

}  // namespace jfp
