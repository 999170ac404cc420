// The modules a site has, as Lmod's spider lists them over the compute nodes' MODULEPATH
// (`$LMOD_DIR/spider -o spider-json $MODULEPATH`): each module's name and versions, hidden or not, and the
// hierarchy level (compiler, MPI) it sits behind. A name a script loads is looked up as Lmod looks it up:
// NAME/VERSION where NAME may hold slashes, VERSION matching a version or a prefix of one at a '.'
// (python/3.11 loads python/3.11.4; python/3.1 does not), NAME alone meaning its default. Names are
// case-sensitive, as Lmod loads them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/script/near_names.h"

namespace jfp {

struct ModuleLookup {
    enum class Result {
        Found,            // loads as written
        BehindHierarchy,  // exists, but only after loading one of `parents` (Lmod's compiler/MPI levels)
        NoSuchVersion,    // the name exists; that version does not (`versions` has what does)
        NoSuchModule,     // no module of that name anywhere in the index (`similar` has the closest names)
    };
    Result result = Result::Found;
    std::string name;                   // the module's name as the index has it (NoSuchVersion, BehindHierarchy)
    std::vector<std::string> versions;  // NoSuchVersion: the versions there are, as name/version, newest last
    std::vector<std::string> parents;   // BehindHierarchy: what to load first, e.g. "gcc/12.2.0"
    std::vector<std::string> similar;   // NoSuchModule: up to 3 names within a small edit distance
};

class ModuleIndex {
public:
    // Parses spider-json text; throws std::runtime_error saying what is wrong. At most max_modules entries
    // are kept (a site's tree has thousands; the file is written by root or SlurmUser).
    static ModuleIndex parse(std::string_view json, size_t max_modules = 200000);

    // suggest: search the closest names for a name that is nowhere (near_names.h: bounded work, whatever the
    // index holds). A lookup tries at most as many NAME/VERSION cuts as the index's names have slashes.
    ModuleLookup lookup(std::string_view requested, bool suggest = true) const;
    size_t names() const { return by_name_.size(); }
    bool knows_name(const std::string &name) const { return by_name_.count(name) != 0; }
    size_t modules() const { return modules_; }
    size_t behind_hierarchy() const { return behind_hierarchy_; }  // module files found only behind a level
    const std::vector<std::string> &directories() const { return mpaths_; }  // every "mpath" the spider read, sorted

private:
    struct Version {
        std::string version;  // "3.11.4"
        bool hidden = false;
        std::vector<std::string> parents;  // empty: reachable from MODULEPATH itself
    };
    std::unordered_map<std::string, std::vector<Version>> by_name_;
    NearNames near_;           // the closest-name search
    size_t max_slashes_ = 0;   // the most slashes any name holds
    size_t modules_ = 0;
    size_t behind_hierarchy_ = 0;
    std::vector<std::string> mpaths_;
};

}  // namespace jfp
