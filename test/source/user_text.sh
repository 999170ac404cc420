#!/usr/bin/env bash
# User text (job names, comments, scripts, submit lines, working directories) reaches an admin's terminal
# or slurmctld's log only through the one escaper, printable() in model/util/text.h (docs/admin-guide.md,
# "Threat model"). This checks the paths by which it could go around it:
#   1. jfp's CLI installs its TerminalGuard (everything on a terminal's standard output escaped) before it
#      parses a command, and nothing but the guard writes to descriptors 1 or 2 or opens the terminal;
#   2. the core and the plugin log only through log_msg() (which escapes every line): no printf to a stream,
#      no slurm_info/slurm_error but in the plugin's sink;
#   3. no standard-error message of the CLI prints a user-written field without printable() or
#      quote_for_message() (standard error is not behind the guard: progress bars draw there);
#   4. what the user is told (model/policy) quotes a job's name only through quote_for_message() or quoted().
set -euo pipefail
: "${JFP_SRCDIR:?run through make check (JFP_SRCDIR unset)}"
cd "$JFP_SRCDIR"
bad=0
say() { echo "user_text: $*" >&2; bad=1; }

# 1.
awk '/int main\(/ { m = 1 } m && /TerminalGuard guard/ { g = NR } m && /cli\.run\(/ { p = NR } END { exit !(g && p && g < p) }' \
    tools/cli/jfp.cc || say "tools/cli/jfp.cc must construct jfp::TerminalGuard in main() before cli.run() parses the command line"
hits=$(grep -rnE '/dev/tty|\bwrite\((STDOUT_FILENO|STDERR_FILENO|1|2),|fdopen\((1|2),|\bdup2\(' tools model --include='*.cc' \
    | grep -v '^tools/terminal/terminal_guard.cc:' || true)
[ -z "$hits" ] || say "writes around the terminal guard:"$'\n'"$hits"

# 2.
hits=$(grep -rnE '\b(std::)?(printf|puts|fputs|fprintf|fwrite)\(|std::cout|std::cerr|\bslurm_(info|error|verbose|debug[0-9]*)\(' \
    model plugin --include='*.cc' | grep -vE '^model/util/log\.cc:|^plugin/job_submit_jfp\.cc:[0-9]+:\s+case jfp::LogLevel|snprintf|vsnprintf' || true)
[ -z "$hits" ] || say "the core or the plugin prints other than through log_msg():"$'\n'"$hits"
# The plugin's sink is the one place that calls slurm's loggers: it is handed escaped lines only.
grep -q 'g_sink(level, printable(message).c_str())' model/util/log.cc ||
    say "model/util/log.cc: log_msg() must hand the sink printable(message)"

# 3. Fields users write, as the CLI's records name them.
fields='name|comment|work_dir|submit_line|script|user_comment|admin_comment'
hits=$(grep -rnE 'fprintf\(stderr|std::cerr' tools --include='*.cc' \
    | grep -E "\.($fields)\b(\.c_str\(\))?" | grep -vE 'printable\(|quote_for_message\(' || true)
[ -z "$hits" ] || say "standard-error messages print user text unescaped:"$'\n'"$hits"

# 4.
# A name joined into text: through quote_for_message()/quoted(), or proven plain where marked jfp-user-text-ok.
hits=$(grep -nE '(\+|append\(|<<) *(r|req|m)\.(name|comment)\b|\b(r|req|m)\.(name|comment) *(\+|<<)' \
    model/policy/user_message.cc model/policy/explain.cc model/policy/advice.cc \
    | grep -vE 'quote_for_message\(|quoted\(|jfp-user-text-ok' || true)
[ -z "$hits" ] || say "what the user is told names user text without quote_for_message() or quoted():"$'\n'"$hits"

[ "$bad" = 0 ] || exit 1
echo "user_text: the CLI's standard output behind TerminalGuard; logs through log_msg(); stderr and users' messages escape what users wrote"
