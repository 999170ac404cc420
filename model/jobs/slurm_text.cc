#include "model/jobs/slurm_text.h"

#include <cmath>

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

std::optional<double> array_task_count(std::string_view spec) {
    // As slurmctld reads --array: brackets around the list are allowed ("[0-999]"), and a "%N" limit on
    // running tasks may follow any item ("0-9%1,10-999" is 1000 tasks).
    std::string cleaned;
    for (char c : trim(spec))
        if (c != '[' && c != ']') cleaned += c;
    std::string_view s = cleaned;
    if (s.empty()) return std::nullopt;
    double n = 0;
    for (auto item : split(s, ',')) {
        item = trim(item);
        if (auto pct = item.find('%'); pct != std::string_view::npos) item = item.substr(0, pct);
        int64_t step = 1;
        auto colon = item.find(':');
        if (colon != std::string_view::npos) {
            auto st = parse_int(item.substr(colon + 1));
            if (!st || *st <= 0) return std::nullopt;
            step = *st;
            item = item.substr(0, colon);
        }
        auto dash = item.find('-');
        if (dash == std::string_view::npos) {
            if (!parse_int(item)) return std::nullopt;
            n += 1;
        } else {
            auto a = parse_int(item.substr(0, dash));
            auto b = parse_int(item.substr(dash + 1));
            if (!a || !b || *b < *a) return std::nullopt;
            n += static_cast<double>((*b - *a) / step + 1);
        }
    }
    return n;
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
