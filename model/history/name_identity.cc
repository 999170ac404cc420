#include "model/history/name_identity.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/uspoof.h>

#include "model/history/history.h"

namespace jfp {

namespace {

// The normaliser and the spoof checker, made once; both may then be used from any thread.
struct Icu {
    const icu::Normalizer2 *nfkc_cf = nullptr, *nfd = nullptr;
    USpoofChecker *spoof = nullptr;
    Icu() {
        UErrorCode e = U_ZERO_ERROR;
        nfkc_cf = icu::Normalizer2::getNFKCCasefoldInstance(e);
        if (U_FAILURE(e)) nfkc_cf = nullptr;
        e = U_ZERO_ERROR;
        nfd = icu::Normalizer2::getNFDInstance(e);
        if (U_FAILURE(e)) nfd = nullptr;
        e = U_ZERO_ERROR;
        spoof = uspoof_open(&e);
        if (U_FAILURE(e)) spoof = nullptr;
    }
    // The plugin is a shared object slurmctld may unload: what it opened goes with it (the normaliser is ICU's).
    ~Icu() {
        if (spoof) uspoof_close(spoof);
    }
    Icu(const Icu &) = delete;
    Icu &operator=(const Icu &) = delete;
    bool ok() const { return nfkc_cf && nfd && spoof; }
};

const Icu &icu_once() {
    static const Icu icu;
    return icu;
}

std::string_view capped(std::string_view name) {
    if (name.size() <= kNameIdentityBytes) return name;
    size_t n = kNameIdentityBytes;  // at a character's first byte, never inside one
    while (n > 0 && (static_cast<unsigned char>(name[n]) & 0xC0) == 0x80) --n;
    return name.substr(0, n);
}

// The skeleton, case folded again: TR39's prototypes are of either case ('0' is 'O'), and names are one
// name whatever their case, so "d00med" is "doomed" as "D00MED" is.
std::string folded_skeleton(const Icu &icu, const icu::UnicodeString &s) {
    icu::UnicodeString sk;
    UErrorCode e = U_ZERO_ERROR;
    uspoof_getSkeletonUnicodeString(icu.spoof, 0, s, sk, &e);
    if (U_FAILURE(e)) sk = s;
    e = U_ZERO_ERROR;
    icu::UnicodeString folded = icu.nfkc_cf->normalize(sk, e);
    std::string out;
    (U_FAILURE(e) ? sk : folded).toUTF8String(out);
    return out;
}

std::string skeleton_utf8(const Icu &icu, std::string_view s) {
    return folded_skeleton(icu, icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size()))));
}

// Folded ASCII byte (lowercase, printable) to its folded skeleton: what ICU makes of that one character, kept
// inline (at most 8 bytes: "m" is "rn", "%" is "º/₀"); a longer one, were ICU's data ever to make one, turns
// the table off.
struct AsciiTable {
    struct Entry {
        char bytes[8];
        uint8_t len = 0;
    };
    std::array<Entry, 128> skel{};
    bool ok = false;
    AsciiTable() {
        const Icu &icu = icu_once();
        if (!icu.ok()) return;
        for (int c = 0x21; c < 0x7f; ++c) {
            std::string sk = skeleton_utf8(icu, std::string(1, static_cast<char>(c)));
            if (sk.empty() || sk.size() > sizeof skel[c].bytes) return;
            std::copy(sk.begin(), sk.end(), skel[c].bytes);
            skel[c].len = static_cast<uint8_t>(sk.size());
        }
        ok = true;
    }
    void append(std::string &out, std::string_view folded) const {
        for (unsigned char c : folded) out.append(skel[c].bytes, skel[c].len);
    }
};

}  // namespace

NameIdentity name_identity_icu(std::string_view raw) {
    const std::string_view name = capped(raw);
    const Icu &icu = icu_once();
    if (!icu.ok()) return {std::string(name), std::string(name_series(name))};  // ICU without its data: the bytes
    icu::UnicodeString u = icu::UnicodeString::fromUTF8(icu::StringPiece(name.data(), static_cast<int32_t>(name.size())));
    UErrorCode e = U_ZERO_ERROR;
    icu::UnicodeString folded = icu.nfkc_cf->normalize(u, e);
    if (U_FAILURE(e)) folded = u;
    // Decomposed, so that accents and other combining marks stand alone: a mark stacked on a letter ("doomed"
    // with U+0301 on its e) does not make another name.
    e = U_ZERO_ERROR;
    icu::UnicodeString decomposed = icu.nfd->normalize(folded, e);
    if (U_SUCCESS(e)) folded = decomposed;
    // White space, nonspacing marks and any control or format character NFKC_Casefold left; the first
    // kNameIdentityChars characters (a character can fold to 18: the skeleton's work is bounded by what it is
    // given).
    icu::UnicodeString kept;
    size_t chars = 0;
    for (int32_t i = 0; i < folded.length() && chars < kNameIdentityChars;) {
        UChar32 c = folded.char32At(i);
        i += U16_LENGTH(c);
        const int8_t t = u_charType(c);
        if (u_isUWhiteSpace(c) || t == U_CONTROL_CHAR || t == U_FORMAT_CHAR || t == U_NON_SPACING_MARK) continue;
        kept.append(c);
        ++chars;
    }
    std::string kept8;
    kept.toUTF8String(kept8);
    return {folded_skeleton(icu, kept), skeleton_utf8(icu, name_series(kept8))};
}

NameIdentity name_identity(std::string_view raw) {
    static const AsciiTable table;
    const std::string_view name = capped(raw);
    std::string folded;
    folded.reserve(name.size());
    for (unsigned char c : name) {
        if (c >= 0x80 || !table.ok) return name_identity_icu(raw);
        if (c <= 0x20 || c == 0x7f) continue;  // blanks and controls carry no identity
        folded += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    NameIdentity id;
    id.name.reserve(folded.size() + 8);
    table.append(id.name, folded);
    const std::string_view series = name_series(folded);
    id.series.reserve(series.size() + 8);
    table.append(id.series, series);
    return id;
}

}  // namespace jfp
