// Streams sacct exports (--parsable2 with a header, or headerless with a known --format and
// --delimiter) into JobRecords. Bounded memory: one line (plus a few joined continuation lines) at a
// time. Bad lines are counted and reported with their line numbers; none crash the reader and none
// vanish silently.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/sacct/sacct_layout.h"  // SacctFormatError, recommended_sacct_format
#include "model/sacct/job_user_text.h"
#include "model/jobs/job_record.h"

namespace jfp {

struct SacctReaderOptions {
    // A character, or a string no user can have typed in a job name (a random one per export, 16 hex digits or
    // more): then no name can hold a delimiter, and a line from inside a name can never pass for a record.
    std::string delimiter = "|";
    // sacct field names in column order when the export has no header (sacct --noheader --format=...).
    // Empty: the first line must be the header.
    std::vector<std::string> format;
    // Used when the export has no Cluster column.
    std::string cluster = "default";
    // At most this many bad lines are kept with their text; all are counted.
    size_t max_reported_bad_lines = 1000;
    // For an export without the columns users write (structured_sacct_format()): each job's name and
    // submit line by JobIDRaw, from sacct --json. A job row missing there is a bad line.
    const JobUserTextById *user_text = nullptr;
    // false: an export whose delimiter a user could type (fewer than 16 hex digits) and whose columns include
    // text users write (JobName, SubmitLine, Comment, WorkDir, Container, WCKey, or a field jfp does not know)
    // is refused (SacctFormatError) before any row is read: text holding newlines and the delimiter can read
    // as other users' jobs, and no reader can tell. jfp ingest sets it from --trusted-export.
    bool trust_user_text = true;
};

struct BadLine {
    uint64_t line = 0;      // first line of the record (1-based)
    uint64_t last_line = 0;  // last line when a record spanned several
    std::string reason;
    std::string text;  // the start of the offending text
};

struct SacctReadReport {
    uint64_t lines = 0;
    uint64_t header_lines = 0;
    uint64_t blank_lines = 0;
    uint64_t job_rows = 0;
    uint64_t step_rows = 0;
    uint64_t bad = 0;
    uint64_t recovered_pipes = 0;   // rows with '|' inside a free-text field, placed unambiguously
    uint64_t joined_newlines = 0;   // rows whose free text held a newline
    std::vector<BadLine> bad_lines;  // the first max_reported_bad_lines
    std::vector<std::string> ignored_columns;  // columns jfp does not use
    std::vector<std::string> missing_optional;  // useful columns the export lacks (features will be unknown)
};

class SacctReader {
public:
    using JobSink = std::function<void(JobRecord &&)>;
    using StepSink = std::function<void(StepInfo &&)>;

    SacctReader(SacctReaderOptions options, JobSink on_job, StepSink on_step);
    ~SacctReader();
    SacctReader(const SacctReader &) = delete;
    SacctReader &operator=(const SacctReader &) = delete;

    // Reads a whole stream; may be called for several files in turn (line numbers restart per call,
    // the header is read again). Throws SacctFormatError when the export cannot be read at all (no
    // header, a required column missing), naming what is wrong and how to fix it.
    void read(std::FILE *in, const std::string &source_name);
    // Feeds text that holds whole lines (for tests).
    void read_text(const std::string &text, const std::string &source_name);

    // Flushes the job held back for step folding. read() calls it at the end of each stream.
    void finish();

    const SacctReadReport &report() const;

private:
    struct Impl;
    Impl *impl_;
};

}  // namespace jfp
