#include "model/jobs/billing.h"

#include <algorithm>
#include <cmath>

#include "model/util/text.h"

namespace jfp {

namespace {

// A weight's unit suffix, as a factor to a per-MB weight: "Mem=0.25G" bills 0.25 per GiB.
std::optional<double> per_mb_factor(char suffix) {
    switch (suffix) {
        case 'K': case 'k': return 1024.0;
        case 'M': case 'm': return 1.0;
        case 'G': case 'g': return 1.0 / 1024;
        case 'T': case 't': return 1.0 / (1024.0 * 1024);
        case 'P': case 'p': return 1.0 / (1024.0 * 1024 * 1024);
        default: return std::nullopt;
    }
}

bool fail(std::string *error, std::string msg) {
    if (error) *error = std::move(msg);
    return false;
}

}  // namespace

std::optional<BillingWeights> parse_billing_weights(std::string_view text, std::string *error) {
    BillingWeights w;
    double typed_gpu = 0;
    text = trim(text);
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
    for (auto item : split(text, ',')) {
        item = trim(item);
        if (item.empty()) continue;
        auto eq = item.find('=');
        if (eq == std::string_view::npos) {
            fail(error, "TRESBillingWeights item '" + printable(item, 40) + "' has no '=' (expected TRES=weight)");
            return std::nullopt;
        }
        std::string key = to_lower(trim(item.substr(0, eq)));
        std::string_view val = trim(item.substr(eq + 1));
        double factor = 1;
        bool sized = key == "mem" || starts_with(key, "bb/");
        if (!val.empty() && per_mb_factor(val.back())) {
            if (!sized) {
                fail(error, "TRESBillingWeights: a unit suffix is only valid for Mem and BB, not '" + printable(key, 40) + "'");
                return std::nullopt;
            }
            factor = *per_mb_factor(val.back());
            val.remove_suffix(1);
        }
        auto v = parse_double(val);
        if (!v || !std::isfinite(*v)) {
            fail(error, "TRESBillingWeights: the weight of '" + printable(key, 40) + "' is not a number");
            return std::nullopt;
        }
        double weight = *v * factor;
        if (key == "cpu") w.cpu = weight;
        else if (key == "mem") w.mem_per_mb = weight;
        else if (key == "node") w.node = weight;
        else if (key == "gres/gpu") w.gpu += weight;
        // A typed GPU's weight: jfp does not know the type a job will get, so it bills the dearest.
        else if (starts_with(key, "gres/gpu:")) typed_gpu = std::max(typed_gpu, weight);
        else if (weight != 0) w.uncounted = true;
    }
    w.gpu += typed_gpu;
    return w;
}

namespace {
// CPUs as slurmctld allocates them: whole nodes' worth for an exclusive job.
double billed_cpus(const JobRequest &r, const BillingRule &rule) {
    double cpus = r.req_cpus;
    if ((r.exclusive || rule.whole_nodes) && known(rule.node_cpus) && known(cpus)) {
        double nodes = known(r.req_nodes) && r.req_nodes >= 1 ? r.req_nodes : 1;
        cpus = std::max(cpus, nodes * rule.node_cpus);
    }
    return cpus;
}
}  // namespace

double billing_per_hour(const JobRequest &r, const BillingRule &rule, double mem_floor_mb) {
    const double cpus = billed_cpus(r, rule);
    if (!rule.weights) return known(cpus) && cpus > 0 ? cpus : kUnknown;
    const BillingWeights &w = *rule.weights;
    double mem = r.req_mem_mb;
    if (known(mem_floor_mb) && (!known(mem) || mem_floor_mb > mem)) mem = mem_floor_mb;
    // A TRES weighted 0 is not billed whatever its amount; one weighted and unknown leaves the bill unknown.
    auto term = [](double weight, double amount) {
        if (weight == 0) return 0.0;
        return known(amount) ? weight * std::max(0.0, amount) : kUnknown;
    };
    double gpus = known(r.req_gpus) ? r.req_gpus : 0;  // a request names its GPUs or has none
    double t[] = {term(w.cpu, cpus), term(w.mem_per_mb, mem), term(w.gpu, gpus), term(w.node, r.req_nodes)};
    for (double x : t)
        if (!known(x)) return kUnknown;
    if (!rule.max_tres) return std::max(0.0, t[0] + t[1] + t[2] + t[3]);
    // MAX_TRES: the largest of the weighted node TRES (CPUs, memory, GPUs; a request spreads them evenly
    // over its nodes, so the largest on a node is the largest of the totals), plus the nodes' own weight.
    return std::max(0.0, std::max({t[0], t[1], t[2]}) + t[3]);
}

double request_cost(const JobRequest &r, const BillingRule &rule, double mem_floor_mb) {
    double limit = r.timelimit_min;
    if (!known(limit) || limit <= 0) return kUnknown;
    if (known(rule.over_time_min) && rule.over_time_min > 0) limit += rule.over_time_min;
    if (!known(limit) || limit > kMaxCostMinutes) return kUnknown;
    double rate = billing_per_hour(r, rule, mem_floor_mb);
    if (!known(rate)) return kUnknown;
    return rate * limit / 60.0;
}

}  // namespace jfp
