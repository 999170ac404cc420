// jfp ingest: sacct exports into the history store (the work: tools/ingest/ingest_run.h).
#include <memory>
#include <stdexcept>

#include "model/sacct/sacct_layout.h"
#include "tools/commands/commands.h"
#include "tools/ingest/ingest_run.h"
#include "tools/options/site_conf.h"

namespace jfp {

namespace {

struct IngestArgs : IngestOptions {
    ConfDefaults conf;  // --conf: the paths not given
};

}  // namespace

void add_ingest_command(Command &app) {
    auto a = std::make_shared<IngestArgs>();
    auto *c = app.add_subcommand("ingest", "Read sacct exports (files or - for stdin) into the history store");
    c->add_option("--db", a->db, "history store (SQLite file; created when missing)");
    c->add_option("--format", a->format,
                  "comma-separated sacct field names, for exports without a header (sacct --noheader --format=...); "
                  "or 'swf' for Parallel Workloads Archive logs (Standard Workload Format)");
    c->add_option("--delimiter", a->delimiter, "field delimiter: '|' (default), ';', tab, \\x1f, or a string (sacct takes one): a random "
                  "one per export is what no job name can hold");
    c->add_option("--cluster", a->cluster, "cluster name for exports without a Cluster column")->capture_default_str();
    c->add_option("--show-errors", a->show_errors, "bad lines to print (all are kept in the store)")->capture_default_str();
    c->add_flag("--strict", a->strict, "exit with status 2 when any line was bad");
    c->add_flag("--trusted-export", a->trusted_export,
                "read a --parsable2 export whose delimiter a user could type (fewer than 16 random hex digits) and a "
                "column users write (JobName, SubmitLine, Comment, WorkDir, Container, WCKey): refused without it, "
                "since such text can forge other users' rows there");
    c->add_flag("-q,--quiet", a->quiet, "print only errors");
    c->add_flag("--from-sacct", a->from_sacct,
                "run sacct from the store's latest end time (minus --overlap) and ingest its output");
    c->add_flag("--follow", a->follow, "like --from-sacct, again every --interval seconds, until stopped");
    c->add_option("--interval", a->interval, "seconds between --follow runs")->capture_default_str()->range(1.0, 86400.0);
    c->add_option("--overlap", a->overlap, "seconds before the latest end time to start sacct from")->capture_default_str();
    c->add_option("--sacct", a->sacct, "the sacct command")->capture_default_str();
    c->add_flag("!--no-queue", a->queue,
                "with --from-sacct: do not record queued jobs' tokens from squeue --json (jfp scripts show then "
                "finds only jobs the store already knows)");
    c->add_option("--squeue", a->squeue, "the squeue command")->capture_default_str();
    c->add_flag("!--no-snapshot", a->snapshot,
                "do not write the history snapshot (STORE.snapshot) slurmctld starts from in seconds; without it, it "
                "replays the store (half a minute at 10M jobs)");
    c->add_option("--snapshot-interval", a->snapshot_interval, "with --follow: seconds between snapshot refreshes")
        ->capture_default_str()
        ->range(0.0, 86400.0);
    c->add_option("--sacct-arg", a->sacct_args, "extra argument for sacct (repeatable), e.g. --sacct-arg=--clusters=c1");
    c->add_option("files", a->files, "sacct exports or SWF logs; FILE.gz is read through gzip -dc; - or nothing reads stdin");
    c->footer("Export with: sacct --allusers --json --starttime ... > FILE.json (read as JSON when it starts with '{').\n"
              "In sacct's text output (--parsable2) a job name a user wrote with newlines and '|' can read as jobs of "
              "other users, and no reader can tell: such an export is refused unless its delimiter is a string no "
              "user can type (sacct --delimiter=\"$d\", jfp ingest --delimiter=\"$d\") or you add --trusted-export. "
              "Recommended columns: --format=" + std::string(recommended_sacct_format()) +
              ". --from-sacct reads names from sacct --json itself.");
    c->add_option("--feature-log", a->feature_log,
                  "the plugin's feature log, for each job's script fingerprint (default: jfp.conf's feature_log)");
    a->conf.add_option(c);
    c->callback([a] {
        a->conf.fill(a->db, ConfPath::Store, "--db", true);
        a->conf.fill(a->feature_log, ConfPath::FeatureLog, "--feature-log", false);
        IngestOptions o = *a;
        try {
            o.delimiter = parse_delimiter(a->delimiter);
        } catch (const UsageError &e) {
            throw std::runtime_error(e.what());  // reported as a failed ingest (status 1), not a usage error
        }
        if (int status = run_ingest(o)) g_exit_status = status;
    });
}

}  // namespace jfp
