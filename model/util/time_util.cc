#include "model/util/time_util.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>

#include "model/util/text.h"

namespace jfp {

int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

namespace {

// Reads exactly n digits at s[pos]; advances pos.
bool digits(std::string_view s, size_t &pos, size_t n, unsigned &out) {
    if (pos + n > s.size()) return false;
    unsigned v = 0;
    for (size_t i = 0; i < n; ++i) {
        char c = s[pos + i];
        if (c < '0' || c > '9') return false;
        v = v * 10 + static_cast<unsigned>(c - '0');
    }
    out = v;
    pos += n;
    return true;
}

void civil_from_days(int64_t z, int64_t &y, unsigned &m, unsigned &d) {
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    y = static_cast<int64_t>(yoe) + era * 400;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    y += m <= 2;
}

}  // namespace

std::optional<int64_t> parse_sacct_time(std::string_view s) {
    s = trim(s);
    if (s.empty()) return std::nullopt;
    if (s.size() >= 8 && s.find('-') == std::string_view::npos) {
        auto v = parse_int(s);  // epoch seconds, as some converted traces carry
        if (v && *v > 0) return naive_local_from_epoch(*v);
        return std::nullopt;
    }
    size_t p = 0;
    unsigned y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
    if (!digits(s, p, 4, y) || p >= s.size() || s[p++] != '-' || !digits(s, p, 2, mo) || p >= s.size() ||
        s[p++] != '-' || !digits(s, p, 2, d))
        return std::nullopt;
    if (p < s.size()) {
        if (s[p] != 'T' && s[p] != ' ') return std::nullopt;
        ++p;
        if (!digits(s, p, 2, h) || p >= s.size() || s[p++] != ':' || !digits(s, p, 2, mi)) return std::nullopt;
        if (p < s.size()) {
            if (s[p++] != ':' || !digits(s, p, 2, se)) return std::nullopt;
        }
        if (p != s.size()) return std::nullopt;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return std::nullopt;
    return days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
}

std::string format_sacct_time(int64_t naive) {
    int64_t days = naive >= 0 ? naive / 86400 : -((-naive + 86399) / 86400);
    int64_t secs = naive - days * 86400;
    int64_t y;
    unsigned m, d;
    civil_from_days(days, y, m, d);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld", static_cast<long long>(y), m, d,
                  static_cast<long long>(secs / 3600), static_cast<long long>(secs / 60 % 60),
                  static_cast<long long>(secs % 60));
    return buf;
}

std::optional<double> parse_duration_seconds(std::string_view s) {
    s = trim(s);
    if (s.empty()) return std::nullopt;
    double days = 0;
    auto dash = s.find('-');
    if (dash != std::string_view::npos) {
        auto dv = parse_int(s.substr(0, dash));
        if (!dv || *dv < 0) return std::nullopt;
        days = static_cast<double>(*dv);
        s = s.substr(dash + 1);
    }
    auto parts = split(s, ':');
    if (parts.size() > 3) return std::nullopt;
    double total = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
        bool last = i + 1 == parts.size();
        std::optional<double> v = last ? parse_double(parts[i]) : std::optional<double>();
        if (!last) {
            auto iv = parse_int(parts[i]);
            if (iv) v = static_cast<double>(*iv);
        }
        if (!v || *v < 0) return std::nullopt;
        total = total * 60 + *v;
    }
    // "D-HH" and "D-HH:MM" count from hours, as in Slurm's time format.
    if (dash != std::string_view::npos) {
        if (parts.size() == 1) total *= 3600;
        else if (parts.size() == 2) total *= 60;
    }
    return days * 86400 + total;
}

std::optional<double> parse_timelimit_minutes(std::string_view s) {
    s = trim(s);
    if (s == "UNLIMITED" || s == "INFINITE" || s == "infinite" || s == "unlimited")
        return std::numeric_limits<double>::infinity();
    auto sec = parse_duration_seconds(s);
    if (!sec) return std::nullopt;
    return *sec / 60.0;
}

std::optional<double> parse_slurm_time_minutes(std::string_view s) {
    s = trim(s);
    if (s.empty()) return std::nullopt;
    std::string lower = to_lower(s);
    if (lower == "unlimited" || lower == "infinite") return std::numeric_limits<double>::infinity();
    if (s.find('-') == std::string_view::npos && s.find(':') == std::string_view::npos) {
        auto m = parse_int(s);
        if (!m || *m < 0) return std::nullopt;
        return static_cast<double>(*m);
    }
    if (s.find('-') == std::string_view::npos && split(s, ':').size() == 2) {  // MM:SS
        auto parts = split(s, ':');
        auto m = parse_int(parts[0]);
        auto sec = parse_int(parts[1]);
        if (!m || !sec || *m < 0 || *sec < 0) return std::nullopt;
        return static_cast<double>(*m) + static_cast<double>(*sec) / 60.0;
    }
    auto sec = parse_duration_seconds(s);
    if (!sec) return std::nullopt;
    return *sec / 60.0;
}

int hour_of_day(int64_t naive) {
    int64_t s = naive % 86400;
    if (s < 0) s += 86400;
    return static_cast<int>(s / 3600);
}

int weekday(int64_t naive) {
    int64_t days = naive >= 0 ? naive / 86400 : -((-naive + 86399) / 86400);
    // 1970-01-01 was a Thursday (3 when Monday is 0).
    int64_t w = (days + 3) % 7;
    if (w < 0) w += 7;
    return static_cast<int>(w);
}

int64_t naive_local_from_epoch(int64_t epoch) {
    time_t t = static_cast<time_t>(epoch);
    struct tm tm {};
    localtime_r(&t, &tm);
    return days_from_civil(tm.tm_year + 1900, static_cast<unsigned>(tm.tm_mon + 1), static_cast<unsigned>(tm.tm_mday)) *
               86400 +
           tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec;
}

int64_t LocalOffsetCache::naive(int64_t epoch) {
    int64_t minute = epoch >= 0 ? epoch / 60 : -((-epoch + 59) / 60);
    uint64_t cached = minute_offset_.load(std::memory_order_relaxed);
    if (cached != 0 && static_cast<int64_t>(cached >> 32) == minute)
        return epoch + static_cast<int64_t>(cached & 0xffffffffu) - (int64_t{1} << 20);
    int64_t naive = naive_local_from_epoch(epoch);
    int64_t offset = naive - epoch;
    // Only what packs: minutes from 1970 to 10,000 years on, offsets within +-12 days.
    if (minute > 0 && minute < (int64_t{1} << 32) && offset > -(int64_t{1} << 20) && offset < (int64_t{1} << 20))
        minute_offset_.store((static_cast<uint64_t>(minute) << 32) | static_cast<uint64_t>(offset + (int64_t{1} << 20)),
                             std::memory_order_relaxed);
    return naive;
}

int64_t naive_local_now() {
    static LocalOffsetCache cache;
    return cache.naive(static_cast<int64_t>(time(nullptr)));
}

}  // namespace jfp
