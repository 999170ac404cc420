#include "model/policy/advice.h"

#include <algorithm>
#include <cmath>

#include "model/script/script_traits.h"
#include "model/jobs/outcome.h"
#include "model/policy/explain.h"
#include "model/scoring/features.h"
#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

namespace {

std::string quoted(const std::string &s) { return quote_for_message(s, 40); }

// Names a shell command can carry between single quotes as they are.
bool shell_safe(const std::string &s) {
    if (s.empty() || s.size() > 40) return false;
    for (unsigned char c : s)
        if (!(std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == '+' || c == '@' || c == ':')) return false;
    return true;
}

std::string mem_text(double mb) {
    auto m = static_cast<long>(mb);
    return m % 1024 == 0 ? std::to_string(m / 1024) + "G" : std::to_string(m) + "M";
}

}  // namespace

double suggest_minutes(double longest_ok_minutes) { return std::ceil(longest_ok_minutes * 1.25 / 5.0) * 5.0; }

double suggest_mem_mb(double max_rss_mb) {
    double mb = std::ceil(max_rss_mb * 1.25 / 256.0) * 256;
    return mb < 256 ? 256 : mb;
}

std::string suggest_mem(double max_rss_mb) { return mem_text(suggest_mem_mb(max_rss_mb)); }

Suggestion suggest(int top_class, const JobRequest &r, const HistoryView &h) {
    Suggestion s;
    const HistoryStats *un = r.name.empty() ? nullptr : h.user_name;
    if (!un) return s;
    if (top_class == 1 && un->max_ok_elapsed_s > 0) {
        double t = suggest_minutes(un->max_ok_elapsed_s / 60.0);
        if (!(known(r.timelimit_min) && r.timelimit_min >= t)) s.time_min = t;
    }
    if (top_class == 2 && un->max_ok_rss_mb > 0) {
        double m = suggest_mem_mb(un->max_ok_rss_mb);
        if (!(known(r.req_mem_mb) && r.req_mem_mb >= m)) s.mem_mb = m;
    }
    return s;
}

std::string suggestion_fields(const Suggestion &s) {
    std::string out;
    if (known(s.time_min)) out += ",time=" + format_minutes(s.time_min);
    if (known(s.mem_mb)) out += ",mem=" + mem_text(s.mem_mb);
    return out;
}

namespace {

std::string time_advice(const JobRequest &r, const HistoryStats *un, const std::string &name, const std::string &checkpoint_url) {
    std::string out;
    if (un && un->max_ok_elapsed_s > 0) {
        const double longest = un->max_ok_elapsed_s / 60.0, margin = suggest_minutes(longest);
        out = "Your longest successful run of " + name + " took " + format_seconds(un->max_ok_elapsed_s);
        // Never advice to ask for less than the job already does.
        if (known(r.timelimit_min) && r.timelimit_min >= margin)
            out += ", within the " + format_minutes(r.timelimit_min) +
                   " it asks for: if this run may take longer (larger inputs, a slower node), ask for more (-t), or "
                   "make it checkpoint and resume.";
        else
            out += "; if it needs as long, ask for that and a margin (-t " + format_minutes(margin) + ").";
    } else {
        out = "If it needs longer, ask for more time (-t), or make it checkpoint and resume.";
    }
    // Only what the script shows: the scan is of the script as submitted.
    // A --signal given on the command line is a checkpoint sign as much as one in the script.
    if (!checkpoint_url.empty() && r.script_known && !shows_checkpointing(r.script) &&
        r.submit_line.find("--signal") == std::string_view::npos)
        out += " Its script shows no checkpoint/restart: " + checkpoint_url +
               " tells how to make it resume after a time limit instead of starting over.";
    return out;
}

std::string memory_advice(const JobRequest &r, const HistoryStats *un, const std::string &name) {
    if (un && un->max_ok_rss_mb > 0) {
        std::string out = "Your completed runs of " + name + " used up to " + format_mb_used(un->max_ok_rss_mb) + " (MaxRSS)";
        // Never advice to ask for less than the job already does, nor for more when what it asks is twice every
        // completed run's (the suggestion's 256M floor alone would otherwise raise a 200M request that used 4M).
        const double enough = std::min(suggest_mem_mb(un->max_ok_rss_mb), 2.0 * un->max_ok_rss_mb);
        if (known(r.req_mem_mb) && r.req_mem_mb >= enough)
            return out + ", within the " + format_mb(r.req_mem_mb) +
                   " it requests: if this run needs more (larger inputs), ask for more (--mem).";
        return out + "; ask for that and a margin (--mem=" + suggest_mem(un->max_ok_rss_mb) + ").";
    }
    if (un && un->max_rss_mb > 0) {
        std::string out = "Your runs of " + name + " used up to " + format_mb_used(un->max_rss_mb) + " (MaxRSS)";
        // A request above every high-water mark seen: more memory is not what the runs point to.
        if (known(r.req_mem_mb) && r.req_mem_mb > un->max_rss_mb)
            return out + ", within the " + format_mb(r.req_mem_mb) + " it requests.";
        // "none completed" only when none did: completed runs may have recorded no MaxRSS.
        const bool completed = un->n_labeled > un->n_fail;
        return out + (completed ? "; its completed runs recorded no memory use" : " but none completed") +
               "; it may need more than that (--mem).";
    }
    return "If it needs more memory, ask for it (--mem or --mem-per-cpu).";
}

std::string check_error_output(const JobRequest &r, const HistoryView &h, const HistoryStats *un, const std::string &name,
                               const char *which) {
    std::string out = std::string("Check the error output of ") + which + " of " + name;
    if (un->last_fail_end > 0 && h.name_from_script)  // its runs had other names: the day's jobs, with their names
        out += " (sacct -X -u $USER -S " + format_sacct_time(un->last_fail_end).substr(0, 10) + " -o JobID,JobName,State,ExitCode,End)";
    else if (shell_safe(r.name) && un->last_fail_end > 0)
        out += " (sacct -X -u $USER --name=" + r.name /* jfp-user-text-ok: shell_safe() */ + " -S " + format_sacct_time(un->last_fail_end).substr(0, 10) +
               " -o JobID,State,ExitCode,End)";
    return out + " and fix the cause first.";
}

}  // namespace

std::string advice(int top_class, const JobRequest &r, const HistoryView &h, const std::string &checkpoint_url) {
    const bool named = !r.name.empty();
    const HistoryStats *un = named ? h.user_name : nullptr;
    const std::string name = h.name_from_script ? std::string("this script") : quoted(r.name);
    // The last run's own way of failing says more than the class model's guess: it is said first, whatever
    // the class (a young site's class model may call every job OUT_OF_MEMORY).
    // (Where the class agrees, the reason before this already said how the last run ended.)
    if (un && un->n_fail > 0 && is_failure(static_cast<Outcome>(un->last))) {
        if (un->last == static_cast<uint8_t>(Outcome::Timeout) && top_class != 1)
            return "Your last run of " + name + " hit its time limit. " + time_advice(r, un, name, checkpoint_url);
        if (un->last == static_cast<uint8_t>(Outcome::OutOfMemory) && top_class != 2)
            return "Your last run of " + name + " ran out of memory. " + memory_advice(r, un, name);
        if (un->last == static_cast<uint8_t>(Outcome::Failed) && (top_class == 1 || top_class == 2))
            return check_error_output(r, h, un, name, "your last run");
    }
    switch (top_class) {
        case 1: return time_advice(r, un, name, checkpoint_url);
        case 2: return memory_advice(r, un, name);
        case 3: return "Node failures are rarely the job's fault; if it keeps happening, tell your admins.";
        default: break;
    }
    if (!un || un->n_labeled == 0) {
        // A first run already asking for little time needs no advice to ask for little time.
        if (known(r.timelimit_min) && r.timelimit_min <= 10)
            return "Check its output before you submit it at a larger scale or for longer.";
        return "Test it first with a short time limit (for example -t 10) before a long run.";
    }
    if (un->n_fail == 0)
        return "Check what differs from your completed runs of " + name + " (script, inputs, modules).";
    // The last run's own way of ending says more than the class model's guess.
    if (un->last == static_cast<uint8_t>(Outcome::Timeout))
        return "Your last run of " + name + " hit its time limit. " + time_advice(r, un, name, checkpoint_url);
    if (un->last == static_cast<uint8_t>(Outcome::OutOfMemory))
        return "Your last run of " + name + " ran out of memory. " + memory_advice(r, un, name);
    return check_error_output(r, h, un, name, is_failure(static_cast<Outcome>(un->last)) ? "your last run" : "your last failed run");
}

}  // namespace jfp
