// Catch2 v2 needs one translation unit to define main; v3 links Catch2Main instead.
#if !defined(JFP_CATCH2_V3)
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#endif
