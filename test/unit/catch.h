// Catch2 v2 (Debian 12, single header) and v3 (Debian 13, library) behind one include.
#pragma once
#if defined(JFP_CATCH2_V3)
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#endif
