#include "model/accounting/slurm_json.h"

#include <cinttypes>
#include <istream>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "model/jobs/job_record.h"
#include "model/util/utf8_repair.h"

namespace jfp {

namespace {

using json = nlohmann::json;

// Keeps the wanted scalar members of each element of the top-level "jobs" array; skips everything else
// without building it.
class JobsSax : public nlohmann::json_sax<json> {
public:
    JobsSax(const std::vector<std::string> &keys, const std::function<void(SlurmJsonJob &&)> &on_job)
        : keys_(keys.begin(), keys.end()), on_job_(on_job) {}

    bool saw_jobs() const { return saw_jobs_; }

    bool null() override { return value(nullptr); }
    bool boolean(bool v) override {
        if (nested_ && depth_ == kJob + 1 && key_ == "set") nested_set_ = v;
        return true;
    }
    bool number_integer(number_integer_t v) override { return value(std::to_string(v)); }
    bool number_unsigned(number_unsigned_t v) override { return value(std::to_string(v)); }
    bool number_float(number_float_t, const string_t &s) override { return value(s); }
    bool string(string_t &v) override { return value(v); }
    bool binary(binary_t &) override { return true; }

    bool start_object(std::size_t) override {
        ++depth_;
        if (depth_ == kJob && in_jobs_) job_.clear();
        if (depth_ == kJob + 1 && in_jobs_ && wanted_) {  // {"set": ..., "number": ...}
            nested_ = true;
            nested_set_ = true;
            nested_number_.reset();
        }
        return true;
    }
    bool end_object() override {
        if (depth_ == kJob + 1 && nested_) {
            if (nested_set_ && nested_number_) job_[job_key_] = *nested_number_;
            nested_ = false;
        }
        if (depth_ == kJob && in_jobs_) on_job_(std::move(job_));
        --depth_;
        key_.clear();
        return true;
    }
    bool start_array(std::size_t) override {
        ++depth_;
        if (depth_ == kJobs && key_ == "jobs") in_jobs_ = saw_jobs_ = true;
        return true;
    }
    bool end_array() override {
        if (depth_ == kJobs) in_jobs_ = false;
        --depth_;
        return true;
    }
    bool key(string_t &k) override {
        key_ = k;
        if (depth_ == kJob && in_jobs_) {
            job_key_ = k;
            wanted_ = keys_.count(k) > 0;
        }
        return true;
    }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) override { return false; }

private:
    static constexpr int kJobs = 2;  // root object, then the "jobs" array
    static constexpr int kJob = 3;   // one job object

    bool value(std::optional<std::string> v) {
        if (!in_jobs_) return true;
        if (depth_ == kJob && wanted_) {
            if (v) job_[job_key_] = std::move(*v);
        } else if (nested_ && depth_ == kJob + 1 && key_ == "number") {
            nested_number_ = std::move(v);
        }
        key_.clear();
        return true;
    }
    bool value(std::nullptr_t) { return value(std::optional<std::string>()); }
    bool value(const std::string &v) { return value(std::optional<std::string>(v)); }

    std::set<std::string> keys_;
    const std::function<void(SlurmJsonJob &&)> &on_job_;
    int depth_ = 0;
    bool in_jobs_ = false, saw_jobs_ = false;
    std::string key_, job_key_;
    bool wanted_ = false;
    bool nested_ = false, nested_set_ = true;
    std::optional<std::string> nested_number_;
    SlurmJsonJob job_;
};

template <typename Input>
void read_jobs(Input &&input, const std::string &source, const std::vector<std::string> &keys,
               const std::function<void(SlurmJsonJob &&)> &on_job) {
    JobsSax sax(keys, on_job);
    bool ok;
    try {
        ok = json::sax_parse(std::forward<Input>(input), &sax);
    } catch (const json::exception &e) {
        throw SlurmJsonError(source + ": not Slurm's JSON output (" + e.what() + ")");
    }
    if (!ok) throw SlurmJsonError(source + ": not Slurm's JSON output (a JSON syntax error; was the output cut short?)");
    if (!sax.saw_jobs())
        throw SlurmJsonError(source + ": JSON without a \"jobs\" array (is it the output of sacct --json or squeue --json?)");
}

JobUserTextById user_text_of(const std::function<void(const std::function<void(SlurmJsonJob &&)> &)> &read) {
    JobUserTextById out;
    read([&](SlurmJsonJob &&j) {
        auto id = j.find("job_id");
        if (id == j.end()) return;
        JobUserText t;
        if (auto n = j.find("name"); n != j.end()) t.name = n->second;
        if (auto s = j.find("submit_line"); s != j.end()) {
            t.has_submit_line = true;
            t.submit_line = s->second;
        }
        out[id->second] = std::move(t);
    });
    return out;
}

std::vector<std::pair<std::string, std::string>> tokens_of(
    const std::function<void(const std::function<void(SlurmJsonJob &&)> &)> &read) {
    std::vector<std::pair<std::string, std::string>> out;
    read([&](SlurmJsonJob &&j) {
        auto id = j.find("job_id");
        auto admin = j.find("admin_comment");
        if (id == j.end() || admin == j.end()) return;
        std::string token = extract_jfp_token(admin->second);
        if (token.size() != 16) return;
        out.emplace_back(id->second, token);
        auto array = j.find("array_job_id"), task = j.find("array_task_id");
        if (array != j.end() && task != j.end() && array->second != "0") out.emplace_back(array->second + "_" + task->second, token);
    });
    return out;
}

const std::vector<std::string> kUserTextKeys = {"job_id", "name", "submit_line"};
const std::vector<std::string> kTokenKeys = {"job_id", "admin_comment", "array_job_id", "array_task_id"};

}  // namespace

// Through Utf8RepairBuf: a byte of no well-formed character in a user's job name (squeue --json prints names
// as they are) becomes the text \xNN in that name, instead of an error for the whole document.
void read_slurm_json_jobs(std::FILE *in, const std::string &source, const std::vector<std::string> &keys,
                          const std::function<void(SlurmJsonJob &&)> &on_job) {
    Utf8RepairBuf buf(in);
    std::istream stream(&buf);
    read_jobs(stream, source, keys, on_job);
}

void read_slurm_json_jobs_text(const std::string &text, const std::string &source, const std::vector<std::string> &keys,
                               const std::function<void(SlurmJsonJob &&)> &on_job) {
    Utf8RepairBuf buf(text);
    std::istream stream(&buf);
    read_jobs(stream, source, keys, on_job);
}

JobUserTextById read_sacct_json_user_text(std::FILE *in, const std::string &source) {
    return user_text_of([&](const auto &f) { read_slurm_json_jobs(in, source, kUserTextKeys, f); });
}

JobUserTextById sacct_json_user_text(const std::string &text, const std::string &source) {
    return user_text_of([&](const auto &f) { read_slurm_json_jobs_text(text, source, kUserTextKeys, f); });
}

std::vector<std::pair<std::string, std::string>> squeue_json_tokens(std::FILE *in, const std::string &source) {
    return tokens_of([&](const auto &f) { read_slurm_json_jobs(in, source, kTokenKeys, f); });
}

std::vector<std::pair<std::string, std::string>> squeue_json_tokens_text(const std::string &text, const std::string &source) {
    return tokens_of([&](const auto &f) { read_slurm_json_jobs_text(text, source, kTokenKeys, f); });
}

}  // namespace jfp
