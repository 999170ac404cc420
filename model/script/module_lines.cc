#include "model/script/module_lines.h"

#include <initializer_list>
#include <algorithm>
#include <cstring>

#include "model/script/heredoc.h"
#include "model/script/script_mentions.h"
#include "model/util/text.h"

namespace jfp {

namespace {

// Byte classes for words_of: a table, not strchr per byte (strchr was most of a scan with module lines).
enum : uint8_t { kWordByte = 0, kEnds = 1, kOpaque = 2 };
struct ByteClasses {
    uint8_t c[256] = {};
    ByteClasses() {
        for (unsigned char b : std::string_view(";&|<>()")) c[b] = kEnds;
        for (unsigned char b : std::string_view("'\"$`*?[]{}\\~")) c[b] = kOpaque;
    }
};
const ByteClasses kBytes;

// The words of a command, up to the first shell operator or comment. A word that holds a quote, an
// expansion or a glob is returned as "" (its value is not in the script).
std::vector<std::string_view> words_of(std::string_view line) {
    std::vector<std::string_view> out;
    out.reserve(8);
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_space(line[i])) ++i;
        if (i >= line.size()) break;
        char c = line[i];
        if (c == '#' || kBytes.c[static_cast<unsigned char>(c)] == kEnds) break;
        size_t start = i;
        bool opaque = false;
        for (; i < line.size() && !is_space(line[i]); ++i) {
            const uint8_t k = kBytes.c[static_cast<unsigned char>(line[i])];
            if (k == kEnds) break;
            opaque |= k == kOpaque;
        }
        out.push_back(opaque ? std::string_view() : line.substr(start, i - start));
    }
    return out;
}

// The module system's own start-up, which scripts source so that `module` exists in a batch shell: it sets
// up the MODULEPATH the index was built from and adds no tree of its own. Any other sourced file may.
// Only where packages and sites install it (a project's own "lmod/init/" directory may do anything).
bool module_system_init(std::string_view path) {
    auto ends = [&](std::string_view tail) { return path.size() >= tail.size() && path.substr(path.size() - tail.size()) == tail; };
    if (path.empty() || path[0] != '/' || path.find("/..") != std::string_view::npos) return false;
    if (path == "/etc/profile") return true;
    if (starts_with(path, "/etc/profile.d/")) return ends("/lmod.sh") || ends("/modules.sh") || ends("_lmod.sh");
    const bool installed = starts_with(path, "/usr/share/") || starts_with(path, "/usr/local/") ||
                           starts_with(path, "/opt/lmod/") || starts_with(path, "/opt/apps/lmod/");
    return installed && (path.find("/lmod/init/") != std::string_view::npos || path.find("/modules/init/") != std::string_view::npos ||
                         path.find("/Modules/init/") != std::string_view::npos);
}

bool is_word(std::string_view w, std::initializer_list<std::string_view> set) {
    return std::find(set.begin(), set.end(), w) != set.end();
}

// Lmod's module subcommands: `ml WORD` with one of these is that subcommand, not a load of WORD.
bool ml_subcommand(std::string_view w) {
    return is_word(w, {"add", "avail", "av", "del", "delete", "describe", "disable", "display", "help", "is-avail",
                       "is-loaded", "keyword", "key", "list", "load", "mcc", "purge", "refresh", "reload", "restore", "rm",
                       "save", "savelist", "show", "spider", "sw", "swap", "switch", "tablelist", "try-add", "try-load",
                       "unload", "unuse", "update", "use", "whatis", "gd", "getdefault", "sd", "savedefault", "r",
                       "s", "sl", "u", "overview", "ov", "category", "cat", "reset", "dependencyCk", "mt",
                       "isLoaded", "isAvail"});
}

}  // namespace

ModuleScan find_module_loads(std::string_view script, size_t max_loads) {
    return find_module_loads(script, find_script_mentions(script), max_loads);
}

ModuleScan find_module_loads(std::string_view script, const ScriptMentions &said, size_t max_loads) {
    ModuleScan out;
    if (script.size() > kModuleScanBytes) {
        script = script.substr(0, kModuleScanBytes);
        out.complete = false;
    }
    // The pass over the bytes (find_script_mentions) read past a NUL; the line scan stops at it, as the
    // shell does (slurmctld writes the script up to it). A script without module lines is read once.
    if (!said.module_word) return out;
    if (const void *z = std::memchr(script.data(), '\0', script.size()))
        script = script.substr(0, static_cast<size_t>(static_cast<const char *>(z) - script.data()));
    const bool mentions_path = said.module_path;
    HeredocTracker heredocs;
    uint32_t lineno = 0, path_change = 0;
    size_t next_lt = 0;
    bool lt_searched = false;
    for (size_t pos = 0; pos < script.size();) {
        size_t nl = script.find('\n', pos);
        size_t end = nl == std::string_view::npos ? script.size() : nl;
        std::string_view line = script.substr(pos, end - pos);
        ++lineno;
        if (heredocs.in_body(line)) {
            pos = end + 1;
            continue;
        }
        bool continuation = heredocs.continued();  // this line continues the previous command
        // The next '<' in the text, searched once for many lines: only a line holding one can open a
        // here-document.
        if (!lt_searched || next_lt < pos) {
            lt_searched = true;
            const void *lt = pos < script.size() ? std::memchr(script.data() + pos, '<', script.size() - pos) : nullptr;
            next_lt = lt ? static_cast<size_t>(static_cast<const char *>(lt) - script.data()) : script.size();
        }
        if (next_lt < end) heredocs.command(line);
        else heredocs.plain_command(line);
        pos = end + 1;
        if (continuation) continue;
        std::string_view rest = trim(line);
        if (rest.empty()) continue;
        // Only lines that can load a module or change where modules come from are split into words.
        if (!starts_with(rest, "module") && !starts_with(rest, "ml") && !starts_with(rest, "source") &&
            !(rest.size() > 1 && rest[0] == '.' && is_space(rest[1])) &&
            !(mentions_path && rest.find("MODULEPATH") != std::string_view::npos))
            continue;
        std::vector<std::string_view> w = words_of(rest);
        if (w.empty()) continue;
        // What may add module trees the index has not seen: every later load is marked.
        if (rest.find("MODULEPATH=") != std::string_view::npos || rest.find("MODULEPATH+=") != std::string_view::npos ||
            w[0] == "source" || w[0] == "." || ((w[0] == "module" || w[0] == "ml") && w.size() > 1 && w[1] == "use")) {
            // The init alone on its line: anything after it (`; module use ...`) may add trees.
            const bool init = (w[0] == "source" || w[0] == ".") && w.size() == 2 && module_system_init(w[1]) &&
                              rest.find_first_of(";&|") == std::string_view::npos;
            if (!path_change && !init) path_change = lineno;
            continue;
        }
        size_t first = 0, stop = w.size();
        bool optional = false;
        if (w[0] == "module") {
            size_t k = 1;
            while (k < w.size() && !w[k].empty() && w[k].front() == '-') ++k;  // module -q load ...
            if (k >= w.size()) continue;
            if (is_word(w[k], {"load", "add"})) {
                first = k + 1;
            } else if (is_word(w[k], {"try-load", "try-add"})) {
                first = k + 1;
                optional = true;
            } else if (is_word(w[k], {"swap", "switch", "sw"}) && k + 2 < w.size()) {
                first = k + 2;  // the new module; the old one is being unloaded
                stop = first + 1;
            } else {
                if (w[k] == "use") path_change = path_change ? path_change : lineno;
                continue;
            }
        } else if (w[0] == "ml") {
            if (w.size() < 2) continue;  // `ml` alone lists
            if (is_word(w[1], {"load", "add"})) first = 2;
            else if (is_word(w[1], {"try-load", "try-add"})) first = 2, optional = true;
            else if (ml_subcommand(w[1]) || w[1].empty()) continue;
            else first = 1;
        } else {
            continue;
        }
        for (size_t k = first; k < stop; ++k) {
            std::string_view name = w[k];
            // -NAME unloads (ml), --force and the like are options; an opaque word is not knowable.
            if (name.empty() || name.front() == '-' || name.size() > ModuleLoad::kMaxName) continue;
            if (out.loads.size() >= max_loads) {
                out.complete = false;
                return out;
            }
            ModuleLoad m;
            m.line = lineno;
            m.name.assign(name);
            m.text.assign(rest.substr(0, ModuleLoad::kMaxText));
            m.optional = optional;
            m.after_path_change = path_change;
            out.loads.push_back(std::move(m));
        }
    }
    return out;
}

}  // namespace jfp
