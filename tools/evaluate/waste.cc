#include "tools/evaluate/waste.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "model/scoring/features.h"

namespace jfp {

WasteJob waste_job(const JobRecord &j, float p, const BillingRule &rule) {
    WasteJob w;
    w.p = p;
    w.label = is_failure(j.outcome) ? 1 : 0;
    w.submit = j.submit;
    JobRequest r = request_from_record(j);
    w.cost = request_cost(r, rule);
    double rate = billing_per_hour(r, rule);
    if (known(rate) && known(j.elapsed_s) && j.elapsed_s >= 0) w.burnt = rate * j.elapsed_s / 3600.0;
    return w;
}

const char *ranking_name(Ranking r) { return r == Ranking::Waste ? "expected waste (p x cost)" : "probability"; }

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The key a policy ranks by; -inf: never refused.
double key_of(const WasteJob &j, Ranking ranking, double threshold) {
    if (!(j.p >= 0)) return -kInf;  // no score: never refused (and no NaN in a sort)
    if (ranking == Ranking::Probability) return j.p;
    if (!known(j.cost) || !std::isfinite(j.cost)) return j.p >= threshold ? kInf : -kInf;
    const double w = j.expected_waste();
    return std::isfinite(w) ? w : -kInf;
}

void count(RefusalCut &c, const WasteJob &j) {
    ++c.refused;
    double burnt = known(j.burnt) ? j.burnt : 0;
    if (j.label) {
        ++c.failed_caught;
        c.burnt_caught += burnt;
    } else {
        ++c.wrongly_refused;
        c.burnt_wrongly += burnt;
    }
}

void count_failed(RefusalCut &c, const std::vector<WasteJob> &jobs) {
    for (const auto &j : jobs)
        if (j.label) {
            ++c.failed;
            if (known(j.burnt)) c.burnt_failed += j.burnt;
        }
}

std::vector<size_t> ranked(const std::vector<double> &keys) {
    std::vector<size_t> order(keys.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] > keys[b]; });
    return order;
}

}  // namespace

RefusalCut cut_at_wrongly_refused(const std::vector<WasteJob> &jobs, Ranking ranking, double threshold, size_t k) {
    RefusalCut cut;
    count_failed(cut, jobs);
    std::vector<double> keys(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i) keys[i] = key_of(jobs[i], ranking, threshold);
    auto order = ranked(keys);
    for (size_t i = 0; i < order.size();) {
        if (keys[order[i]] == -kInf) break;
        size_t end = i, completed = 0;
        while (end < order.size() && keys[order[end]] == keys[order[i]]) completed += jobs[order[end++]].label == 0;
        if (cut.wrongly_refused + completed > k) break;
        for (; i < end; ++i) count(cut, jobs[order[i]]);
    }
    return cut;
}

double poisson_upper(size_t k, double confidence) {
    // z for the one-sided confidence, by the inverse of the normal's tail (Acklam-free: bisection on erfc).
    double lo = 0, hi = 10;
    for (int i = 0; i < 100; ++i) {
        double mid = (lo + hi) / 2;
        if (0.5 * std::erfc(mid / std::sqrt(2.0)) > 1 - confidence) lo = mid;
        else hi = mid;
    }
    double z = (lo + hi) / 2;
    double n = static_cast<double>(k) + 1;
    double t = 1 - 1 / (9 * n) + z / (3 * std::sqrt(n));
    return n * t * t * t;
}

BudgetChoice choose_budget(const std::vector<WasteJob> &jobs, double threshold, double limit_per_week,
                           bool unbounded_refused) {
    BudgetChoice c;
    c.limit_per_week = limit_per_week;
    if (jobs.empty()) return c;
    int64_t first = jobs.front().submit, last = jobs.front().submit;
    for (const auto &j : jobs) first = std::min(first, j.submit), last = std::max(last, j.submit);
    c.span_days = static_cast<double>(last - first) / 86400.0;
    c.weeks = std::max(1.0 / 7, c.span_days / 7);
    // The halves by time (jobs are in time order): each spans half the window's weeks, however jobs arrived.
    const int64_t middle = first + (last - first) / 2;
    size_t half = 0;
    while (half < jobs.size() && jobs[half].submit < middle) ++half;
    // Refused whatever the budget: unbounded jobs at or above the threshold.
    size_t base[2] = {0, 0};
    std::vector<double> keys(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i) {
        keys[i] = key_of(jobs[i], Ranking::Waste, threshold);
        if (keys[i] == kInf && !unbounded_refused) keys[i] = -kInf;
        if (keys[i] == kInf && jobs[i].label == 0) ++base[i >= half];
    }
    auto within = [&](size_t a, size_t b) {
        double w = c.weeks;
        return poisson_upper(a + b) / w <= limit_per_week && poisson_upper(a) / (w / 2) <= limit_per_week &&
               poisson_upper(b) / (w / 2) <= limit_per_week;
    };
    if (!within(base[0], base[1])) return c;
    auto order = ranked(keys);
    size_t wrong[2] = {base[0], base[1]};
    double budget = kUnknown;
    for (size_t i = 0; i < order.size();) {
        double key = keys[order[i]];
        if (key == kInf) {
            ++i;
            continue;
        }
        if (key == -kInf || !(key > 0)) break;  // a budget is above 0
        size_t end = i, add[2] = {0, 0};
        for (; end < order.size() && keys[order[end]] == key; ++end)
            if (jobs[order[end]].label == 0) ++add[order[end] >= half];
        if (!within(wrong[0] + add[0], wrong[1] + add[1])) break;
        wrong[0] += add[0], wrong[1] += add[1];
        budget = key;
        i = end;
    }
    if (!known(budget)) return c;  // not even the most wasteful job fits the limit
    c.budget = budget;
    c.limit_met = true;
    RefusalCut &cut = c.at_budget;
    count_failed(cut, jobs);
    for (size_t i = 0; i < jobs.size(); ++i)
        if (keys[i] >= budget) count(cut, jobs[i]);
    c.per_week = static_cast<double>(cut.wrongly_refused) / c.weeks;
    c.per_week_upper = poisson_upper(cut.wrongly_refused) / c.weeks;
    return c;
}

namespace {

std::vector<std::pair<double, double>> curve_of(const std::vector<WasteJob> &jobs, Ranking ranking, double threshold,
                                                size_t max_wrongly) {
    RefusalCut total;
    count_failed(total, jobs);
    std::vector<double> keys(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i) keys[i] = key_of(jobs[i], ranking, threshold);
    auto order = ranked(keys);
    std::vector<std::pair<double, double>> out{{0.0, 0.0}};
    size_t wrongly = 0;
    double caught = 0;
    for (size_t i = 0; i < order.size();) {
        if (keys[order[i]] == -kInf) break;
        size_t end = i, add = 0;
        double got = 0;
        for (; end < order.size() && keys[order[end]] == keys[order[i]]; ++end) {
            const WasteJob &j = jobs[order[end]];
            if (j.label) got += known(j.burnt) ? j.burnt : 0;
            else ++add;
        }
        if (wrongly + add > max_wrongly) break;
        wrongly += add;
        caught += got;
        double share = total.burnt_failed > 0 ? caught / total.burnt_failed : 0;
        if (!out.empty() && out.back().first == static_cast<double>(wrongly)) out.back().second = share;
        else out.emplace_back(static_cast<double>(wrongly), share);
        i = end;
    }
    return out;
}

}  // namespace

WasteCurve waste_curve(const std::vector<WasteJob> &jobs, double threshold, size_t max_wrongly) {
    WasteCurve c;
    c.by_probability = curve_of(jobs, Ranking::Probability, threshold, max_wrongly);
    c.by_waste = curve_of(jobs, Ranking::Waste, threshold, max_wrongly);
    return c;
}

}  // namespace jfp
