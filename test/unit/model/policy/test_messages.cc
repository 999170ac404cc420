// What users read: advice from history, message composition and wrapping, and the SWF reader that
// brings real traces to the replay test.
#include <cstdlib>
#include <random>
#include <sstream>

#include "catch.h"
#include "model/accounting/swf_reader.h"
#include "model/script/script_traits.h"
#include "model/policy/advice.h"
#include "model/policy/explain.h"
#include "model/policy/policy.h"
#include "model/policy/user_message.h"
#include "model/util/text.h"
#include "model/util/time_util.h"

namespace test_messages {

using namespace jfp;

namespace {

JobRecord run(const char *name, Outcome o, int64_t end, double elapsed = 60, double rss = kUnknown) {
    JobRecord j;
    j.user = "amy";
    j.name = name;
    j.outcome = o;
    j.submit = end - 100;
    j.end = end;
    j.elapsed_s = elapsed;
    j.max_rss_mb = rss;
    j.timelimit_min = 30;
    j.req_mem_mb = 1000;
    return j;
}

JobRequest request(const char *name) {
    JobRequest r;
    r.user = "amy";
    r.name = name;
    r.submit_time = *parse_sacct_time("2026-03-01T12:00:00");
    return r;
}

std::vector<std::string> lines_of(const std::string &s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

}  // namespace

TEST_CASE("advice: a first run is told to test, never pointed at a last run") {
    HistoryIndex idx;
    JobRequest r = request("ok.sh");
    std::string a = advice(0, r, idx.lookup(r));
    CHECK(a == "Test it first with a short time limit (for example -t 10) before a long run.");
    // No name at all: the same, and no quoted empty name anywhere.
    JobRequest unnamed = request("");
    idx.add(run("", Outcome::Failed, r.submit_time - 500));
    CHECK(advice(0, unnamed, idx.lookup(unnamed)).find("''") == std::string::npos);
    CHECK(advice(1, unnamed, idx.lookup(unnamed)) == "If it needs longer, ask for more time (-t), or make it checkpoint and resume.");
}

TEST_CASE("advice: a first run already short is not told to ask for a short time limit") {
    HistoryIndex idx;
    JobRequest r = request("ok.sh");
    r.timelimit_min = 1;
    CHECK(advice(0, r, idx.lookup(r)) == "Check its output before you submit it at a larger scale or for longer.");
    r.timelimit_min = 120;
    CHECK(advice(0, r, idx.lookup(r)) == "Test it first with a short time limit (for example -t 10) before a long run.");
}

TEST_CASE("advice: runs that timed out or ran out of memory get that advice whatever class the model guessed") {
    int64_t day = *parse_sacct_time("2026-02-27T08:00:00");
    HistoryIndex idx;
    idx.add(run("longrun", Outcome::Timeout, day));
    idx.add(run("longrun", Outcome::Timeout, day + 3600));
    JobRequest r = request("longrun");
    CHECK(advice(0, r, idx.lookup(r)) ==
          "Your last run of 'longrun' hit its time limit. If it needs longer, ask for more time (-t), or make it checkpoint and resume.");
    idx.add(run("longrun", Outcome::Completed, day + 7200, 42 * 60));
    idx.add(run("longrun", Outcome::Timeout, day + 9000));
    CHECK(advice(0, r, idx.lookup(r)) ==
          "Your last run of 'longrun' hit its time limit. Your longest successful run of 'longrun' took 00:42:00; if it "
          "needs as long, ask for that and a margin (-t 00:55:00).");
    HistoryIndex oom;
    oom.add(run("big", Outcome::OutOfMemory, day, 60, 3000));
    JobRequest b = request("big");
    CHECK(advice(0, b, oom.lookup(b)) ==
          "Your last run of 'big' ran out of memory. Your runs of 'big' used up to 3.0G (MaxRSS) but none completed; it may need more than that (--mem).");
}

TEST_CASE("advice: failures point at the run that failed, with the day to look from") {
    HistoryIndex idx;
    int64_t day = *parse_sacct_time("2026-02-27T08:00:00");
    idx.add(run("wrf", Outcome::Completed, day));
    idx.add(run("wrf", Outcome::Failed, day + 3600));
    JobRequest r = request("wrf");
    CHECK(advice(0, r, idx.lookup(r)) ==
          "Check the error output of your last run of 'wrf' (sacct -X -u $USER --name=wrf -S 2026-02-27 -o "
          "JobID,State,ExitCode,End) and fix the cause first.");
    // A later cancellation: the last run is no longer the failed one.
    idx.add(run("wrf", Outcome::Cancelled, day + 7200));
    CHECK(advice(0, r, idx.lookup(r)).rfind("Check the error output of your last failed run of 'wrf'", 0) == 0);
    // Only completed runs: nothing failed to look at.
    HistoryIndex ok;
    ok.add(run("wrf", Outcome::Completed, day));
    CHECK(advice(0, r, ok.lookup(r)) == "Check what differs from your completed runs of 'wrf' (script, inputs, modules).");
    // A name a shell would need quoting for gets no command to paste.
    HistoryIndex odd;
    odd.add(run("my job's run", Outcome::Failed, day));
    JobRequest q = request("my job's run");
    CHECK(advice(0, q, odd.lookup(q)) == "Check the error output of your last run of 'my job's run' and fix the cause first.");
    // A control character in a name cannot break the message's line.
    odd.add(run("a\nb", Outcome::Failed, day));
    JobRequest nl = request("a\nb");
    CHECK(advice(0, nl, odd.lookup(nl)) == "Check the error output of your last run of 'a\\x0ab' and fix the cause first.");
}

TEST_CASE("advice: TIMEOUT names -t and the longest successful run; OUT_OF_MEMORY names --mem and MaxRSS") {
    HistoryIndex idx;
    int64_t day = *parse_sacct_time("2026-02-27T08:00:00");
    idx.add(run("sim", Outcome::Timeout, day, 30 * 60));
    idx.add(run("sim", Outcome::Completed, day + 10, 42 * 60, 3200));
    idx.add(run("sim", Outcome::Completed, day + 20, 30 * 60, 1000));
    JobRequest r = request("sim");
    CHECK(advice(1, r, idx.lookup(r)) ==
          "Your longest successful run of 'sim' took 00:42:00; if it needs as long, ask for that and a margin (-t 00:55:00).");
    CHECK(advice(2, r, idx.lookup(r)) == "Your completed runs of 'sim' used up to 3.2G (MaxRSS); ask for that and a margin (--mem=4G).");
    // The last run's own failure is said first, whatever the class: a time-out is not told about memory.
    idx.add(run("sim", Outcome::Timeout, day + 30, 30 * 60));
    for (int cls : {0, 2})
        CHECK(advice(cls, r, idx.lookup(r)) ==
              "Your last run of 'sim' hit its time limit. Your longest successful run of 'sim' took 00:42:00; if it needs "
              "as long, ask for that and a margin (-t 00:55:00).");
    // A request twice what every completed run used is not raised to the suggestion's 256M floor.
    HistoryIndex tiny;
    tiny.add(run("small", Outcome::Completed, day, 60, 4));
    JobRequest sm = request("small");
    sm.req_mem_mb = 200;
    CHECK(advice(2, sm, tiny.lookup(sm)) ==
          "Your completed runs of 'small' used up to 4M (MaxRSS), within the 200M it requests: if this run needs more "
          "(larger inputs), ask for more (--mem).");
    // The class agrees: the reason before the advice already said how the last run ended.
    CHECK(advice(1, r, idx.lookup(r)) ==
          "Your longest successful run of 'sim' took 00:42:00; if it needs as long, ask for that and a margin (-t 00:55:00).");
    CHECK(suggest_minutes(42) == 55);
    CHECK(suggest_minutes(1) == 5);
    CHECK(suggest_mem(100) == "256M");
    CHECK(suggest_mem(2000) == "2560M");
    HistoryIndex none;
    CHECK(advice(2, r, none.lookup(r)) == "If it needs more memory, ask for it (--mem or --mem-per-cpu).");
    // MaxRSS of a run killed at its limit is the limit, not the need: only completed runs set --mem.
    HistoryIndex oom;
    oom.add(run("big", Outcome::OutOfMemory, day, 60, 8000));
    oom.add(run("big", Outcome::Completed, day + 10, 60));  // completed, MaxRSS unknown
    JobRequest b = request("big");
    // A run completed without a MaxRSS: "none completed" would be false.
    CHECK(advice(2, b, oom.lookup(b)) ==
          "Your runs of 'big' used up to 7.9G (MaxRSS); its completed runs recorded no memory use; it may need more than that (--mem).");
    // A request above every high-water mark: more memory is not what the runs point to.
    JobRequest whole = b;
    whole.req_mem_mb = 64000;
    CHECK(advice(2, whole, oom.lookup(whole)) == "Your runs of 'big' used up to 7.9G (MaxRSS), within the 62.5G it requests.");
    CHECK(!known(suggest(2, b, oom.lookup(b)).mem_mb));
}

TEST_CASE("advice: a likely TIMEOUT whose script shows no checkpointing is pointed at checkpoint_url") {
    HistoryIndex idx;
    int64_t day = *parse_sacct_time("2026-02-27T08:00:00");
    idx.add(run("sim", Outcome::Completed, day, 42 * 60));
    JobRequest r = request("sim");
    r.script_known = true;
    r.script = "#!/bin/bash\n#SBATCH -t 30\nsrun ./sim\n";
    const std::string url = "https://hpc.example.org/checkpointing";
    std::string a = advice(1, r, idx.lookup(r), url);
    CHECK(a == "Your longest successful run of 'sim' took 00:42:00; if it needs as long, ask for that and a margin (-t 00:55:00). "
               "Its script shows no checkpoint/restart: https://hpc.example.org/checkpointing tells how to make it resume after a "
               "time limit instead of starting over.");
    CHECK(advice(1, r, idx.lookup(r)).find("checkpoint/restart") == std::string::npos);  // no URL configured: nothing
    for (const char *s : {"dmtcp_launch ./sim\n", "#SBATCH --signal=B:USR1@300\n", "trap 'save_state' USR1\n",
                          "./sim --restart-from latest\n", "criu dump -t $PID\n", "scontrol requeue $SLURM_JOB_ID\n"}) {
        JobRequest c = r;
        std::string script = std::string("#!/bin/bash\n") + s;
        c.script = script;
        CHECK(shows_checkpointing(script));
        CHECK(advice(1, c, idx.lookup(c), url).find("checkpoint/restart") == std::string::npos);
    }
    CHECK_FALSE(shows_checkpointing("#!/bin/bash\ntrap 'rm -f tmp' EXIT\nsrun ./sim\n"));
    JobRequest signalled = r;  // sbatch --signal=USR1@30 on the command line, not in the script
    signalled.submit_line = "sbatch --signal=USR1@30 -t 30 sim.sh";
    CHECK(advice(1, signalled, idx.lookup(signalled), url).find("checkpoint/restart") == std::string::npos);
    JobRequest batchless = r;
    batchless.script_known = false;  // salloc/srun: no script to judge
    CHECK(advice(1, batchless, idx.lookup(batchless), url).find("checkpoint/restart") == std::string::npos);
}

TEST_CASE("suggestion: what history supports beyond the request, in the annotation's parseable form") {
    HistoryIndex idx;
    int64_t day = *parse_sacct_time("2026-02-27T08:00:00");
    idx.add(run("sim", Outcome::Completed, day, 42 * 60, 3200));
    JobRequest r = request("sim");
    r.timelimit_min = 30;
    r.req_mem_mb = 2000;
    Suggestion t = suggest(1, r, idx.lookup(r)), m = suggest(2, r, idx.lookup(r));
    CHECK(t.time_min == 55);
    CHECK(!known(t.mem_mb));
    CHECK(m.mem_mb == 4096);
    CHECK(suggestion_fields(t) == ",time=00:55:00");
    CHECK(suggestion_fields(m) == ",mem=4G");
    r.timelimit_min = 60;  // already asks for more: nothing to suggest
    CHECK(!known(suggest(1, r, idx.lookup(r)).time_min));
    CHECK(suggestion_fields(suggest(0, r, idx.lookup(r))).empty());
    std::string a = format_annotation(0.91f, 1, "m1", false, ",time=00:55:00");
    CHECK(a == "jfp:p=0.910,class=TIMEOUT,model=m1,time=00:55:00");
    auto parsed = parse_annotation("my run | " + a);
    REQUIRE(parsed);
    CHECK(parsed->time == "00:55:00");
    CHECK(parsed->mem.empty());
    CHECK(parsed->model == "m1");
    CHECK(parse_annotation(format_annotation(0.5f, 2, "m2", true, ",mem=4G"))->mem == "4G");
}

TEST_CASE("user_message: warn, reject, override; interactive text wrapped for a terminal of 100 columns") {
    MessageParts m;
    m.p_fail = 0.874;
    m.top_class = 1;
    m.why = "your last 3 runs of 'sim' failed";
    m.what = "If it needs longer, ask for more time (-t), or make it checkpoint and resume.";
    CHECK(user_message(m) ==
          "jfp: warning: this job will probably fail (p=0.87, most likely TIMEOUT): your last 3 runs of 'sim' failed. "
          "If it needs longer, ask for more time (-t), or make it checkpoint and resume.");
    m.action = Action::Reject;
    CHECK(user_message(m).find("jfp: job rejected: it will probably fail (p=0.87, most likely TIMEOUT)") == 0);
    CHECK(user_message(m).find("To submit it anyway, add 'jfp:override' to --comment.") != std::string::npos);
    m.allow_override = false;
    CHECK(user_message(m).find("If you think this is wrong, contact your admins.") != std::string::npos);
    // "probably" only from the p shown as 0.50 up: a threshold of 0.1 warns at p=0.17, which may fail.
    m.p_fail = 0.17f;
    CHECK(user_message(m).find("jfp: job rejected: it may fail (p=0.17, ") == 0);
    m.p_fail = 0.4951f;
    CHECK(user_message(m).find("jfp: job rejected: it will probably fail (p=0.50, ") == 0);
    m.p_fail = 0.874f;
    m.action = Action::Warn;
    m.override_used = true;
    CHECK(user_message(m).find("Submitted anyway because of 'jfp:override'; this is logged.") != std::string::npos);

    m.interactive = true;
    std::string text = user_message(m);
    auto lines = lines_of(text);
    REQUIRE(lines.size() >= 3);
    CHECK(lines[0].size() + kFirstLinePrefix <= kTerminalWidth);
    for (size_t i = 1; i < lines.size(); ++i) {
        CHECK(lines[i].size() + kLinePrefix <= kTerminalWidth);
        CHECK(lines[i].rfind("  ", 0) == 0);
    }
    // Nothing lost or reordered: the words are the unwrapped message's.
    m.interactive = false;
    std::string flat;
    for (const auto &l : lines) flat += (flat.empty() ? "" : " ") + std::string(trim(l));
    CHECK(flat == user_message(m));
}

TEST_CASE("wrap_text keeps a word longer than a line whole") {
    std::string w(150, 'x');
    std::string out = wrap_text("a " + w + " b", 56, 84);
    CHECK(out == "a\n  " + w + "\n  b");
}

TEST_CASE("quote_for_message: UTF-8 names as typed; control characters and broken bytes escaped; no split character") {
    CHECK(quote_for_message("n\xc3\xa4me") == "'n\xc3\xa4me'");
    CHECK(quote_for_message("a\tb\x7f") == "'a\\x09b\\x7f'");
    // A lone continuation byte, a truncated sequence, an overlong '/', a UTF-16 surrogate, past U+10FFFF.
    CHECK(quote_for_message("\x80x") == "'\\x80x'");
    CHECK(quote_for_message("x\xc3") == "'x\\xc3'");
    CHECK(quote_for_message("\xc0\xaf") == "'\\xc0\\xaf'");
    CHECK(quote_for_message("\xed\xa0\x80") == "'\\xed\\xa0\\x80'");
    CHECK(quote_for_message("\xf4\x90\x80\x80") == "'\\xf4\\x90\\x80\\x80'");
    CHECK(quote_for_message("\xf0\x9f\x98\x80") == "'\xf0\x9f\x98\x80'");  // U+1F600 stays whole
    // Cut at 4 bytes: the 2-byte character at bytes 3-4 fits, the next does not, and is not split.
    CHECK(quote_for_message("abc\xc3\xa4\xc3\xa4", 5) == "'abc\xc3\xa4...'");
    CHECK(quote_for_message("abcd\xc3\xa4", 5) == "'abcd...'");
    CHECK(quote_for_message("abcde", 5) == "'abcde'");
}

TEST_CASE("quote_log_field: quoted text cannot close its quotes or pass for jfp's escapes (property)") {
    CHECK(quote_log_field("x' action=allow name='y") == "'x\\x27 action=allow name=\\x27y'");
    CHECK(quote_log_field("a\\x1b") == "'a\\x5cx1b'");
    CHECK(quote_for_message("my job's run") == "'my job's run'");  // a sentence keeps its apostrophe
    // Random bytes, quotes and backslashes over-represented: the result is one quoted field (a quote only at
    // each end), and undoing \xNN / \uNNNN gives back the input's prefix that was shown.
    std::mt19937 rng(20261126);
    const std::string alphabet = "'\\ax=\x1b\n\x80\xc3\xa4";
    for (int n = 0; n < 20000; ++n) {
        std::string in(rng() % 40, ' ');
        for (char &c : in) c = rng() % 3 ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng() % 256);
        std::string q = quote_log_field(in, 1000);
        REQUIRE(q.size() >= 2);
        REQUIRE(q.front() == '\'');
        REQUIRE(q.back() == '\'');
        std::string body = q.substr(1, q.size() - 2);
        REQUIRE(body.find('\'') == std::string::npos);
        std::string back;
        for (size_t i = 0; i < body.size(); ++i) {
            if (body[i] == '\\' && i + 3 < body.size() + 0 && body[i + 1] == 'x') {
                back += static_cast<char>(std::stoi(body.substr(i + 2, 2), nullptr, 16));
                i += 3;
            } else if (body[i] == '\\' && body[i + 1] == 'u') {
                uint32_t cp = std::stoul(body.substr(i + 2, 4), nullptr, 16);  // 2-byte or 3-byte UTF-8
                if (cp < 0x800) {
                    back += static_cast<char>(0xc0 | (cp >> 6));
                } else {
                    back += static_cast<char>(0xe0 | (cp >> 12));
                    back += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
                }
                back += static_cast<char>(0x80 | (cp & 0x3f));
                i += 5;
            } else {
                REQUIRE(body[i] != '\\');  // every backslash starts an escape jfp wrote
                back += body[i];
            }
        }
        REQUIRE(back == in);
    }
}

namespace {
const char *kSwf =
    "; Version: 2.2\n"
    "; UnixStartTime: 835823160\n"
    "; TimeZone: -18000\n"
    "; TimeZoneString: America/New_York\n"
    "; Queue:  1 DSI\n"
    "; Partition:  2  parallel\n"
    ";\n"
    "    1        0 588530    937  306 142.00    -1   -1  35100    -1  1  97  -1 307  1 -1 -1 -1\n"
    "    2   164472 356587     75   17   2.00  2048   16    300  1024  0  81   5 195 -1  2 1 -1\n"
    "    3       -1     10     10    1  1.00    -1    1     60    -1  1  81   5 195  1 -1 -1 -1\n"
    "    4   164480     -1     -1   -1    -1    -1    4    600    -1  5  81   5 195  1 -1 -1 -1\n"
    "    5   164490     10     20 eight 1 -1 1 60 -1 1 81 5 195 1 -1 -1 -1\n"
    "    6   164500     10\n";
}

TEST_CASE("SWF reader: header, field mapping, outcomes never in the request, bad rows reported by line") {
    std::vector<JobRecord> jobs;
    SwfReader reader({}, [&](JobRecord &&j) { jobs.push_back(std::move(j)); });
    reader.read_text(kSwf, "t.swf");
    const auto &rep = reader.report();
    CHECK(rep.job_rows == 3);
    CHECK(rep.bad == 3);
    REQUIRE(rep.bad_lines.size() == 3);
    CHECK(rep.bad_lines[0].line == 10);
    CHECK_THAT(rep.bad_lines[0].reason, HasText("no submit time"));
    CHECK(rep.bad_lines[1].line == 12);
    CHECK_THAT(rep.bad_lines[1].reason, HasText("field 5 'eight' is not a number"));
    CHECK(rep.bad_lines[2].line == 13);
    CHECK_THAT(rep.bad_lines[2].reason, HasText("expected 18 fields, found 3"));
    REQUIRE(jobs.size() == 3);

    const JobRecord &a = jobs[0];
    CHECK(a.job_key == "1");
    CHECK(a.user == "user97");
    CHECK(a.name == "app307");
    CHECK(a.partition == "DSI");  // no partition: the queue's name from the header
    CHECK(a.account.empty());
    CHECK(format_sacct_time(a.submit) == "1996-06-26T17:06:00");  // EDT, as the log's own StartTime says
    CHECK(a.outcome == Outcome::Completed);
    CHECK(a.req_cpus == 306);  // no requested processors: the allocation
    CHECK(a.timelimit_min == 585);
    CHECK(a.elapsed_s == 937);
    CHECK(a.end - a.submit == 588530 + 937);

    const JobRecord &b = jobs[1];
    CHECK(b.outcome == Outcome::Failed);
    CHECK(b.partition == "parallel");
    CHECK(b.account == "group5");
    CHECK(b.req_cpus == 16);
    CHECK(b.req_mem_mb == 16.0);       // 1024 KB per processor x 16
    CHECK(b.max_rss_mb == 2048.0 * 17 / 1024);  // used memory is an outcome, per allocated processor
    CHECK(b.has_dependency == 1);

    const JobRecord &c = jobs[2];  // cancelled while queued: no start, so it never enters history
    CHECK(c.outcome == Outcome::Cancelled);
    CHECK_FALSE(c.ended());
}

TEST_CASE("SWF reader: values out of range are bad lines, not overflowing time arithmetic (found by fuzzing)") {
    std::vector<JobRecord> jobs;
    SwfReader reader({}, [&](JobRecord &&j) { jobs.push_back(std::move(j)); });
    reader.read_text("; UnixStartTime: 835823160\n; TimeZone: 0\n"
                     "1 0 10 5.55556e+49 1 1 -1 1 60 -1 1 1 1 1 1 -1 -1 -1\n"
                     "2 0 10 inf 1 1 -1 1 60 -1 1 1 1 1 1 -1 -1 -1\n"
                     "3 0 10 20 1 1 -1 1 60 -1 1 1 1 1 1 -1 -1 -1\n"
                     "4 0 10 20 1 1 -1 1 60 -1 666666661048 1 1 1 1 -1 -1 -1\n",
                     "t.swf");
    CHECK(reader.report().bad == 2);
    REQUIRE(reader.report().bad_lines.size() == 2);
    CHECK_THAT(reader.report().bad_lines[0].reason, HasText("field 4 '5.55556e+49' is out of range"));
    REQUIRE(jobs.size() == 2);
    CHECK(jobs[0].job_key == "3");
    CHECK(jobs[1].outcome == Outcome::Other);  // a status no SWF defines (found by fuzzing: it overflowed an int)
    SwfReader huge({}, [](JobRecord &&) {});
    CHECK_THROWS_WITH(huge.read_text("; UnixStartTime: 9223372036854775807\n1 0 1 1 1 1 -1 1 60 -1 1 1 1 1 1 -1 -1 -1\n", "t.swf"),
                      HasText("UnixStartTime"));
}

TEST_CASE("SWF reader: time zones the database lacks fall back to the offset, or are refused with what to do") {
    std::vector<JobRecord> jobs;
    std::string text = kSwf;
    auto at = text.find("America/New_York");
    text.replace(at, 16, "Nowhere/Atlantis");
    SwfReader r1({}, [&](JobRecord &&j) { jobs.push_back(std::move(j)); });
    r1.read_text(text, "t.swf");
    REQUIRE(r1.notes().size() == 1);
    CHECK_THAT(r1.notes()[0], HasText("fixed TimeZone offset"));
    CHECK(format_sacct_time(jobs[0].submit) == "1996-06-26T16:06:00");  // EST all year: no daylight saving

    text.replace(text.find("; TimeZone: -18000\n"), 19, "");
    SwfReader r2({}, [](JobRecord &&) {});
    CHECK_THROWS_WITH(r2.read_text(text, "t.swf"), HasText("install tzdata"));

    SwfReader r3({}, [](JobRecord &&) {});
    CHECK_THROWS_WITH(r3.read_text("    1 0 1 1 1 1 -1 1 60 -1 1 1 1 1 1 -1 -1 -1\n", "x.swf"), HasText("UnixStartTime"));
    CHECK(std::getenv("TZ") == nullptr);  // the reader's zone does not leak into the process
}

TEST_CASE("csv_field: quoted when needed; a user's name that starts like a spreadsheet formula stays text") {
    CHECK(csv_field("plain") == "plain");
    CHECK(csv_field("a,b") == "\"a,b\"");
    CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
    CHECK(csv_field("two\nlines") == "\"two\nlines\"");
    CHECK(csv_field("=HYPERLINK(\"http://x\")") == "\"'=HYPERLINK(\"\"http://x\"\")\"");
    CHECK(csv_field("+1") == "'+1");
    CHECK(csv_field("@SUM(A1)") == "'@SUM(A1)");
    CHECK(csv_field("") == "");
}

TEST_CASE("annotation: what the script shows round-trips after the suggestion") {
    std::string a = format_annotation(0.42f, -1, "m1", true, ",mem=4G,script=ignored_sbatch+missing_module");
    CHECK(a == "jfp:p=0.420,model=m1,mem=4G,script=ignored_sbatch+missing_module,override");
    auto p = parse_annotation("mine " + a);
    REQUIRE(p);
    CHECK(p->script == "ignored_sbatch+missing_module");
    CHECK(p->mem == "4G");
    CHECK(p->override_used);
    CHECK(parse_annotation("jfp:p=0.100,model=m1")->script.empty());
}

}  // namespace test_messages
