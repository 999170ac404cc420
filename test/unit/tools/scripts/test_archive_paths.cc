// Where `jfp scripts` reads (tools/scripts/archive_paths.h): what the command line gives, else jfp.conf.
#include <stdexcept>

#include "catch.h"
#include "test_support.h"
#include "tools/scripts/archive_paths.h"

namespace test_archive_paths {

using namespace jfp;

namespace {
std::string error_of(ArchivePaths p, const std::string &conf) {
    try {
        fill_archive_paths(p, conf);
    } catch (const std::exception &e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST_CASE("archive paths: jfp.conf fills what the command line left out; the store only when readable", "[scripts]") {
    test::TempDir dir;
    test::write_file(dir.file("history.db"), "");
    const std::string conf = dir.file("jfp.conf");
    test::write_file(conf, "script_archive = " + dir.file("scripts.db") + "\nstore = " + dir.file("history.db") +
                               "\nmodules_index = " + dir.file("modules.json") + "\n");
    ArchivePaths p;
    fill_archive_paths(p, conf);
    CHECK(p.archive == dir.file("scripts.db"));
    CHECK(p.db == dir.file("history.db"));
    CHECK(p.modules_index == dir.file("modules.json"));

    ArchivePaths given;
    given.archive = "/given/archive.db";
    fill_archive_paths(given, conf);
    CHECK(given.archive == "/given/archive.db");
    CHECK(given.db == dir.file("history.db"));

    test::write_file(conf, "script_archive = " + dir.file("scripts.db") + "\nstore = " + dir.file("absent.db") + "\n");
    ArchivePaths no_store;
    fill_archive_paths(no_store, conf);
    CHECK(no_store.db.empty());
    CHECK(open_history_store(no_store, false, "") == nullptr);
    CHECK_THROWS_WITH(open_history_store(no_store, true, "--state"),
                      "--state needs the history store: give --db (store in jfp.conf)");
}

TEST_CASE("archive paths: no archive named is an error that says how to name one", "[scripts]") {
    test::TempDir dir;
    CHECK_THAT(error_of({}, dir.file("missing.conf")), HasText("no --archive given, and "));
    CHECK_THAT(error_of({}, dir.file("missing.conf")), HasText("give --archive PATH (script_archive in jfp.conf) or --conf FILE"));
    // The archive given, an unreadable jfp.conf is no error: the store is optional.
    ArchivePaths given;
    given.archive = dir.file("a.db");
    CHECK(error_of(given, dir.file("missing.conf")).empty());

    const std::string conf = dir.file("jfp.conf");
    test::write_file(conf, "store = /srv/jfp/history.db\n");
    CHECK(error_of({}, conf) == conf + " sets no script_archive: the plugin keeps no scripts (see jfp.conf(5)); set it, or give --archive PATH");
    CHECK(conf_keeps_no_scripts(conf));
    test::write_file(conf, "script_archive = /srv/jfp/scripts.db\n");
    CHECK_FALSE(conf_keeps_no_scripts(conf));
    CHECK_FALSE(conf_keeps_no_scripts(dir.file("missing.conf")));
}

}  // namespace test_archive_paths
