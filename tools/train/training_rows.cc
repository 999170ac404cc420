#include "tools/train/training_rows.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "model/archive/archived_scripts.h"
#include "model/jobs/outcome.h"
#include "model/scoring/feature_log.h"
#include "model/scoring/feature_sweep.h"

namespace jfp {

void RowSet::add(const FeatureVector &f, const JobRecord &j, const BillingRule &billing) {
    waste.push_back(waste_job(j, 0, billing));
    x.insert(x.end(), f.begin(), f.end());
    bool fail = is_failure(j.outcome);
    label.push_back(fail ? 1.0f : 0.0f);
    cls.push_back(failure_class_index(j.outcome));
    for (size_t r = 0; r < kNumRules; ++r) rule[r].push_back(rule_score(kRules[r], f));
    if (first_submit == 0 || j.submit < first_submit) first_submit = j.submit;
    last_submit = std::max(last_submit, j.submit);
}

size_t RowSet::positives() const {
    size_t n = 0;
    for (float l : label) n += l > 0.5f;
    return n;
}

std::vector<int> RowSet::labels() const {
    std::vector<int> out;
    out.reserve(label.size());
    for (float l : label) out.push_back(l > 0.5f);
    return out;
}

RowSet RowSet::failures() const {
    RowSet to;
    for (size_t i = 0; i < size(); ++i) {
        if (label[i] < 0.5f) continue;
        to.x.insert(to.x.end(), x.begin() + static_cast<long>(i * kNumFeatures),
                    x.begin() + static_cast<long>((i + 1) * kNumFeatures));
        to.label.push_back(static_cast<float>(cls[i]));
        to.cls.push_back(cls[i]);
    }
    return to;
}

std::vector<float> cost_weights(const std::vector<WasteJob> &rows, const std::string &how) {
    std::vector<double> v;
    for (const auto &r : rows)
        if (known(r.cost)) v.push_back(how == "log-cost" ? std::log1p(r.cost) : r.cost);
    std::vector<float> w(rows.size(), 1.0f);
    if (v.empty()) return w;
    std::vector<double> sorted = v;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(sorted.size() / 2), sorted.end());
    double median = std::max(1e-9, sorted[sorted.size() / 2]);
    double sum = 0;
    for (double x : v) sum += std::clamp(x / median, 0.01, 1000.0);
    double mean = sum / static_cast<double>(v.size());
    for (size_t i = 0; i < rows.size(); ++i) {
        double x = known(rows[i].cost) ? (how == "log-cost" ? std::log1p(rows[i].cost) : rows[i].cost) : median;
        w[i] = static_cast<float>(std::clamp(x / median, 0.01, 1000.0) / mean);
    }
    return w;
}

const char *split_name(Split s) { return s == Split::Train ? "train" : "validation"; }

TrainingWindow choose_training_window(const HistoryStore &store, const TrainOptions &opt) {
    TrainingWindow w;
    w.cutoff = opt.before;
    if (!w.cutoff && opt.train_fraction) {
        if (!(*opt.train_fraction > 0 && *opt.train_fraction <= 1))
            throw std::runtime_error("--train-fraction must be in (0, 1]");
        uint64_t all = store.count_labeled(std::nullopt);
        auto k = static_cast<uint64_t>(std::floor(*opt.train_fraction * static_cast<double>(all)));
        if (k < all) w.cutoff = store.labeled_submit_at(k, std::nullopt);
    }
    uint64_t eligible = store.count_labeled(w.cutoff);
    if (eligible < 50)
        throw std::runtime_error("only " + std::to_string(eligible) + (eligible == 1 ? " finished job" : " finished jobs") +
                                 " (COMPLETED or failed) " + (eligible == 1 ? "lies" : "lie") +
                                 " in the training window; jfp needs at least 50. " +
                                 (w.cutoff ? "Ingest more history (jfp ingest) or move the cutoff later (--before)"
                                           : "Train again when more jobs have ended (jfp ingest brings them in)"));
    auto k_val = static_cast<uint64_t>(std::floor(static_cast<double>(eligible) * (1.0 - opt.validation_fraction)));
    w.validation_start = *store.labeled_submit_at(std::min(k_val, eligible - 1), w.cutoff);
    return w;
}

SweepSources sweep_training_rows(const HistoryStore &store, const TrainOptions &opt, const TrainingWindow &window,
                                 const std::function<void(const JobRecord &, const FeatureVector &, Split)> &row) {
    SweepSources out;
    std::unordered_map<std::string, LoggedFeatures> logged;
    if (!opt.feature_log.empty()) logged = read_feature_log(opt.feature_log);
    std::unique_ptr<ArchivedScripts> scripts;
    if (!opt.script_archive.empty()) scripts = std::make_unique<ArchivedScripts>(opt.script_archive);
    auto t0 = std::chrono::steady_clock::now();
    // The sweep counts every job that took its logged vector; the rows are fewer (a cutoff, unlabeled and
    // straddling jobs): what is reported is the rows'.
    uint64_t swept_logged = 0, seen_logged = 0;
    sweep_features(store, [&](const JobRecord &j, const FeatureVector &x) {
        const bool from_log = swept_logged != seen_logged;  // the sweep counted this job just before calling
        seen_logged = swept_logged;
        if (!is_labeled(j.outcome) || j.end == 0) return;
        if (window.cutoff && !(j.submit < *window.cutoff && j.end < *window.cutoff)) return;
        if (j.submit >= window.validation_start) row(j, x, Split::Validation);
        else if (j.end < window.validation_start) row(j, x, Split::Train);  // known by the time validation starts
        else {
            ++out.straddling, out.straddling_failed += is_failure(j.outcome);
            return;
        }
        out.logged_vectors += from_log;
    }, opt.feature_log.empty() ? nullptr : &logged, &swept_logged, scripts.get());
    out.archived_scripts = scripts ? scripts->found() : 0;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

// Measured on six synthetic workloads, the constraint raised PR-AUC after the cutoff on every one
// (docs/model.md).
std::string monotone_constraints() {
    std::string out = "(";
    for (int f = 0; f < kNumFeatures; ++f) {
        bool up = f == F_un_fail_rate || f == F_un_recent_fail_rate || f == F_un_streak || f == F_un_timeout_rate ||
                  f == F_un_oom_rate || f == F_us_fail_rate || f == F_us_recent_fail_rate || f == F_us_streak ||
                  f == F_u_fail_rate || f == F_u_recent_fail_rate || f == F_u_streak || f == F_p_fail_rate ||
                  f == F_p_recent_fail_rate || f == F_a_fail_rate || f == F_a_recent_fail_rate ||
                  // a finding only makes failure likelier
                  f == F_script_ignored_sbatch || f == F_script_missing_modules;
        out += (f ? "," : "");
        out += up ? "1" : "0";
    }
    return out + ")";
}

}  // namespace jfp
