#include "tools/check/unit_files.h"

#include <pwd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "model/files/file_check.h"
#include "model/util/text.h"

namespace jfp {

namespace {

namespace fs = std::filesystem;
using Level = Finding::Level;

// systemd's search path for system units, highest priority first (systemd.unit(5)).
const char *const kUnitDirs[] = {"/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system",
                                 "/usr/lib/systemd/system", "/lib/systemd/system"};
// Where `systemctl enable` (and --runtime) put the links that start a unit.
const char *const kEnableDirs[] = {"/etc/systemd/system", "/run/systemd/system"};

std::optional<bool> boolean(const std::string &v) {
    if (v == "yes" || v == "true" || v == "on" || v == "1") return true;
    if (v == "no" || v == "false" || v == "off" || v == "0") return false;
    return std::nullopt;
}

// systemd's word splitting for path lists: whitespace separates, double or single quotes group.
std::vector<std::string> words(std::string_view s) {
    std::vector<std::string> out;
    std::string cur;
    bool in_word = false;
    char quote = 0;
    for (char c : s) {
        if (quote) {
            if (c == quote) quote = 0;
            else cur += c;
        } else if (c == '"' || c == '\'') {
            quote = c, in_word = true;
        } else if (is_space(c)) {
            if (in_word) out.push_back(cur), cur.clear(), in_word = false;
        } else {
            cur += c, in_word = true;
        }
    }
    if (in_word) out.push_back(cur);
    return out;
}

// The directory specifiers of system units (systemd.unit(5), "Specifiers").
std::string expand_specifiers(const std::string &s) {
    static const std::map<char, std::string> dirs{{'S', "/var/lib"}, {'C', "/var/cache"}, {'L', "/var/log"},
                                                  {'t', "/run"},     {'T', "/tmp"},       {'V', "/var/tmp"},
                                                  {'%', "%"}};
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        auto it = i + 1 < s.size() && s[i] == '%' ? dirs.find(s[i + 1]) : dirs.end();
        if (it == dirs.end()) {
            out += s[i];
            continue;
        }
        out += it->second;
        ++i;
    }
    return out;
}

bool under(const std::string &path, const std::string &top) {
    if (top == "/") return true;
    std::string t = top;
    while (t.size() > 1 && t.back() == '/') t.pop_back();
    return path == t || path.rfind(t + "/", 0) == 0;
}

// A path under root, its symbolic link (one level, as systemctl link makes) followed inside root.
std::string resolved(const std::string &root, const std::string &p) {
    std::error_code ec;
    if (root.empty() || !fs::is_symlink(p, ec)) return p;
    fs::path t = fs::read_symlink(p, ec);
    if (ec) return p;
    return t.is_absolute() ? root + t.string() : (fs::path(p).parent_path() / t).string();
}

// The files of a directory, without throwing (a directory_iterator's ++ throws; jfp check must not).
std::vector<fs::path> entries(const std::string &dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.push_back(it->path());
    return out;
}

void apply_file(UnitFile &u, const std::string &file) {
    std::ifstream in(file);
    std::string line, section, pending;
    while (std::getline(in, line)) {
        if (!pending.empty()) line = pending + " " + line, pending.clear();
        if (!line.empty() && line.back() == '\\') {
            pending = line.substr(0, line.size() - 1);
            continue;
        }
        std::string s(trim(line));
        if (s.empty() || s[0] == '#' || s[0] == ';') continue;
        if (s[0] == '[') {
            section = s;
            continue;
        }
        const auto eq = s.find('=');
        if (section != "[Service]" || eq == std::string::npos) continue;
        const std::string key(trim(std::string_view(s).substr(0, eq))), value(trim(std::string_view(s).substr(eq + 1)));
        const std::string v = to_lower(value);
        if (key == "User") u.user = value;
        else if (key == "DynamicUser") u.dynamic_user = boolean(v).value_or(false);
        else if (key == "PrivateTmp") u.private_tmp = boolean(v).value_or(false);
        else if (key == "ProtectSystem") u.protect_system = v == "full" || v == "strict" ? v : boolean(v).value_or(false) ? "yes" : "no";
        else if (key == "ProtectHome") u.protect_home = v == "read-only" || v == "tmpfs" ? v : boolean(v).value_or(false) ? "yes" : "no";
        else if (key == "ReadWritePaths" || key == "StateDirectory") {
            auto &list = key == "StateDirectory" ? u.state_paths : u.read_write_paths;
            if (value.empty()) {  // an empty assignment resets the list
                list.clear();
                if (key == "ReadWritePaths") u.must_exist.clear();
                continue;
            }
            for (std::string p : words(value)) {
                const bool optional = p[0] == '-';
                while (!p.empty() && (p[0] == '-' || p[0] == '+')) p.erase(0, 1);
                if (key == "StateDirectory") p = "/var/lib/" + p.substr(0, p.find(':'));
                p = expand_specifiers(p);
                if (p.empty() || p[0] != '/') continue;
                list.push_back(p);
                if (key == "ReadWritePaths" && !optional) u.must_exist.push_back(p);
            }
        }
    }
}

// Enabled: a link to it in a .wants/ or .requires/ directory, whose target is there, and it is not masked.
bool enabled(const std::string &root, const std::string &name) {
    std::error_code ec;
    for (const char *d : kUnitDirs) {  // masked
        const std::string f = root + d + "/" + name;
        if (fs::is_symlink(f, ec) && fs::read_symlink(f, ec) == "/dev/null") return false;
    }
    for (const char *d : kEnableDirs)
        for (const fs::path &e : entries(root + d)) {
            const std::string n = e.filename().string();
            if (!ends_with(n, ".wants") && !ends_with(n, ".requires")) continue;
            const std::string link = (e / name).string();
            if (fs::exists(fs::symlink_status(link, ec)) && fs::exists(resolved(root, link), ec)) return true;
        }
    return false;
}

}  // namespace

UnitFile read_unit(const std::string &root, const std::string &name, const std::string &timer) {
    UnitFile u;
    u.name = name;
    std::error_code ec;
    for (const char *d : kUnitDirs) {
        const std::string f = root + d + "/" + name;
        if (!fs::exists(fs::symlink_status(f, ec))) continue;
        const std::string target = resolved(root, f);
        // masked: a link to /dev/null, or an empty file
        if ((fs::is_symlink(f, ec) && fs::read_symlink(f, ec) == "/dev/null") || fs::is_empty(target, ec) ||
            !fs::is_regular_file(target, ec)) {
            u.masked = true;
            return u;
        }
        u.path = target;
        break;
    }
    if (u.path.empty()) return u;
    // Drop-ins: the unit's own, its prefix's (jfp-.service.d) and its type's (service.d), from every
    // directory; applied by file name, and of two files with the same name the more specific, then the one
    // in the higher-priority directory, wins.
    const std::string type = name.substr(name.rfind('.') + 1);
    const std::string dashed = name.substr(0, name.find('-') + 1) + "." + type;
    std::map<std::string, std::string> dropins;
    for (const std::string &sub : {name + ".d", dashed + ".d", type + ".d"})
        for (const char *d : kUnitDirs)
            for (const fs::path &e : entries(root + d + "/" + sub)) {
                const std::string n = e.filename().string();
                if (ends_with(n, ".conf")) dropins.emplace(n, resolved(root, e.string()));
            }
    apply_file(u, u.path);
    for (const auto &[n, f] : dropins) apply_file(u, f);
    if (u.dynamic_user) {  // implies these (systemd.exec(5), DynamicUser=)
        u.protect_system = "strict";
        if (u.protect_home == "no" || u.protect_home.empty()) u.protect_home = "read-only";
        u.private_tmp = true;
    }
    u.enabled = enabled(root, name) || (!timer.empty() && enabled(root, timer));
    return u;
}

std::vector<std::string> UnitFile::writable() const {
    std::vector<std::string> out = read_write_paths;
    out.insert(out.end(), state_paths.begin(), state_paths.end());
    return out;
}

std::string sandbox_blocks_write(const UnitFile &u, const std::string &dir) {
    for (const char *t : {"/tmp", "/var/tmp"})
        if (u.private_tmp && under(dir, t))
            return "PrivateTmp= gives the unit an empty " + std::string(t) + " of its own: it does not see " + dir;
    const char *const homes[] = {"/home", "/root", "/run/user"};
    if (u.protect_home == "yes" || u.protect_home == "tmpfs")
        for (const char *h : homes)
            if (under(dir, h)) return "ProtectHome=" + u.protect_home + " hides " + h + " from the unit";
    for (const std::string &rw : u.writable())
        if (under(dir, rw)) return "";
    if (u.protect_home == "read-only")
        for (const char *h : homes)
            if (under(dir, h)) return "ProtectHome=read-only makes " + std::string(h) + " read-only, and no ReadWritePaths= opens " + dir;
    const std::string &p = u.protect_system;
    if (p == "strict") {
        std::string listed;
        for (const auto &rw : u.writable()) listed += (listed.empty() ? "" : " ") + rw;
        return "ProtectSystem=strict makes every directory read-only but ReadWritePaths= (" +
               (listed.empty() ? "none" : listed) + ")";
    }
    std::vector<const char *> ro;
    if (p == "yes" || p == "full") ro = {"/usr", "/boot", "/efi"};
    if (p == "full") ro.push_back("/etc");
    for (const char *d : ro)
        if (under(dir, d)) return "ProtectSystem=" + p + " makes " + d + " read-only";
    return "";
}

namespace {

std::optional<uid_t> uid_of(const std::string &user) {
    if (auto n = parse_int(user); n && *n >= 0) return static_cast<uid_t>(*n);
    struct passwd pw {}, *res = nullptr;
    char buf[4096];
    if (getpwnam_r(user.c_str(), &pw, buf, sizeof buf, &res) == 0 && res) return res->pw_uid;
    return std::nullopt;
}

}  // namespace

std::vector<Finding> check_units(const std::string &root, const UnitWrites &w, const std::string &slurm_user,
                                 const std::string &slurm_group) {
    struct Want {
        const char *unit, *timer;
        std::vector<std::pair<std::string, std::string>> dirs;  // directory, and what of jfp's is there
    };
    // SQLite writes beside a database it only reads (the WAL's -shm): a reader's directory must be writable.
    const std::string store = dir_of(w.store), log = dir_of(w.feature_log);
    std::vector<std::pair<std::string, std::string>> prune{{store, "the store"}, {log, "the feature log"}};
    if (!w.script_archive.empty()) prune.emplace_back(dir_of(w.script_archive), "the script archive");
    std::vector<std::pair<std::string, std::string>> modules;
    if (!w.modules_index.empty()) modules.emplace_back(dir_of(w.modules_index), "the module index");
    const Want wants[] = {
        {"jfp-ingest.service", "", {{store, "the store"}}},
        {"jfp-monitor.service", "jfp-monitor.timer", {{store, "the store"}, {log, "the feature log"}}},
        // jfp train writes /var/lib/jfp/model.new.json (its ExecStart); jfp publish writes beside the model
        {"jfp-retrain.service", "jfp-retrain.timer",
         {{store, "the store"}, {"/var/lib/jfp", "the new bundle"}, {dir_of(w.model), "the model"}}},
        {"jfp-prune.service", "jfp-prune.timer", prune},
        // jfp modules index writes the index beside itself (write_file_atomically)
        {"jfp-modules.service", "jfp-modules.timer", modules},
    };
    std::vector<Finding> out;
    const auto slurm_uid = slurm_user.empty() ? std::nullopt : uid_of(slurm_user);
    for (const Want &want : wants) {
        const UnitFile u = read_unit(root, want.unit, want.timer);
        const std::string unit = want.unit, by = *want.timer ? want.timer : want.unit;
        if (u.masked) {
            if (enabled(root, by)) out.push_back({Level::Problem, by + " is enabled, but " + unit + " is masked: it never runs",
                                                  "systemctl unmask " + unit + " (or systemctl disable " + by + ")"});
            continue;
        }
        if (u.path.empty()) continue;
        if (!u.enabled) {
            out.push_back({Level::Ok, by + " is installed, not enabled", ""});
            continue;
        }
        const std::string edit = "systemctl edit " + unit + ", and under [Service] set ";
        const std::string user = u.dynamic_user ? "a dynamic user" : u.user.empty() ? "root" : u.user;
        bool fine = true;
        if (slurm_uid && (u.dynamic_user || uid_of(u.user.empty() ? "root" : u.user) != slurm_uid)) {
            fine = false;
            out.push_back({Level::Problem,
                           unit + " runs as " + user + ", and SlurmUser is " + slurm_user +
                               ": the files it writes would not be SlurmUser's, and slurmctld (running as SlurmUser) "
                               "may not read them, nor the unit write SlurmUser's",
                           edit + "User=" + slurm_user + " and Group=" + slurm_group +
                               (u.dynamic_user ? " and DynamicUser=no" : "")});
        }
        for (const std::string &p : u.must_exist) {
            std::error_code ec;
            if (fs::is_directory(root + p, ec)) continue;
            fine = false;
            out.push_back({Level::Problem,
                           unit + ": ReadWritePaths=" + p + " does not exist: systemd does not start the unit (status 226/NAMESPACE)",
                           "install -d -o " + (slurm_user.empty() ? std::string("SLURMUSER") : slurm_user) + " -g " +
                               (slurm_group.empty() ? std::string("SLURMGROUP") : slurm_group) + " -m 750 " + p +
                               " (or mark it optional: ReadWritePaths=-" + p + ")"});
        }
        std::vector<std::string> writable;
        for (const auto &[dir, what] : want.dirs) {
            if (dir.empty() || dir[0] != '/') continue;  // a relative path: jfp.conf's own check says so
            const std::string why = sandbox_blocks_write(u, dir);
            if (why.empty()) {
                if (std::find(writable.begin(), writable.end(), dir) == writable.end()) writable.push_back(dir);
                continue;
            }
            fine = false;
            std::string fix = edit + "ReadWritePaths=" + dir + " (the list adds up over drop-ins; the directory must exist)";
            if (why.rfind("PrivateTmp", 0) == 0)
                fix = "keep jfp's files out of /tmp and /var/tmp (in /var/lib/jfp), or " + edit + "PrivateTmp=no";
            else if (why.rfind("ProtectHome", 0) == 0 && u.protect_home != "read-only")
                fix = "keep jfp's files out of home directories (in /var/lib/jfp), or " + edit + "ProtectHome=read-only and ReadWritePaths=" + dir;
            out.push_back({Level::Problem, unit + " cannot write in " + dir + " (" + what + "): " + why, fix});
        }
        if (fine) {
            std::string dirs;
            for (const auto &d : writable) dirs += (dirs.empty() ? "" : ", ") + d;
            out.push_back({Level::Ok, by + " is enabled: " + (by == unit ? "it" : unit) + " runs as " + user +
                                          (dirs.empty() ? std::string() : " and may write in " + dirs),
                           ""});
        }
    }
    return out;
}

}  // namespace jfp
