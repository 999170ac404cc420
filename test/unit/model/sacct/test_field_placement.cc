// place_extra_fields: a delimiter typed into free text is placed only when every valid placement agrees on
// the job name; never a guess.
#include <string>
#include <string_view>
#include <vector>

#include "bar_fields.h"
#include "catch.h"
#include "model/sacct/field_placement.h"
#include "model/util/text.h"

namespace test_field_placement {

using namespace jfp;

TEST_CASE("field placement: one free-text column takes the extra fields whole") {
    SacctLayout layout;
    layout.set(test::bar_fields("JobIDRaw|User|JobName|Submit|State"), "t");
    const std::string row = "12|amy|a|b|c|2025-01-01T00:00:00|COMPLETED";
    const FieldPlacement p = place_extra_fields(layout, test::bar_fields(row));
    REQUIRE(p.verdict == FieldPlacement::Verdict::Placed);
    REQUIRE(p.fields.size() == layout.width());
    CHECK(p.fields[2] == "a|b|c");
    CHECK(p.fields[4] == "COMPLETED");
}

TEST_CASE("field placement: two free-text columns that could each hold the '|' make the name unknowable") {
    SacctLayout layout;
    layout.set(test::bar_fields("JobIDRaw|User|JobName|WorkDir|Submit|State"), "t");
    // A working directory is absolute: "b|/home" is none, so the name is certain.
    FieldPlacement p = place_extra_fields(layout, test::bar_fields("12|amy|a|b|/home|2025-01-01T00:00:00|COMPLETED"));
    REQUIRE(p.verdict == FieldPlacement::Verdict::Placed);
    CHECK(p.fields[2] == "a|b");
    CHECK(p.fields[3] == "/home");
    // "a" + "/b|/home" and "a|/b" + "/home" both validate: which is the name cannot be told.
    p = place_extra_fields(layout, test::bar_fields("12|amy|a|/b|/home|2025-01-01T00:00:00|COMPLETED"));
    CHECK(p.verdict == FieldPlacement::Verdict::Ambiguous);
    CHECK(p.fields.empty());
}

TEST_CASE("field placement: extra fields where no free text can take them are impossible; too few is not its case") {
    SacctLayout layout;
    layout.set(test::bar_fields("JobIDRaw|User|Submit|State"), "t");  // no free-text column at all
    CHECK(place_extra_fields(layout, test::bar_fields("12|amy|x|2025-01-01T00:00:00|COMPLETED")).verdict ==
          FieldPlacement::Verdict::Impossible);
    CHECK(place_extra_fields(layout, test::bar_fields("12|amy|2025-01-01T00:00:00")).verdict == FieldPlacement::Verdict::Impossible);
    SacctLayout named;
    named.set(test::bar_fields("JobIDRaw|User|JobName|Submit|State"), "t");
    // The typed columns fail whatever the name takes: no valid placement.
    CHECK(place_extra_fields(named, test::bar_fields("12|amy|a|b|not-a-time|COMPLETED")).verdict == FieldPlacement::Verdict::Impossible);
}

TEST_CASE("field placement: the search is bounded however many delimiters a name holds") {
    SacctLayout layout;
    layout.set(test::bar_fields("JobIDRaw|User|JobName|WorkDir|Comment|SubmitLine|Submit|State"), "t");
    std::string row = "12|amy|";
    for (int i = 0; i < 200; ++i) row += "x|";  // 200 extra fields over 4 free-text columns
    row += "2025-01-01T00:00:00|COMPLETED";
    CHECK(place_extra_fields(layout, test::bar_fields(row)).verdict == FieldPlacement::Verdict::Impossible);
}

}  // namespace test_field_placement
