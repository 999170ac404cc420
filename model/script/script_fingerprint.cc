#include "model/script/script_fingerprint.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "model/script/script_normalizer.h"
#include "model/script/script_traits.h"

namespace jfp {

namespace {

// Normalises the logical lines of s[pos, end) into out, each followed by '\n': at most cap bytes of text (out
// holds cap + 1). Each line is normalised whole (up to kFingerprintBytes) before it is cut to the room left,
// so that a null command is known as one wherever the room ends. Comment lines cost a memchr and do not
// count against the kScriptScanBytes the other lines may take (a 16 KiB comment first would otherwise leave
// nothing to identify), up to kFingerprintCommentLines of them (131,072 lines of "#" would otherwise be
// 131,072 turns of this loop). Returns the bytes written; *full when cap was reached.
size_t normalize_lines(std::string_view s, size_t pos, size_t end, char *out, size_t cap, bool *full, bool keep_end = false,
                       size_t line_cap = kFingerprintBytes) {
    char scratch[kFingerprintBytes];
    size_t n = 0, walked = 0, comments = 0;
    bool continued = false, pending_null = false, last_opens = false, last_continues = false, keep_nulls = false;
    LineNormalizer line(scratch, sizeof scratch);
    // A line longer than line_cap or the room left: its start, or with keep_end its end (the tail's last
    // command).
    auto write = [&](std::string_view text) {
        const size_t len = std::min({text.size(), line_cap, cap - n});
        std::memcpy(out + n, text.data() + (keep_end ? text.size() - len : 0), len);
        n += len;
        out[n++] = '\n';
        if (n >= cap) *full = true;
        return n < cap;
    };
    // A null command goes unless it is all of a body (the line before opens one, the line after closes it),
    // part of the command before ("cmd &&" then ":"), or the last command: decided when the next comes.
    auto end_line = [&] {
        const size_t len = line.finish();
        if (len == 0) return true;
        if (line.null()) {
            pending_null = true;
            return true;
        }
        const std::string_view text(scratch, len);
        if (pending_null && (keep_nulls || last_continues || (last_opens && closes_body(text))) && !write(":")) return false;
        pending_null = false;
        last_opens = opens_body(text);
        // "cmd &&", "cmd |": the next line goes on with the command (a null command there is part of it).
        last_continues = text.back() == '&' || text.back() == '|';
        // From a here-document or a quote left open on, lines may be text: a ':' or 'true' there stays.
        keep_nulls = keep_nulls || line.open_quote() || text.find("<<") != std::string_view::npos;
        return write(text);
    };
    while (pos < end && walked < kScriptScanBytes && comments < kFingerprintCommentLines) {
        const char *nl = static_cast<const char *>(std::memchr(s.data() + pos, '\n', end - pos));
        const size_t stop = nl ? static_cast<size_t>(nl - s.data()) : end;
        std::string_view text = s.substr(pos, stop - pos);
        pos = stop + 1;
        // A comment line inside a continued command ends it, as bash reads it ("cmd \" then "# x").
        if (!continued && comment_line(text)) {
            ++comments;
            continue;
        }
        text = text.substr(0, kScriptScanBytes - walked);
        walked += text.size() + 1;
        if (!continued) line = LineNormalizer(scratch, sizeof scratch);
        continued = line.line(text);
        if (!continued && !end_line()) return n;
    }
    if (continued && !end_line()) return n;
    // The last command's exit status is the script's: a null command there stays.
    if (pending_null) write(":");
    return n;
}

// The raw start of the logical line that ends at e: back to the line after a '\n', then over the lines
// before it whose last byte is a continuation (an odd run of backslashes).
size_t logical_line_start(std::string_view s, size_t e) {
    size_t b = e;
    for (;;) {
        const void *nl = b > 0 ? memrchr(s.data(), '\n', b) : nullptr;
        b = nl ? static_cast<size_t>(static_cast<const char *>(nl) - s.data()) + 1 : 0;
        if (b < 2) return b;
        size_t slashes = 0;
        while (slashes + 2 <= b && s[b - 2 - slashes] == '\\') ++slashes;
        if (slashes % 2 == 0) return b;
        b -= 1;  // on the '\n' that ends the line before: search from there
    }
}

// Normalises the script's last logical lines into out, in order, from the first of those that together hold
// kFingerprintTailBytes (out holds 2 * kFingerprintTailBytes + kTailNullRoom + 2). Walked back from the end a logical line at
// a time to choose where the tail starts, so a respaced, recommented or padded copy starts it at the same
// line; then read forward from there as the head is, so that a null command is judged by the lines around it.
size_t normalize_tail(std::string_view s, char *out) {
    char line[kFingerprintTailBytes + 1];
    size_t held = 0, walked = 0, skipped = 0, e = s.size(), from = s.size();
    if (e > 0 && s[e - 1] == '\n') --e;
    while (e > 0 && held < kFingerprintTailBytes && walked < kScriptScanBytes && skipped < kFingerprintCommentLines) {
        const size_t b = logical_line_start(s, e);
        bool full = false;
        size_t len = normalize_lines(s, b, e, line, kFingerprintTailBytes, &full, true);
        if (len == 2 && line[0] == ':') len = 0;  // a null command alone: whether it stays is the forward read's
        // A comment line costs a line's count, as in the head, not the bytes the commands may take.
        if (len == 0 && comment_line(s.substr(b, e - b))) ++skipped;
        else walked += e - b + 1;
        held += len;
        from = b;
        e = b > 0 ? b - 1 : 0;
    }
    // Each line as it was measured (at most kFingerprintTailBytes, its end); the null commands that stay
    // were not measured, and have room of their own (kTailNullRoom).
    bool full = false;
    return from < s.size() ? normalize_lines(s, from, s.size(), out, 2 * kFingerprintTailBytes + kTailNullRoom + 1, &full,
                                             true, kFingerprintTailBytes)
                           : 0;
}

bool binary(std::string_view script) {
    const std::string_view s = script.substr(0, kFingerprintReach);
    return std::memchr(s.data(), 0, s.size()) != nullptr;
}

// 64 bits at a time (MurmurHash64A's mixing, Austin Appleby, public domain): the byte-at-a-time FNV-1a the
// history keys use measured 4.3 ns a byte here, 70 us for a 16 KiB script on the submit path.
uint64_t hash_words(const char *p, size_t n) {
    constexpr uint64_t m = 0xc6a4a7935bd1e995ull;
    constexpr int r = 47;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * m);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t k;
        std::memcpy(&k, p + i, 8);
        k *= m;
        k ^= k >> r;
        k *= m;
        h ^= k;
        h *= m;
    }
    uint64_t tail = 0;
    std::memcpy(&tail, p + i, n - i);
    h ^= tail;
    h *= m;
    h ^= h >> r;
    h *= m;
    h ^= h >> r;
    return h;
}

// The bytes the fingerprint is taken over: the normalised head, and when it fills kFingerprintBytes, the
// normalised tail after a record separator (two applications behind one long preamble are two scripts).
size_t normalize_script(std::string_view script, char *out) {
    const std::string_view s = script.substr(0, kFingerprintReach);
    bool full = false;
    size_t n = normalize_lines(s, 0, s.size(), out, kFingerprintBytes, &full);
    if (full) {
        out[n++] = '\x1e';
        n += normalize_tail(s, out + n);
    }
    return n;
}

}  // namespace

uint64_t script_fingerprint(std::string_view script) {
    if (script.empty() || binary(script)) return 0;
    // On the stack: slurmctld starts a thread per RPC, and a thread's own buffer would be allocated and
    // cleared for each.
    char out[kNormalizedScriptBytes];
    const size_t n = normalize_script(script, out);
    if (n == 0) return 0;
    const uint64_t h = hash_words(out, n);
    return h == 0 ? 1 : h;
}

std::string normalized_script(std::string_view script) {
    if (script.empty() || binary(script)) return {};
    char out[kNormalizedScriptBytes];
    return std::string(out, normalize_script(script, out));
}

}  // namespace jfp
