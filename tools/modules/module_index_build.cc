#include "tools/modules/module_index_build.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "model/files/atomic_file.h"
#include "model/script/module_index.h"
#include "model/util/text.h"
#include "tools/modules/lmod_spider.h"
#include "tools/modules/module_rc_files.h"
#include "tools/modules/module_tree.h"

namespace jfp {

namespace {

// A tree that shrank by more than half is more likely a directory gone than modules removed. An
// unreadable last index is replaced.
void refuse_shrink(const std::string &out, const ModuleIndex &ix) {
    std::ifstream old_in(out, std::ios::binary);
    if (!old_in) return;
    std::string old((std::istreambuf_iterator<char>(old_in)), std::istreambuf_iterator<char>());
    size_t before = 0;
    try {
        before = ModuleIndex::parse(old).modules();
    } catch (const std::runtime_error &) {
        return;
    }
    if (ix.modules() * 2 < before)
        throw std::runtime_error("the spider found " + std::to_string(ix.modules()) + " module files, " + out + " lists " +
                                 std::to_string(before) + ": more than half are gone (a module directory missing from "
                                 "--modulepath, or not mounted?). Nothing written; if they were removed, run again with "
                                 "--allow-shrink");
}

}  // namespace

ModuleIndexWritten build_module_index(ModuleIndexRequest req) {
    check_modulepath_mounted(req.modulepath);
    auto check_tree = [&](const std::string &d, const char *what) {
        if (req.allow_writers) return;
        std::string bad = untrusted_entry(d);
        if (!bad.empty())
            throw std::runtime_error(std::string(what) + " " + d + " holds " + bad + ", which a user other than root or this one (uid " +
                                     std::to_string(::geteuid()) + ") could have written: Lmod's spider would run it as this user. "
                                     "Nothing run, nothing written. Make the tree writable by root alone, or run the spider as an "
                                     "unprivileged user and index its output with --from (admin guide, \"Module checks\"); "
                                     "--allow-writers accepts such a tree");
    };
    // --from: the spider ran elsewhere, as a user with nothing to lose (admin guide, "Module checks"); its
    // modulefiles ran as that user, not this one, so the trees' writers are that user's concern.
    const bool ran_here = req.from.empty();
    if (!ran_here) req.allow_writers = true;
    const std::vector<std::string> dirs = modulepath_dirs(req.modulepath);
    for (const std::string &d : dirs) check_tree(d, "module directory");
    const std::string spider = ran_here ? find_spider(req.spider) : req.from;
    std::string text = ran_here ? run_spider(spider, req.modulepath) : spider_output_file(req.from);
    std::string_view trimmed = trim(text);
    if (trimmed.empty() || trimmed == "[]" || trimmed == "{}")
        throw std::runtime_error("Lmod's spider found no module under " + req.modulepath + "; nothing written (the "
                                 "plugin would call every module missing)");
    ModuleIndex ix;
    try {
        ix = ModuleIndex::parse(text);
    } catch (const std::exception &e) {
        throw std::runtime_error((ran_here ? "Lmod's spider (" + spider + ")" : "the spider's output " + req.from + " (--from)") +
                                 " gave no module index: " + e.what() + "; nothing written");
    }
    // The directories the modulefiles added (the compiler and MPI levels) were read too: the same rule, so
    // that an index built from a tree others can write is not installed.
    for (const std::string &d : ix.directories()) check_tree(d, "module directory (a level the modulefiles add)");
    RcNames rc;
    std::vector<std::string> roots = ix.directories();
    roots.insert(roots.end(), dirs.begin(), dirs.end());
    std::sort(roots.begin(), roots.end());
    roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
    for (const auto &d : roots) read_rc_files(d, rc);
    read_global_rc_files(rc);
    if (!rc.names.empty()) {
        text = add_rc_names(text, ix, rc);
        ix = ModuleIndex::parse(text);
    }
    if (!req.allow_shrink) refuse_shrink(req.out, ix);
    write_file_atomically(req.out, text, 0644, "new");
    ModuleIndexWritten w;
    w.modules = ix.modules();
    w.names = ix.names();
    w.behind_hierarchy = ix.behind_hierarchy();
    w.rc_names = rc.names.size();
    w.rc_files = rc.files;
    return w;
}

std::string module_index_summary(const ModuleIndexRequest &req, const ModuleIndexWritten &w) {
    const std::string from_rc = w.rc_names == 0 ? std::string()
                                                : ", " + std::to_string(w.rc_names) + " of them aliases or symbolic versions from " +
                                                      std::to_string(w.rc_files) + " rc files";
    return "jfp modules index: wrote " + printable(req.out) + ": " + std::to_string(w.modules) + " module files of " +
           std::to_string(w.names) + " names (" + std::to_string(w.behind_hierarchy) + " behind a compiler or MPI level" +
           from_rc + "), from " + printable(req.modulepath);
}

}  // namespace jfp
