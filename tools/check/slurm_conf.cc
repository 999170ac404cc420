#include "tools/check/slurm_conf.h"

#include <fstream>
#include <sstream>

#include "model/files/file_check.h"
#include "model/util/text.h"

namespace jfp {

namespace {

std::string lower(std::string s) {
    for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

void read_into(const std::string &path, const std::string &dir, SlurmConf &out, int depth) {
    std::ifstream in(path);
    if (!in) {
        if (depth > 0) out.unreadable_includes.push_back(path);
        return;
    }
    if (depth == 0) out.found = true;
    for (std::string line; std::getline(in, line);) {
        if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        std::istringstream words(line);
        std::string first;
        if (!(words >> first)) continue;
        if (lower(first) == "include") {
            std::string inc;
            words >> inc;
            if (!inc.empty() && depth < 4) read_into(inc[0] == '/' ? inc : dir + "/" + inc, dir, out, depth + 1);
            continue;
        }
        for (std::string w = first;; ) {
            if (auto eq = w.find('='); eq != std::string::npos) {
                std::string v = w.substr(eq + 1);
                if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);  // PluginDir="..."
                std::string key = lower(w.substr(0, eq));
                if (key == "slurmctldhost" || key == "controlmachine" || key == "backupcontroller")
                    out.controllers.push_back(v.substr(0, v.find('(')));
                out.values[key] = v;
            }
            if (!(words >> w)) break;
        }
    }
}

}  // namespace

std::string SlurmConf::get(const std::string &key, const std::string &fallback) const {
    auto it = values.find(lower(key));
    return it == values.end() ? fallback : it->second;
}

SlurmConf read_slurm_conf(const std::string &path) {
    SlurmConf c;
    c.path = path;
    read_into(path, dir_of(path), c, 0);
    return c;
}

bool lists_jfp(const std::string &plugins) {
    std::istringstream in(plugins);
    for (std::string p; std::getline(in, p, ',');) {
        p = lower(std::string(trim(p)));
        if (p == "jfp" || p == "job_submit/jfp") return true;
    }
    return false;
}

}  // namespace jfp
