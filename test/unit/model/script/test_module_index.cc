// A module index read from Lmod's own spider-json output (captured from Lmod 8.6.19 over a tree with a
// compiler level: python 3.9.18 and 3.11.4, cmake 3.27, gcc 12.2.0, and openmpi 4.1.5 behind gcc), and
// looked up as Lmod loads names (checked by hand against `lmod bash load` on the same tree).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "catch.h"
#include "model/policy/script_findings.h"
#include "model/script/module_index.h"
#include "model/script/module_rc.h"
#include "model/script/module_lines.h"
#include "model/jobs/job_request.h"

namespace test_module_index {

using namespace jfp;
using R = ModuleLookup::Result;

namespace {
const char *kSpider = R"JSON({"python": {"/apps/modules/core/python/3.11.4.lua": {"wV": "000000003.000000011.000000004.*zfinal", "whatis": ["Python"], "fullName": "python/3.11.4", "hidden": false, "help": "python", "pV": "000000003.000000011.000000004.*zfinal", "mpath": "/apps/modules/core", "Version": "3.11.4"}, "/apps/modules/core/python/3.9.18.lua": {"fullName": "python/3.9.18", "mpath": "/apps/modules/core", "hidden": false, "help": "p", "wV": "000000003.000000009.000000018.*zfinal", "pV": "000000003.000000009.000000018.*zfinal", "Version": "3.9.18"}}, "cmake": {"/apps/modules/core/cmake/3.27.lua": {"fullName": "cmake/3.27", "mpath": "/apps/modules/core", "hidden": false, "help": "cmake", "wV": "000000003.000000027.*zfinal", "pV": "000000003.000000027.*zfinal", "Version": "3.27"}}, "openmpi": {"/apps/modules/compiler/gcc/12/openmpi/4.1.5.lua": {"parentAA": [["gcc/12.2.0"]], "mpath": "/apps/modules/compiler/gcc/12", "wV": "000000004.000000001.000000005.*zfinal", "hidden": false, "help": "ompi", "pV": "000000004.000000001.000000005.*zfinal", "fullName": "openmpi/4.1.5", "Version": "4.1.5"}}, "gcc": {"/apps/modules/core/gcc/12.2.0.lua": {"wV": "000000012.000000002.*zfinal", "mpath": "/apps/modules/core", "hidden": false, "Version": "12.2.0", "fullName": "gcc/12.2.0", "pV": "000000012.000000002.*zfinal"}}})JSON";
}  // namespace

TEST_CASE("module index: names and versions as Lmod loads them") {
    ModuleIndex ix = ModuleIndex::parse(kSpider);
    CHECK(ix.names() == 4);
    CHECK(ix.modules() == 5);
    // Loaded by Lmod on the same tree: the exact version, a prefix at a '.', the name alone.
    for (const char *ok : {"python/3.11.4", "python/3.11", "python/3", "python/3.9", "python", "cmake/3.27", "gcc/12",
                           "gcc/12.2.0", "python/default"})
        CHECK(ix.lookup(ok).result == R::Found);
    // Refused by Lmod ("unknown"): no such version; 3.1 is not a prefix of 3.11.4 at a '.'.
    for (const char *bad : {"python/3.1", "python/3.11.5", "python/3.9.1", "python/4", "gcc/1", "cmake/3.2"}) {
        ModuleLookup l = ix.lookup(bad);
        INFO(bad);
        CHECK(l.result == R::NoSuchVersion);
    }
    ModuleLookup v = ix.lookup("python/3.12");
    CHECK(v.name == "python");
    CHECK(v.versions == std::vector<std::string>{"python/3.11.4", "python/3.9.18"});
    // No such name: the closest names, case aside.
    ModuleLookup typo = ix.lookup("pyhton/3.11");
    CHECK(typo.result == R::NoSuchModule);
    CHECK(typo.similar == std::vector<std::string>{"python"});
    CHECK(ix.lookup("Python").result == R::NoSuchModule);
    CHECK(ix.lookup("Python").similar == std::vector<std::string>{"python"});
    CHECK(ix.lookup("tensorflow").similar.empty());
    // Behind the compiler level: exists, loads only after gcc (Lmod: "exist but cannot be loaded as requested").
    ModuleLookup h = ix.lookup("openmpi/4.1.5");
    CHECK(h.result == R::BehindHierarchy);
    CHECK(h.parents == std::vector<std::string>{"gcc/12.2.0"});
    CHECK(ix.lookup("openmpi").result == R::BehindHierarchy);
    CHECK(ix.lookup("openmpi/5").result == R::NoSuchVersion);
}

TEST_CASE("module index: a name with slashes is matched at the longest name the index knows") {
    ModuleIndex ix = ModuleIndex::parse(R"({"mpi/openmpi": {"/m/mpi/openmpi/4.1.lua": {"fullName": "mpi/openmpi/4.1", "Version": "4.1"}},
                                            "tool": {"/m/tool.lua": {"fullName": "tool"}}})");
    CHECK(ix.lookup("mpi/openmpi/4.1").result == R::Found);
    CHECK(ix.lookup("mpi/openmpi").result == R::Found);
    CHECK(ix.lookup("mpi/openmpi/5.0").result == R::NoSuchVersion);
    CHECK(ix.lookup("mpi").result == R::NoSuchModule);
    CHECK(ix.lookup("tool").result == R::Found);
}

TEST_CASE("module index: a file that is not spider-json is refused with what is wrong") {
    CHECK_THROWS_WITH(ModuleIndex::parse("not json"), HasText("not JSON"));
    CHECK_THROWS_WITH(ModuleIndex::parse("[1,2]"), HasText("spider-json"));
    CHECK_THROWS_WITH(ModuleIndex::parse(R"({"a": 3})"), HasText("module 'a'"));
    std::string many = "{\"m\": {";
    for (int i = 0; i < 20; ++i) many += std::string(i ? "," : "") + "\"/p/" + std::to_string(i) + "\": {\"fullName\": \"m/" + std::to_string(i) + "\"}";
    many += "}}";
    CHECK_THROWS_WITH(ModuleIndex::parse(many, 10), HasText("more than 10 modules"));
}

// ---- what the user is told (model/policy/script_findings.h)

TEST_CASE("module findings: the line, the name, the closest names; what the index cannot judge is not said") {
    ModuleIndex ix = ModuleIndex::parse(kSpider);
    ModuleScan scan = find_module_loads("#!/bin/bash\n"
                                        "#SBATCH -n 2\n"
                                        "module load pyhton/3.11 cmake\n"  // 3: a typo
                                        "module load python/3.12\n"        // 4: a version that is not there
                                        "module try-load ddt\n"            // 5: optional
                                        "module load openmpi\n"            // 6: behind gcc
                                        "module load gcc/12 openmpi/4.1.5\n"
                                        "module use $HOME/mods\n"
                                        "module load mine\n");             // 9: after module use
    std::vector<std::string> not_told;
    std::vector<ModuleFinding> found = missing_modules(scan, ix, &not_told);
    REQUIRE(found.size() == 2);
    CHECK(missing_module_sentence(found[0]) ==
          "line 3: 'module load pyhton/3.11 cmake': this cluster has no module 'pyhton'; did you mean python? "
          "(`module spider python` lists its versions).");
    CHECK(missing_module_sentence(found[1]) ==
          "line 4: 'module load python/3.12': module 'python' has no version '3.12' on this cluster; it has "
          "python/3.11.4, python/3.9.18 (`module spider python` lists them).");
    std::string why;
    for (const auto &n : not_told) why += n + "\n";
    INFO(why);
    CHECK(not_told.size() == 4);
    CHECK(why.find("line 5 ddt: try-load") != std::string::npos);
    CHECK(why.find("line 6 openmpi: exists behind gcc/12.2.0") != std::string::npos);
    CHECK(why.find("line 9 mine: after line 8") != std::string::npos);

    Config c;
    c.mode = Mode::Warn;
    JobRequest r;
    ScriptFindingsVerdict w = judge_module_findings(c, r, found, "", false);
    CHECK_FALSE(w.reject);
    CHECK(w.message.rfind("jfp: warning: this script loads 2 modules this cluster does not have", 0) == 0);
    c.missing_modules = FindingAction::Reject;
    c.allow_override = true;
    ScriptFindingsVerdict rj = judge_module_findings(c, r, found, "", false);
    CHECK(rj.reject);
    CHECK(rj.message.find("--comment=jfp:override") != std::string::npos);
    CHECK_FALSE(judge_module_findings(c, r, found, "jfp:override", false).reject);
    CHECK_FALSE(judge_module_findings(c, r, found, "", true).reject);  // root or SlurmUser: warned
    c.mode = Mode::Shadow;
    CHECK(judge_module_findings(c, r, found, "", false).message.empty());
    c.mode = Mode::Warn;
    c.missing_modules = FindingAction::Off;
    CHECK_FALSE(judge_module_findings(c, r, found, "", false).found);
}

TEST_CASE("module rc files: aliases and symbolic versions Lmod loads, in Lua and TCL; what is not a literal is left out") {
    auto names = module_rc_names("-- site aliases\n"
                                 "module_alias(\"py\", \"python/3.11.4\")\n"
                                 "module_version('python/3.11.4', '3.11-latest', \"stable\")\n"
                                 "module_alias(\"x\" .. suffix, \"python/3.11.4\")\n"   // not a literal: not knowable
                                 "module_version(\"3.10.12\", \"old\")\n"                  // relative to the rc's module
                                 "#%Module\n"
                                 "module-alias ompi openmpi/4.1.5\n"
                                 "module-version /4.1.5 mpi-default\n"
                                 "module-version openmpi/4.1.5 $v\n",                     // a variable: left out
                                 "python");
    CHECK(names == std::vector<std::string>{"py", "python/3.11-latest", "python/stable", "python/old", "ompi",
                                            "python/mpi-default"});
    CHECK(module_rc_names("module_version(\"3.1\", \"x\")\n", "").empty());  // relative, at a tree's top: no module
    CHECK(module_rc_names(std::string(20000, 'm') + "\nmodule_alias(\"a\",\"b\")", "").size() == 1);
    std::string many;
    for (int i = 0; i < 20; ++i) many += "module_alias(\"a" + std::to_string(i) + "\", \"b\")\n";
    CHECK(module_rc_names(many, "", 5).size() == 5);
}

// The replay property for the module sentences: random module trees (a compiler level included) and random
// scripts (loads, ml, try-load, module use, here-documents); every sentence the user would read is checked
// against an oracle that knows the tree as a set of name/version pairs, and every load that must be told is.
TEST_CASE("module findings: on random trees and scripts, every sentence is true and every certain miss is told") {
    const std::vector<std::string> names = {"python", "gcc", "openmpi", "cmake", "hdf5", "netcdf", "R", "julia"};
    const std::vector<std::string> versions = {"3.11.4", "3.9.18", "12.2.0", "4.1.5", "1.14", "2.0"};
    std::mt19937 g(37);
    auto pick = [&](const std::vector<std::string> &v) { return v[g() % v.size()]; };
    struct Oracle {
        std::map<std::string, std::vector<std::pair<std::string, bool>>> tree;  // name -> (version, behind gcc)
        bool name_anywhere(const std::string &n) const { return tree.count(n) != 0; }
        // Lmod's match: the version itself or a prefix of it ending at a '.'.
        bool version_anywhere(const std::string &n, const std::string &v) const {
            auto it = tree.find(n);
            if (it == tree.end()) return false;
            for (const auto &[have, behind] : it->second)
                if (have == v || have.rfind(v + ".", 0) == 0) return true;
            return false;
        }
        bool has(const std::string &fullname) const {
            auto slash = fullname.find('/');
            if (slash == std::string::npos) return name_anywhere(fullname);
            return version_anywhere(fullname.substr(0, slash), fullname.substr(slash + 1));
        }
    };
    int told = 0, rounds_with_misses = 0;
    for (int round = 0; round < 1500; ++round) {
        Oracle o;
        std::string json = "{";
        for (const auto &n : names) {
            if (g() % 2) continue;
            std::string entries;
            for (int k = 1 + static_cast<int>(g() % 2); k > 0; --k) {
                std::string v = pick(versions);
                bool behind = n != "gcc" && g() % 4 == 0;
                bool dup = false;
                for (const auto &e : o.tree[n]) dup |= e.first == v;
                if (dup) continue;
                o.tree[n].emplace_back(v, behind);
                std::string mpath = behind ? "/m/compiler/gcc/12" : "/m/core";
                entries += std::string(entries.empty() ? "" : ", ") + "\"" + mpath + "/" + n + "/" + v + ".lua\": {\"fullName\": \"" +
                           n + "/" + v + "\", \"mpath\": \"" + mpath + "\", \"Version\": \"" + v + "\"" +
                           (behind ? ", \"parentAA\": [[\"gcc/12.2.0\"]]" : "") + "}";
            }
            json += std::string(json.size() > 1 ? ", " : "") + "\"" + n + "\": {" + entries + "}";
        }
        json += "}";
        ModuleIndex ix = ModuleIndex::parse(json);

        // The script, and for each line what the oracle says must be told about it.
        std::vector<std::string> lines = {"#!/bin/bash", "#SBATCH -n 1"};
        std::map<uint32_t, std::vector<std::string>> must_tell;  // line -> names nowhere in the tree
        bool path_changed = false;
        for (int k = static_cast<int>(g() % 12); k > 0; --k) {
            std::string a = pick(names) + (g() % 2 ? "/" + pick(versions) : ""), b = pick(names);
            switch (g() % 7) {
                case 0:
                case 1: {
                    std::vector<std::string> args = {a};
                    if (g() % 3 == 0) args.push_back(b);
                    lines.push_back("module load " + a + (args.size() > 1 ? " " + b : ""));
                    if (!path_changed)
                        for (const std::string &n : args)
                            if (!o.has(n)) {
                                auto &v = must_tell[static_cast<uint32_t>(lines.size())];
                                if (std::find(v.begin(), v.end(), n) == v.end()) v.push_back(n);
                            }
                    break;
                }
                case 2:
                    lines.push_back("ml " + a);
                    if (!path_changed && !o.has(a)) must_tell[static_cast<uint32_t>(lines.size())].push_back(a);
                    break;
                case 3: lines.push_back("module try-load " + a); break;
                case 4:
                    lines.push_back("module use /home/u/modules");
                    path_changed = true;
                    break;
                case 5:
                    lines.push_back("cat > job2.sh <<EOF");
                    lines.push_back("module load " + a);
                    lines.push_back("EOF");
                    break;
                default: lines.push_back("srun ./a.out " + b); break;
            }
        }
        std::string script;
        for (const auto &l : lines) script += l + "\n";
        INFO(json << "\n" << script);

        std::map<uint32_t, int> sentences_per_line;
        const auto said = script_finding_sentences(script, &ix, JobRequest{});
        for (const std::string &s : said) {
            INFO(s);
            static const std::regex form(
                R"(^line (\d+): '([^']*)': (?:this cluster has no module '([^']+)'(?:; did you mean ([^?]+)\?)?|module '([^']+)' has no version '([^']+)' on this cluster(?:; it has ([^(]+))?) \(`module (?:spider [^`]+|avail)` lists (?:its versions|them|what there is)\)\.$)");
            std::smatch m;
            REQUIRE(std::regex_match(s, m, form));
            const uint32_t line = static_cast<uint32_t>(std::stoul(m[1]));
            REQUIRE(line >= 1);
            REQUIRE(line <= lines.size());
            CHECK(m[2].str() == lines[line - 1]);  // the line as written
            ++sentences_per_line[line];
            if (m[3].matched) {
                const std::string name = m[3];
                CHECK_FALSE(o.name_anywhere(name));
                CHECK(lines[line - 1].find(name) != std::string::npos);
                if (m[4].matched) {  // every suggestion is a name the tree has
                    std::string list = m[4];
                    for (size_t at = 0; at <= list.size();) {  // "a", or "a or b or c"
                        size_t sep = list.find(" or ", at);
                        std::string one = list.substr(at, sep == std::string::npos ? std::string::npos : sep - at);
                        CHECK(o.name_anywhere(one));
                        if (sep == std::string::npos) break;
                        at = sep + 4;
                    }
                }
            } else {
                const std::string name = m[5], version = m[6];
                CHECK(o.name_anywhere(name));
                CHECK_FALSE(o.version_anywhere(name, version));
                CHECK(lines[line - 1].find(name + "/" + version) != std::string::npos);
            }
            ++told;
        }
        // Complete: every load of a name or version the tree lacks anywhere, not after `module use`, not a
        // try-load, not inside a here-document, is told (up to missing_modules' cap of 4 findings).
        size_t expected = 0;
        for (const auto &[line, missing] : must_tell) expected += missing.size();
        if (expected > 0) ++rounds_with_misses;
        if (expected <= 4) {
            CHECK(said.size() == expected);
            for (const auto &[line, missing] : must_tell) CHECK(sentences_per_line[line] == static_cast<int>(missing.size()));
        } else {
            CHECK(said.size() == 4);
        }
    }
    // The generator must exercise the sentences, not pass vacuously.
    CHECK(told > 500);
    CHECK(rounds_with_misses > 300);
}

// ---- the closest-name search (model/script/near_names.h)

namespace {
// Every name measured: what the index must find without measuring them all.
std::vector<std::string> closest_by_scan(const std::vector<std::string> &sorted, std::string_view q) {
    std::vector<std::pair<size_t, std::string>> scored;
    if (q.empty() || q.size() > NearNames::kMaxLength + 2) return {};
    for (const auto &n : sorted) {
        if (n.size() > NearNames::kMaxLength) continue;
        size_t d = name_distance(q, n, near_limit(q));
        if (d <= near_limit(q)) scored.emplace_back(d, n);
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (size_t i = 0; i < scored.size() && i < 3; ++i) out.push_back(scored[i].second);
    return out;
}
}  // namespace

TEST_CASE("closest names: the index finds what measuring every name finds, on random names and near misses") {
    std::mt19937_64 rng(20261129);
    for (int round = 0; round < 40; ++round) {
        std::vector<std::string> names;
        const std::string alphabet = round % 2 ? "abc" : "abcdefghijklmnopqrstuvwxyzABC-_./0123456789";
        size_t count = 20 + rng() % 400;
        for (size_t i = 0; i < count; ++i) {
            std::string n;
            size_t len = 1 + rng() % (round % 3 == 0 ? 45 : 12);
            for (size_t k = 0; k < len; ++k) n += alphabet[rng() % alphabet.size()];
            names.push_back(n);
        }
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
        NearNames near(names);
        for (int q = 0; q < 200; ++q) {
            std::string query = names[rng() % names.size()];
            for (int edits = rng() % 4; edits > 0 && !query.empty(); --edits) {
                size_t at = rng() % query.size();
                switch (rng() % 4) {
                    case 0: query[at] = alphabet[rng() % alphabet.size()]; break;
                    case 1: query.erase(at, 1); break;
                    case 2: query.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
                    default: if (at + 1 < query.size()) std::swap(query[at], query[at + 1]); break;
                }
            }
            if (rng() % 5 == 0) query[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(query.empty() ? 'a' : query[0])));
            INFO("round " << round << " query '" << query << "'");
            CHECK(near.closest(query) == closest_by_scan(names, query));
        }
    }
}

TEST_CASE("closest names: a query's work is bounded by its own length, whatever the index holds") {
    // 10,000 names all within 2 of each other: every query meets them all, and measures at most kMaxCandidates.
    std::vector<std::string> names;
    for (int i = 0; i < 10000; ++i) {
        std::string n = "aaaaaaaa";
        n[i % 8] = static_cast<char>('b' + (i / 8) % 25);
        n[(i / 200) % 8] = static_cast<char>('b' + (i / 5) % 25);
        names.push_back(n + std::to_string(i % 7));
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    NearNames near(names);
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) CHECK(near.closest("aaaaaaaa0").size() == 3);
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 100;
    WARN("closest over a crowd of " << names.size() << " near names: " << us << " us per query");
    // Names past kMaxLength are never suggested; a query past it is not searched.
    NearNames long_names({std::string(50, 'a')});
    CHECK(long_names.closest(std::string(50, 'a')).empty());
    CHECK(near.closest(std::string(43, 'a')).empty());
}

}  // namespace test_module_index
