#include "model/script/module_index.h"

#include <cctype>
#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace jfp {

namespace {

// Lmod's version match: the version itself, or a prefix of it ending at a '.' (3.11 of 3.11.4).
bool version_matches(std::string_view have, std::string_view want) {
    if (have == want) return true;
    return have.size() > want.size() && have.compare(0, want.size(), want) == 0 && have[want.size()] == '.';
}

// Edit distance (insert, delete, replace, swap of neighbours), giving up past `limit`.
// rows: scratch reused across calls (the search runs at submission, over every name of the index).
size_t distance(std::string_view a, std::string_view b, size_t limit, std::vector<size_t> &rows) {
    if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > limit) return limit + 1;
    rows.assign(3 * (b.size() + 1), 0);
    size_t *prev2 = rows.data(), *prev = prev2 + b.size() + 1, *cur = prev + b.size() + 1;
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        size_t row_min = cur[0];
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t cost = std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1])) ? 0 : 1;
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
            row_min = std::min(row_min, cur[j]);
        }
        if (row_min > limit) return limit + 1;
        std::swap(prev2, prev);
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

}  // namespace

ModuleIndex ModuleIndex::parse(std::string_view text, size_t max_modules) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception &e) {
        throw std::runtime_error(std::string("not JSON (") + e.what() + ")");
    }
    if (!j.is_object()) throw std::runtime_error("not Lmod's spider-json output (an object of module names)");
    ModuleIndex ix;
    for (const auto &[name, files] : j.items()) {
        if (!files.is_object()) throw std::runtime_error("module '" + name.substr(0, 80) + "': not an object of its files");
        for (const auto &[path, m] : files.items()) {
            if (!m.is_object()) continue;
            if (++ix.modules_ > max_modules)
                throw std::runtime_error("more than " + std::to_string(max_modules) + " modules: not a module index");
            Version v;
            auto full = m.find("fullName");
            if (full != m.end() && full->is_string()) {
                const std::string &f = full->get_ref<const std::string &>();
                // fullName is NAME/VERSION; a module with no version file (NAME.lua) has fullName NAME.
                v.version = f.size() > name.size() + 1 && f.compare(0, name.size(), name) == 0 ? f.substr(name.size() + 1) : "";
            }
            auto hidden = m.find("hidden");
            v.hidden = hidden != m.end() && hidden->is_boolean() && hidden->get<bool>();
            auto parents = m.find("parentAA");
            if (parents != m.end() && parents->is_array())
                for (const auto &chain : *parents)
                    if (chain.is_array() && !chain.empty() && chain.back().is_string())
                        v.parents.push_back(chain.back().get<std::string>());
            ix.behind_hierarchy_ += !v.parents.empty();
            auto mpath = m.find("mpath");
            if (mpath != m.end() && mpath->is_string()) ix.mpaths_.push_back(mpath->get<std::string>());
            ix.by_name_[name].push_back(std::move(v));
        }
    }
    for (auto &[name, versions] : ix.by_name_) {
        ix.sorted_names_.push_back(name);
        std::sort(versions.begin(), versions.end(), [](const Version &a, const Version &b) { return a.version < b.version; });
    }
    std::sort(ix.sorted_names_.begin(), ix.sorted_names_.end());
    std::sort(ix.mpaths_.begin(), ix.mpaths_.end());
    ix.mpaths_.erase(std::unique(ix.mpaths_.begin(), ix.mpaths_.end()), ix.mpaths_.end());
    return ix;
}

std::vector<std::string> ModuleIndex::closest(std::string_view name) const {
    std::vector<std::pair<size_t, std::string>> scored;
    const size_t limit = name.size() <= 4 ? 1 : 2;
    if (name.size() > 64) return {};  // no module name is that long: nothing close
    std::vector<size_t> rows;
    for (const auto &n : sorted_names_) {
        size_t d = distance(name, n, limit, rows);
        if (d <= limit) scored.emplace_back(d, n);
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (size_t i = 0; i < scored.size() && i < 3; ++i) out.push_back(scored[i].second);
    return out;
}

ModuleLookup ModuleIndex::lookup(std::string_view requested, bool suggest) const {
    ModuleLookup r;
    const ModuleLookup *best_miss = nullptr;
    ModuleLookup version_miss;
    // NAME/VERSION, NAME holding any number of the slashes: the longest name the index knows wins.
    for (size_t cut = requested.size();; cut = requested.rfind('/', cut - 1)) {
        std::string name(requested.substr(0, cut));
        std::string_view version = cut < requested.size() ? requested.substr(cut + 1) : std::string_view();
        auto it = by_name_.find(name);
        if (it != by_name_.end()) {
            std::vector<std::string> parents;
            bool reachable = false, exists = false;
            for (const Version &v : it->second) {
                if (!version.empty() && version != "default" && version != "latest" && !version_matches(v.version, version)) continue;
                exists = true;
                if (v.parents.empty()) reachable = true;
                else parents.insert(parents.end(), v.parents.begin(), v.parents.end());
            }
            if (exists && reachable) return r;  // Found
            if (exists) {
                r.result = ModuleLookup::Result::BehindHierarchy;
                r.name = name;
                std::sort(parents.begin(), parents.end());
                parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
                if (parents.size() > 3) parents.resize(3);
                r.parents = std::move(parents);
                return r;
            }
            if (!best_miss) {
                version_miss.result = ModuleLookup::Result::NoSuchVersion;
                version_miss.name = name;
                for (const Version &v : it->second)
                    if (!v.hidden && !v.version.empty()) version_miss.versions.push_back(name + "/" + v.version);
                if (version_miss.versions.size() > 5)
                    version_miss.versions.erase(version_miss.versions.begin(), version_miss.versions.end() - 5);
                best_miss = &version_miss;
            }
        }
        if (cut == 0 || cut == std::string_view::npos) break;
        if (requested.rfind('/', cut - 1) == std::string_view::npos) break;
    }
    if (best_miss) return *best_miss;
    r.result = ModuleLookup::Result::NoSuchModule;
    std::string_view base = requested.substr(0, requested.find('/'));
    if (suggest) r.similar = closest(base);
    return r;
}

}  // namespace jfp
