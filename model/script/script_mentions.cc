#include "model/script/script_mentions.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#include <immintrin.h>
#endif

#include "model/util/text.h"

namespace jfp {

namespace {

// A command word starts a line or follows a blank or one of ;&|( and ends at a blank or the line's end:
// "run.nml", "html" and "yaml" do not wake the module line scan. Blanks as that scan sees them (is_space),
// so that the two never disagree.
inline bool word_before(const char *p, size_t i) {
    if (i == 0) return true;
    char c = p[i - 1];
    return is_space(c) || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(';
}
inline bool word_after(const char *p, size_t i, size_t n) {
    if (i >= n) return true;
    char c = p[i];
    return is_space(c) || c == '\n' || c == ';' || c == '\0';  // NUL: where the line scans end the text
}

// What a candidate at i (a byte pair "mo", "ml", "MO" or "#S") is, the same in the vector and byte loops.
struct Candidates {
    const char *p;
    size_t nm, nd;  // the module range, the directive range (nm <= nd)
    ScriptMentions out;
    void operator()(size_t i) {
        const char c = p[i];
        if (c == '#') {
            if (i + 7 <= nd && std::memcmp(p + i, "#SBATCH", 7) == 0) out.last_sbatch = i;
        } else if (i + 1 < nm) {
            if (c == 'm') {
                if (!word_before(p, i)) return;
                out.module_word |= (i + 6 <= nm && std::memcmp(p + i, "module", 6) == 0 && word_after(p, i + 6, nm)) ||
                                   (p[i + 1] == 'l' && word_after(p, i + 2, nm));
            } else {
                out.module_path |= i + 10 <= nm && std::memcmp(p + i, "MODULEPATH", 10) == 0;
            }
        }
    }
};

#if defined(__x86_64__)
bool has_avx2() {
    static const bool yes = __builtin_cpu_supports("avx2");
    return yes;
}
// 32 bytes a step; returns where the SSE2 and byte loops go on. Without the module words: "#S" alone.
template <bool kModules>
__attribute__((target("avx2"))) size_t pass_avx2(const char *p, size_t n, Candidates &check) {
    const __m256i m = _mm256_set1_epi8('m'), o = _mm256_set1_epi8('o'), l = _mm256_set1_epi8('l');
    const __m256i M = _mm256_set1_epi8('M'), O = _mm256_set1_epi8('O');
    const __m256i hash = _mm256_set1_epi8('#'), S = _mm256_set1_epi8('S');
    size_t i = 0;
    for (; i + 33 <= n; i += 32) {
        __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + i));
        __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + i + 1));
        __m256i hit = _mm256_and_si256(_mm256_cmpeq_epi8(b0, hash), _mm256_cmpeq_epi8(b1, S));
        if (kModules)
            hit = _mm256_or_si256(
                hit, _mm256_or_si256(_mm256_and_si256(_mm256_cmpeq_epi8(b0, m),
                                                      _mm256_or_si256(_mm256_cmpeq_epi8(b1, o), _mm256_cmpeq_epi8(b1, l))),
                                     _mm256_and_si256(_mm256_cmpeq_epi8(b0, M), _mm256_cmpeq_epi8(b1, O))));
        for (uint32_t bits = static_cast<uint32_t>(_mm256_movemask_epi8(hit)); bits; bits &= bits - 1)
            check(i + static_cast<size_t>(__builtin_ctz(bits)));
    }
    return i;
}
#endif

}  // namespace

ScriptMentions find_script_mentions(std::string_view script, bool modules) {
    const char *p = script.data();
    const size_t n = std::min(script.size(), kDirectiveScanBytes);
    // Without the module words, a module range of 0: no candidate there is looked at.
    Candidates check{p, modules ? std::min(n, kModuleScanBytes) : 0, n, {}};
    size_t i = 0;
#if defined(__x86_64__)
    if (has_avx2()) i = modules ? pass_avx2<true>(p, n, check) : pass_avx2<false>(p, n, check);
#endif
#if defined(__SSE2__)
    const __m128i m = _mm_set1_epi8('m'), o = _mm_set1_epi8('o'), l = _mm_set1_epi8('l');
    const __m128i M = _mm_set1_epi8('M'), O = _mm_set1_epi8('O');
    const __m128i hash = _mm_set1_epi8('#'), S = _mm_set1_epi8('S');
    for (; i + 17 <= n; i += 16) {
        __m128i b0 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i));
        __m128i b1 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i + 1));
        __m128i hit = _mm_and_si128(_mm_cmpeq_epi8(b0, hash), _mm_cmpeq_epi8(b1, S));
        if (modules)
            hit = _mm_or_si128(hit, _mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(b0, m), _mm_or_si128(_mm_cmpeq_epi8(b1, o), _mm_cmpeq_epi8(b1, l))),
                                                 _mm_and_si128(_mm_cmpeq_epi8(b0, M), _mm_cmpeq_epi8(b1, O))));
        for (uint32_t bits = static_cast<uint32_t>(_mm_movemask_epi8(hit)); bits; bits &= bits - 1)
            check(i + static_cast<size_t>(__builtin_ctz(bits)));
    }
#endif
    for (; i + 1 < n; ++i) {
        const char a = p[i], b = p[i + 1];
        if ((a == 'm' && (b == 'o' || b == 'l')) || (a == 'M' && b == 'O') || (a == '#' && b == 'S')) check(i);
    }
    return check.out;
}

ScriptMentions find_script_mentions_reference(std::string_view script, bool modules) {
    ScriptMentions out;
    const std::string_view d = script.substr(0, kDirectiveScanBytes), m = script.substr(0, kModuleScanBytes);
    out.last_sbatch = d.rfind("#SBATCH");
    if (!modules) return out;
    out.module_path = m.find("MODULEPATH") != std::string_view::npos;
    for (std::string_view word : {std::string_view("module"), std::string_view("ml")}) {
        for (size_t i = m.find(word); i != std::string_view::npos && !out.module_word; i = m.find(word, i + 1))
            out.module_word = word_before(m.data(), i) && word_after(m.data(), i + word.size(), m.size());
    }
    return out;
}

}  // namespace jfp
