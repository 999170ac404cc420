#include "model/accounting/swf_reader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

namespace {

// SWF 2.2 fields, 1-based as the standard numbers them.
enum Field {
    kJob = 1, kSubmit, kWait, kRunTime, kAllocProcs, kAvgCpu, kUsedMem, kReqProcs, kReqTime, kReqMem,
    kStatus, kUser, kGroup, kExecutable, kQueue, kPartition, kPreceding, kThinkTime, kFields = kThinkTime
};

bool zone_file_exists(const std::string &zone) {
    if (zone == "UTC" || zone == "GMT") return true;
    if (zone.empty() || zone.find("..") != std::string::npos || zone.front() == '/') return false;
    const char *dir = std::getenv("TZDIR");
    std::string path = std::string(dir && *dir ? dir : "/usr/share/zoneinfo") + "/" + zone;
    struct stat st{};
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Sets TZ for the duration of a read and puts the old value back.
class ScopedTimeZone {
public:
    explicit ScopedTimeZone(const std::string &zone) {
        const char *old = std::getenv("TZ");
        had_ = old != nullptr;
        if (had_) old_ = old;
        setenv("TZ", zone.c_str(), 1);
        tzset();
    }
    ~ScopedTimeZone() {
        if (had_) setenv("TZ", old_.c_str(), 1);
        else unsetenv("TZ");
        tzset();
    }
    ScopedTimeZone(const ScopedTimeZone &) = delete;
    ScopedTimeZone &operator=(const ScopedTimeZone &) = delete;

private:
    bool had_ = false;
    std::string old_;
};

std::string name_or_number(const std::map<long, std::string> &names, long n, const char *prefix) {
    auto it = names.find(n);
    if (it != names.end() && !it->second.empty()) return it->second;
    return prefix + std::to_string(n);
}

}  // namespace

SwfReader::SwfReader(SwfReaderOptions options, JobSink on_job) : opt_(std::move(options)), on_job_(std::move(on_job)) {}

void SwfReader::read(std::FILE *in, const std::string &source_name) {
    // use_zone_ holds exactly while tz sets TZ, however read() ends (a sink may throw).
    struct ZoneFlag {
        bool &on;
        ~ZoneFlag() { on = false; }
    } zone_flag{use_zone_};
    std::unique_ptr<ScopedTimeZone> tz;
    char *buf = nullptr;
    size_t cap = 0;
    ssize_t n;
    report_.lines = 0;
    bool in_header = true;
    while ((n = getline(&buf, &cap, in)) >= 0) {
        std::string_view text(buf, static_cast<size_t>(n));
        ++report_.lines;
        if (in_header && !trim(text).empty() && trim(text).front() != ';') {
            in_header = false;
            if (header_.unix_start_time < 0) {
                std::free(buf);
                throw SacctFormatError(source_name + ": no '; UnixStartTime:' line before the first job (line " +
                                       std::to_string(report_.lines) +
                                       "): submit times in SWF are seconds after it. Is this an SWF log?");
            }
            if (!header_.time_zone.empty()) {
                if (zone_file_exists(header_.time_zone)) {
                    tz = std::make_unique<ScopedTimeZone>(header_.time_zone);
                    use_zone_ = true;
                } else if (header_.has_time_zone_offset) {
                    notes_.push_back("time zone '" + header_.time_zone +
                                     "' is not in the time zone database (Debian: install tzdata-legacy); used the "
                                     "header's fixed TimeZone offset, so daylight saving time is ignored");
                } else {
                    std::free(buf);
                    throw SacctFormatError(source_name + ": time zone '" + header_.time_zone +
                                           "' is not in the time zone database and the header has no TimeZone "
                                           "offset; install tzdata (and tzdata-legacy for names like US/Eastern)");
                }
            } else if (!header_.has_time_zone_offset) {
                notes_.push_back("the header names no time zone: times are read as UTC, so hour-of-day features may be "
                                 "shifted");
            }
        }
        line(text, source_name);
    }
    bool failed = std::ferror(in);
    int err = errno;
    std::free(buf);
    if (failed) throw SacctFormatError(source_name + ": read error: " + std::strerror(err));
    if (report_.lines == 0) throw SacctFormatError(source_name + " is empty: nothing to ingest (an SWF log starts with '; ' header lines)");
}

void SwfReader::read_text(const std::string &text, const std::string &source_name) {
    std::FILE *f = fmemopen(const_cast<char *>(text.data()), text.size(), "r");
    if (!f) throw std::runtime_error("fmemopen failed");
    try {
        read(f, source_name);
    } catch (...) {
        std::fclose(f);
        throw;
    }
    std::fclose(f);
}

void SwfReader::header_line(std::string_view text) {
    ++report_.header_lines;
    text = trim(text.substr(1));
    auto colon = text.find(':');
    if (colon == std::string_view::npos) return;
    std::string_view key = trim(text.substr(0, colon)), value = trim(text.substr(colon + 1));
    if (key == "UnixStartTime") {
        if (auto v = parse_int(value); v && *v >= 0 && *v < 100000000000) header_.unix_start_time = *v;
    } else if (key == "TimeZoneString") {
        header_.time_zone = std::string(value);
    } else if (key == "TimeZone") {
        if (auto v = parse_int(value); v && *v > -86400 && *v < 86400) {
            header_.time_zone_offset = *v;
            header_.has_time_zone_offset = true;
        }
    } else if (key == "Queue" || key == "Partition") {
        // "; Queue:  1 DSI", "; Partition:  7  test,batch"
        size_t i = 0;
        while (i < value.size() && !is_space(value[i])) ++i;
        auto num = parse_int(value.substr(0, i));
        if (!num) return;
        (key == "Queue" ? header_.queues : header_.partitions)[static_cast<long>(*num)] = std::string(trim(value.substr(i)));
    }
}

void SwfReader::bad(std::string reason, std::string_view text) {
    ++report_.bad;
    if (report_.bad_lines.size() >= opt_.max_reported_bad_lines) return;
    BadLine b;
    b.line = b.last_line = report_.lines;
    b.reason = std::move(reason);
    b.text = std::string(trim(text).substr(0, 200));
    report_.bad_lines.push_back(std::move(b));
}

int64_t SwfReader::naive_local(int64_t epoch) const {
    if (use_zone_) return naive_local_from_epoch(epoch);
    return epoch + (header_.has_time_zone_offset ? header_.time_zone_offset : 0);
}

void SwfReader::line(std::string_view text, const std::string &) {
    std::string_view t = trim(text);
    if (t.empty()) {
        ++report_.blank_lines;
        return;
    }
    if (t.front() == ';') return header_line(t);

    double v[kFields + 1];
    int count = 0;
    size_t i = 0;
    while (i < t.size()) {
        while (i < t.size() && is_space(t[i])) ++i;
        if (i >= t.size()) break;
        size_t b = i;
        while (i < t.size() && !is_space(t[i])) ++i;
        if (++count > kFields) break;
        auto d = parse_double(t.substr(b, i - b));
        if (!d) return bad("field " + std::to_string(count) + " " + quote_for_message(t.substr(b, i - b)) + " is not a number", t);
        // Times, counts and sizes beyond 1e12 (31,000 years; a petabyte per processor) are corrupt, and
        // would overflow the time arithmetic (found by fuzzing: 5.5e49 as a run time).
        if (!std::isfinite(*d) || std::fabs(*d) > 1e12)
            return bad("field " + std::to_string(count) + " " + quote_for_message(t.substr(b, i - b)) + " is out of range", t);
        v[count] = *d;
    }
    if (count != kFields)
        return bad("expected 18 fields, found " + std::string(count > kFields ? "more" : std::to_string(count)), t);
    auto known_at = [&](int f) { return v[f] >= 0; };
    if (!known_at(kJob)) return bad("no job number (field 1 is " + std::to_string(static_cast<long>(v[kJob])) + ")", t);
    if (!known_at(kSubmit)) return bad("no submit time (field 2 is -1): the job cannot be placed in time", t);

    JobRecord j;
    j.cluster = opt_.cluster;
    j.job_key = j.job_id = std::to_string(static_cast<long long>(v[kJob]));
    const int64_t submit_epoch = header_.unix_start_time + static_cast<int64_t>(v[kSubmit]);
    j.submit = naive_local(submit_epoch);
    if (known_at(kWait)) {
        j.start = naive_local(submit_epoch + static_cast<int64_t>(v[kWait]));
        if (known_at(kRunTime)) {
            j.end = naive_local(submit_epoch + static_cast<int64_t>(v[kWait]) + static_cast<int64_t>(v[kRunTime]));
            j.elapsed_s = v[kRunTime];
        }
    }
    switch (static_cast<int64_t>(v[kStatus])) {  // not int: any value up to 1e12 reaches here (fuzzing)
        case 1: case 3: j.outcome = Outcome::Completed; j.state = "COMPLETED"; break;  // 3: last part of a job, completed
        case 0: case 4: j.outcome = Outcome::Failed; j.state = "FAILED"; j.exit_code = 1; break;
        case 5: j.outcome = Outcome::Cancelled; j.state = "CANCELLED"; break;
        default: j.outcome = Outcome::Other; j.state = "UNKNOWN"; break;  // -1, or 2 (a part to be continued)
    }
    if (j.end == 0 && has_ended(j.outcome) && j.start > 0) j.end = j.start;  // cancelled before it ran
    if (known_at(kUser)) j.user = "user" + std::to_string(static_cast<long>(v[kUser]));
    if (known_at(kGroup)) j.account = "group" + std::to_string(static_cast<long>(v[kGroup]));
    if (known_at(kExecutable)) j.name = "app" + std::to_string(static_cast<long>(v[kExecutable]));
    if (known_at(kPartition)) j.partition = name_or_number(header_.partitions, static_cast<long>(v[kPartition]), "partition");
    else if (known_at(kQueue)) j.partition = name_or_number(header_.queues, static_cast<long>(v[kQueue]), "queue");

    // The request: requested processors, or (CTC has none) the allocation, which a rigid job asked for.
    double procs = v[kReqProcs] > 0 ? v[kReqProcs] : (v[kAllocProcs] > 0 ? v[kAllocProcs] : kUnknown);
    j.req_cpus = procs;
    if (known_at(kReqTime)) j.timelimit_min = v[kReqTime] / 60.0;
    if (v[kReqMem] > 0 && known(procs)) j.req_mem_mb = v[kReqMem] * procs / 1024.0;  // KB per processor
    double used_procs = v[kAllocProcs] > 0 ? v[kAllocProcs] : procs;
    if (v[kUsedMem] > 0 && known(used_procs)) j.max_rss_mb = v[kUsedMem] * used_procs / 1024.0;
    if (known_at(kPreceding)) j.has_dependency = 1;
    ++report_.job_rows;
    on_job_(std::move(j));
}

}  // namespace jfp
