#include "model/accounting/sacct_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>

#include "model/accounting/sacct_row.h"
#include "model/jobs/slurm_text.h"
#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

namespace {

// A record whose free text holds newlines is joined from at most this many lines.
constexpr size_t kMaxJoinedLines = 64;

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
    JobSink on_job;
    StepSink on_step;
    SacctReadReport report;

    SacctLayout layout;  // of the current stream
    std::string header_line;  // as read, to skip repeats in concatenated exports
    bool have_layout = false;
    std::string source;

    // The last job row, held so that its step rows (which follow it) fold in without a store round trip.
    std::optional<JobRecord> held;

    // A record whose free text held a newline, waiting for its continuation lines.
    std::string pending_text;
    uint64_t pending_first_line = 0;
    size_t pending_lines = 0;

    std::vector<std::string_view> fields, candidate;
    std::string joined;
    // Now, as sacct prints times (naive local), plus an hour for clocks that disagree a little.
    int64_t latest_plausible_end = naive_local_now() + 3600;

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

    void emit_held() {
        if (held) {
            on_job(std::move(*held));
            held.reset();
        }
    }

    void build(const std::vector<std::string_view> &f, uint64_t first_line, uint64_t last_line,
               std::string_view text) {
        SacctRow row = read_sacct_row(layout, f, opt.cluster);
        switch (row.kind) {
        case SacctRow::Kind::Bad:
            bad(first_line, last_line, std::move(row.problem), text);
            return;
        case SacctRow::Kind::Step: {
            // Step rows follow their job's row: fold them into the job still held.
            ++report.step_rows;
            StepInfo &s = row.step;
            if (held && held->job_key == s.job_key && held->cluster == s.cluster) {
                if (known(s.max_rss_mb) && (!known(held->max_rss_mb) || s.max_rss_mb > held->max_rss_mb))
                    held->max_rss_mb = s.max_rss_mb;
                if (s.out_of_memory && held->outcome == Outcome::Failed) held->outcome = Outcome::OutOfMemory;
                if (row.batch_step) held->interactive = 0;
            } else {
                on_step(std::move(s));
            }
            return;
        }
        case SacctRow::Kind::Job:
            // A job cannot end after the export was written. Such a row is forged or from a host whose
            // clock is wrong; stored, it would also start every later --from-sacct after now.
            if (row.job.end > latest_plausible_end) {
                bad(first_line, last_line,
                    "job " + row.job.job_key + " ends at " + format_sacct_time(row.job.end) +
                        ", after this ingest began: a forged record, or a clock that is wrong; not stored",
                    text);
                return;
            }
            if (opt.user_text && !layout.has(SacctCol::JobName)) {
                auto t = opt.user_text->find(row.job.job_key);
                if (t == opt.user_text->end()) {
                    bad(first_line, last_line,
                        "job " + row.job.job_key + " is not in sacct --json's output, run after this one; the next "
                        "ingest reads it",
                        text);
                    return;
                }
                row.job.name = t->second.name;
                if (t->second.has_submit_line) apply_submit_line(row.job, t->second.submit_line);
            }
            ++report.job_rows;
            emit_held();
            held = std::move(row.job);
            return;
        }
    }

    // Handles one record (one line, or several joined). Returns false when its field count is short,
    // so the caller may try joining it with the next line.
    enum class Result { Done, Short };

    Result process(std::string_view text, uint64_t first_line, uint64_t last_line, bool final_attempt) {
        split_into(text, opt.delimiter, fields);
        size_t expected = layout.width();
        if (fields.size() == expected) {
            auto problem = layout.validate(fields);
            if (!problem.empty()) {
                bad(first_line, last_line, problem, text);
                return Result::Done;
            }
            build(fields, first_line, last_line, text);
            return Result::Done;
        }
        if (fields.size() < expected) {
            if (!final_attempt) return Result::Short;
            bad(first_line, last_line,
                std::to_string(fields.size()) + " fields where the header has " + std::to_string(expected) +
                    " (truncated line?)",
                text);
            return Result::Done;
        }
        // Too many fields: '|' inside free text. Try every way of giving the extra fields to the free-text
        // columns; keep what all placements that validate agree on.
        size_t extra = fields.size() - expected;
        std::vector<std::vector<std::string_view>> valid;
        bool too_many = false;
        const auto &free_text_positions = layout.free_text_positions();
        std::vector<size_t> share(free_text_positions.size(), 0);
        std::function<void(size_t, size_t)> place = [&](size_t k, size_t left) {
            if (too_many) return;
            if (k + 1 == share.size() || share.empty()) {
                if (share.empty()) return;
                share[k] = left;
                candidate.clear();
                size_t src = 0;
                for (size_t col = 0; col < expected; ++col) {
                    size_t absorb = 0;
                    for (size_t i = 0; i < free_text_positions.size(); ++i)
                        if (free_text_positions[i] == col) absorb = share[i];
                    const char *b = fields[src].data();
                    const char *e = fields[src + absorb].data() + fields[src + absorb].size();
                    candidate.emplace_back(b, static_cast<size_t>(e - b));
                    src += absorb + 1;
                }
                if (layout.validate(candidate).empty()) {
                    valid.push_back(candidate);
                    if (valid.size() > 64) too_many = true;
                }
                return;
            }
            for (size_t n = 0; n <= left; ++n) {
                share[k] = n;
                place(k + 1, left - n);
            }
        };
        if (extra <= 24 && free_text_positions.size() <= 6) place(0, extra);
        if (!valid.empty() && !too_many) {
            // Columns on which the valid placements disagree are unknowable; only free-text columns can
            // disagree while the typed ones validate. JobName is a feature: it must be certain.
            std::vector<std::string_view> chosen = valid.front();
            bool name_certain = true;
            for (size_t col = 0; col < expected; ++col) {
                bool same = true;
                for (const auto &v : valid) same = same && v[col] == chosen[col];
                if (same) continue;
                if (!SacctLayout::is_free_text(layout.col(col)) || layout.col(col) == SacctCol::JobName) name_certain = false;
                chosen[col] = std::string_view();  // unknown
            }
            if (name_certain) {
                ++report.recovered_pipes;
                build(chosen, first_line, last_line, text);
                return Result::Done;
            }
        }
        std::string why;
        if (last_line > first_line)
            why = "a record short of fields (cut off, or a field holding a newline) read together with the " +
                  std::to_string(last_line - first_line) + " line(s) after it, as a field's newline may hide a "
                  "whole record in a job name: ";
        why += std::to_string(fields.size()) + " fields where the header has " + std::to_string(expected) +
               ": " + quote_for_message(opt.delimiter) + " inside free text (JobName, WorkDir, SubmitLine, Comment) ";
        why += valid.empty() ? "that no placement can explain" : "that cannot be placed unambiguously";
        why += "; re-export with a delimiter no user can have typed, e.g. d=\"|$(od -An -N8 -tx1 /dev/urandom | tr -d ' \\n')|\"; "
               "sacct --parsable2 --delimiter=\"$d\" ... and jfp ingest --delimiter=\"$d\" (or export sacct --json)";
        bad(first_line, last_line, why, text);
        return Result::Done;
    }

    void flush_pending(bool final_attempt_ok) {
        if (pending_lines == 0) return;
        uint64_t last = pending_first_line + pending_lines - 1;
        process(pending_text, pending_first_line, last, true);
        (void)final_attempt_ok;
        pending_lines = 0;
        pending_text.clear();
    }

    void line(std::string_view l, uint64_t lineno) {
        ++report.lines;
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        if (!have_layout) {
            if (trim(l).empty()) {
                ++report.blank_lines;
                return;
            }
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
                        return;
                    }
                }
            } else {
                if (!l.empty() && l[0] == ';')
                    throw SacctFormatError(source + ":" + std::to_string(lineno) + ": " + quote_for_message(l, 60) +
                                           " opens a Standard Workload Format log (Parallel Workloads Archive), not a "
                                           "sacct export; ingest it with jfp ingest --format swf");
                if (!SacctLayout::looks_like_header(fields))
                    throw SacctFormatError(
                        source + ":" + std::to_string(lineno) + ": the first line is not a sacct header (" +
                        quote_for_message(l, 60) +
                        "); export with sacct --parsable2 (which prints one), or give the columns with "
                        "jfp ingest --format=JobIDRaw,User,... and the delimiter with --delimiter");
                std::vector<std::string_view> names(fields.begin(), fields.end());
                set_layout(names);
                header_line = std::string(l);
                ++report.header_lines;
                return;
            }
        }
        if (l == header_line) {  // concatenated exports repeat the header
            flush_record();
            flush_pending(true);
            ++report.header_lines;
            return;
        }
        if (layout.first_col_is_id()) {
            // Records start with a job id; any other line continues the record before it (a newline
            // inside a comment, job name or submit line). So does a line that starts like a record while
            // the record before it is still short of fields: a job name may hold a newline and then a
            // whole record, which must stay part of that name, never become a job of its own.
            if (is_record_start(l) && !record_short()) {
                flush_record();
                rec_text.assign(l.data(), l.size());
                rec_delims = delimiters_in(l);
                rec_first = lineno;
                rec_lines = 1;
                return;
            }
            // A fragment (fewer fields than a record) continues the record before it, and so does any
            // line while that record is short; otherwise a full-width line is a record of its own with a
            // bad job id.
            bool continues = record_short();
            split_into(l, opt.delimiter, fields);
            if (rec_lines > 0 && rec_lines < kMaxJoinedLines && (continues || fields.size() < layout.width())) {
                rec_text += '\n';
                rec_text.append(l.data(), l.size());
                rec_delims += delimiters_in(l);
                ++rec_lines;
            } else if (trim(l).empty()) {
                ++report.blank_lines;
            } else {
                flush_record();
                process(l, lineno, lineno, true);
            }
            return;
        }
        if (pending_lines > 0) {
            joined = pending_text;
            joined += '\n';
            joined.append(l.data(), l.size());
            uint64_t last = pending_first_line + pending_lines;
            split_into(joined, opt.delimiter, fields);
            if (fields.size() < layout.width() && pending_lines < kMaxJoinedLines) {
                pending_text = joined;
                ++pending_lines;
                return;
            }
            if (fields.size() == layout.width() && layout.validate(fields).empty()) {
                ++report.joined_newlines;
                process(joined, pending_first_line, last, true);
                pending_lines = 0;
                pending_text.clear();
                return;
            }
            // The held lines are bad on their own; this line starts afresh.
            flush_pending(true);
        }
        if (trim(l).empty()) {
            ++report.blank_lines;
            return;
        }
        if (process(l, lineno, lineno, false) == Result::Short) {
            pending_text.assign(l.data(), l.size());
            pending_first_line = lineno;
            pending_lines = 1;
        }
    }

    // The record gathered so far has fewer fields than the header: a field of it holds a newline.
    bool record_short() const { return rec_lines > 0 && rec_lines < kMaxJoinedLines && rec_delims + 1 < layout.width(); }
    size_t delimiters_in(std::string_view l) const {
        if (opt.delimiter.size() == 1) return static_cast<size_t>(std::count(l.begin(), l.end(), opt.delimiter[0]));
        size_t n = 0;
        for (size_t p = l.find(opt.delimiter); p != std::string_view::npos; p = l.find(opt.delimiter, p + opt.delimiter.size())) ++n;
        return n;
    }

    bool is_record_start(std::string_view l) const {
        auto d = l.find(opt.delimiter);
        return parse_job_id(trim(l.substr(0, d))).has_value();
    }

    // The record gathered so far (first column a job id), processed once the next one starts.
    std::string rec_text;
    size_t rec_delims = 0;  // delimiters in rec_text
    uint64_t rec_first = 0;
    size_t rec_lines = 0;

    void flush_record() {
        if (rec_lines == 0) return;
        // Blank lines after a record belong to no field.
        size_t lines = rec_lines;
        while (!rec_text.empty() && (rec_text.back() == '\n' || rec_text.back() == '\r' || rec_text.back() == ' ')) {
            if (rec_text.back() == '\n') {
                --lines;
                ++report.blank_lines;
            }
            rec_text.pop_back();
        }
        if (lines > 1) ++report.joined_newlines;
        process(rec_text, rec_first, rec_first + lines - 1, true);
        rec_lines = 0;
        rec_text.clear();
    }

    void end_stream() {
        flush_record();
        flush_pending(true);
        emit_held();
    }
};

SacctReader::SacctReader(SacctReaderOptions options, JobSink on_job, StepSink on_step) : impl_(new Impl) {
    impl_->opt = std::move(options);
    impl_->on_job = std::move(on_job);
    impl_->on_step = std::move(on_step);
}

SacctReader::~SacctReader() { delete impl_; }

const SacctReadReport &SacctReader::report() const { return impl_->report; }

void SacctReader::finish() { impl_->end_stream(); }

void SacctReader::read(std::FILE *in, const std::string &source_name) {
    impl_->source = source_name;
    impl_->latest_plausible_end = naive_local_now() + 3600;
    impl_->have_layout = false;
    impl_->header_line.clear();
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
    impl_->source = source_name;
    impl_->latest_plausible_end = naive_local_now() + 3600;
    impl_->have_layout = false;
    impl_->header_line.clear();
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
