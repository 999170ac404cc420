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
    std::vector<std::string> sorted_names;
    for (auto &[name, versions] : ix.by_name_) {
        sorted_names.push_back(name);
        ix.max_slashes_ = std::max<size_t>(ix.max_slashes_, std::count(name.begin(), name.end(), '/'));
        std::sort(versions.begin(), versions.end(), [](const Version &a, const Version &b) { return a.version < b.version; });
    }
    std::sort(sorted_names.begin(), sorted_names.end());
    ix.near_ = NearNames(sorted_names);
    std::sort(ix.mpaths_.begin(), ix.mpaths_.end());
    ix.mpaths_.erase(std::unique(ix.mpaths_.begin(), ix.mpaths_.end()), ix.mpaths_.end());
    return ix;
}

ModuleLookup ModuleIndex::lookup(std::string_view requested, bool suggest) const {
    ModuleLookup r;
    const ModuleLookup *best_miss = nullptr;
    ModuleLookup version_miss;
    // NAME/VERSION, NAME holding any number of the slashes: the longest name the index knows wins. A NAME
    // with more slashes than any the index holds is not tried (a user's "a/a/a/..." costs one cut per
    // slash the site's names have, not one per slash written).
    size_t cut = requested.size();
    for (size_t extra = std::count(requested.begin(), requested.end(), '/'); extra > max_slashes_; --extra)
        cut = requested.rfind('/', cut - 1);
    for (;; cut = requested.rfind('/', cut - 1)) {
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
    if (suggest) r.similar = near_.closest(base);
    return r;
}

}  // namespace jfp
