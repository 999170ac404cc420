// Catch2 v2 (Debian 12, single header) and v3 (Debian 13, library) behind one include.
#pragma once
#include <string>
#if defined(JFP_CATCH2_V3)
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
using Catch::Approx;
// v3 renamed the substring matcher (v2's Catch::Contains is gone).
inline auto HasText(const std::string &s) { return Catch::Matchers::ContainsSubstring(s); }
#else
#include <catch2/catch.hpp>
inline auto HasText(const std::string &s) { return Catch::Matchers::Contains(s); }
#endif
