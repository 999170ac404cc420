#include "model/jobs/slurm_text.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "model/util/text.h"

namespace jfp {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}
}  // namespace

std::optional<double> parse_size_mb(std::string_view s) {
    s = trim(s);
    if (s.empty()) return std::nullopt;
    double scale = 1.0;
    switch (s.back()) {
        case 'K': case 'k': scale = 1.0 / 1024; s.remove_suffix(1); break;
        case 'M': case 'm': s.remove_suffix(1); break;
        case 'G': case 'g': scale = 1024; s.remove_suffix(1); break;
        case 'T': case 't': scale = 1024.0 * 1024; s.remove_suffix(1); break;
        case 'P': case 'p': scale = 1024.0 * 1024 * 1024; s.remove_suffix(1); break;
        default: break;
    }
    auto v = parse_double(s);
    if (!v || *v < 0 || !std::isfinite(*v)) return std::nullopt;
    return *v * scale;
}

double MemRequest::total_mb(double cpus, double nodes) const {
    switch (per) {
        case Per::Job: return mb;
        case Per::Cpu: return mb * cpus;
        case Per::Node: return mb * nodes;
    }
    return kNaN;
}

std::optional<MemRequest> parse_req_mem(std::string_view s) {
    s = trim(s);
    if (s.empty()) return std::nullopt;
    MemRequest r;
    if (s.back() == 'c') {
        r.per = MemRequest::Per::Cpu;
        s.remove_suffix(1);
    } else if (s.back() == 'n') {
        r.per = MemRequest::Per::Node;
        s.remove_suffix(1);
    }
    auto mb = parse_size_mb(s);
    if (!mb || *mb <= 0) return std::nullopt;
    r.mb = *mb;
    return r;
}

Tres parse_tres(std::string_view s) {
    Tres t;
    double typed_gpus = 0;
    bool any_typed = false;
    for (auto item : split(trim(s), ',')) {
        auto eq = item.find('=');
        if (eq == std::string_view::npos) continue;
        auto key = item.substr(0, eq);
        auto val = item.substr(eq + 1);
        if (key == "cpu") {
            if (auto v = parse_double(val)) t.cpu = *v;
        } else if (key == "mem") {
            if (auto v = parse_size_mb(val)) t.mem_mb = *v;
        } else if (key == "node") {
            if (auto v = parse_double(val)) t.node = *v;
        } else if (key == "gres/gpu") {
            if (auto v = parse_double(val)) t.gpu = *v;
        } else if (starts_with(key, "gres/gpu:")) {
            if (auto v = parse_double(val)) {
                typed_gpus += *v;
                any_typed = true;
            }
        }
    }
    if (std::isnan(t.gpu) && any_typed) t.gpu = typed_gpus;
    return t;
}

double parse_gpu_request(std::string_view s) {
    double total = 0;
    // Items are separated by ',' (GRES lists) or ';' (TRES lists in job descriptors).
    size_t start = 0;
    while (start <= s.size()) {
        size_t end = s.find_first_of(",;", start);
        if (end == std::string_view::npos) end = s.size();
        auto item = trim(s.substr(start, end - start));
        start = end + 1;
        if (starts_with(item, "gres:")) item.remove_prefix(5);
        else if (starts_with(item, "gres/")) item.remove_prefix(5);
        if (!starts_with(item, "gpu")) continue;
        item.remove_prefix(3);
        if (item.empty()) {
            total += 1;
            continue;
        }
        if (item.front() != ':' && item.front() != '=') continue;  // "gpux" is another GRES
        auto paren = item.find('(');  // socket binding flags: "gpu:2(S:0-1)"
        if (paren != std::string_view::npos) item = item.substr(0, paren);
        // Last ':'/'=' separated part is the count when numeric ("gpu:a100:2"); "gpu:a100" means 1.
        auto count = item.substr(item.find_last_of(":=") + 1);
        if (auto v = parse_double(count)) total += *v;
        else total += 1;
    }
    return total;
}

std::optional<JobIdParts> parse_job_id(std::string_view s) {
    s = trim(s);
    if (s.empty() || s.front() < '0' || s.front() > '9') return std::nullopt;
    JobIdParts p;
    // A step follows the first '.' outside an array bracket expression.
    size_t dot = std::string_view::npos;
    int depth = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '[') ++depth;
        else if (s[i] == ']') --depth;
        else if (s[i] == '.' && depth == 0) {
            dot = i;
            break;
        }
    }
    p.job = dot == std::string_view::npos ? s : s.substr(0, dot);
    if (dot != std::string_view::npos) {
        p.step = s.substr(dot + 1);
        if (p.step.empty()) return std::nullopt;
    }
    auto us = p.job.find('_');
    auto plus = p.job.find('+');
    std::string_view lead = p.job;
    if (us != std::string_view::npos) {
        p.array_job = p.job.substr(0, us);
        lead = p.array_job;
        if (us + 1 >= p.job.size()) return std::nullopt;
    } else if (plus != std::string_view::npos) {
        p.het_leader = p.job.substr(0, plus);
        lead = p.het_leader;
        if (!all_digits(p.job.substr(plus + 1))) return std::nullopt;
    }
    if (!all_digits(lead)) return std::nullopt;
    return p;
}

namespace {

// strtol over a view: blanks, a sign, digits. No digits: 0 and *end = where it started (as strtol leaves
// endptr). Saturates as strtol does.
int64_t slurm_strtol(std::string_view s, size_t at, size_t *end) {
    size_t i = at;
    while (i < s.size() && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) ++i;
    bool neg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    size_t digits = i;
    int64_t v = 0;
    bool over = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        int d = s[i++] - '0';
        if (v > (INT64_MAX - d) / 10) over = true;
        else v = v * 10 + d;
    }
    if (i == digits) {
        *end = at;
        return 0;
    }
    *end = i;
    if (over) return neg ? INT64_MIN : INT64_MAX;
    return neg ? -v : v;
}

struct ArrayRange {
    int64_t first, last, step;
};

// One comma-separated item as slurmctld reads it; nullopt when it would refuse the spec.
std::optional<ArrayRange> parse_array_item(std::string_view t, int64_t max) {
    size_t at = 0, e = 0;
    if (!t.empty() && t[0] == '[') at = 1;
    auto done = [&](size_t i) { return i >= t.size() || t[i] == '%'; };
    auto bracket = [&](size_t i) { return i < t.size() && t[i] == ']' ? i + 1 : i; };
    ArrayRange r{slurm_strtol(t, at, &e), 0, 1};
    e = bracket(e);
    if (r.first < 0) return std::nullopt;
    if (e < t.size() && t[e] == '-') {
        r.last = slurm_strtol(t, e + 1, &e);
        e = bracket(e);
        if (e < t.size() && t[e] == ':') {
            r.step = slurm_strtol(t, e + 1, &e);
            e = bracket(e);
            if (!done(e) || r.step <= 0 || r.step >= max) return std::nullopt;
        } else if (!done(e)) {
            return std::nullopt;
        }
        if (r.last < r.first) return std::nullopt;
    } else if (!done(e)) {
        return std::nullopt;
    } else {
        r.last = r.first;
    }
    if (r.last >= max) return std::nullopt;
    return r;
}

}  // namespace

std::optional<double> array_task_count(std::string_view spec, int64_t max) {
    std::vector<ArrayRange> ranges;
    bool stepped = false;
    uint64_t work = 0;
    for (size_t at = 0; at <= spec.size();) {
        size_t comma = std::min(spec.find(',', at), spec.size());
        if (comma > at) {  // strtok: empty items are skipped
            auto r = parse_array_item(spec.substr(at, comma - at), max);
            if (!r) return std::nullopt;
            stepped |= r->step != 1;
            work += static_cast<uint64_t>((r->last - r->first) / r->step + 1);
            ranges.push_back(*r);
        }
        at = comma + 1;
    }
    if (ranges.empty()) return std::nullopt;  // slurmctld reads "," as no array: not a count of 1 either
    if (ranges.size() == 1) return static_cast<double>((ranges[0].last - ranges[0].first) / ranges[0].step + 1);
    if (!stepped) {  // intervals: sorted and merged
        std::sort(ranges.begin(), ranges.end(), [](const ArrayRange &a, const ArrayRange &b) { return a.first < b.first; });
        double n = 0;
        int64_t lo = ranges[0].first, hi = ranges[0].last;
        for (const ArrayRange &r : ranges) {
            if (r.first > hi + 1) {
                n += static_cast<double>(hi - lo + 1);
                lo = r.first;
            }
            hi = std::max(hi, r.last);
        }
        return n + static_cast<double>(hi - lo + 1);
    }
    if (work > kArrayCountWork) return std::nullopt;
    std::vector<int64_t> idx;
    idx.reserve(work);
    for (const ArrayRange &r : ranges)
        for (int64_t i = r.first; i <= r.last; i += r.step) idx.push_back(i);
    std::sort(idx.begin(), idx.end());
    return static_cast<double>(std::unique(idx.begin(), idx.end()) - idx.begin());
}

std::optional<ExitCode> parse_exit_code(std::string_view s) {
    s = trim(s);
    auto colon = s.find(':');
    ExitCode e;
    auto c = parse_int(colon == std::string_view::npos ? s : s.substr(0, colon));
    if (!c) return std::nullopt;
    e.code = static_cast<int>(*c);
    if (colon != std::string_view::npos) {
        auto sig = parse_int(s.substr(colon + 1));
        if (!sig) return std::nullopt;
        e.signal = static_cast<int>(*sig);
    }
    return e;
}

}  // namespace jfp
