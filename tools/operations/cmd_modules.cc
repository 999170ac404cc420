// jfp modules: the site's module index the plugin checks scripts against (jfp.conf modules_index).
//   index  runs Lmod's spider over the compute nodes' MODULEPATH (or reads its output, --from) and replaces
//          the index, unless what it
//          found is empty or much smaller than the last index (a module tree not mounted would make every
//          module look missing, and in reject mode refuse every job that loads one)
//   check  says what the plugin would say about scripts' module lines, as a user or admin runs it
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "model/files/atomic_file.h"
#include "model/files/file_check.h"
#include "model/files/unique_fd.h"
#include "model/policy/script_findings.h"
#include "model/script/module_index.h"
#include "model/script/module_lines.h"
#include "model/script/module_rc.h"
#include "model/util/text.h"
#include "tools/operations/operations.h"
#include "tools/options/module_index_file.h"
#include "tools/options/site_conf.h"
#include "tools/process/subprocess.h"

namespace jfp {

namespace {

struct ModulesArgs {
    std::string conf, out, modulepath, spider, index, from;
    std::vector<std::string> scripts;
    bool allow_shrink = false, quiet = false, allow_writers = false;
};

// nftw(3) with a callable: one walker for the trust check and the rc files (nftw takes a plain function).
using TreeVisit = std::function<int(const char *path, const struct stat *st, int type, const FTW *f)>;
const TreeVisit *g_visit = nullptr;
int visit_trampoline(const char *path, const struct stat *st, int type, FTW *f) { return (*g_visit)(path, st, type, f); }
void walk_tree(const std::string &dir, const TreeVisit &visit) {
    g_visit = &visit;
    ::nftw(dir.c_str(), visit_trampoline, 32, FTW_PHYS);  // links not followed
    g_visit = nullptr;
}

// The first file or directory under dir that someone other than root or this process's user could have
// written (owned by another user, or writable by group or others), or empty. Lmod's spider runs each
// modulefile it reads as this process: such a file is someone else's code running as us. A symbolic
// link's own mode means nothing. At most 500,000 entries are looked at.
std::string untrusted_entry(const std::string &dir) {
    std::string found;
    size_t seen = 0;
    walk_tree(dir, [&](const char *path, const struct stat *st, int type, const FTW *) {
        if (++seen > 500000) {
            found = std::string(path) + ": more than 500,000 entries, the rest not checked";
            return 1;
        }
        if (type == FTW_SL || ((st->st_uid == 0 || st->st_uid == ::geteuid()) && !(st->st_mode & (S_IWGRP | S_IWOTH))))
            return 0;
        found = std::string(path) + " (owner uid " + std::to_string(st->st_uid) + ", mode " + file_mode_text(st->st_mode) + ")";
        return 1;
    });
    return found;
}

// The rc files of a tree (.modulerc.lua, .modulerc at any depth) and the names they make loadable
// (module_rc.h), added to the spider's output as module files of their own so that the plugin finds them.
struct RcNames {
    std::vector<std::pair<std::string, std::string>> names;  // (full name, the rc file that gives it)
    size_t files = 0;
};
void read_rc_files(std::string root, RcNames &out) {
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    walk_tree(root, [&](const char *path, const struct stat *st, int type, const FTW *f) {
        if (type != FTW_F || !S_ISREG(st->st_mode) || st->st_size > (1 << 20) || out.names.size() >= 10000) return 0;
        std::string_view base(path + f->base);
        if (base != ".modulerc.lua" && base != ".modulerc") return 0;
        const std::string dir(path, f->base > 0 ? static_cast<size_t>(f->base - 1) : 0);
        const std::string module_dir = dir.size() > root.size() ? dir.substr(root.size() + 1) : std::string();
        std::ifstream in(path, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        ++out.files;
        for (auto &n : module_rc_names(text, module_dir)) out.names.emplace_back(std::move(n), path);
        return 0;
    });
}

bool is_empty_dir(const std::string &p) {
    DIR *d = ::opendir(p.c_str());
    if (!d) return false;  // unreadable: the spider will say so
    bool empty = true;
    while (const dirent *e = ::readdir(d))
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
            empty = false;
            break;
        }
    ::closedir(d);
    return empty;
}

bool is_dir(const std::string &p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string find_spider(const std::string &given) {
    if (!given.empty()) return given;
    std::vector<std::string> candidates;
    if (const char *d = std::getenv("LMOD_DIR"); d && *d) candidates.push_back(std::string(d) + "/spider");
    candidates.push_back("/usr/share/lmod/lmod/libexec/spider");  // Debian's lmod, and EPEL's Lmod
    for (const auto &c : candidates)
        if (::access(c.c_str(), X_OK) == 0) return c;
    throw std::runtime_error("Lmod's spider not found (looked at $LMOD_DIR/spider and " + candidates.back() +
                             "): install Lmod (Debian: lmod) or name it with --spider");
}

std::string run_spider(const std::string &spider, const std::string &modulepath) {
    SubprocessOptions opt;
    opt.max_stdout = kMaxModuleIndexBytes;  // what the plugin reads of an index
    opt.hint = "nothing written";
    return run_program({spider, "-o", "spider-json", modulepath}, opt).out;
}

// The spider's output another user wrote, read through one descriptor: not a symbolic link (one could point
// at any file this user may read, and the index is written world-readable), not a FIFO (one would hang
// us), not writable by group or others, in a directory group and others cannot write (in /tmp anyone can
// leave a file). Capped as the plugin reads an index.
std::string spider_output_file(const std::string &path) {
    auto refuse = [&](const std::string &why) {
        return std::runtime_error(path + " (--from) " + why + "; nothing written (let root's shell write the spider's "
                                  "output into a directory root owns: admin guide, \"Module checks\")");
    };
    const std::string dir = dir_of(path);
    struct stat ds {};
    if (::stat(dir.c_str(), &ds) == 0 && (ds.st_mode & (S_IWGRP | S_IWOTH)))
        throw refuse("is in " + dir + ", mode " + file_mode_text(ds.st_mode) + ", where users other than its owner can create files");
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd.valid()) {
        if (errno == ELOOP) throw refuse("is a symbolic link");
        throw std::runtime_error("cannot read " + path + " (--from): " + std::strerror(errno) + "; nothing written");
    }
    std::optional<std::string> text;
    try {
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0) throw std::runtime_error("cannot read " + path + " (--from): " + std::strerror(errno));
        if (!S_ISREG(st.st_mode)) throw refuse("is not a regular file");
        if (st.st_mode & (S_IWGRP | S_IWOTH))
            throw refuse("has mode " + file_mode_text(st.st_mode) + ": users other than its owner could have written it");
        text = read_fd_capped(fd.get(), kMaxModuleIndexBytes);
    } catch (const std::system_error &e) {
        throw std::runtime_error("cannot read " + path + " (--from): " + std::strerror(e.code().value()) + "; nothing written");
    }
    if (!text)
        throw std::runtime_error("the spider's output " + path + " (--from) is larger than " +
                                 std::to_string(kMaxModuleIndexBytes >> 20) + " MiB, more than the plugin reads; nothing written");
    return std::move(*text);
}

void run_index(ModulesArgs &a) {
    if (a.out.empty()) {
        auto cfg = load_site_conf(a.conf.empty() ? default_conf_path() : a.conf, !a.conf.empty());
        if (cfg) a.out = cfg->modules_index;
        if (a.out.empty())
            throw UsageError("--out", "no index file named: give --out, or set modules_index in jfp.conf");
    }
    if (a.modulepath.empty())
        if (const char *m = std::getenv("MODULEPATH")) a.modulepath = m;
    if (a.modulepath.empty())
        throw UsageError("--modulepath", "no MODULEPATH: give the compute nodes' module directories, "
                                                   "colon-separated, as their MODULEPATH is");
    // A directory that is not there (a file system not mounted) would leave its modules out, and the
    // plugin would tell users they do not exist.
    std::stringstream dirs(a.modulepath);
    for (std::string d; std::getline(dirs, d, ':');) {
        if (d.empty()) continue;
        if (!is_dir(d))
            throw std::runtime_error("module directory " + d + " (in --modulepath) is not a directory here (a file "
                                     "system not mounted?): its modules would be missing from the index, and jobs "
                                     "loading them told they do not exist; nothing written");
        // A mount point whose file system is not mounted is usually an empty directory.
        if (is_empty_dir(d))
            throw std::runtime_error("module directory " + d + " (in --modulepath) is empty (a file system not "
                                     "mounted?): its modules would be missing from the index; nothing written (take "
                                     "it out of --modulepath if it is meant to be empty)");
    }
    auto check_tree = [&](const std::string &d, const char *what) {
        if (a.allow_writers) return;
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
    const bool ran_here = a.from.empty();
    if (!ran_here) a.allow_writers = true;
    std::stringstream again(a.modulepath);
    for (std::string d; std::getline(again, d, ':');)
        if (!d.empty()) check_tree(d, "module directory");
    const std::string spider = ran_here ? find_spider(a.spider) : a.from;
    std::string text = ran_here ? run_spider(spider, a.modulepath) : spider_output_file(a.from);
    std::string_view trimmed = trim(text);
    if (trimmed.empty() || trimmed == "[]" || trimmed == "{}")
        throw std::runtime_error("Lmod's spider found no module under " + a.modulepath + "; nothing written (the "
                                 "plugin would call every module missing)");
    ModuleIndex ix;
    try {
        ix = ModuleIndex::parse(text);
    } catch (const std::exception &e) {
        throw std::runtime_error((ran_here ? "Lmod's spider (" + spider + ")" : "the spider's output " + a.from + " (--from)") +
                                 " gave no module index: " + e.what() + "; nothing written");
    }
    // The directories the modulefiles added (the compiler and MPI levels) were read too: the same rule, so
    // that an index built from a tree others can write is not installed.
    for (const std::string &d : ix.directories())
        check_tree(d, "module directory (a level the modulefiles add)");
    // Aliases and symbolic versions: in the trees' rc files and Lmod's global ones, not in the spider's
    // output; Lmod loads them, so the index lists them (as module files of their own).
    RcNames rc;
    std::vector<std::string> roots = ix.directories();
    std::stringstream dirs2(a.modulepath);
    for (std::string d; std::getline(dirs2, d, ':');)
        if (!d.empty()) roots.push_back(d);
    std::sort(roots.begin(), roots.end());
    roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
    for (const auto &d : roots) read_rc_files(d, rc);
    std::vector<std::string> global;
    if (const char *g = std::getenv("LMOD_MODULERCFILE"); g && *g) {
        std::stringstream gs(g);
        for (std::string f; std::getline(gs, f, ':');) global.push_back(f);
    }
    for (const char *f : {"/etc/lmod/modulerc.lua", "/etc/lmod/modulerc", "/usr/share/lmod/etc/rc.lua", "/usr/share/lmod/etc/rc"})
        global.emplace_back(f);
    for (const auto &f : global) {
        std::ifstream in(f, std::ios::binary);
        if (!in) continue;
        std::string t((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (t.size() > (1 << 20)) continue;
        ++rc.files;
        for (auto &n : module_rc_names(t, "")) rc.names.emplace_back(std::move(n), f);
    }
    if (!rc.names.empty()) {
        nlohmann::json j = nlohmann::json::parse(text);
        for (const auto &[full, file] : rc.names) {
            // An alias is a module of its own name; a symbolic version a version of its module.
            std::string name = full, entry = file + "#" + full;
            if (!ix.knows_name(full)) {
                size_t slash = full.rfind('/');
                if (slash != std::string::npos && ix.knows_name(full.substr(0, slash))) name = full.substr(0, slash);
            }
            j[name][entry] = {{"fullName", full}, {"hidden", false}, {"jfpFrom", file}};
        }
        text = j.dump();
        ix = ModuleIndex::parse(text);
    }
    // The last index, when there is one and it reads: a tree that shrank by more than half is more likely
    // a directory gone than modules removed.
    std::ifstream old_in(a.out, std::ios::binary);
    if (old_in && !a.allow_shrink) {
        std::string old((std::istreambuf_iterator<char>(old_in)), std::istreambuf_iterator<char>());
        try {
            ModuleIndex before = ModuleIndex::parse(old);
            if (ix.modules() * 2 < before.modules())
                throw std::runtime_error("the spider found " + std::to_string(ix.modules()) + " module files, " + a.out +
                                         " lists " + std::to_string(before.modules()) + ": more than half are gone (a "
                                         "module directory missing from --modulepath, or not mounted?). Nothing "
                                         "written; if they were removed, run again with --allow-shrink");
        } catch (const std::runtime_error &e) {
            if (std::string(e.what()).find("more than half") != std::string::npos) throw;
            // An unreadable old index is replaced.
        }
    }
    write_file_atomically(a.out, text, 0644, "new");
    if (!a.quiet) {
        std::string from_rc = rc.names.empty() ? std::string()
                                               : ", " + std::to_string(rc.names.size()) + " of them aliases or symbolic versions from " +
                                                     std::to_string(rc.files) + " rc files";
        std::printf("jfp modules index: wrote %s: %zu module files of %zu names (%zu behind a compiler or MPI level%s), "
                    "from %s\n",
                    printable(a.out).c_str(), ix.modules(), ix.names(), ix.behind_hierarchy(), from_rc.c_str(),
                    printable(a.modulepath).c_str());
    }
}

void run_check(ModulesArgs &a) {
    if (a.index.empty()) {
        auto cfg = load_site_conf(a.conf.empty() ? default_conf_path() : a.conf, !a.conf.empty());
        if (cfg) a.index = cfg->modules_index;
        if (a.index.empty())
            throw UsageError("--index", "no module index named: give --index, or set modules_index in jfp.conf");
    }
    ModuleIndex ix = read_module_index(a.index);
    size_t with_findings = 0;
    for (const auto &path : a.scripts) {
        const std::string text = read_file_capped(path, size_t{4} << 20, "the script");  // Slurm's default max_script_size
        const std::string shown = printable(path);
        ModuleScan scan = find_module_loads(text);  // as the plugin reads it: the first 16 KiB
        std::vector<std::string> not_told;
        std::vector<ModuleFinding> found = missing_modules(scan, ix, &not_told);
        with_findings += !found.empty();
        for (const auto &f : found) std::printf("%s: %s\n", shown.c_str(), printable(missing_module_sentence(f), 2000).c_str());
        if (!a.quiet) {
            for (const auto &n : not_told) std::printf("%s: not judged: %s\n", shown.c_str(), printable(n, 2000).c_str());
            if (found.empty())
                std::printf("%s: %zu module load%s, none missing%s\n", shown.c_str(), scan.loads.size(),
                            scan.loads.size() == 1 ? "" : "s", scan.complete ? "" : " (the scan stopped early: a long script)");
        }
    }
    if (with_findings) g_exit_status = 2;
}

}  // namespace

void add_modules_command(Command &app) {
    auto a = std::make_shared<ModulesArgs>();
    auto *m = app.add_subcommand("modules", "The site's module index, which the plugin checks scripts' module loads against");
    m->require_subcommand(1);
    auto *ix = m->add_subcommand("index", "Write the index from Lmod's spider over the compute nodes' MODULEPATH; "
                                          "refuses an empty one, or one less than half the last");
    ix->add_option("--out", a->out, "the index file (default: modules_index in jfp.conf)");
    ix->add_option("--conf", a->conf, "jfp.conf (default: beside $SLURM_CONF, else /etc/slurm/jfp.conf)");
    ix->add_option("--modulepath", a->modulepath, "module directories, colon-separated (default: $MODULEPATH)");
    auto *spider = ix->add_option("--spider", a->spider, "Lmod's spider (default: $LMOD_DIR/spider, else /usr/share/lmod/lmod/libexec/spider)");
    ix->add_flag("--allow-shrink", a->allow_shrink, "replace the index even when it lists less than half the modules it did");
    ix->add_flag("--allow-writers", a->allow_writers, "run the spider over a tree others than root and this user may write "
                                                      "(their modulefiles then run as this user)");
    ix->add_option("--from", a->from, "the output of Lmod's spider (spider -o spider-json MODULEPATH) run by another, "
                                      "unprivileged user, instead of running it here")
        ->excludes(spider);
    ix->add_flag("-q,--quiet", a->quiet, "print nothing on success");
    ix->callback([a] { run_index(*a); });
    auto *ck = m->add_subcommand("check", "Say what the plugin would say about these scripts' module loads; exit 2 "
                                          "when one loads a module the index does not have");
    ck->add_option("scripts", a->scripts, "batch scripts")->required();
    ck->add_option("--index", a->index, "the index (default: modules_index in jfp.conf)");
    ck->add_option("--conf", a->conf, "jfp.conf (default: beside $SLURM_CONF, else /etc/slurm/jfp.conf)");
    ck->add_flag("-q,--quiet", a->quiet, "print only the missing modules");
    ck->callback([a] { run_check(*a); });
}

}  // namespace jfp
