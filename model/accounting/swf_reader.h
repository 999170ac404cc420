// Reads Parallel Workloads Archive logs (Standard Workload Format, SWF 2.x) into JobRecords, so real
// traces from scheduling research can be ingested, trained on and replayed like sacct exports.
//
// Fields 3-7 (wait, run time, processors, CPU time, memory used) happen after submission: they fill the
// record's outcome (start, end, elapsed, MaxRSS), never a request field. Bad rows are counted and
// reported with their line numbers, as the sacct reader does; rows without a submit time are reported,
// not guessed.
#pragma once

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "model/sacct/sacct_reader.h"
#include "model/jobs/job_record.h"

namespace jfp {

struct SwfReaderOptions {
    std::string cluster = "default";
    size_t max_reported_bad_lines = 1000;
};

// What the header said.
struct SwfHeader {
    int64_t unix_start_time = -1;  // -1: absent
    std::string time_zone;        // TimeZoneString, e.g. "US/Eastern"; empty: absent
    int64_t time_zone_offset = 0;  // TimeZone (seconds east of UTC), used when TimeZoneString is absent
    bool has_time_zone_offset = false;
    std::map<long, std::string> queues, partitions;
};

class SwfReader {
public:
    using JobSink = std::function<void(JobRecord &&)>;

    SwfReader(SwfReaderOptions options, JobSink on_job);

    // Reads a whole stream. Throws SacctFormatError when the log cannot be read at all (no
    // UnixStartTime before the first job row, an unknown time zone).
    void read(std::FILE *in, const std::string &source_name);
    void read_text(const std::string &text, const std::string &source_name);

    // lines, job_rows, bad and bad_lines as for sacct exports; header_lines counts ';' lines.
    const SacctReadReport &report() const { return report_; }
    const SwfHeader &header() const { return header_; }
    // Things the user should know that are not bad lines (a time zone read as a fixed offset).
    const std::vector<std::string> &notes() const { return notes_; }

private:
    void line(std::string_view text, const std::string &source_name);
    void header_line(std::string_view text);
    void bad(std::string reason, std::string_view text);
    int64_t naive_local(int64_t epoch) const;

    SwfReaderOptions opt_;
    JobSink on_job_;
    SacctReadReport report_;
    SwfHeader header_;
    std::vector<std::string> notes_;
    bool use_zone_ = false;  // TZ is set to header_.time_zone while reading
};

}  // namespace jfp
