// A search for the submission that costs jfp the most time (issue 48): every field a user controls, a
// 10,000-name module index, scripts up to max_script_size. Candidates are drawn from families meant to
// defeat each cap (module lines of every kind, near-miss names, slashes, #SBATCH after commands,
// here-documents, huge lines, array lists, environments, comments full of tokens), then the slowest are
// mutated and crossed for as long as the search runs (JFP_WORST_CASE_SECONDS, 3 s in the test command;
// docs/performance.md records a longer run). The bound: no input costs more than 1 ms of Engine::evaluate.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "catch.h"
#include "engine_site.h"
#include "model/request/request_caps.h"
#include "model/util/log.h"

namespace test_submit_worst_case {

using namespace jfp;
using namespace jfp::test;

namespace {

using Clock = std::chrono::steady_clock;

std::string random_word(std::mt19937_64 &rng, size_t lo, size_t hi, const char *alphabet = "abcdefghijklmnopqrstuvwxyz") {
    std::string s;
    size_t n = lo + rng() % (hi - lo + 1), a = std::char_traits<char>::length(alphabet);
    for (size_t i = 0; i < n; ++i) s += alphabet[rng() % a];
    return s;
}

// 10,000 module names: short and long, shared prefixes (near misses for many), a few with slashes.
std::string module_index_json(std::mt19937_64 &rng, std::vector<std::string> &names) {
    std::string j = "{";
    for (int i = 0; i < 10000; ++i) {
        std::string n;
        switch (i % 5) {
            case 0: n = random_word(rng, 2, 6); break;
            case 1: n = "py-" + random_word(rng, 4, 14); break;
            case 2: n = "aaaa" + random_word(rng, 1, 3, "ab"); break;  // a crowd within 2 of each other
            case 3: n = "mpi/" + random_word(rng, 3, 10); break;
            default: n = random_word(rng, 20, 40); break;
        }
        names.push_back(n);
        j += (i ? ",\"" : "\"") + n + "\": {\"/m/" + n + "/1.0.lua\": {\"fullName\": \"" + n + "/1.0\"}}";
    }
    return j + "}";
}

struct Candidate {
    std::string name, comment, script, submit_line, dependency, array_inx, work_dir, tres;
    std::vector<std::string> env;
    double cpus = 1, mem = 1000, time = 60;
    double cost_us = 0;
    uint32_t uid = 4242;
    std::string family;
};

std::string near_miss(std::mt19937_64 &rng, const std::vector<std::string> &names) {
    std::string n = names[rng() % names.size()];
    if (n.empty()) return "x";
    size_t at = rng() % n.size();
    switch (rng() % 4) {
        case 0: n[at] = static_cast<char>('a' + rng() % 26); break;
        case 1: n.erase(at, 1); break;
        case 2: n.insert(at, 1, static_cast<char>('a' + rng() % 26)); break;
        default: if (at + 1 < n.size()) std::swap(n[at], n[at + 1]); break;
    }
    return n;
}

std::string module_script(std::mt19937_64 &rng, const std::vector<std::string> &names) {
    static const char *kinds[] = {"module load ", "module try-load ", "ml ", "module add ", "module swap a "};
    std::string s = "#!/bin/bash\n#SBATCH -n 1\n";
    if (rng() % 2) s += "module use /home/u/mods\n";
    int lines = 1 + rng() % 64;
    for (int i = 0; i < lines; ++i) {
        s += kinds[rng() % 5];
        int words = 1 + rng() % 8;
        for (int w = 0; w < words; ++w) {
            std::string n;
            switch (rng() % 5) {
                case 0: n = near_miss(rng, names); break;
                case 1: n = random_word(rng, 30, 42); break;
                case 2: n = std::string(60, 'a') + "/" + std::string(100, '/'); break;
                case 3: n = "aaaa" + random_word(rng, 1, 4, "ab"); break;
                default: n = names[rng() % names.size()] + "/9.9"; break;
            }
            s += n + " ";
        }
        s += "\n";
    }
    return s + "srun ./a.out\n";
}

std::string directive_script(std::mt19937_64 &rng) {
    std::string s = "#!/bin/bash\necho start\n";
    int n = 1 + rng() % 4000;
    for (int i = 0; i < n; ++i) s += (rng() % 2 ? "#SBATCH --mem=" : "   #SBATCH -t ") + std::to_string(rng() % 100000) + "\n";
    return s;
}

std::string big_script(std::mt19937_64 &rng, size_t max_size) {
    std::string s;
    switch (rng() % 4) {
        case 0: s = "#!/bin/bash\n" + std::string(max_size - 20, 'x'); break;  // one huge line
        case 1:
            s = "#!/bin/bash\n";
            while (s.size() < max_size - 64) s += "module load " + random_word(rng, 1, 40) + "\n";
            break;
        case 2:
            s = "#!/bin/bash\ncat <<EOF\n";
            while (s.size() < max_size - 64) s += "#SBATCH --mem=1\n";
            s += "EOF\n";
            break;
        default:
            s.resize(max_size - 1);
            for (auto &c : s) c = static_cast<char>(rng() % 256 ? rng() % 256 : 1);
            break;
    }
    return s;
}

Candidate draw(std::mt19937_64 &rng, const std::vector<std::string> &names) {
    Candidate c;
    c.name = "job";
    c.script = "#!/bin/bash\nsrun ./a.out\n";
    switch (rng() % 9) {
        case 0: c.family = "module lines"; c.script = module_script(rng, names); break;
        case 1: c.family = "ignored #SBATCH"; c.script = directive_script(rng); break;
        case 2: c.family = "module lines, 16 KiB"; while (c.script.size() < 16384) c.script += module_script(rng, names); break;
        case 3: c.family = "long name and comment"; c.name = random_word(rng, 900, 1100, "ab0_.-\xc3\xa9 ");
                c.comment = ""; while (c.comment.size() < 1000) c.comment += "jfp:override jfp:p=0.1 "; break;
        case 4: c.family = "array list";
                for (int i = 0; i < 800; ++i) c.array_inx += std::to_string(rng() % 1000) + (rng() % 2 ? "-999:3," : ",");
                break;
        case 5: c.family = "environment";
                for (int i = 0; i < 16384; ++i) c.env.push_back("V" + std::to_string(i) + "=" + std::string(rng() % 64, 'v'));
                break;
        case 6: c.family = "sizes"; c.cpus = 1e9; c.mem = 1e12; c.time = 1e9; c.tres = "gres/gpu:" + std::to_string(rng()); break;
        case 7: c.family = "max-size script"; c.script = big_script(rng, RequestCaps::kScriptDefault); break;
        default: c.family = "paths"; c.work_dir = std::string(4096, '/'); c.submit_line = std::string(4096, 'x');
                 c.dependency = std::string(1024, ':'); break;
    }
    return c;
}

// One field of b into a (a crossing), or one field of a redrawn.
Candidate mutate(const Candidate &a, const Candidate &b, std::mt19937_64 &rng, const std::vector<std::string> &names) {
    Candidate c = a;
    switch (rng() % 6) {
        case 0: c.script = b.script; break;
        case 1: c.name = b.name; c.comment = b.comment; break;
        case 2: c.array_inx = b.array_inx; c.env = b.env; break;
        case 3: c.script = c.script.substr(0, std::min<size_t>(c.script.size(), 16384)) + module_script(rng, names); break;
        case 4: c.work_dir = b.work_dir; c.submit_line = b.submit_line; c.tres = b.tres; c.cpus = b.cpus; break;
        default: c.script = module_script(rng, names) + c.script; break;
    }
    if (c.script.size() > RequestCaps::kScriptDefault) c.script.resize(RequestCaps::kScriptDefault);
    // The families the candidate mixes, each once: "module lines + paths".
    c.family = a.family;
    for (size_t at = 0; at <= b.family.size();) {
        size_t end = std::min(b.family.find(" + ", at), b.family.size());
        std::string f = b.family.substr(at, end - at);
        if (("+ " + c.family + " +").find("+ " + f + " +") == std::string::npos) c.family += " + " + f;
        at = end + 3;
    }
    return c;
}

double time_us(Engine &e, const Candidate &c, uint32_t uid) {
    std::vector<const char *> env;
    for (const auto &v : c.env) env.push_back(v.c_str());
    SubmitRequest r = request("job");
    r.uid = uid;
    r.name = c.name;
    r.comment = c.comment;
    r.script = c.script;
    r.submit_line = c.submit_line;
    r.dependency = c.dependency;
    r.array_inx = c.array_inx;
    r.work_dir = c.work_dir;
    r.tres_per_node = c.tres;
    r.env = env.data();
    r.env_count = env.size();
    r.min_cpus = c.cpus;
    r.mem_mb = c.mem;
    r.time_limit_min = c.time;
    double best = 1e18;
    for (int i = 0; i < 3; ++i) {  // the least of three: the input's cost, not the machine's noise
        auto t0 = Clock::now();
        SubmitOutcome out = e.evaluate(r);
        double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
        best = std::min(best, us);
        (void)out;
    }
    return best;
}

void quiet(LogLevel, const char *) {}

bool sanitized() {
#if defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
    return true;
#endif
#endif
    return false;
}

}  // namespace

TEST_CASE("worst case: no submission costs jfp more than 1 ms, over a search of every field a user controls") {
    std::mt19937_64 rng(property_seed());
    set_log_sink(quiet);  // one line per submission: thousands here
    struct Restore { ~Restore() { set_log_sink(nullptr); } } restore;
    Site site;
    std::vector<std::string> names;
    const std::string index = site.dir.file("modules.json");
    write_file(index, module_index_json(rng, names));
    // The writers on, the environment archived too: the submit path's copies for them are jfp's time.
    site.config("mode = warn\nthreshold = 0.01\nmodules_index = " + index +
                "\nmissing_modules = warn\nignored_directives = warn\nfeature_log = " + site.dir.file("features.db") +
                "\nscript_archive = " + site.dir.file("scripts.db") + "\nscript_archive_env = yes\n");
    EngineOptions options = site.options();
    options.background = true;
    Engine e(options);
    for (int i = 0; i < 2400 && e.model_id().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    REQUIRE_FALSE(e.model_id().empty());
    {  // the index is in force: a near miss of one of its names is told
        SubmitRequest r = request("job");
        std::string script = "#!/bin/bash\nmodule load " + names[0] + "q/1.0\n";
        r.script = script;
        REQUIRE(e.evaluate(r).user_message.find("this cluster has no module") != std::string::npos);
    }

    const char *env_secs = std::getenv("JFP_WORST_CASE_SECONDS");
    const double seconds = env_secs ? std::atof(env_secs) : 3.0;
    std::vector<Candidate> pool;
    for (int i = 0; i < 24; ++i) pool.push_back(draw(rng, names));
    for (auto &c : pool) c.cost_us = time_us(e, c, c.uid);
    size_t tried = pool.size();
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < deadline) {
        std::sort(pool.begin(), pool.end(), [](const Candidate &a, const Candidate &b) { return a.cost_us > b.cost_us; });
        pool.resize(12);  // the slowest survive; fresh draws keep the search wide
        for (int i = 0; i < 6; ++i) {
            Candidate c = rng() % 3 ? mutate(pool[rng() % pool.size()], pool[rng() % pool.size()], rng, names) : draw(rng, names);
            c.uid = 4242 + static_cast<uint32_t>(rng() % 50);
            c.cost_us = time_us(e, c, c.uid);
            pool.push_back(std::move(c));
            ++tried;
        }
    }
    std::sort(pool.begin(), pool.end(), [](const Candidate &a, const Candidate &b) { return a.cost_us > b.cost_us; });
    // Measured again: the worst must be the input's cost, not one slow moment of the machine.
    // The slowest few measured again, as they were submitted (the same user): the bound is on the worst of
    // them, each its least of 15 runs.
    double worst = 0;
    size_t worst_at = 0;
    for (size_t k = 0; k < 4 && k < pool.size(); ++k) {
        double t = 1e18;
        for (int i = 0; i < 5; ++i) t = std::min(t, time_us(e, pool[k], pool[k].uid));
        if (t > worst) worst = t, worst_at = k;
    }
    WARN("worst of " << tried << " submissions searched in " << seconds << " s: " << worst << " us measured again ("
                     << pool[worst_at].cost_us << " us in the search; " << pool[worst_at].family << ", script "
                     << pool[worst_at].script.size() << " bytes)");
    if (sanitized()) return;  // ASan/UBSan time is not jfp's: the search ran for its faults alone
    CHECK(worst <= 1000.0);
}

}  // namespace test_submit_worst_case
