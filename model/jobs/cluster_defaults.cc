#include "model/jobs/cluster_defaults.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

const PartitionDefaults *ClusterDefaults::partition(std::string_view name) const {
    auto it = partitions.find(std::string(name));
    return it == partitions.end() ? nullptr : &it->second;
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

void parse_into(ClusterDefaults &d, std::string_view text, const std::string &base_dir, int depth) {
    PartitionDefaults defaults_line;  // PartitionName=DEFAULT sets defaults for later partitions
    for (auto raw : split(text, '\n')) {
        auto hash = raw.find('#');
        auto line = trim(hash == std::string_view::npos ? raw : raw.substr(0, hash));
        if (line.empty()) continue;
        std::string lower = to_lower(line);
        if (starts_with(lower, "include ")) {
            if (depth >= 8) continue;
            std::string path(trim(line.substr(8)));
            if (!path.empty() && path[0] != '/') path = base_dir + "/" + path;
            std::ifstream in(path);
            if (!in) continue;
            std::ostringstream ss;
            ss << in.rdbuf();
            parse_into(d, ss.str(), base_dir, depth + 1);
            continue;
        }
        auto kv = pairs(line);
        if (kv.empty()) continue;
        if (kv[0].first == "partitionname") {
            std::string name = kv[0].second;
            bool is_default_template = to_lower(name) == "default";
            PartitionDefaults p = defaults_line;
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
            }
            if (!has_default_time && !p.default_time_min && max_time) p.default_time_min = max_time;
            if (is_default_template) defaults_line = p;
            else d.partitions[name] = p;
            continue;
        }
        for (const auto &[k, v] : kv) {
            if (k == "defmempercpu") d.def_mem_per_cpu_mb = mb(v);
            else if (k == "defmempernode") d.def_mem_per_node_mb = mb(v);
        }
    }
}

}  // namespace

ClusterDefaults parse_slurm_conf(std::string_view text, const std::string &base_dir, const std::string &origin) {
    ClusterDefaults d;
    d.origin = origin;
    parse_into(d, text, base_dir, 0);
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
    auto slash = path.rfind('/');
    return parse_slurm_conf(ss.str(), slash == std::string::npos ? "." : path.substr(0, slash), path);
}

}  // namespace jfp
