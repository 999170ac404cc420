// The join token a scored job carries in AdminComment ("jfp:t=<token>"), the key of its feature-log row
// and of its job_modify cache entry. A value held inline: the submit path hands it to three places, and
// as a std::string (16 characters, one past the small-string buffer) each copy was a malloc on a fresh
// slurmctld thread (bench/hotpath, docs/performance.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace jfp {

class JoinToken {
public:
    static constexpr size_t kMaxLength = 31;  // the plugin writes 16 hex digits; older text fits too

    JoinToken() = default;
    // Throws std::length_error past kMaxLength: such text was never written by the plugin (see fits()).
    JoinToken(std::string_view text) { assign(text); }
    JoinToken(const std::string &text) { assign(text); }
    JoinToken(const char *text) { assign(text ? std::string_view(text) : std::string_view()); }

    // 16 lowercase hex digits of v, as the plugin writes them.
    static JoinToken hex(uint64_t v) {
        static const char kHex[] = "0123456789abcdef";
        JoinToken t;
        for (int i = 15; i >= 0; --i, v >>= 4) t.text_[i] = kHex[v & 15];
        t.len_ = 16;
        return t;
    }
    static bool fits(std::string_view text) { return text.size() <= kMaxLength; }

    bool empty() const { return len_ == 0; }
    size_t size() const { return len_; }
    std::string_view view() const { return {text_, len_}; }
    const char *c_str() const { return text_; }
    std::string str() const { return std::string(view()); }
    operator std::string_view() const { return view(); }

    bool operator==(const JoinToken &o) const { return view() == o.view(); }
    bool operator!=(const JoinToken &o) const { return !(*this == o); }
    struct Hash {
        size_t operator()(const JoinToken &t) const { return std::hash<std::string_view>()(t.view()); }
    };

private:
    void assign(std::string_view text) {
        if (!fits(text)) throw std::length_error("join token longer than " + std::to_string(kMaxLength) + " characters");
        if (!text.empty()) std::memcpy(text_, text.data(), text.size());  // a default view's data() is null
        text_[text.size()] = '\0';
        len_ = static_cast<uint8_t>(text.size());
    }
    char text_[kMaxLength + 1] = {};
    uint8_t len_ = 0;
};

}  // namespace jfp
