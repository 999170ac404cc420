#include "tools/check/unit_files.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "model/util/text.h"

namespace jfp {

namespace {

namespace fs = std::filesystem;

// systemd's search path for system units, highest priority first (systemd.unit(5)).
const char *const kUnitDirs[] = {"/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system",
                                 "/usr/lib/systemd/system", "/lib/systemd/system"};

bool is_yes(const std::string &v) { return v == "yes" || v == "true" || v == "on" || v == "1"; }

std::vector<std::string> words(std::string_view s) {
    std::vector<std::string> out;
    for (std::string_view w : split(s, ' '))
        if (!trim(w).empty()) out.emplace_back(trim(w));
    return out;
}

bool under(const std::string &path, const std::string &top) {
    if (top == "/") return true;
    std::string t = top;
    while (t.size() > 1 && t.back() == '/') t.pop_back();
    return path == t || path.rfind(t + "/", 0) == 0;
}

// The [Service] section's assignments, in order, continuation lines joined.
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
        auto eq = s.find('=');
        if (section != "[Service]" || eq == std::string::npos) continue;
        std::string key(trim(std::string_view(s).substr(0, eq))), value(trim(std::string_view(s).substr(eq + 1)));
        if (key == "User") u.user = value;
        else if (key == "ProtectSystem") u.protect_system = to_lower(value);
        else if (key == "PrivateTmp") u.private_tmp = is_yes(to_lower(value));
        else if (key == "ProtectHome") u.protect_home = to_lower(value);
        else if (key == "ReadWritePaths") {
            if (value.empty()) u.read_write_paths.clear();  // an empty assignment resets the list
            for (const std::string &p : words(value)) {
                std::string q = p;
                while (!q.empty() && (q[0] == '-' || q[0] == '+')) q.erase(0, 1);
                if (!q.empty()) u.read_write_paths.push_back(q);
            }
        }
    }
}

bool wanted(const std::string &root, const std::string &name) {
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(root + "/etc/systemd/system", ec)) {
        const std::string d = e.path().filename().string();
        // (under --root the link points at the real /usr/lib/...: its own presence is what counts)
        if (ends_with(d, ".wants") && fs::exists(fs::symlink_status(e.path() / name, ec))) return true;
    }
    return false;
}

std::string listed(const std::vector<std::string> &paths) {
    std::string out;
    for (const auto &p : paths) out += (out.empty() ? "" : " ") + p;
    return out.empty() ? "none" : out;
}

}  // namespace

UnitFile read_unit(const std::string &root, const std::string &name, const std::string &timer) {
    UnitFile u;
    u.name = name;
    std::error_code ec;
    for (const char *d : kUnitDirs) {
        const std::string f = root + d + "/" + name;
        if (!fs::exists(fs::symlink_status(f, ec))) continue;
        if (fs::is_symlink(f, ec) && fs::read_symlink(f, ec) == "/dev/null") return u;  // masked
        if (fs::is_regular_file(f, ec) || fs::is_symlink(f, ec)) {
            u.path = f;
            break;
        }
    }
    if (u.path.empty()) return u;
    // Drop-ins from every directory, by file name; the same name in a higher-priority directory wins.
    std::map<std::string, std::string> dropins;
    for (const char *d : kUnitDirs)
        for (const auto &e : fs::directory_iterator(root + d + "/" + name + ".d", ec)) {
            const std::string n = e.path().filename().string();
            if (ends_with(n, ".conf")) dropins.emplace(n, e.path().string());
        }
    apply_file(u, u.path);
    for (const auto &[n, f] : dropins) {
        u.dropins.push_back(f);
        apply_file(u, f);
    }
    u.enabled = wanted(root, name) || (!timer.empty() && wanted(root, timer));
    return u;
}

std::string sandbox_blocks_write(const UnitFile &u, const std::string &dir) {
    for (const char *t : {"/tmp", "/var/tmp"})
        if (u.private_tmp && under(dir, t))
            return "PrivateTmp= gives the unit an empty " + std::string(t) + " of its own: it does not see " + dir;
    if (!u.protect_home.empty() && u.protect_home != "no" && u.protect_home != "false")
        for (const char *h : {"/home", "/root", "/run/user"})
            if (under(dir, h)) return "ProtectHome=" + u.protect_home + " hides " + h + " from the unit";
    for (const std::string &rw : u.read_write_paths)
        if (under(dir, rw)) return "";
    const std::string &p = u.protect_system;
    if (p == "strict") return "ProtectSystem=strict makes every directory read-only but ReadWritePaths= (" +
                              listed(u.read_write_paths) + ")";
    std::vector<const char *> ro;
    if (p == "yes" || p == "true" || p == "full") ro = {"/usr", "/boot", "/efi"};
    if (p == "full") ro.push_back("/etc");
    for (const char *d : ro)
        if (under(dir, d)) return "ProtectSystem=" + p + " makes " + d + " read-only";
    return "";
}

std::vector<Finding> check_units(const std::string &root, const UnitWrites &w, const std::string &slurm_user,
                                 const std::string &slurm_group) {
    using Level = Finding::Level;
    struct Want {
        const char *unit, *timer;
        std::vector<std::pair<std::string, const char *>> writes;
    };
    std::vector<std::pair<std::string, const char *>> prune{{w.store, "store"}, {w.feature_log, "feature log"}};
    if (!w.script_archive.empty()) prune.emplace_back(w.script_archive, "script archive");
    const Want wants[] = {
        {"jfp-ingest.service", "", {{w.store, "store"}}},
        {"jfp-monitor.service", "jfp-monitor.timer", {}},
        {"jfp-retrain.service", "jfp-retrain.timer", {{w.model, "model"}}},  // jfp publish writes beside it
        {"jfp-prune.service", "jfp-prune.timer", prune},
    };
    std::vector<Finding> out;
    for (const Want &want : wants) {
        const UnitFile u = read_unit(root, want.unit, want.timer);
        if (u.path.empty()) continue;
        const std::string unit = want.unit, by = *want.timer ? want.timer : want.unit;
        if (!u.enabled) {
            out.push_back({Level::Ok, by + " is installed, not enabled", ""});
            continue;
        }
        const std::string edit = "systemctl edit " + unit + ", and under [Service] set ";
        const std::string user = u.user.empty() ? "root" : u.user;
        bool fine = true;
        if (!slurm_user.empty() && user != slurm_user) {
            fine = false;
            out.push_back({Level::Problem,
                           unit + " runs as " + user + ", and SlurmUser is " + slurm_user +
                               ": the files it writes would not be SlurmUser's, and slurmctld (running as SlurmUser) "
                               "may not read them, nor the unit write SlurmUser's",
                           edit + "User=" + slurm_user + " and Group=" + slurm_group});
        }
        std::string dirs;
        for (const auto &[path, what] : want.writes) {
            const auto slash = path.rfind('/');
            const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
            const std::string why = sandbox_blocks_write(u, dir);
            if (why.empty()) {
                if (dirs.find(dir) == std::string::npos) dirs += (dirs.empty() ? "" : ", ") + dir;
                continue;
            }
            fine = false;
            std::string fix = edit + "ReadWritePaths=" + dir + " (the list adds up over drop-ins)";
            if (why.rfind("PrivateTmp", 0) == 0)
                fix = "keep jfp's files out of /tmp and /var/tmp (/var/lib/jfp), or " + edit + "PrivateTmp=no";
            else if (why.rfind("ProtectHome", 0) == 0)
                fix = "keep jfp's files out of home directories (/var/lib/jfp), or " + edit + "ProtectHome=no";
            out.push_back({Level::Problem, unit + " cannot write the " + what + " " + path + ": " + why, fix});
        }
        if (fine)
            out.push_back({Level::Ok, by + " is enabled: " + (by == unit ? "it" : unit) + " runs as " + user +
                                          (dirs.empty() ? std::string() : " and may write " + dirs),
                           ""});
    }
    return out;
}

}  // namespace jfp
