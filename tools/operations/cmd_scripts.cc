// jfp scripts: the job-script archive for support staff. From a job id to the exact script it ran, the
// user's other runs, and what changed since the last run that completed.
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "model/archive/script_archive.h"
#include "model/store/history_store.h"
#include "model/jobs/outcome.h"
#include "model/policy/config.h"
#include "model/policy/script_findings.h"
#include "model/scoring/features.h"
#include "model/util/text.h"
#include "model/util/time_util.h"
#include "tools/operations/operations.h"
#include "tools/options/module_index_file.h"
#include "tools/options/site_conf.h"
#include "tools/ingest/slurm_queue.h"
#include "tools/process/subprocess.h"

namespace jfp {

namespace {

struct ScriptsArgs {
    std::string archive, db, conf, squeue = "squeue";
    std::string modules_index;  // show: the index to check the script's module loads against
    // show
    std::string job;
    bool by_token = false, env = false, quiet = false;
    // find
    std::string user, name, since, until, state;
    size_t limit = 50;
    bool json = false;
    // diff
    std::string other;
    bool last_ok = false;
    // prune
    std::string older_than;
    bool dry_run = false, vacuum = false;
};

// --archive and --db, or else script_archive and store from jfp.conf.
void resolve_paths(ScriptsArgs &a) {
    if (!a.archive.empty() && !a.db.empty() && !a.modules_index.empty()) return;
    std::string conf = a.conf.empty() ? default_conf_path() : a.conf;
    ConfigParseResult r = load_config_file(conf);
    if (!r.ok()) {
        if (a.archive.empty())
            throw std::runtime_error("no --archive given, and " + r.error_text() +
                                     "; give --archive PATH (script_archive in jfp.conf) or --conf FILE");
        return;  // the store is optional
    }
    if (a.archive.empty()) {
        if (r.config.script_archive_path.empty())
            throw std::runtime_error(conf + " sets no script_archive: the plugin keeps no scripts (see jfp.conf(5)); "
                                            "set it, or give --archive PATH");
        a.archive = r.config.script_archive_path;
    }
    if (a.db.empty() && ::access(r.config.store_path.c_str(), R_OK) == 0) a.db = r.config.store_path;
    if (a.modules_index.empty()) a.modules_index = r.config.modules_index;
}


std::unique_ptr<HistoryStore> open_store(const ScriptsArgs &a, bool required, const char *why) {
    if (a.db.empty()) {
        if (required) throw std::runtime_error(std::string(why) + " needs the history store: give --db (store in jfp.conf)");
        return nullptr;
    }
    return std::make_unique<HistoryStore>(a.db, HistoryStore::Access::ReadOnly);
}

// One archived submission with what the store knows of the job (nothing until sacct is ingested).
struct Found {
    ArchivedSubmission sub;
    std::optional<JobRecord> job;
    std::string job_id;  // from the store or slurmctld's queue; empty when unknown
};

std::string state_of(const Found &f) {
    if (f.job) return f.job->state.empty() ? outcome_name(f.job->outcome) : f.job->state;
    return f.job_id.empty() ? "-" : "queued/running";
}

std::string describe(const Found &f) {
    return "job " + printable(f.job_id.empty() ? "?" : f.job_id) + " (" + printable(f.sub.user) + ", " +
           quote_for_message(f.sub.name, 200) + ", submitted " + format_sacct_time(f.sub.submitted) + ", " +
           printable(state_of(f)) + ")";
}


// A job id (or, with --token, a join token) to its archived submission: the store's jobs first (newest
// of that id), then slurmctld's queue for jobs not ingested yet.
Found locate(const ScriptsArgs &a, const ScriptArchive &archive, const HistoryStore *store, const std::string &job) {
    Found f;
    if (a.by_token) {
        auto s = archive.by_token(job);
        if (!s) throw std::runtime_error("no script with token " + job + " in " + archive.path());
        f.sub = *s;
        if (store) f.job = store->job_with_token(job);
        if (f.job) f.job_id = f.job->job_id;
        return f;
    }
    bool in_store_untokened = false;
    if (store) {
        for (const JobRecord &j : store->jobs_with_id(job)) {
            if (j.jfp_token.empty()) {
                in_store_untokened = true;
                continue;
            }
            if (auto s = archive.by_token(j.jfp_token)) {
                f.sub = *s;
                f.job = j;
                f.job_id = j.job_id;
                return f;
            }
            throw std::runtime_error("job " + job + " (token " + j.jfp_token + ") has no script in " + archive.path() +
                                     ": it was submitted before script_archive was set, was not a batch job, was "
                                     "pruned, or the archive dropped it (slurmctld's log says when it drops)");
        }
    }
    std::vector<std::pair<std::string, std::string>> queued;
    try {
        queued = queue_tokens(a.squeue, job);
    } catch (const std::exception &) {
    }
    for (const auto &[id, token] : queued) {
        if (id != job) continue;
        if (auto s = archive.by_token(token)) {
            f.sub = *s;
            f.job_id = id;
            return f;
        }
    }
    if (in_store_untokened)
        throw std::runtime_error("job " + job + " carries no jfp token: it was submitted while the plugin was off "
                                 "(or before jfp), so no script was archived");
    throw std::runtime_error("job " + job + " is unknown: not in the history store" +
                             (a.db.empty() ? std::string(" (none given: --db)") : " " + a.db) +
                             " and not in slurmctld's queue; ingest its accounting record first (jfp ingest "
                             "--from-sacct), or look it up with --token TOKEN from slurmctld's log");
}

// Environments are stored as /proc/PID/environ is: NAME=value entries ended by NUL. Shown a line each.
std::string env_lines(std::string env) {
    for (char &c : env)
        if (c == '\0') c = '\n';
    return env;
}

void write_all(const std::string &bytes) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0)
        throw std::runtime_error("cannot write to standard output");
}

// What the script itself shows, as the plugin would tell its user: ignored #SBATCH lines (with what the
// job got instead, when the store has the job) and modules the site's index does not have.
void print_findings(const ScriptsArgs &a, const Found &f, const std::string &script) {
    std::string why_not;
    std::unique_ptr<ModuleIndex> index =
        optional_module_index(a.modules_index, "modules_index in jfp.conf, or --modules-index", why_not);
    const std::vector<std::string> found =
        script_finding_sentences(script, index.get(), f.job ? request_from_record(*f.job) : JobRequest{});
    for (const auto &line : found) std::fprintf(stderr, "# finding: %s\n", printable(line, 2000).c_str());
    if (found.empty())
        std::fprintf(stderr, "# findings: none (no #SBATCH line sbatch ignored%s)\n", index ? ", no module the index lacks" : "");
    if (!index) std::fprintf(stderr, "# module loads not checked: %s\n", printable(why_not, 2000).c_str());
}

void run_show(ScriptsArgs &a) {
    resolve_paths(a);
    ScriptArchive archive(a.archive, ScriptArchive::Access::ReadOnly);
    auto store = open_store(a, false, "");
    Found f = locate(a, archive, store.get(), a.job);
    if (a.env && f.sub.env_hash.empty())
        throw std::runtime_error(describe(f) + ": no environment kept (script_archive_env = yes in jfp.conf keeps it)");
    std::string bytes = archive.blob(a.env ? f.sub.env_hash : f.sub.script_hash);
    if (!a.quiet) {
        std::fprintf(stderr, "# %s: %s, %zu bytes, sha256 %s, token %s\n", describe(f).c_str(),
                     a.env ? "environment" : "script", bytes.size(),
                     (a.env ? f.sub.env_hash : f.sub.script_hash).c_str(), f.sub.token.c_str());
        if (!a.env && static_cast<int64_t>(bytes.size()) < f.sub.script_bytes)
            std::fprintf(stderr, "# only its first %zu of %lld bytes are kept here (the archive keeps 64 KiB of each script); "
                                 "the whole script of a job that ran is slurmdbd's with AccountingStoreFlags=job_script: "
                                 "sacct -j %s --batch-script\n",
                         bytes.size(), static_cast<long long>(f.sub.script_bytes),
                         printable(f.job_id.empty() ? "JOBID" : f.job_id).c_str());
        if (!a.env) print_findings(a, f, bytes);
    }
    // Exact bytes: into a file they are the script that ran; on a terminal the CLI's TerminalGuard shows them.
    write_all(a.env ? env_lines(bytes) : bytes);
}

void run_find(ScriptsArgs &a) {
    resolve_paths(a);
    ScriptArchive archive(a.archive, ScriptArchive::Access::ReadOnly);
    auto store = open_store(a, !a.state.empty(), "--state");
    ArchiveQuery q;
    q.user = a.user;
    q.name = a.name;
    if (!a.since.empty()) q.since = parse_time_option(a.since, "--since");
    if (!a.until.empty()) q.until = parse_time_option(a.until, "--until");
    // With a state filter, rows are filtered after the join: read them all, stop at the limit.
    if (a.state.empty()) q.limit = a.limit;
    std::vector<Found> rows;
    // Jobs not ingested yet: their ids from slurmctld's queue (as `jfp scripts show ID` finds them), read
    // once, when a row needs it.
    std::optional<std::unordered_map<std::string, std::string>> queued;  // token -> job id
    auto queued_id = [&](const std::string &token) -> std::string {
        if (!queued) {
            queued.emplace();
            try {
                for (auto &[id, t] : queue_tokens(a.squeue)) (*queued)[t] = id;
            } catch (const std::exception &) {  // no squeue here (an archive copied elsewhere): ids stay unknown
            }
        }
        auto it = queued->find(token);
        return it == queued->end() ? std::string() : it->second;
    };
    for (auto &s : archive.find(q)) {
        Found f;
        f.sub = std::move(s);
        if (store) f.job = store->job_with_token(f.sub.token);
        if (f.job) f.job_id = f.job->job_id;
        else if (a.state.empty()) f.job_id = queued_id(f.sub.token);
        if (!a.state.empty() && (!f.job || (f.job->state != a.state && outcome_name(f.job->outcome) != a.state))) continue;
        rows.push_back(std::move(f));
        if (a.limit && rows.size() >= a.limit) break;
    }
    if (a.json) {
        auto arr = nlohmann::json::array();
        for (const auto &f : rows)
            arr.push_back({{"job_id", f.job_id.empty() ? nlohmann::json() : nlohmann::json(f.job_id)},
                           {"token", f.sub.token},
                           {"cluster", f.sub.cluster},
                           {"submitted", format_sacct_time(f.sub.submitted)},
                           {"user", f.sub.user},
                           {"name", f.sub.name},
                           {"work_dir", f.sub.work_dir},
                           {"state", f.job ? nlohmann::json(state_of(f)) : nlohmann::json()},
                           {"script_sha256", f.sub.script_hash},
                           {"script_bytes", f.sub.script_bytes},
                           {"env_kept", !f.sub.env_hash.empty()}});
        // ASCII only: a terminal shows \uXXXX for what a user wrote, never a control it would obey.
        std::printf("%s\n", arr.dump(2, ' ', true, nlohmann::json::error_handler_t::replace).c_str());
        return;
    }
    std::printf("%-14s %-19s %-12s %-24s %-14s %9s  %s\n", "JOBID", "SUBMITTED", "USER", "NAME", "STATE", "BYTES", "SCRIPT");
    for (const auto &f : rows)
        std::printf("%-14s %-19s %-12s %-24s %-14s %9lld  %s\n", f.job_id.empty() ? "-" : printable(f.job_id).c_str(),
                    format_sacct_time(f.sub.submitted).c_str(), printable(f.sub.user).c_str(), printable(f.sub.name).c_str(),
                    printable(state_of(f)).c_str(), static_cast<long long>(f.sub.script_bytes),
                    printable(f.sub.script_hash.substr(0, 12)).c_str());
    if (rows.empty()) std::fprintf(stderr, "jfp scripts find: no archived script matches\n");
}

// The user's last completed run of the same job name, submitted before this one, with an archived script.
Found last_ok(const ScriptArchive &archive, const HistoryStore &store, const Found &failed) {
    int completed = 0;
    for (const JobRecord &j : store.tokened_runs(failed.sub.user, failed.sub.name, failed.sub.submitted)) {
        if (j.outcome != Outcome::Completed) continue;
        ++completed;
        if (auto s = archive.by_token(j.jfp_token)) {
            Found f;
            f.sub = *s;
            f.job = j;
            f.job_id = j.job_id;
            return f;
        }
    }
    throw std::runtime_error("no completed run of " + quote_for_message(failed.sub.name, 200) + " by " + printable(failed.sub.user) + " before " +
                             describe(failed) + " has an archived script (" + std::to_string(completed) +
                             " completed runs with a jfp token in the store, none archived)");
}

std::string temp_file(const std::string &bytes) {
    char tmpl[] = "/tmp/jfp-scripts.XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) throw std::runtime_error("cannot create a temporary file in /tmp");
    ::close(fd);
    std::ofstream out(tmpl, std::ios::binary);
    out << bytes;
    if (!out) throw std::runtime_error(std::string("cannot write ") + tmpl);
    return tmpl;
}

void run_diff(ScriptsArgs &a) {
    if (a.last_ok == !a.other.empty())
        throw std::runtime_error("give a second job id, or --last-ok for the user's last completed run of the same name");
    resolve_paths(a);
    ScriptArchive archive(a.archive, ScriptArchive::Access::ReadOnly);
    auto store = open_store(a, a.last_ok, "--last-ok");
    Found x = locate(a, archive, store.get(), a.job);
    Found y = a.last_ok ? last_ok(archive, *store, x) : locate(a, archive, store.get(), a.other);
    // Older first: the diff reads as what changed on the way to the newer run.
    if (y.sub.submitted < x.sub.submitted) std::swap(x, y);
    auto content = [&](const Found &f) {
        if (!a.env) return archive.blob(f.sub.script_hash);
        if (f.sub.env_hash.empty()) throw std::runtime_error(describe(f) + ": no environment kept");
        return env_lines(archive.blob(f.sub.env_hash));
    };
    std::string bx = content(x), by = content(y);
    if (bx == by) {
        std::printf("the %s of %s and %s are identical (sha256 %s)\n", a.env ? "environments" : "scripts",
                    describe(x).c_str(), describe(y).c_str(), (a.env ? x.sub.env_hash : x.sub.script_hash).c_str());
        return;
    }
    std::string fx = temp_file(bx), fy = temp_file(by);
    SubprocessOptions opt;
    opt.ok_status = {0, 1};  // 1: the files differ
    opt.hint = "is diffutils installed?";
    SubprocessResult r;
    try {
        r = run_program({"diff", "-u", "-a", "--label", describe(x), "--label", describe(y), fx, fy}, opt);
    } catch (...) {
        ::unlink(fx.c_str());
        ::unlink(fy.c_str());
        throw;
    }
    ::unlink(fx.c_str());
    ::unlink(fy.c_str());
    write_all(r.out);
}

std::string human_bytes(uint64_t b) {
    char buf[32];
    if (b >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(b) / (1ull << 30));
    else if (b >= (1ull << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1ull << 20));
    else if (b >= 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b) / 1024);
    else std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(b));
    return buf;
}

double ratio(uint64_t a, uint64_t b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

void run_stats(ScriptsArgs &a) {
    resolve_paths(a);
    ScriptArchive archive(a.archive, ScriptArchive::Access::ReadOnly);
    ArchiveStats s = archive.stats();
    if (a.json) {
        nlohmann::json j = {{"submissions", s.submissions},
                            {"unique_scripts", s.scripts},
                            {"with_environment", s.with_env},
                            {"script_bytes_submitted", s.script_bytes},
                            {"unique_script_bytes", s.unique_script_bytes},
                            {"blob_bytes", s.unique_bytes},
                            {"stored_bytes", s.stored_bytes},
                            {"file_bytes", s.file_bytes},
                            {"dedup_ratio", ratio(s.script_bytes, s.unique_script_bytes)},
                            {"compression_ratio", ratio(s.unique_bytes, s.stored_bytes)},
                            {"first", s.first ? nlohmann::json(format_sacct_time(s.first)) : nlohmann::json()},
                            {"last", s.last ? nlohmann::json(format_sacct_time(s.last)) : nlohmann::json()}};
        std::printf("%s\n", j.dump(2).c_str());
        return;
    }
    std::printf("script archive %s\n", archive.path().c_str());
    std::printf("  submissions            %llu (%llu with their environment)\n", static_cast<unsigned long long>(s.submissions),
                static_cast<unsigned long long>(s.with_env));
    if (s.submissions)
        std::printf("  submitted              %s .. %s\n", format_sacct_time(s.first).c_str(), format_sacct_time(s.last).c_str());
    std::printf("  unique scripts         %llu\n", static_cast<unsigned long long>(s.scripts));
    std::printf("  script bytes submitted %s; unique %s: dedup %.1fx\n", human_bytes(s.script_bytes).c_str(),
                human_bytes(s.unique_script_bytes).c_str(), ratio(s.script_bytes, s.unique_script_bytes));
    std::printf("  stored (zstd)          %s of %s unique content (scripts and environments): %.1fx\n",
                human_bytes(s.stored_bytes).c_str(), human_bytes(s.unique_bytes).c_str(), ratio(s.unique_bytes, s.stored_bytes));
    std::printf("  file on disk           %s (with its WAL)\n", human_bytes(s.file_bytes).c_str());
}

void run_prune(ScriptsArgs &a) {
    int64_t age = parse_age_seconds(a.older_than, "--older-than");
    if (a.archive.empty()) {
        // A site that keeps no scripts has nothing to prune: the shipped jfp-prune.service runs this anyway.
        std::string conf = a.conf.empty() ? default_conf_path() : a.conf;
        ConfigParseResult r = load_config_file(conf);
        if (r.ok() && r.config.script_archive_path.empty()) {
            std::printf("jfp scripts prune: %s sets no script_archive: nothing to prune\n", conf.c_str());
            return;
        }
    }
    resolve_paths(a);
    int64_t before = naive_local_now() - age;
    if (a.dry_run) {
        ScriptArchive archive(a.archive, ScriptArchive::Access::ReadOnly);
        ArchiveQuery q;
        q.until = before;
        std::printf("jfp scripts prune: would remove %zu submissions made before %s (and the scripts only they use)\n",
                    archive.find(q).size(), format_sacct_time(before).c_str());
        return;
    }
    ScriptArchive archive(a.archive, ScriptArchive::Access::ReadWrite);
    PruneResult r = archive.prune(before);
    std::printf("jfp scripts prune: removed %llu submissions made before %s and %llu stored scripts or environments "
                "nothing references any more\n",
                static_cast<unsigned long long>(r.submissions), format_sacct_time(before).c_str(),
                static_cast<unsigned long long>(r.blobs));
    if (a.vacuum) {
        archive.vacuum();
        std::printf("jfp scripts prune: vacuumed; the file is now %s\n", human_bytes(archive.stats().file_bytes).c_str());
    } else if (r.blobs) {
        std::printf("jfp scripts prune: SQLite reuses the freed pages; --vacuum gives them back to the file system\n");
    }
}

void add_paths(Command *c, ScriptsArgs *a) {
    c->add_option("--archive", a->archive, "the script archive (script_archive in jfp.conf)");
    c->add_option("--db", a->db, "the history store, for job ids and outcomes (store in jfp.conf)");
    c->add_option("--conf", a->conf, "jfp.conf to read both from when not given (default: beside $SLURM_CONF, else /etc/slurm/jfp.conf)");
}

}  // namespace

void add_scripts_command(Command &app) {
    auto a = std::make_shared<ScriptsArgs>();
    auto *c = app.add_subcommand("scripts", "The job-script archive: the exact script of a job, its runs, what changed");
    c->require_subcommand(1);
    c->footer("Scripts may hold secrets: the archive is the SlurmUser's, mode 0600; run these as root or SlurmUser.");

    auto *show = c->add_subcommand("show", "Print a job's script byte for byte (a header line goes to stderr)");
    show->add_option("job", a->job, "job id (or a join token with --token)")->required();
    show->add_flag("--token", a->by_token, "the argument is a join token (slurmctld's log names it for rejected jobs)");
    show->add_flag("--env", a->env, "print the job's submit environment instead, a NAME=value line each");
    show->add_flag("-q,--quiet", a->quiet, "no header lines on stderr (the job, and what its script shows)");
    show->add_option("--modules-index", a->modules_index, "the module index to check its module loads against "
                                                          "(default: modules_index in jfp.conf)");
    add_paths(show, a.get());
    show->callback([a] { run_show(*a); });

    auto *find = c->add_subcommand("find", "List archived submissions, newest first, with their job ids and states");
    find->add_option("--user", a->user, "only this user");
    find->add_option("--name", a->name, "only this job name");
    find->add_option("--since", a->since, "submitted at or after (2026-11-01 or 2026-11-01T08:00:00)");
    find->add_option("--until", a->until, "submitted before");
    find->add_option("--state", a->state, "only jobs that ended in this state (FAILED, TIMEOUT, OUT_OF_MEMORY, COMPLETED...)");
    find->add_option("--limit", a->limit, "at most this many rows (0: all)")->capture_default_str();
    find->add_flag("--json", a->json, "print a JSON array");
    add_paths(find, a.get());
    find->callback([a] { run_find(*a); });

    auto *diff = c->add_subcommand("diff", "What changed between two jobs' scripts (unified diff, older run first)");
    diff->add_option("job", a->job, "job id")->required();
    diff->add_option("other", a->other, "the job id to compare with");
    diff->add_flag("--last-ok", a->last_ok, "compare with the user's last completed run of the same job name");
    diff->add_flag("--token", a->by_token, "the arguments are join tokens");
    diff->add_flag("--env", a->env, "compare the submit environments instead");
    add_paths(diff, a.get());
    diff->callback([a] { run_diff(*a); });

    auto *stats = c->add_subcommand("stats", "Submissions, unique scripts, bytes, dedup and compression");
    stats->add_flag("--json", a->json, "print one JSON object");
    add_paths(stats, a.get());
    stats->callback([a] { run_stats(*a); });

    auto *prune = c->add_subcommand("prune", "Retention: remove old submissions and the scripts nothing else uses");
    prune->add_option("--older-than", a->older_than, "age: 90d, 12w, 36h or a number of days")->required();
    prune->add_flag("--dry-run", a->dry_run, "only count");
    prune->add_flag("--vacuum", a->vacuum, "then give the freed space back to the file system (rewrites the file)");
    add_paths(prune, a.get());
    prune->callback([a] { run_prune(*a); });
}

}  // namespace jfp
