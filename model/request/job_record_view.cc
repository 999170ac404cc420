#include "model/request/job_record_view.h"

#include <charconv>
#include <cmath>

#include "model/util/text.h"

namespace jfp {

namespace {

bool given(std::string_view s) { return s.data() != nullptr; }

}  // namespace

SubmitRequest merge_update(const SubmitRequest &job, const SubmitRequest &d) {
    SubmitRequest r = job;
    auto str = [](std::string_view &field, std::string_view update) {
        if (given(update)) field = update;
    };
    auto num = [](double &field, double update) {
        if (known(update)) field = update;
    };
    str(r.name, d.name);
    str(r.account, d.account);
    str(r.partition, d.partition);
    str(r.qos, d.qos);
    str(r.comment, d.comment);
    str(r.dependency, d.dependency);
    str(r.work_dir, d.work_dir);
    str(r.tres_per_job, d.tres_per_job);
    str(r.tres_per_node, d.tres_per_node);
    str(r.tres_per_task, d.tres_per_task);
    str(r.tres_per_socket, d.tres_per_socket);
    num(r.min_cpus, d.min_cpus);
    num(r.num_tasks, d.num_tasks);
    num(r.cpus_per_task, d.cpus_per_task);
    num(r.min_nodes, d.min_nodes);
    num(r.time_limit_min, d.time_limit_min);
    if (known(d.mem_mb)) {
        r.mem_mb = d.mem_mb;
        r.mem_per_cpu = d.mem_per_cpu;
    }
    return r;
}

std::string_view user_part_of_comment(std::string_view comment) {
    auto pos = comment.rfind("jfp:p=");
    if (pos == std::string_view::npos) return comment;
    return trim(comment.substr(0, pos));
}

void append_submission_facts(std::string &admin, double array_size, const FeatureVector &x) {
    bool script = !std::isnan(x[F_script_bytes]);
    bool array = !known(array_size) || array_size != 1;  // an array of unknown size is written as an empty field
    bool findings = !std::isnan(x[F_script_ignored_sbatch]) || !std::isnan(x[F_script_missing_modules]);
    if (!script && !array && !findings) return;
    admin += " jfp:s=";
    char num[32];
    auto put = [&](double v) {
        if (std::isnan(v)) return;
        auto r = std::to_chars(num, num + sizeof num, v);
        admin.append(num, r.ptr);
    };
    put(array_size);
    for (int i = 0; i < kScriptFeatureCount; ++i) {
        admin += '.';
        if (script) put(static_cast<double>(x[static_cast<size_t>(F_script_bytes + i)]));
    }
    for (int f : {F_script_ignored_sbatch, F_script_missing_modules}) {
        admin += '.';
        put(static_cast<double>(x[static_cast<size_t>(f)]));
    }
}

std::optional<SubmissionFacts> parse_submission_facts(std::string_view admin) {
    auto pos = admin.rfind("jfp:s=");
    if (pos == std::string_view::npos) return std::nullopt;
    std::string_view rest = admin.substr(pos + 6);
    rest = rest.substr(0, rest.find_first_of(" \t\n"));
    SubmissionFacts f;
    size_t field = 0, start = 0;
    int known_script = 0;
    while (true) {
        size_t dot = rest.find('.', start);
        // A dot may also be a number's decimal point: to_chars writes none for whole numbers, which every
        // fact is, so fields are split on every dot and a fraction is refused as malformed.
        std::string_view v = rest.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        if (field > static_cast<size_t>(kScriptFeatureCount) + 2) return std::nullopt;
        if (v.empty() && field == 0) f.array_size = kUnknown;  // the submission could not count its tasks
        if (!v.empty()) {
            auto d = parse_double(v);
            if (!d || !std::isfinite(*d) || *d < 0) return std::nullopt;
            if (field == 0) f.array_size = *d;
            else if (field <= static_cast<size_t>(kScriptFeatureCount)) {
                f.script[field - 1] = static_cast<float>(*d);
                ++known_script;
            } else if (field == static_cast<size_t>(kScriptFeatureCount) + 1) {
                f.findings.ignored_sbatch = *d;
            } else {
                f.findings.missing_modules = *d;
            }
        }
        ++field;
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    // 12 fields: a job submitted before the findings were kept.
    if (field != static_cast<size_t>(kScriptFeatureCount) + 1 && field != static_cast<size_t>(kScriptFeatureCount) + 3)
        return std::nullopt;
    if (known_script != 0 && known_script != kScriptFeatureCount) return std::nullopt;
    f.script_known = known_script == kScriptFeatureCount;
    return f;
}

}  // namespace jfp
