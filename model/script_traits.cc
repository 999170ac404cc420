#include "script_traits.h"

#include <cstring>

#include "text.h"

namespace jfp {

namespace {

bool word_at(std::string_view line, size_t pos, std::string_view w) {
    if (line.substr(pos, w.size()) != w) return false;
    bool left_ok = pos == 0 || !(std::isalnum(static_cast<unsigned char>(line[pos - 1])) || line[pos - 1] == '_');
    size_t end = pos + w.size();
    bool right_ok = end >= line.size() || !(std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_');
    return left_ok && right_ok;
}

bool has_word(std::string_view line, std::string_view w) {
    for (size_t pos = line.find(w); pos != std::string_view::npos; pos = line.find(w, pos + 1))
        if (word_at(line, pos, w)) return true;
    return false;
}

void scan_command_line(std::string_view l, ScriptTraits &t) {
    if (starts_with(l, "module ")) {
        auto rest = trim(l.substr(7));
        if (starts_with(rest, "load ") || starts_with(rest, "add ")) t.module_loads += 1;
    } else if (starts_with(l, "ml ")) {
        t.module_loads += 1;
    }
    if (starts_with(l, "set ")) {
        for (auto tok : split(l.substr(4), ' ')) {
            if (tok == "errexit" || (tok.size() > 1 && tok[0] == '-' && tok[1] != 'o' && tok.find('e') != std::string_view::npos))
                t.set_e = 1;
        }
    }
    if (l.find("srun") != std::string_view::npos && has_word(l, "srun")) t.srun += 1;
    if ((l.find("mpirun") != std::string_view::npos && has_word(l, "mpirun")) ||
        (l.find("mpiexec") != std::string_view::npos && has_word(l, "mpiexec")))
        t.mpirun += 1;
    if (l.find("python") != std::string_view::npos) t.uses_python = 1;
    if (l.find("conda") != std::string_view::npos || l.find("mamba") != std::string_view::npos ||
        l.find("activate") != std::string_view::npos || l.find("venv") != std::string_view::npos)
        t.uses_conda = 1;
}

}  // namespace

ScriptTraits scan_script(std::string_view script) {
    ScriptTraits t;
    t.bytes = static_cast<double>(script.size());
    std::string_view s = script.substr(0, kScriptScanBytes);
    if (std::memchr(s.data(), 0, s.size()) != nullptr) {
        t.binary = 1;
        return t;
    }
    size_t pos = 0;
    bool first = true;
    while (pos < s.size()) {
        const char *nl = static_cast<const char *>(std::memchr(s.data() + pos, '\n', s.size() - pos));
        size_t end = nl ? static_cast<size_t>(nl - s.data()) : s.size();
        std::string_view line = s.substr(pos, end - pos);
        pos = end + 1;
        t.lines += 1;
        if (first) {
            first = false;
            if (starts_with(line, "#!")) {
                if (line.find("python") != std::string_view::npos) t.interp_python = t.uses_python = 1;
                else if (line.find("sh") != std::string_view::npos) t.interp_shell = 1;
                continue;
            }
            t.interp_shell = 1;
        }
        line = trim(line);
        if (line.empty()) continue;
        if (line.front() == '#') {
            if (starts_with(line, "#SBATCH")) t.sbatch_directives += 1;
            continue;
        }
        if (t.interp_python == 1) continue;  // python code is not shell commands
        scan_command_line(line, t);
    }
    return t;
}

}  // namespace jfp
