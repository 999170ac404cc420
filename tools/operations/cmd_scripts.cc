// jfp scripts: the job-script archive for support staff. From a job id to the exact script it ran, the
// user's other runs, and what changed since the last run that completed (tools/scripts/).
#include <cstdio>
#include <stdexcept>

#include "model/util/time_util.h"
#include "tools/operations/operations.h"
#include "tools/options/site_conf.h"
#include "tools/scripts/archive_paths.h"
#include "tools/scripts/archive_prune.h"
#include "tools/scripts/archive_stats.h"
#include "tools/scripts/script_diff.h"
#include "tools/scripts/script_find.h"
#include "tools/scripts/script_show.h"

namespace jfp {

namespace {

struct ScriptsArgs {
    ArchivePaths paths;
    std::string conf;
    ShowRequest show;
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

std::string conf_of(const ScriptsArgs &a) { return a.conf.empty() ? default_conf_path() : a.conf; }

void write_all(const std::string &bytes) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0)
        throw std::runtime_error("cannot write to standard output");
}

void run_show(ScriptsArgs &a) {
    if (a.show.job.empty() == a.show.file.empty())
        throw std::runtime_error("jfp scripts show: give a job id, or --file with a script's path (not both)");
    if (!a.show.file.empty() && (a.show.env || a.show.by_token))
        throw std::runtime_error("jfp scripts show: --env and --token need a job, not --file");
    if (a.show.identity && a.show.env) throw std::runtime_error("jfp scripts show: --identity is of the script, not of --env");
    if (a.show.file.empty()) fill_archive_paths(a.paths, conf_of(a));
    const ShownScript shown = show_script(a.paths, a.show);
    std::fputs(shown.header.c_str(), stderr);
    // Exact bytes: into a file they are the script that ran; on a terminal the CLI's TerminalGuard shows them.
    write_all(shown.bytes);
}

void run_find(ScriptsArgs &a) {
    fill_archive_paths(a.paths, conf_of(a));
    FindRequest q;
    q.user = a.user;
    q.name = a.name;
    if (!a.since.empty()) q.since = parse_time_option(a.since, "--since");
    if (!a.until.empty()) q.until = parse_time_option(a.until, "--until");
    q.state = a.state;
    q.limit = a.limit;
    const std::vector<LocatedScript> rows = find_scripts(a.paths, q);
    if (a.json) {
        std::fputs(found_scripts_json(rows).c_str(), stdout);
        return;
    }
    std::fputs(found_scripts_table(rows).c_str(), stdout);
    if (rows.empty()) std::fprintf(stderr, "jfp scripts find: no archived script matches\n");
}

void run_diff(ScriptsArgs &a) {
    if (a.last_ok == !a.other.empty())
        throw std::runtime_error("give a second job id, or --last-ok for the user's last completed run of the same name");
    fill_archive_paths(a.paths, conf_of(a));
    DiffRequest d;
    d.job = a.show.job;
    d.other = a.other;
    d.last_ok = a.last_ok;
    d.by_token = a.show.by_token;
    d.env = a.show.env;
    write_all(diff_scripts(a.paths, d));
}

void run_stats(ScriptsArgs &a) {
    fill_archive_paths(a.paths, conf_of(a));
    std::fputs(archive_stats_report(a.paths.archive, a.json).c_str(), stdout);
}

void run_prune(ScriptsArgs &a) {
    const int64_t age = parse_age_seconds(a.older_than, "--older-than");
    // A site that keeps no scripts has nothing to prune: the shipped jfp-prune.service runs this anyway.
    if (a.paths.archive.empty() && conf_keeps_no_scripts(conf_of(a))) {
        std::printf("jfp scripts prune: %s sets no script_archive: nothing to prune\n", conf_of(a).c_str());
        return;
    }
    fill_archive_paths(a.paths, conf_of(a));
    ArchivePruneRequest r;
    r.archive = a.paths.archive;
    r.before = naive_local_now() - age;
    r.dry_run = a.dry_run;
    r.vacuum = a.vacuum;
    prune_archive(r, [](const std::string &line) { std::printf("%s\n", line.c_str()); });
}

void add_paths(Command *c, ScriptsArgs *a) {
    c->add_option("--archive", a->paths.archive, "the script archive (script_archive in jfp.conf)");
    c->add_option("--db", a->paths.db, "the history store, for job ids and outcomes (store in jfp.conf)");
    c->add_option("--conf", a->conf, "jfp.conf to read both from when not given (default: beside $SLURM_CONF, else /etc/slurm/jfp.conf)");
}

}  // namespace

void add_scripts_command(Command &app) {
    auto a = std::make_shared<ScriptsArgs>();
    auto *c = app.add_subcommand("scripts", "The job-script archive: the exact script of a job, its runs, what changed");
    c->require_subcommand(1);
    c->footer("Scripts may hold secrets: the archive is the SlurmUser's, mode 0600; run these as root or SlurmUser.");

    auto *show = c->add_subcommand("show", "Print a job's script byte for byte (a header line goes to stderr)");
    show->add_option("job", a->show.job, "job id (or a join token with --token)");
    show->add_option("--file", a->show.file, "a job script file instead of an archived job's (no archive needed)");
    show->add_flag("--identity", a->show.identity, "print the commands the script fingerprint covers, as bash reads them "
                                                     "(two scripts with the same text are one script to jfp)");
    show->add_flag("--token", a->show.by_token, "the argument is a join token (slurmctld's log names it for rejected jobs)");
    show->add_flag("--env", a->show.env, "print the job's submit environment instead, a NAME=value line each");
    show->add_flag("-q,--quiet", a->show.quiet, "no header lines on stderr (the job, and what its script shows)");
    show->add_option("--modules-index", a->paths.modules_index, "the module index to check its module loads against "
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
    diff->add_option("job", a->show.job, "job id")->required();
    diff->add_option("other", a->other, "the job id to compare with");
    diff->add_flag("--last-ok", a->last_ok, "compare with the user's last completed run of the same job name");
    diff->add_flag("--token", a->show.by_token, "the arguments are join tokens");
    diff->add_flag("--env", a->show.env, "compare the submit environments instead");
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
