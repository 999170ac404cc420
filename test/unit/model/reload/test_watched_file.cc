// WatchedFile: a file reloaded when it changes, its errors said once each.
#include <unistd.h>

#include "catch.h"
#include "model/reload/watched_file.h"
#include "test_support.h"

namespace test_watched_file {

using namespace jfp;

TEST_CASE("watched file: changed on the first look, on a new path, on a new file, and not otherwise") {
    test::TempDir dir;
    const std::string a = dir.file("a.conf"), b = dir.file("b.conf");
    WatchedFile w;
    CHECK(w.changed(a));  // first look, even at a missing file
    CHECK_FALSE(w.sig().exists);
    CHECK_FALSE(w.changed(a));
    test::write_file(a, "x = 1\n");
    CHECK(w.changed(a));
    CHECK(w.sig().exists);
    CHECK_FALSE(w.changed(a));
    test::write_file(a, "x = 12\n");  // another size
    CHECK(w.changed(a));
    test::write_file(b, "x = 12\n");
    CHECK(w.path_changed(b));
    CHECK(w.changed(b));
    CHECK_FALSE(w.path_changed(b));
    unlink(b.c_str());
    CHECK(w.changed(b));
    CHECK_FALSE(w.sig().exists);
    // An empty path (a setting left out) is a file that is not there, looked at once.
    WatchedFile none;
    CHECK(none.changed(""));
    CHECK_FALSE(none.changed(""));
}

TEST_CASE("watched file: an error is new once, until the file loads again") {
    WatchedFile w;
    CHECK_FALSE(w.failing());
    CHECK(w.new_error("bad line 3"));
    CHECK(w.failing());
    CHECK_FALSE(w.new_error("bad line 3"));
    CHECK(w.new_error("bad line 4"));
    w.loaded();
    CHECK_FALSE(w.failing());
    CHECK(w.new_error("bad line 4"));  // the same fault after a good load is said again
}

}  // namespace test_watched_file
