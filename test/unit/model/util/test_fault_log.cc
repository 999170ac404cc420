// One error line per kind of fault (model/util/log.h): a new fault at once, a fault that keeps changing at
// most once per interval, a recovery starts afresh.
#include <unistd.h>

#include <string>
#include <vector>

#include "catch.h"
#include "model/util/log.h"

namespace test_fault_log {

using namespace jfp;

namespace {
std::vector<std::string> g_lines;
void capture(LogLevel, const char *m) { g_lines.emplace_back(m); }
}  // namespace

TEST_CASE("fault log: a kind of fault that keeps changing is said once per interval; a new kind at once; recovery resets") {
    set_log_sink(capture);
    g_lines.clear();
    FaultLog f(1);
    f.report("model M not used: not a model bundle (JSON error at column 3001, last read: 'x'); give the file");
    REQUIRE(g_lines.size() == 1);  // a new fault: at once
    // The same kind again and again, each time with other details (a file rewritten with other garbage):
    f.report("model M not used: not a model bundle (JSON error at column 17, last read: 'y'); give the file");
    f.report("model M not used: not a model bundle (JSON error at column 99, last read: 'z'); give the file");
    f.tick();
    CHECK(g_lines.size() == 1);  // waits for the interval
    usleep(1100 * 1000);
    f.tick();
    REQUIRE(g_lines.size() == 2);
    CHECK(g_lines[1].rfind("model M not used: not a model bundle (JSON error at column 99, last read: 'z'); give the file "
                           "(and 1 other error since the previous line, ", 0) == 0);
    f.tick();
    CHECK(g_lines.size() == 2);  // nothing pending
    // Another kind of fault is said at once, interval or not.
    f.report("model M not used: refused: M is writable by group or others (mode 666); chmod go-w it");
    CHECK(g_lines.size() == 3);
    f.report("model M not used: refused: M is writable by group or others (mode 664); chmod go-w it");
    CHECK(g_lines.size() == 3);  // the same kind, another mode: waits
    f.clear();  // recovered
    f.report("model M not used: refused: M is writable by group or others (mode 664); chmod go-w it");
    CHECK(g_lines.size() == 4);  // after a recovery: at once
    CHECK(g_lines[3] == "model M not used: refused: M is writable by group or others (mode 664); chmod go-w it");
    set_log_sink(nullptr);  // back to the default
}

}  // namespace test_fault_log
