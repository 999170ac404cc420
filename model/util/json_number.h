// Numbers from JSON that jfp did not necessarily write (a model bundle is a file anyone may replace):
// converting an out-of-range double to an integer or a float is undefined behaviour in C++, so every
// such conversion goes through these, which throw instead (found by fuzzing the bundle loader).
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace jfp {

// An integer within [lo, hi]: a JSON integer, or a float with an integral value.
inline int64_t json_int(const nlohmann::json &j, int64_t lo, int64_t hi, const char *what) {
    if (j.is_number_integer() || j.is_number_unsigned()) {
        if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
            throw std::runtime_error(std::string(what) + " is out of range");
        int64_t v = j.get<int64_t>();
        if (v < lo || v > hi) throw std::runtime_error(std::string(what) + " is out of range (" + std::to_string(v) + ")");
        return v;
    }
    if (j.is_number_float()) {
        double d = j.get<double>();
        if (!(d >= static_cast<double>(lo) && d <= static_cast<double>(hi)) || d != std::floor(d))
            throw std::runtime_error(std::string(what) + " is not a whole number in range");
        return static_cast<int64_t>(d);
    }
    throw std::runtime_error(std::string("expected a number for ") + what + ", found " + j.type_name());
}

// A double as a float: NaN and infinities pass, finite values must fit.
inline float to_float(double d, const char *what) {
    if (std::isfinite(d) && std::fabs(d) > static_cast<double>(FLT_MAX))
        throw std::runtime_error(std::string(what) + " is out of the range of a float");
    return static_cast<float>(d);
}

inline float json_float(const nlohmann::json &j, const char *what) {
    if (!j.is_number()) throw std::runtime_error(std::string("expected a number for ") + what + ", found " + j.type_name());
    return to_float(j.get<double>(), what);
}

}  // namespace jfp
