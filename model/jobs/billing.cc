#include "model/jobs/billing.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "model/util/text.h"

namespace jfp {

namespace {

// A weight's unit suffix as Slurm reads it (its first letter): the weight is divided by 1024 for each step
// the suffix is above the TRES's base unit (MB for memory and burst buffers, a count for the rest), and left
// as it is at or below it ("Mem=0.25G" bills 0.25 per GiB; "Mem=1K" stays 1 per MB).
std::optional<int> suffix_step(char c) {
    switch (c) {
        case 'K': case 'k': return 1;
        case 'M': case 'm': return 2;
        case 'G': case 'g': return 3;
        case 'T': case 't': return 4;
        case 'P': case 'p': return 5;
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
        const int base = key == "mem" || starts_with(key, "bb/") ? 2 : 0;  // MB, or a count
        size_t digits = 0;
        while (digits < val.size() && (std::isdigit(static_cast<unsigned char>(val[digits])) || val[digits] == '.' ||
                                       val[digits] == '-' || val[digits] == '+' || val[digits] == 'e' || val[digits] == 'E'))
            ++digits;
        if (digits < val.size()) {
            auto step = suffix_step(val[digits]);
            if (!step) {
                fail(error, "TRESBillingWeights: the weight of '" + printable(key, 40) + "' is not a number");
                return std::nullopt;
            }
            for (int i = base; i < *step; ++i) factor /= 1024;
            val = val.substr(0, digits);
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
    if ((r.exclusive || rule.whole_nodes) && known(rule.node_cpus) && rule.node_cpus > 0 && known(cpus)) {
        double nodes = known(r.req_nodes) && r.req_nodes >= 1 ? r.req_nodes : 1;
        nodes = std::max(nodes, std::ceil(cpus / rule.node_cpus));  // -n 100 on 32-CPU nodes holds 4 of them
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
    // MAX_TRES: the largest of the weighted node TRES (CPUs, memory, GPUs, nodes; a request spreads them
    // evenly over its nodes, so the largest on a node is the largest of the totals).
    return std::max(0.0, std::max({t[0], t[1], t[2], t[3]}));
}

double request_cost(const JobRequest &r, const BillingRule &rule, double mem_floor_mb) {
    double limit = r.timelimit_min;
    if (!known(limit) || limit <= 0) return kUnknown;
    if (known(rule.over_time_min) && rule.over_time_min > 0) limit += rule.over_time_min;
    if (!known(limit) || limit > kMaxCostMinutes) return kUnknown;
    double rate = billing_per_hour(r, rule, mem_floor_mb);
    if (!known(rate)) return kUnknown;
    const double cost = rate * limit / 60.0;
    return std::isfinite(cost) ? cost : kUnknown;  // an overflow bounds nothing
}

}  // namespace jfp
