// One error line per kind of fault (model/util/log.h): a new fault at once, a fault that keeps changing at
// most once per interval, a recovery starts afresh.
#include <unistd.h>

#include <string>
#include <vector>

#include "catch.h"
#include "model/util/log.h"

using namespace jfp;

namespace {
std::vector<std::string> g_lines;
void capture(LogLevel, const char *m) { g_lines.emplace_back(m); }
}  // namespace

TEST_CASE("fault log: a changing fault is said once per interval, the latest with a count; recovery resets") {
    set_log_sink(capture);
    g_lines.clear();
    FaultLog f(1);
    f.report("model M not used: truncated");
    REQUIRE(g_lines.size() == 1);  // a new fault: at once
    f.report("model M not used: binary garbage");
    f.report("model M not used: schema mismatch");
    f.tick();
    CHECK(g_lines.size() == 1);  // changes within the interval wait
    usleep(1100 * 1000);
    f.tick();
    REQUIRE(g_lines.size() == 2);
    CHECK(g_lines[1].rfind("model M not used: schema mismatch (and 1 other error since the previous line, ", 0) == 0);
    f.tick();
    CHECK(g_lines.size() == 2);  // nothing pending
    f.clear();  // recovered
    f.report("model M not used: missing");
    CHECK(g_lines.size() == 3);  // the next fault: at once
    CHECK(g_lines[2] == "model M not used: missing");
    set_log_sink(nullptr);  // back to the default
}
