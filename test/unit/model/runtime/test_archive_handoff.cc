// hand_to_archive: what the archive keeps of a script and its environment, over random requests, is what
// the plain rule says (the script's first kArchiveHead bytes; the environment's whole entries, in order,
// each with its NUL, while they fit kArchiveHead), and the budget turns a request away before any copy.
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "catch.h"
#include "model/archive/script_archive.h"
#include "model/archive/script_archive_writer.h"
#include "model/request/request_caps.h"
#include "model/runtime/archive_handoff.h"
#include "test_support.h"

namespace test_archive_handoff {

using namespace jfp;

namespace {

constexpr size_t kHead = RequestCaps::kArchiveHead;

// The rule, written as plainly as possible: the reference the submit path's copy must equal.
std::string expected_env(const std::vector<const char *> &env) {
    std::string out;
    for (const char *v : env) {
        const size_t n = v ? strnlen(v, kHead) + 1 : 0;
        if (out.size() + n > kHead) break;
        if (v) out.append(v, n - 1).push_back('\0');
    }
    return out;
}

std::string random_text(std::mt19937_64 &rng, size_t n) {
    std::string s(n, ' ');
    for (char &c : s) c = static_cast<char>(1 + rng() % 255);  // any byte but NUL, as normalise() leaves it
    return s;
}

// Entry lengths that cross every edge: none, short, long, the cap itself.
size_t random_length(std::mt19937_64 &rng, bool short_only) {
    if (short_only) return rng() % 120;
    switch (rng() % 16) {
        case 0: return 0;
        case 1: return kHead - 1 - rng() % 3;  // an entry that fits alone, or only just does not
        case 2: return kHead + rng() % 100;    // longer than anything kept
        case 3:
        case 4: return rng() % 8000;
        default: return rng() % 120;
    }
}

// What one random request gives hand_to_archive, and what the archive must then hold.
struct Case {
    std::string script;
    std::vector<std::string> env_text;
    std::vector<const char *> env;
    bool with_env = false;
    std::string want_env;
};

// Fills c in place: c.env points into c.env_text, which a move could relocate.
void random_case(std::mt19937_64 &rng, Case &c) {
    const size_t script_sizes[] = {0, 1, rng() % 4096, kHead - 1, kHead, kHead + 1 + rng() % 20000};
    c.script = random_text(rng, script_sizes[rng() % 6]);
    const bool many = rng() % 3 == 0;  // past the 256 lengths the copy keeps from its measure
    const size_t entries = many ? 200 + rng() % 500 : rng() % 60;
    const bool short_only = many && rng() % 2 == 0;
    c.env_text.reserve(entries);
    for (size_t i = 0; i < entries; ++i) c.env_text.push_back(random_text(rng, random_length(rng, short_only)));
    for (size_t i = 0; i < entries; ++i) c.env.push_back(rng() % 20 == 0 ? nullptr : c.env_text[i].c_str());
    c.with_env = rng() % 5 != 0;
    c.want_env = expected_env(c.env);
}

}  // namespace

TEST_CASE("archive hand-off: over random scripts and environments the archive keeps exactly the rule's bytes") {
    test::TempDir dir;
    std::mt19937_64 rng(50);
    struct Want {
        std::string token, script, env;
        int64_t script_bytes = 0;
        bool env_kept = false;
    };
    std::vector<Want> wants;
    {
        ScriptArchiveWriter w(dir.file("s.db"), 4096, int64_t(1) << 34, nullptr);
        for (int i = 0; i < 160; ++i) {
            Case c;
            random_case(rng, c);
            SubmitRequest req;
            req.uid = 1000 + static_cast<uint32_t>(i % 7);
            req.work_dir = "/scratch/u";
            req.has_script = true;
            req.script = c.script;
            req.env = c.env.empty() ? nullptr : c.env.data();
            req.env_count = c.env.size();
            JobRequest r;
            r.script = c.script;
            r.user = "u" + std::to_string(req.uid);
            r.name = "job" + std::to_string(i);
            r.submit_time = 1767225600 + i;
            Want want{JoinToken::hex(0x5000 + static_cast<uint64_t>(i)).str(), c.script.substr(0, kHead), c.want_env,
                      static_cast<int64_t>(c.script.size()), c.with_env && !c.env.empty()};
            hand_to_archive(w, req, r, JoinToken(want.token), c.with_env, "c1");
            wants.push_back(std::move(want));
        }
        w.flush();
        CHECK(w.counters().archived == wants.size());
        CHECK(w.counters().dropped == 0);
    }
    ScriptArchive a(dir.file("s.db"), ScriptArchive::Access::ReadOnly);
    for (const Want &want : wants) {
        auto got = a.by_token(want.token);
        REQUIRE(got);
        CHECK(a.blob(got->script_hash) == want.script);
        CHECK(got->script_bytes == want.script_bytes);
        CHECK(got->env_hash.empty() == !want.env_kept);
        if (want.env_kept) CHECK(a.blob(got->env_hash) == want.env);
    }
}

TEST_CASE("archive hand-off: a request past the byte budget is dropped and counted; its environment counts") {
    test::TempDir dir;
    std::string script(40000, 's');
    std::vector<std::string> env_text(20, std::string(999, 'e'));
    std::vector<const char *> env;
    for (auto &t : env_text) env.push_back(t.c_str());
    SubmitRequest req;
    req.has_script = true;
    req.script = script;
    req.env = env.data();
    req.env_count = env.size();
    JobRequest r;
    r.script = script;
    // Room for the script and its bookkeeping, not for its 20,000 bytes of environment as well.
    ScriptArchiveWriter w(dir.file("s.db"), 64, 50000, nullptr);
    hand_to_archive(w, req, r, JoinToken::hex(0x100), true, "c1");
    CHECK(w.counters().dropped == 1);
    hand_to_archive(w, req, r, JoinToken::hex(0x101), false, "c1");
    w.flush();
    CHECK(w.counters().archived == 1);
    CHECK(w.counters().dropped == 1);
    ScriptArchive a(dir.file("s.db"), ScriptArchive::Access::ReadOnly);
    CHECK_FALSE(a.by_token("0000000000000100"));
    REQUIRE(a.by_token("0000000000000101"));
}

}  // namespace test_archive_handoff
