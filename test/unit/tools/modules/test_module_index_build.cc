// `jfp modules index` (tools/modules/module_index_build.h) over a module tree built here, with a stand-in
// for Lmod's spider: the index written with the rc files' names, and what would make the plugin call real
// modules missing refused with the last index left as it was.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "catch.h"
#include "model/script/module_index.h"
#include "test_support.h"
#include "tools/modules/module_index_build.h"

namespace test_module_index_build {

using namespace jfp;

namespace {

struct Tree {
    test::TempDir dir;
    std::string core = dir.file("Core");

    Tree() {
        ::mkdir(core.c_str(), 0755);
        for (const char *m : {"python", "cmake"}) ::mkdir((core + "/" + m).c_str(), 0755);
        file(core + "/python/3.11.4.lua", "whatis('Python')\n");
        file(core + "/python/3.9.18.tcl", "#%Module\n");
        file(core + "/cmake/3.27.lua", "whatis('CMake')\n");
        file(core + "/.modulerc", "#%Module\nmodule-alias py python/3.11.4\n");
    }
    static void file(const std::string &path, const std::string &text) {
        test::write_file(path, text);
        ::chmod(path.c_str(), 0644);
    }
    std::string entry(const std::string &name, const std::string &file) const {
        return "\"" + core + "/" + file + "\": {\"fullName\": \"" + name + "\", \"mpath\": \"" + core + "\", \"hidden\": false}";
    }
    // A spider that prints text.
    std::string spider(const std::string &name, const std::string &text) const {
        file(dir.file(name + ".json"), text);
        const std::string path = dir.file(name);
        file(path, "#!/bin/sh\ncat '" + dir.file(name + ".json") + "'\n");
        ::chmod(path.c_str(), 0755);
        return path;
    }
    std::string full_spider() const {
        return spider("spider", "{\"python\": {" + entry("python/3.11.4", "python/3.11.4.lua") + ", " +
                                    entry("python/3.9.18", "python/3.9.18.tcl") + ", " +
                                    entry("python/3.12.0", "python/3.12.0.lua") + ", " + entry("python/3.8.0", "python/3.8.0.lua") +
                                    "}, \"cmake\": {" +
                                    entry("cmake/3.27", "cmake/3.27.lua") + "}}");
    }
    ModuleIndexRequest request(const std::string &spider) const {
        ModuleIndexRequest r;
        r.out = dir.file("modules.json");
        r.modulepath = core;
        r.spider = spider;
        return r;
    }
    std::string index_text() const {
        std::ifstream in(dir.file("modules.json"), std::ios::binary);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
};

std::string error_of(const ModuleIndexRequest &r) {
    try {
        build_module_index(r);
    } catch (const std::exception &e) {
        return e.what();
    }
    return "";
}

// LMOD_MODULERCFILE names global rc files; the tests read only the tree's.
struct NoGlobalRc {
    std::string kept;
    bool had = false;
    NoGlobalRc() {
        if (const char *g = std::getenv("LMOD_MODULERCFILE")) had = true, kept = g;
        ::unsetenv("LMOD_MODULERCFILE");
    }
    ~NoGlobalRc() {
        if (had) ::setenv("LMOD_MODULERCFILE", kept.c_str(), 1);
    }
};

}  // namespace

TEST_CASE("module index build: the spider's modules and the tree's aliases, written 0644", "[modules]") {
    NoGlobalRc no_global;
    Tree t;
    const ModuleIndexRequest r = t.request(t.full_spider());
    const ModuleIndexWritten w = build_module_index(r);
    CHECK(w.modules == 6);  // five module files and the alias
    CHECK(w.names == 3);
    CHECK(w.rc_names == 1);
    CHECK(w.rc_files == 1);
    struct stat st {};
    REQUIRE(::stat(r.out.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0644);
    const ModuleIndex ix = ModuleIndex::parse(t.index_text());
    CHECK(ix.knows_name("py"));
    CHECK(ix.lookup("python/3.9").result == ModuleLookup::Result::Found);
    CHECK(module_index_summary(r, w) == "jfp modules index: wrote " + r.out + ": 6 module files of 3 names (0 behind a compiler "
                                        "or MPI level, 1 of them aliases or symbolic versions from 1 rc files), from " + t.core);
    ModuleIndexWritten plain;
    plain.modules = 2;
    plain.names = 1;
    CHECK(module_index_summary(r, plain) == "jfp modules index: wrote " + r.out + ": 2 module files of 1 names (0 behind a "
                                            "compiler or MPI level), from " + t.core);
}

TEST_CASE("module index build: an empty spider, a tree that shrank, an untrusted modulefile: nothing written", "[modules]") {
    NoGlobalRc no_global;
    Tree t;
    build_module_index(t.request(t.full_spider()));
    const std::string last = t.index_text();

    CHECK(error_of(t.request(t.spider("empty", " {} \n"))) ==
          "Lmod's spider found no module under " + t.core + "; nothing written (the plugin would call every module missing)");
    CHECK_THAT(error_of(t.request(t.spider("noise", "Lmod is not configured"))),
               HasText("Lmod's spider (" + t.dir.file("noise") + ") gave no module index: "));
    const std::string one = t.spider("one", "{\"cmake\": {" + t.entry("cmake/3.27", "cmake/3.27.lua") + "}}");
    CHECK_THAT(error_of(t.request(one)), HasText("the spider found 2 module files, " + t.dir.file("modules.json") +
                                                 " lists 6: more than half are gone"));
    CHECK(t.index_text() == last);

    ::chmod((t.core + "/cmake/3.27.lua").c_str(), 0666);
    CHECK_THAT(error_of(t.request(t.full_spider())),
               HasText("module directory " + t.core + " holds " + t.core + "/cmake/3.27.lua (owner uid " +
                       std::to_string(::geteuid()) + ", mode 0666), which a user other than root or this one"));
    CHECK(t.index_text() == last);
    ModuleIndexRequest writers = t.request(one);
    writers.allow_writers = true;
    writers.allow_shrink = true;
    CHECK(build_module_index(writers).modules == 2);  // cmake and the alias
}

TEST_CASE("module index build: the spider's output from a file (--from) instead of running it", "[modules]") {
    NoGlobalRc no_global;
    Tree t;
    t.full_spider();
    ModuleIndexRequest r = t.request("");
    r.from = t.dir.file("spider.json");
    CHECK(build_module_index(r).modules == 6);
    r.from = t.dir.file("absent.json");
    CHECK_THAT(error_of(r), HasText("cannot read " + r.from + " (--from): "));
}

}  // namespace test_module_index_build
