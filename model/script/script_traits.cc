#include "model/script/script_traits.h"

#include <cctype>
#include <cstdint>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "model/util/text.h"

namespace jfp {

namespace {

bool is_ident(unsigned char c) { return std::isalnum(c) || c == '_'; }

// Line-start checks on a trimmed command line (rare prefixes; the caller found the line's end).
void scan_line_prefix(std::string_view l, ScriptTraits &t) {
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
}

// ---- the reference: obviously right, one find() per keyword per line; the unit tests hold the fast
// scanner to it on random scripts.

bool word_at(std::string_view line, size_t pos, std::string_view w) {
    if (line.substr(pos, w.size()) != w) return false;
    bool left_ok = pos == 0 || !is_ident(static_cast<unsigned char>(line[pos - 1]));
    size_t end = pos + w.size();
    bool right_ok = end >= line.size() || !is_ident(static_cast<unsigned char>(line[end]));
    return left_ok && right_ok;
}

bool has_word(std::string_view line, std::string_view w) {
    for (size_t pos = line.find(w); pos != std::string_view::npos; pos = line.find(w, pos + 1))
        if (word_at(line, pos, w)) return true;
    return false;
}

void reference_command_line(std::string_view l, ScriptTraits &t) {
    scan_line_prefix(l, t);
    if (has_word(l, "srun")) t.srun += 1;
    if (has_word(l, "mpirun") || has_word(l, "mpiexec")) t.mpirun += 1;
    if (l.find("python") != std::string_view::npos) t.uses_python = 1;
    if (l.find("conda") != std::string_view::npos || l.find("mamba") != std::string_view::npos ||
        l.find("activate") != std::string_view::npos || l.find("venv") != std::string_view::npos)
        t.uses_conda = 1;
}

// ---- the fast scanner. One pass finds newlines and keyword candidates together: a candidate is a
// position whose byte starts a keyword and whose byte at a fixed later offset matches too (the
// first-and-last-character filter), so the verifying memcmp runs a few times per script instead of at
// every 's', 'm', 'p', 'c', 'a' and 'v'. bench/hotpath measured the per-byte switch it replaces at
// 1.3 ns/byte, mostly mispredicted branches.

constexpr size_t kMaxOffset = 7;  // "activate": 'a' ... 'e' at +7

// Candidate test for one position, the scalar twin of the SIMD filter below.
inline bool candidate(const char *p) {
    switch (p[0]) {
    case 's': return p[3] == 'n';                                // srun
    case 'v': return p[3] == 'v';                                // venv
    case 'c': return p[4] == 'a';                                // conda
    case 'm': return p[4] == 'a' || p[5] == 'n' || p[6] == 'c';  // mamba, mpirun, mpiexec
    case 'p': return p[5] == 'n';                                // python
    case 'a': return p[7] == 'e';                                // activate
    default: return false;
    }
}

class FastScan {
public:
    FastScan(std::string_view s, ScriptTraits &t) : p_(s.data()), n_(s.size()), t_(t) {}

    void run() {
        if (n_ == 0) return;
        start_line(0);
        size_t i = 0;
#if defined(__SSE2__)
        const __m128i nl = _mm_set1_epi8('\n');
        auto eq = [](__m128i v, char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); };
        for (; i + 16 + kMaxOffset <= n_; i += 16) {
            auto ld = [&](size_t k) { return _mm_loadu_si128(reinterpret_cast<const __m128i *>(p_ + i + k)); };
            __m128i b0 = ld(0), b3 = ld(3), b4 = ld(4), b5 = ld(5), b6 = ld(6), b7 = ld(7);
            __m128i m = eq(b0, 'm');
            __m128i kw = _mm_or_si128(
                _mm_or_si128(_mm_and_si128(eq(b0, 's'), eq(b3, 'n')), _mm_and_si128(eq(b0, 'v'), eq(b3, 'v'))),
                _mm_or_si128(_mm_or_si128(_mm_and_si128(_mm_or_si128(eq(b0, 'c'), m), eq(b4, 'a')),
                                          _mm_and_si128(_mm_or_si128(eq(b0, 'p'), m), eq(b5, 'n'))),
                             _mm_or_si128(_mm_and_si128(m, eq(b6, 'c')), _mm_and_si128(eq(b0, 'a'), eq(b7, 'e')))));
            uint32_t nl_bits = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(b0, nl)));
            uint32_t kw_bits = static_cast<uint32_t>(_mm_movemask_epi8(kw));
            for (uint32_t all = nl_bits | kw_bits; all; all &= all - 1) {
                uint32_t bit = all & (0u - all);
                size_t pos = i + static_cast<size_t>(__builtin_ctz(all));
                if (nl_bits & bit) newline(pos);
                else keyword(pos);
            }
        }
#endif
        for (; i < n_; ++i) {
            if (p_[i] == '\n') newline(i);
            else if (i + kMaxOffset < n_ ? candidate(p_ + i) : tail_candidate(i)) keyword(i);
        }
        end_line();
    }

private:
    // Near the end a keyword may be shorter than kMaxOffset + 1 bytes away from it: test it exactly.
    bool tail_candidate(size_t i) const {
        switch (p_[i]) {
        case 's': case 'v': case 'c': case 'm': case 'p': case 'a': return true;
        default: return false;
        }
    }

    void start_line(size_t ls) {
        t_.lines += 1;
        command_ = false;
        srun_ = mpi_ = false;
        if (first_) {
            first_ = false;
            if (n_ - ls >= 2 && p_[ls] == '#' && p_[ls + 1] == '!') {
                std::string_view line = whole_line(ls);
                if (line.find("python") != std::string_view::npos) t_.interp_python = t_.uses_python = 1;
                else if (line.find("sh") != std::string_view::npos) t_.interp_shell = 1;
                return;
            }
            t_.interp_shell = 1;
        }
        size_t b = ls;
        while (b < n_ && p_[b] != '\n' && is_space(p_[b])) ++b;
        if (b >= n_ || p_[b] == '\n') return;  // blank
        if (p_[b] == '#') {
            if (n_ - b >= 7 && std::memcmp(p_ + b, "#SBATCH", 7) == 0) t_.sbatch_directives += 1;
            return;
        }
        if (t_.interp_python == 1) return;  // python code is not shell commands
        command_ = true;
        cmd_start_ = b;
        if (p_[b] == 'm' || p_[b] == 's') scan_line_prefix(trim(whole_line(b)), t_);
    }

    std::string_view whole_line(size_t from) const {
        const void *e = std::memchr(p_ + from, '\n', n_ - from);
        size_t end = e ? static_cast<size_t>(static_cast<const char *>(e) - p_) : n_;
        return std::string_view(p_ + from, end - from);
    }

    void end_line() {
        if (!command_) return;
        if (srun_) t_.srun += 1;
        if (mpi_) t_.mpirun += 1;
    }

    void newline(size_t pos) {
        end_line();
        command_ = false;  // a trailing newline starts no line
        if (pos + 1 < n_) start_line(pos + 1);
    }

    bool at(size_t i, std::string_view w) const { return n_ - i >= w.size() && std::memcmp(p_ + i, w.data(), w.size()) == 0; }
    bool word(size_t i, std::string_view w) const {
        return at(i, w) && (i == 0 || !is_ident(static_cast<unsigned char>(p_[i - 1]))) &&
               (i + w.size() == n_ || !is_ident(static_cast<unsigned char>(p_[i + w.size()])));
    }

    void keyword(size_t i) {
        if (!command_ || i < cmd_start_) return;
        switch (p_[i]) {
        case 's': srun_ = srun_ || word(i, "srun"); break;
        case 'm':
            mpi_ = mpi_ || word(i, "mpirun") || word(i, "mpiexec");
            if (at(i, "mamba")) t_.uses_conda = 1;
            break;
        case 'p': if (at(i, "python")) t_.uses_python = 1; break;
        case 'c': if (at(i, "conda")) t_.uses_conda = 1; break;
        case 'a': if (at(i, "activate")) t_.uses_conda = 1; break;
        case 'v': if (at(i, "venv")) t_.uses_conda = 1; break;
        default: break;
        }
    }

    const char *p_;
    size_t n_;
    ScriptTraits &t_;
    bool first_ = true, command_ = false, srun_ = false, mpi_ = false;
    size_t cmd_start_ = 0;
};

}  // namespace

namespace {
// What both scanners share: the size of the whole script, the scanned prefix, and NUL bytes meaning a
// binary (nothing else is read then). Returns false for a binary.
bool scanned_prefix(std::string_view script, ScriptTraits &t, std::string_view &s) {
    t.bytes = static_cast<double>(script.size());
    s = script.substr(0, kScriptScanBytes);
    if (std::memchr(s.data(), 0, s.size()) == nullptr) return true;
    t.binary = 1;
    return false;
}
}  // namespace

ScriptTraits scan_script(std::string_view script) {
    ScriptTraits t;
    std::string_view s;
    if (scanned_prefix(script, t, s)) FastScan(s, t).run();
    return t;
}

ScriptTraits scan_script_reference(std::string_view script) {
    ScriptTraits t;
    std::string_view s;
    if (!scanned_prefix(script, t, s)) return t;
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
        if (t.interp_python == 1) continue;
        reference_command_line(line, t);
    }
    return t;
}

// Case-insensitive, over the scanned part: the words tools and scripts use for it.
bool shows_checkpointing(std::string_view script) {
    std::string lower(script.substr(0, kScriptScanBytes));
    for (char &c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static const char *const kSigns[] = {"dmtcp_", "criu ", "--signal", "scontrol requeue", "--requeue",
                                         "checkpoint", "restart", "trap "};
    for (const char *sign : kSigns)
        if (lower.find(sign) != std::string::npos) {
            // A trap counts when it catches the signals Slurm sends before the limit (USR1, TERM, ...).
            if (std::strcmp(sign, "trap ") != 0) return true;
            for (size_t pos = lower.find("trap "); pos != std::string::npos; pos = lower.find("trap ", pos + 5)) {
                std::string_view rest = std::string_view(lower).substr(pos, lower.find('\n', pos) - pos);
                if (rest.find("usr1") != std::string_view::npos || rest.find("usr2") != std::string_view::npos ||
                    rest.find("term") != std::string_view::npos)
                    return true;
            }
        }
    return false;
}

}  // namespace jfp
