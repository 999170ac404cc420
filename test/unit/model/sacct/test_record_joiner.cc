// The record joiners: which lines make one record, whatever a user put in a field.
#include <string>
#include <string_view>
#include <vector>

#include "bar_fields.h"
#include "catch.h"
#include "model/sacct/record_joiner.h"
#include "model/util/text.h"

namespace test_record_joiner {

using namespace jfp;

namespace {

struct Seen {
    std::string text;
    uint64_t first, last;
};


}  // namespace

TEST_CASE("id-led joiner: a name holding a newline and a whole forged record stays one record") {
    SacctLayout layout;
    layout.set(test::bar_fields("JobIDRaw|User|JobName|Submit|State"), "t");
    const std::string delim = "|";
    std::vector<Seen> seen;
    IdLedJoiner j(delim, [&](std::string_view t, uint64_t a, uint64_t b, bool final) {
        CHECK(final);
        seen.push_back({std::string(t), a, b});
        return true;
    });
    uint64_t blank = 0, joined = 0;
    JoinCounts counts{blank, joined};
    const std::vector<std::string> lines = {
        "1|amy|x",                                   // short: its name holds a newline...
        "2|bob|important|2025-01-01T00:00:00|FAILED",  // ...and a forged record, which joins it
        "|2025-01-01T00:00:00|COMPLETED",            // the rest of amy's record
        "3|amy|y|2025-01-01T00:00:00|COMPLETED",
        "",
    };
    for (size_t i = 0; i < lines.size(); ++i) j.line(lines[i], i + 1, layout, counts);
    j.flush(layout, counts);
    REQUIRE(seen.size() == 2);
    CHECK(seen[0].text == lines[0] + "\n" + lines[1] + "\n" + lines[2]);
    CHECK(seen[0].first == 1);
    CHECK(seen[0].last == 3);
    CHECK(seen[1].text == lines[3]);
    CHECK(seen[1].first == 4);
    CHECK(seen[1].last == 4);  // the blank line after it belongs to no field
    CHECK(blank == 1);
    CHECK(joined == 1);
}

TEST_CASE("id-led joiner: a record short of fields takes at most kMaxJoinedLines lines") {
    SacctLayout layout;
    layout.set(test::bar_fields("JobIDRaw|User|JobName|Submit|State"), "t");
    const std::string delim = "|";
    std::vector<Seen> seen;
    IdLedJoiner j(delim, [&](std::string_view t, uint64_t a, uint64_t b, bool) {
        seen.push_back({std::string(t), a, b});
        return true;
    });
    uint64_t blank = 0, joined = 0;
    JoinCounts counts{blank, joined};
    for (uint64_t i = 1; i <= 200; ++i) j.line(i == 1 ? "1|amy|x" : "more", i, layout, counts);
    j.flush(layout, counts);
    REQUIRE_FALSE(seen.empty());
    CHECK(seen[0].last - seen[0].first + 1 == kMaxJoinedLines);
    uint64_t lines = 0;
    for (const auto &s : seen) lines += s.last - s.first + 1;
    CHECK(lines == 200);  // every line is in some record: none vanish
}

TEST_CASE("short-line joiner: a line short of fields joins the next until the record is whole and valid") {
    SacctLayout layout;
    layout.set(test::bar_fields("User|JobName|JobIDRaw|Submit|State"), "t");  // the id is not first
    const std::string delim = "|";
    std::vector<Seen> seen;
    ShortLineJoiner j(delim, [&](std::string_view t, uint64_t a, uint64_t b, bool final) {
        std::vector<std::string_view> f;
        split_into(t, '|', f);
        if (f.size() < layout.width() && !final) return false;
        seen.push_back({std::string(t), a, b});
        return true;
    });
    uint64_t blank = 0, joined = 0;
    JoinCounts counts{blank, joined};
    j.line("amy|two", 1, layout, counts);
    j.line("lines|12|2025-01-01T00:00:00|COMPLETED", 2, layout, counts);
    j.line("amy|one|13|2025-01-01T00:00:00|COMPLETED", 3, layout, counts);
    j.line("cut|off", 4, layout, counts);
    j.flush();
    REQUIRE(seen.size() == 3);
    CHECK(seen[0].text == "amy|two\nlines|12|2025-01-01T00:00:00|COMPLETED");
    CHECK(seen[0].first == 1);
    CHECK(seen[0].last == 2);
    CHECK(seen[1].first == 3);
    CHECK(seen[2].text == "cut|off");  // bad on its own: handed on as final, to be counted by line
    CHECK(joined == 1);
}

}  // namespace test_record_joiner
