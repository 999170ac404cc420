#include "model/accounting/sacct_json.h"

#include <pwd.h>

#include <cinttypes>
#include <unordered_map>
#include <cmath>
#include <istream>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/sacct/sacct_layout.h"
#include "model/util/time_util.h"
#include "model/util/utf8_repair.h"

namespace jfp {

namespace {

using json = nlohmann::json;

// Builds each element of the top-level "jobs" array as a DOM, one at a time.
class JobDomSax : public nlohmann::json_sax<json> {
public:
    explicit JobDomSax(const std::function<void(json &&)> &on_job) : on_job_(on_job) {}
    bool saw_jobs() const { return saw_jobs_; }

    bool null() override { return put(json(nullptr)); }
    bool boolean(bool v) override { return put(json(v)); }
    bool number_integer(number_integer_t v) override { return put(json(v)); }
    bool number_unsigned(number_unsigned_t v) override { return put(json(v)); }
    bool number_float(number_float_t v, const string_t &) override { return put(json(v)); }
    bool string(string_t &v) override { return put(json(std::move(v))); }
    bool binary(binary_t &) override { return put(json(nullptr)); }
    bool start_object(std::size_t) override { return open(json::object()); }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override {
        if (depth_ == 1 && key_ == "jobs") {
            in_jobs_ = saw_jobs_ = true;
            ++depth_;
            return true;
        }
        return open(json::array());
    }
    bool end_array() override {
        if (depth_ == 2 && in_jobs_ && stack_.empty()) {
            in_jobs_ = false;
            --depth_;
            return true;
        }
        return close();
    }
    bool key(string_t &k) override {
        key_ = k;
        return true;
    }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) override { return false; }

private:
    // Outside a job only the depth is followed (the root object, "meta", "errors", ...).
    bool open(json v) {
        ++depth_;
        if (!in_jobs_ || depth_ < 3) return true;
        if (stack_.empty()) {
            job_ = std::move(v);
            stack_.push_back(&job_);
            return true;
        }
        json &parent = *stack_.back();
        json *child = parent.is_array() ? &(parent.emplace_back(std::move(v))) : &(parent[key_] = std::move(v));
        stack_.push_back(child);
        return true;
    }
    bool close() {
        if (in_jobs_ && !stack_.empty()) {
            stack_.pop_back();
            if (stack_.empty()) on_job_(std::move(job_));
        }
        --depth_;
        return true;
    }
    bool put(json v) {
        if (stack_.empty()) return true;
        json &parent = *stack_.back();
        if (parent.is_array()) parent.emplace_back(std::move(v));
        else parent[key_] = std::move(v);
        return true;
    }

    const std::function<void(json &&)> &on_job_;
    int depth_ = 0;
    bool in_jobs_ = false, saw_jobs_ = false;
    std::string key_;
    json job_;
    std::vector<json *> stack_;
};

const json kNull;

const json &at(const json &j, const char *k) {
    if (!j.is_object()) return kNull;
    auto it = j.find(k);
    return it == j.end() ? kNull : *it;
}

// A number as 22.05 writes it (plain) or 23.02+ ({"set": .., "infinite": .., "number": ..}); +inf for
// infinite, nullopt when unset or absent.
std::optional<double> number(const json &v) {
    if (v.is_number()) return v.get<double>();
    if (v.is_object()) {
        if (at(v, "set").is_boolean() && !at(v, "set").get<bool>()) return std::nullopt;
        if (at(v, "infinite").is_boolean() && at(v, "infinite").get<bool>()) return INFINITY;
        return number(at(v, "number"));
    }
    return std::nullopt;
}

std::string text(const json &v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_array() && !v.empty()) return text(v.front());  // 23.02+: a state is a list, its base first
    return {};
}

// A value placed between '|' on one line: only what no user writes reaches here (cluster, account,
// partition, QOS, an admin's comment), but a stray delimiter or line break must still not move a column.
std::string cell(std::string s) {
    for (char &c : s)
        if (c == '|' || c == '\n' || c == '\r') c = ' ';
    return s;
}

std::string whole(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f", v);
    return b;
}

std::string when(const json &v) {
    auto t = number(v);
    // 0, or NO_VAL/INFINITE as 24.11 writes a start that never came (4294967294): no time.
    if (!t || *t <= 0 || !std::isfinite(*t) || *t >= 4294967294.0) return "Unknown";
    return format_sacct_time(naive_local_from_epoch(static_cast<int64_t>(*t)));
}

std::string timelimit(const json &v) {
    auto m = number(v);
    if (!m) return "";
    if (std::isinf(*m)) return "UNLIMITED";
    auto mins = static_cast<int64_t>(*m);
    char b[48];
    std::snprintf(b, sizeof b, "%" PRId64 "-%02" PRId64 ":%02" PRId64 ":00", mins / 1440, (mins / 60) % 24, mins % 60);
    return b;
}

std::string exit_code(const json &e) {
    auto rc = number(at(e, "return_code"));
    const json &sig = at(e, "signal");
    auto id = number(at(sig, "id"));            // 23.02+
    if (!id) id = number(at(sig, "signal_id"));  // 22.05
    if (!rc && !id) return "";
    return whole(rc.value_or(0)) + ":" + whole(id && std::isfinite(*id) ? *id : 0);
}

// "cpu=2,mem=4000M,node=1,gres/gpu=1", as sacct's ReqTRES prints it.
std::string tres(const json &list) {
    std::string out;
    if (!list.is_array()) return out;
    for (const auto &t : list) {
        auto n = number(at(t, "count"));
        std::string type = text(at(t, "type")), name = text(at(t, "name"));
        if (!n || *n < 0 || type.empty()) continue;
        if (!out.empty()) out += ',';
        out += cell(type + (name.empty() ? "" : "/" + name)) + "=" + whole(*n) + (type == "mem" ? "M" : "");
    }
    return out;
}

// The largest memory a step's tasks held (bytes in sacct's JSON), as sacct's MaxRSS text in KiB.
std::string max_rss(const json &step) {
    const json &max = at(at(at(step, "tres"), "requested"), "max");
    if (!max.is_array()) return "";
    for (const auto &t : max)
        if (text(at(t, "type")) == "mem")
            if (auto n = number(at(t, "count")); n && *n >= 0) return whole(*n / 1024) + "K";
    return "";
}

constexpr const char *kHeader =
    "JobIDRaw|JobID|Cluster|User|UID|Account|Partition|QOS|AdminComment|Submit|Start|End|ElapsedRaw|State|ExitCode|"
    "ReqCPUS|ReqNodes|ReqMem|ReqTRES|Timelimit|MaxRSS\n";

// sacct's JSON names the user, not the uid: looked up here, as the plugin would (blank when unknown).
std::string uid_of(const std::string &user, std::unordered_map<std::string, std::string> &cache) {
    auto it = cache.find(user);
    if (it != cache.end()) return it->second;
    std::string uid;
    struct passwd pw {}, *found = nullptr;
    char buf[4096];
    if (!user.empty() && getpwnam_r(user.c_str(), &pw, buf, sizeof buf, &found) == 0 && found) uid = std::to_string(pw.pw_uid);
    if (cache.size() < 100000) cache[user] = uid;
    return uid;
}

void add_job(SacctJsonExport &x, const json &j, std::unordered_map<std::string, std::string> &uids) {
    auto id = number(at(j, "job_id"));
    if (!id) return;
    const std::string raw = whole(*id);
    std::string shown = raw;
    const json &array = at(j, "array");
    auto array_job = number(at(array, "job_id"));
    auto task = number(at(array, "task_id"));
    const json &het = at(j, "het");
    auto het_job = number(at(het, "job_id"));
    auto het_offset = number(at(het, "job_offset"));
    if (array_job && *array_job > 0 && task && std::isfinite(*task)) shown = whole(*array_job) + "_" + whole(*task);
    else if (het_job && *het_job > 0 && het_offset && std::isfinite(*het_offset)) shown = whole(*het_job) + "+" + whole(*het_offset);
    const json &time = at(j, "time");
    const json &required = at(j, "required");
    const json &requested = at(at(j, "tres"), "requested");
    std::string nodes;
    if (requested.is_array())
        for (const auto &t : requested)
            if (text(at(t, "type")) == "node")
                if (auto n = number(at(t, "count")); n && *n > 0) nodes = whole(*n);
    auto cpus = number(at(required, "CPUs"));
    auto elapsed = number(at(time, "elapsed"));
    std::string &r = x.rows;
    const std::string user = text(at(j, "user"));
    r += raw + '|' + cell(shown) + '|' + cell(text(at(j, "cluster"))) + '|' + cell(user) + '|' + uid_of(user, uids) + '|' +
         cell(text(at(j, "account"))) + '|' + cell(text(at(j, "partition"))) + '|' + cell(text(at(j, "qos"))) + '|' +
         cell(text(at(at(j, "comment"), "administrator"))) + '|' + when(at(time, "submission")) + '|' +
         when(at(time, "start")) + '|' + when(at(time, "end")) + '|' + (elapsed ? whole(*elapsed) : "") + '|' +
         cell(text(at(at(j, "state"), "current"))) + '|' + exit_code(at(j, "exit_code")) + '|' +
         (cpus && *cpus > 0 ? whole(*cpus) : "") + '|' + nodes + '|' + '|' + tres(requested) + '|' +
         timelimit(at(time, "limit")) + '|' + '\n';
    JobUserText t;
    t.name = text(at(j, "name"));
    if (at(j, "submit_line").is_string()) {  // 23.02+; 22.05's JSON has none
        t.has_submit_line = true;
        t.submit_line = at(j, "submit_line").get<std::string>();
    }
    x.user_text[raw] = std::move(t);
    ++x.jobs;
    const json &steps = at(j, "steps");
    if (!steps.is_array()) return;
    for (const auto &s : steps) {
        const json &step = at(s, "step");
        // 22.05: {"job_id": 5, "id": "batch"}; 23.02+: {"id": "5.batch"}
        std::string sid = text(at(step, "id"));
        if (sid.empty())
            if (auto n = number(at(step, "id"))) sid = whole(*n);
        if (sid.empty()) continue;
        if (sid.find('.') == std::string::npos) sid = raw + "." + sid;
        r += cell(sid) + '|' + cell(sid) + '|' + cell(text(at(j, "cluster"))) + "||||||" + '|' + "||||" +
             cell(text(at(s, "state"))) + '|' + exit_code(at(s, "exit_code")) + "|||||" + '|' + max_rss(s) + '\n';
        ++x.steps;
    }
}

template <typename Input>
SacctJsonExport read(Input &in, const std::string &source) {
    SacctJsonExport x;
    x.rows = kHeader;
    std::unordered_map<std::string, std::string> uids;
    std::function<void(json &&)> on_job = [&](json &&j) { add_job(x, j, uids); };
    JobDomSax sax(on_job);
    bool ok;
    try {
        ok = json::sax_parse(in, &sax);
    } catch (const json::exception &e) {
        throw SlurmJsonError(source + ": not sacct's JSON output (" + e.what() + ")");
    }
    if (!ok) throw SlurmJsonError(source + ": not sacct's JSON output (a JSON syntax error; was the file cut short?)");
    if (!sax.saw_jobs())
        throw SlurmJsonError(source + ": JSON without a \"jobs\" array (is it the output of sacct --json?)");
    return x;
}

}  // namespace

SacctJsonExport sacct_json_export(std::FILE *in, const std::string &source) {
    Utf8RepairBuf buf(in);
    std::istream stream(&buf);
    return read(stream, source);
}

SacctJsonExport sacct_json_export_text(const std::string &text, const std::string &source) {
    Utf8RepairBuf buf(text);
    std::istream stream(&buf);
    return read(stream, source);
}

}  // namespace jfp
