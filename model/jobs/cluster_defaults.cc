#include "model/jobs/cluster_defaults.h"

#include "model/jobs/slurm_text.h"

#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_set>
#include <vector>

#include "model/files/file_check.h"
#include "model/jobs/hostlist.h"
#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

const PartitionDefaults *ClusterDefaults::partition(std::string_view name) const {
    auto it = partitions.find(std::string(name));
    return it == partitions.end() ? nullptr : &it->second;
}

BillingRule ClusterDefaults::billing_rule(std::string_view name) const {
    BillingRule rule;
    rule.max_tres = max_tres;
    rule.over_time_min = over_time_min;
    if (const PartitionDefaults *p = partition(name)) {
        if (p->billing) rule.weights = &*p->billing;
        if (p->over_time_min) rule.over_time_min = *p->over_time_min;
        if (p->node_cpus_max) rule.node_cpus = *p->node_cpus_max;
        rule.whole_nodes = p->exclusive;
    }
    return rule;
}

namespace {

// "Key=Value Key2=Value2" on one line (values may not contain spaces in slurm.conf's partition lines).
std::vector<std::pair<std::string, std::string>> pairs(std::string_view line) {
    std::vector<std::pair<std::string, std::string>> out;
    for (auto tok : split(line, ' ')) {
        tok = trim(tok);
        if (tok.empty()) continue;
        auto eq = tok.find('=');
        if (eq == std::string_view::npos) continue;
        out.emplace_back(to_lower(tok.substr(0, eq)), std::string(tok.substr(eq + 1)));
    }
    return out;
}

std::optional<double> mb(const std::string &v) {
    auto n = parse_double(trim(v));
    if (!n || *n <= 0) return std::nullopt;
    return *n;
}

// OverTimeLimit: minutes, or UNLIMITED; anything else is ignored (slurmctld would refuse the file).
std::optional<double> over_time(const std::string &v) {
    if (to_lower(trim(v)) == "unlimited") return std::numeric_limits<double>::infinity();
    auto n = parse_double(trim(v));
    if (!n || *n < 0 || *n > 65533) return std::nullopt;
    return *n;
}

// What node_mem_mb is computed from once the whole file is read: nodes in slurm.conf's order, each
// partition's Nodes= (a partition line may come before its nodes').
struct NodeMemory {
    std::string names;  // hostlist
    double mb;          // RealMemory - MemSpecLimit
    double cpus;        // CPUs, else Sockets x CoresPerSocket x ThreadsPerCore
};
struct ConfNodes {
    std::vector<NodeMemory> nodes;
    std::vector<std::pair<std::string, std::string>> partition_nodes;  // partition, Nodes=
    double default_real = 1, default_spec = 0;                         // NodeName=DEFAULT; Slurm's RealMemory is 1 unless set
    double default_cpus = 0, default_sockets = 1, default_cores = 1, default_threads = 1;  // 0: CPUs not given
};

void parse_into(ClusterDefaults &d, ConfNodes &n, std::string_view text, const std::string &base_dir, int depth) {
    PartitionDefaults defaults_line;  // PartitionName=DEFAULT sets defaults for later partitions
    std::string default_nodes;
    for (auto raw : split(text, '\n')) {
        auto hash = raw.find('#');
        auto line = trim(hash == std::string_view::npos ? raw : raw.substr(0, hash));
        if (line.empty()) continue;
        std::string lower = to_lower(line);
        if (starts_with(lower, "include ")) {
            if (depth >= 8) continue;
            std::string path(trim(line.substr(8)));
            if (!path.empty() && path[0] != '/') path = base_dir + "/" + path;
            if (d.included.size() < 64) d.included.push_back(path);
            std::ifstream in(path);
            if (!in) continue;
            std::ostringstream ss;
            ss << in.rdbuf();
            parse_into(d, n, ss.str(), base_dir, depth + 1);
            continue;
        }
        auto kv = pairs(line);
        if (kv.empty()) continue;
        if (kv[0].first == "nodename") {
            bool is_default_template = to_lower(kv[0].second) == "default";
            double real = n.default_real, spec = n.default_spec;
            double cpus = n.default_cpus, sockets = n.default_sockets, cores = n.default_cores, threads = n.default_threads;
            for (size_t i = 1; i < kv.size(); ++i) {
                const auto &[k, v] = kv[i];
                if (k == "realmemory") real = parse_double(trim(v)).value_or(real);
                else if (k == "memspeclimit") spec = parse_double(trim(v)).value_or(spec);
                else if (k == "cpus" || k == "procs") cpus = parse_double(trim(v)).value_or(cpus);
                else if (k == "sockets") sockets = parse_double(trim(v)).value_or(sockets);
                else if (k == "corespersocket") cores = parse_double(trim(v)).value_or(cores);
                else if (k == "threadspercore") threads = parse_double(trim(v)).value_or(threads);
            }
            if (is_default_template) {
                n.default_real = real, n.default_spec = spec;
                n.default_cpus = cpus, n.default_sockets = sockets, n.default_cores = cores, n.default_threads = threads;
            } else {
                n.nodes.push_back({kv[0].second, real - spec, cpus > 0 ? cpus : sockets * cores * threads});
            }
            continue;
        }
        if (kv[0].first == "partitionname") {
            std::string name = kv[0].second;
            bool is_default_template = to_lower(name) == "default";
            PartitionDefaults p = defaults_line;
            std::string nodes = default_nodes;
            std::optional<double> max_time;
            bool has_default_time = false;
            for (size_t i = 1; i < kv.size(); ++i) {
                const auto &[k, v] = kv[i];
                if (k == "default" && !is_default_template && to_lower(v) == "yes") d.default_partition = name;
                else if (k == "defaulttime") {
                    p.default_time_min = parse_slurm_time_minutes(v);
                    has_default_time = true;
                } else if (k == "maxtime") max_time = parse_slurm_time_minutes(v);
                else if (k == "defmempercpu") p.def_mem_per_cpu_mb = mb(v);
                else if (k == "defmempernode") p.def_mem_per_node_mb = mb(v);
                else if (k == "nodes") nodes = v;
                else if (k == "overtimelimit") p.over_time_min = over_time(v);
                else if (k == "oversubscribe" || k == "shared") p.exclusive = to_lower(v) == "exclusive";
                else if (k == "tresbillingweights") {
                    std::string err;
                    p.billing = parse_billing_weights(v, &err);
                    if (!p.billing && d.problems.size() < 16) d.problems.push_back("partition " + name + ": " + err);
                }
            }
            if (!has_default_time && !p.default_time_min && max_time) p.default_time_min = max_time;
            if (is_default_template) {
                defaults_line = p;
                default_nodes = nodes;
            } else {
                d.partitions[name] = p;
                n.partition_nodes.emplace_back(name, nodes);
            }
            continue;
        }
        for (const auto &[k, v] : kv) {
            if (k == "overtimelimit") d.over_time_min = over_time(v).value_or(0);
            if (k == "maxarraysize")
                if (auto n = parse_int(trim(v)); n && *n >= 0 && *n <= kSlurmMaxArraySize) d.max_array_size = *n;
            if (k == "priorityflags") {
                d.max_tres = false;
                for (auto flag : split(v, ','))
                    if (to_lower(trim(flag)) == "max_tres") d.max_tres = true;
            }
            if (k == "defmempercpu") d.def_mem_per_cpu_mb = mb(v);
            else if (k == "defmempernode") d.def_mem_per_node_mb = mb(v);
        }
    }
}

// Each partition's first node in slurm.conf's order (slurmctld's node table) and its memory, and the most
// CPUs any of its nodes has (what a whole-node allocation there may bill).
void set_node_memory(ClusterDefaults &d, const ConfNodes &n) {
    std::vector<std::string> order;  // every node name, in order, each with its line's memory and CPUs
    std::vector<double> mem, cpus;
    for (const auto &line : n.nodes) {
        size_t before = order.size();
        if (!expand_hostlist(line.names, kMaxConfNodes - before, order)) return;
        mem.resize(order.size(), line.mb);
        cpus.resize(order.size(), line.cpus);
    }
    for (const auto &[name, nodes] : n.partition_nodes) {
        if (nodes.empty()) continue;
        std::optional<double> first;
        double most_cpus = 0;
        if (to_lower(nodes) == "all") {
            if (!order.empty()) first = mem[0];
            for (double c : cpus) most_cpus = std::max(most_cpus, c);
        } else {
            std::vector<std::string> members;
            if (!expand_hostlist(nodes, kMaxConfNodes, members)) continue;
            std::unordered_set<std::string> in(members.begin(), members.end());
            for (size_t i = 0; i < order.size(); ++i)
                if (in.count(order[i])) {
                    if (!first) first = mem[i];
                    most_cpus = std::max(most_cpus, cpus[i]);
                }
        }
        if (first && *first > 0) d.partitions[name].node_mem_mb = first;
        if (most_cpus > 0) d.partitions[name].node_cpus_max = most_cpus;
    }
}

}  // namespace

ClusterDefaults parse_slurm_conf(std::string_view text, const std::string &base_dir, const std::string &origin) {
    ClusterDefaults d;
    d.origin = origin;
    ConfNodes n;
    parse_into(d, n, text, base_dir, 0);
    set_node_memory(d, n);
    return d;
}

ClusterDefaults load_slurm_conf(const std::string &path, std::string *error) {
    std::ifstream in(path);
    if (!in) {
        if (error) *error = "cannot read " + path;
        ClusterDefaults d;
        d.origin = path;
        return d;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_slurm_conf(ss.str(), dir_of(path), path);
}

}  // namespace jfp
