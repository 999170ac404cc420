#include "sacct_reader.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>

#include "slurm_text.h"
#include "text.h"
#include "time_util.h"

namespace jfp {

namespace {

enum class Col {
    Unknown,
    JobID, JobIDRaw, JobName, User, UID, Account, Partition, QOS, Cluster,
    Submit, Start, End, Elapsed, ElapsedRaw, State, ExitCode,
    ReqCPUS, AllocCPUS, NCPUS, ReqNodes, AllocNodes, NNodes, ReqMem, ReqTRES, AllocTRES, ReqGRES,
    Timelimit, TimelimitRaw, MaxRSS, SubmitLine, WorkDir, Comment, AdminComment, Constraints,
    Count_
};

struct ColName {
    const char *name;
    Col col;
};

// sacct's field names (case-insensitive); a few aliases converted traces use.
constexpr ColName kColNames[] = {
    {"jobid", Col::JobID}, {"jobidraw", Col::JobIDRaw}, {"jobname", Col::JobName}, {"user", Col::User},
    {"uid", Col::UID}, {"account", Col::Account}, {"partition", Col::Partition}, {"qos", Col::QOS},
    {"cluster", Col::Cluster}, {"submit", Col::Submit}, {"start", Col::Start}, {"end", Col::End},
    {"elapsed", Col::Elapsed}, {"elapsedraw", Col::ElapsedRaw}, {"state", Col::State},
    {"exitcode", Col::ExitCode}, {"reqcpus", Col::ReqCPUS}, {"alloccpus", Col::AllocCPUS},
    {"ncpus", Col::NCPUS}, {"reqnodes", Col::ReqNodes}, {"allocnodes", Col::AllocNodes},
    {"nnodes", Col::NNodes}, {"reqmem", Col::ReqMem}, {"reqtres", Col::ReqTRES},
    {"alloctres", Col::AllocTRES}, {"reqgres", Col::ReqGRES}, {"timelimit", Col::Timelimit},
    {"timelimitraw", Col::TimelimitRaw}, {"maxrss", Col::MaxRSS}, {"submitline", Col::SubmitLine},
    {"workdir", Col::WorkDir}, {"comment", Col::Comment}, {"admincomment", Col::AdminComment},
    {"constraints", Col::Constraints},
};

// Other sacct fields: recognised (so a header is recognised as one) but not used.
constexpr const char *kOtherSacctFields[] = {
    "associd", "avecpu", "avecpufreq", "avediskread", "avediskwrite", "avepages", "averss", "avevmsize",
    "blockid", "consumedenergy", "consumedenergyraw", "container", "cputime", "cputimeraw", "dbindex",
    "derivedexitcode", "eligible", "flags", "gid", "group", "het_job_id", "het_job_offset", "hetjobid",
    "hetjoboffset", "layout", "maxdiskread", "maxdiskreadnode", "maxdiskreadtask", "maxdiskwrite",
    "maxdiskwritenode", "maxdiskwritetask", "maxpages", "maxpagesnode", "maxpagestask", "maxrssnode",
    "maxrsstask", "maxvmsize", "maxvmsizenode", "maxvmsizetask", "mcslabel", "mincpu", "mincpunode",
    "mincputask", "nodelist", "ntasks", "planned", "plannedcpu", "plannedcpuraw", "priority",
    "reason", "reqcpufreq", "reqcpufreqgov", "reqcpufreqmax", "reqcpufreqmin", "reservation",
    "reservationid", "reserved", "resvcpu", "resvcpuraw", "suspended", "systemcomment", "systemcpu",
    "tresusageinave", "tresusageinmax", "tresusageinmaxnode", "tresusageinmaxtask", "tresusageinmin",
    "tresusageinminnode", "tresusageinmintask", "tresusageintot", "tresusageoutave", "tresusageoutmax",
    "tresusageoutmaxnode", "tresusageoutmaxtask", "tresusageoutmin", "tresusageoutminnode",
    "tresusageoutmintask", "tresusageouttot", "timelimitraw", "totalcpu", "usercpu", "wckey", "wckeyid",
    "arrayjobid", "arraytaskid", "allocgres", "nodes",
};

Col col_from_name(std::string_view name, bool &known) {
    std::string n = to_lower(trim(name));
    for (const auto &c : kColNames)
        if (n == c.name) {
            known = true;
            return c.col;
        }
    known = std::find_if(std::begin(kOtherSacctFields), std::end(kOtherSacctFields),
                         [&](const char *o) { return n == o; }) != std::end(kOtherSacctFields);
    return Col::Unknown;
}

bool is_free_text(Col c) {
    return c == Col::JobName || c == Col::WorkDir || c == Col::SubmitLine || c == Col::Comment ||
           c == Col::AdminComment || c == Col::Constraints;
}

bool is_unknown_word(std::string_view s) { return s.empty() || s == "Unknown" || s == "None" || s == "N/A"; }

constexpr size_t kMaxJoinedLines = 64;

}  // namespace

std::string extract_jfp_token(const std::string &admin_comment) {
    auto pos = admin_comment.find("jfp:t=");
    if (pos == std::string::npos) return {};
    pos += 6;
    size_t end = pos;
    while (end < admin_comment.size() && std::isxdigit(static_cast<unsigned char>(admin_comment[end]))) ++end;
    return admin_comment.substr(pos, end - pos);
}

void infer_memory_kill(JobRecord &j) {
    if (j.outcome == Outcome::Failed && j.exit_signal == 9 && known(j.max_rss_mb) && known(j.req_mem_mb) &&
        j.req_mem_mb > 0 && j.max_rss_mb >= 0.9 * j.req_mem_mb)
        j.outcome = Outcome::OutOfMemory;
}

// Free-text columns (AdminComment, JobName, SubmitLine) each sit between typed ones, so that a '|' sacct
// did not escape can be placed: only one placement keeps the times, states and numbers parseable.
const char *recommended_sacct_format() {
    return "JobIDRaw,JobID,Cluster,User,UID,Account,Partition,QOS,AdminComment,Submit,Start,End,ElapsedRaw,State,ExitCode,JobName,ReqCPUS,ReqNodes,ReqMem,ReqTRES,Timelimit,MaxRSS,SubmitLine";
}

struct SacctReader::Impl {
    SacctReaderOptions opt;
    JobSink on_job;
    StepSink on_step;
    SacctReadReport report;

    // Column layout of the current stream.
    std::vector<Col> cols;
    std::array<int, static_cast<size_t>(Col::Count_)> pos{};
    std::vector<size_t> free_text_positions;
    std::string header_line;  // as read, to skip repeats in concatenated exports
    bool have_layout = false;
    std::string source;

    // The last job row, held so that its step rows (which follow it) fold in without a store round trip.
    std::optional<JobRecord> held;

    // A record whose free text held a newline, waiting for its continuation lines.
    std::string pending_text;
    uint64_t pending_first_line = 0;
    size_t pending_lines = 0;

    std::vector<std::string_view> fields, candidate;
    std::string joined;

    int at(Col c) const { return pos[static_cast<size_t>(c)]; }
    bool has(Col c) const { return at(c) >= 0; }

    void bad(uint64_t first, uint64_t last, std::string reason, std::string_view text) {
        ++report.bad;
        if (report.bad_lines.size() < opt.max_reported_bad_lines) {
            BadLine b;
            b.line = first;
            b.last_line = last;
            b.reason = std::move(reason);
            b.text = std::string(text.substr(0, 200));
            report.bad_lines.push_back(std::move(b));
        }
    }

    void set_layout(const std::vector<std::string_view> &names) {
        cols.clear();
        pos.fill(-1);
        free_text_positions.clear();
        report.ignored_columns.clear();
        for (size_t i = 0; i < names.size(); ++i) {
            bool known = false;
            Col c = col_from_name(names[i], known);
            if (c != Col::Unknown && at(c) >= 0) c = Col::Unknown;  // a repeated column: use the first
            cols.push_back(c);
            if (c == Col::Unknown) report.ignored_columns.emplace_back(trim(names[i]));
            else pos[static_cast<size_t>(c)] = static_cast<int>(i);
            if (is_free_text(c)) free_text_positions.push_back(i);
        }
        auto need = [&](bool ok, const char *what) {
            if (!ok)
                throw SacctFormatError(source + ": the export has no " + what +
                                       " column; re-export with sacct --parsable2 --format=" +
                                       recommended_sacct_format());
        };
        need(has(Col::JobIDRaw) || has(Col::JobID), "JobIDRaw (or JobID)");
        need(has(Col::User) || has(Col::UID), "User");
        need(has(Col::Submit), "Submit");
        need(has(Col::State), "State");
        report.missing_optional.clear();
        auto opt_col = [&](bool ok, const char *what) {
            if (!ok) report.missing_optional.emplace_back(what);
        };
        opt_col(has(Col::End), "End");
        opt_col(has(Col::Account), "Account");
        opt_col(has(Col::Partition), "Partition");
        opt_col(has(Col::QOS), "QOS");
        opt_col(has(Col::JobName), "JobName");
        opt_col(has(Col::ReqCPUS) || has(Col::ReqTRES) || has(Col::AllocCPUS) || has(Col::NCPUS), "ReqCPUS");
        opt_col(has(Col::ReqNodes) || has(Col::ReqTRES), "ReqNodes");
        opt_col(has(Col::ReqMem) || has(Col::ReqTRES), "ReqMem");
        opt_col(has(Col::Timelimit) || has(Col::TimelimitRaw), "Timelimit");
        opt_col(has(Col::SubmitLine), "SubmitLine");
        have_layout = true;
    }

    // Whether a line looks like a header: every field a sacct field name.
    bool looks_like_header(const std::vector<std::string_view> &f) const {
        if (f.size() < 2) return false;
        for (auto name : f) {
            bool known = false;
            col_from_name(name, known);
            if (!known) return false;
        }
        return true;
    }

    // Checks the typed columns of one field assignment; returns the first problem or empty.
    std::string validate(const std::vector<std::string_view> &f) const {
        auto field = [&](Col c) -> std::string_view { return at(c) >= 0 ? f[static_cast<size_t>(at(c))] : ""; };
        auto key = has(Col::JobIDRaw) ? field(Col::JobIDRaw) : field(Col::JobID);
        if (!parse_job_id(key)) return "job id " + quote_for_message(key) + " is not a Slurm job id";
        if (has(Col::JobID) && has(Col::JobIDRaw) && !parse_job_id(field(Col::JobID)))
            return "JobID " + quote_for_message(field(Col::JobID)) + " is not a Slurm job id";
        auto st = field(Col::State);
        if (!outcome_from_state(st)) return "State " + quote_for_message(st) + " is not a Slurm job state";
        for (Col c : {Col::Submit, Col::Start, Col::End}) {
            auto v = trim(field(c));
            if (!is_unknown_word(v) && !parse_sacct_time(v))
                return std::string(c == Col::Submit ? "Submit" : c == Col::Start ? "Start" : "End") + " " +
                       quote_for_message(v) + " is not a time (expected YYYY-MM-DDTHH:MM:SS)";
        }
        for (Col c : {Col::ReqCPUS, Col::AllocCPUS, Col::NCPUS, Col::ReqNodes, Col::AllocNodes, Col::NNodes,
                      Col::ElapsedRaw, Col::TimelimitRaw}) {
            if (!has(c)) continue;
            auto v = trim(field(c));
            if (!v.empty() && !parse_double(v) && !(c == Col::TimelimitRaw && !parse_int(v)))
                return "column " + std::to_string(at(c) + 1) + " " + quote_for_message(v) + " is not a number";
        }
        if (has(Col::ExitCode)) {
            auto v = trim(field(Col::ExitCode));
            if (!v.empty() && !parse_exit_code(v)) return "ExitCode " + quote_for_message(v) + " is not code:signal";
        }
        if (has(Col::WorkDir)) {
            auto v = trim(field(Col::WorkDir));
            if (!v.empty() && v.front() != '/' && v != "Unknown") return "WorkDir " + quote_for_message(v) + " is not a path";
        }
        if (has(Col::Timelimit)) {
            auto v = trim(field(Col::Timelimit));
            if (!v.empty() && v != "Partition_Limit" && v != "INVALID" && !parse_timelimit_minutes(v))
                return "Timelimit " + quote_for_message(v) + " is not a time limit";
        }
        if (has(Col::MaxRSS)) {
            auto v = trim(field(Col::MaxRSS));
            if (!v.empty() && !parse_size_mb(v)) return "MaxRSS " + quote_for_message(v) + " is not a size";
        }
        for (Col c : {Col::ReqTRES, Col::AllocTRES}) {
            if (!has(c)) continue;
            auto v = trim(field(c));
            if (!v.empty() && v.find('=') == std::string_view::npos)
                return "TRES " + quote_for_message(v) + " is not a list of name=count";
        }
        if (has(Col::SubmitLine)) {
            auto v = trim(field(Col::SubmitLine));
            auto cmd = v.substr(0, v.find(' '));
            auto slash = cmd.rfind('/');
            if (slash != std::string_view::npos) cmd = cmd.substr(slash + 1);
            if (!v.empty() && cmd != "sbatch" && cmd != "srun" && cmd != "salloc")
                return "SubmitLine " + quote_for_message(v, 40) + " does not start with sbatch, srun or salloc";
        }
        if (has(Col::ReqMem)) {
            auto v = trim(field(Col::ReqMem));
            if (!v.empty() && v != "0" && v != "0n" && v != "0c" && !parse_req_mem(v))
                return "ReqMem " + quote_for_message(v) + " is not a memory size";
        }
        return {};
    }

    void emit_held() {
        if (held) {
            on_job(std::move(*held));
            held.reset();
        }
    }

    void build(const std::vector<std::string_view> &f, uint64_t first_line, uint64_t last_line,
               std::string_view text) {
        auto field = [&](Col c) -> std::string_view {
            return at(c) >= 0 ? trim(f[static_cast<size_t>(at(c))]) : std::string_view();
        };
        std::string_view key = has(Col::JobIDRaw) ? field(Col::JobIDRaw) : field(Col::JobID);
        auto raw = parse_job_id(key);
        std::string cluster = has(Col::Cluster) && !field(Col::Cluster).empty() ? std::string(field(Col::Cluster))
                                                                               : opt.cluster;
        auto outcome = outcome_from_state(field(Col::State));

        if (!raw->step.empty()) {
            ++report.step_rows;
            StepInfo s;
            s.cluster = std::move(cluster);
            s.job_key = std::string(raw->job);
            if (auto rss = parse_size_mb(field(Col::MaxRSS))) s.max_rss_mb = *rss;
            s.out_of_memory = outcome && *outcome == Outcome::OutOfMemory;
            if (held && held->job_key == s.job_key && held->cluster == s.cluster) {
                if (known(s.max_rss_mb) && (!known(held->max_rss_mb) || s.max_rss_mb > held->max_rss_mb))
                    held->max_rss_mb = s.max_rss_mb;
                if (s.out_of_memory && held->outcome == Outcome::Failed) held->outcome = Outcome::OutOfMemory;
                if (raw->step == "batch") held->interactive = 0;
            } else {
                on_step(std::move(s));
            }
            return;
        }

        JobRecord r;
        r.cluster = std::move(cluster);
        r.job_key = std::string(raw->job);
        std::string_view shown = has(Col::JobID) ? field(Col::JobID) : key;
        r.job_id = std::string(shown);
        if (auto shown_parts = parse_job_id(shown)) r.array_job = std::string(shown_parts->array_job);
        r.user = has(Col::User) ? std::string(field(Col::User)) : "uid:" + std::string(field(Col::UID));
        if (auto uid = parse_int(field(Col::UID)); uid && *uid >= 0) r.uid = *uid;
        if (r.user.empty() || r.user == "uid:") {
            bad(first_line, last_line, "empty User on a job row", text);
            return;
        }
        r.account = std::string(field(Col::Account));
        r.partition = std::string(field(Col::Partition));
        r.qos = std::string(field(Col::QOS));
        r.name = std::string(field(Col::JobName));
        auto submit = parse_sacct_time(field(Col::Submit));
        if (!submit) {
            bad(first_line, last_line, "job row without a Submit time", text);
            return;
        }
        r.submit = *submit;
        if (auto t = parse_sacct_time(field(Col::Start))) r.start = *t;
        if (auto t = parse_sacct_time(field(Col::End))) r.end = *t;
        r.outcome = *outcome;
        {
            auto st = field(Col::State);
            auto sp = st.find(' ');
            r.state = std::string(sp == std::string_view::npos ? st : st.substr(0, sp));
        }
        if (r.outcome != Outcome::Unfinished && r.end == 0) r.outcome = Outcome::Unfinished;  // no end, no verdict
        if (auto e = parse_exit_code(field(Col::ExitCode))) {
            r.exit_code = e->code;
            r.exit_signal = e->signal;
        }

        Tres tres = parse_tres(field(Col::ReqTRES));
        if (auto v = parse_double(field(Col::ReqCPUS)); v && *v > 0) r.req_cpus = *v;
        else if (known(tres.cpu)) r.req_cpus = tres.cpu;
        else if (auto a = parse_double(field(Col::AllocCPUS)); a && *a > 0) r.req_cpus = *a;
        else if (auto n = parse_double(field(Col::NCPUS)); n && *n > 0) r.req_cpus = *n;
        if (auto v = parse_double(field(Col::ReqNodes)); v && *v > 0) r.req_nodes = *v;
        else if (known(tres.node)) r.req_nodes = tres.node;
        else if (auto a = parse_double(field(Col::AllocNodes)); a && *a > 0) r.req_nodes = *a;
        else if (auto n = parse_double(field(Col::NNodes)); n && *n > 0) r.req_nodes = *n;
        if (auto m = parse_req_mem(field(Col::ReqMem))) {
            double nodes = known(r.req_nodes) ? r.req_nodes : 1.0;
            r.req_mem_mb = m->total_mb(r.req_cpus, nodes);
        } else if (known(tres.mem_mb)) {
            r.req_mem_mb = tres.mem_mb;
        }
        if (known(tres.gpu)) r.req_gpus = tres.gpu;
        else if (has(Col::ReqGRES)) r.req_gpus = parse_gpu_request(field(Col::ReqGRES));
        else if (has(Col::ReqTRES) && !field(Col::ReqTRES).empty()) r.req_gpus = 0;
        if (auto tl = parse_timelimit_minutes(field(Col::Timelimit))) r.timelimit_min = *tl;
        else if (auto raw_tl = parse_int(field(Col::TimelimitRaw))) r.timelimit_min = static_cast<double>(*raw_tl);
        if (auto el = parse_double(field(Col::ElapsedRaw))) r.elapsed_s = *el;
        else if (auto d = parse_duration_seconds(field(Col::Elapsed))) r.elapsed_s = *d;
        else if (r.start > 0 && r.end >= r.start) r.elapsed_s = static_cast<double>(r.end - r.start);
        if (auto rss = parse_size_mb(field(Col::MaxRSS))) r.max_rss_mb = *rss;

        auto sl = field(Col::SubmitLine);
        if (!sl.empty()) {
            r.submit_line = std::string(sl);
            auto word_end = sl.find(' ');
            auto cmd = sl.substr(0, word_end);
            auto slash = cmd.rfind('/');
            if (slash != std::string_view::npos) cmd = cmd.substr(slash + 1);
            r.interactive = (cmd == "srun" || cmd == "salloc") ? 1 : 0;
            r.has_dependency = (sl.find("--dependency") != std::string_view::npos ||
                                sl.find(" -d ") != std::string_view::npos)
                                   ? 1
                                   : 0;
        }
        r.jfp_token = extract_jfp_token(std::string(field(Col::AdminComment)));

        ++report.job_rows;
        emit_held();
        held = std::move(r);
    }

    // Handles one record (one line, or several joined). Returns false when its field count is short,
    // so the caller may try joining it with the next line.
    enum class Result { Done, Short };

    Result process(std::string_view text, uint64_t first_line, uint64_t last_line, bool final_attempt) {
        split_into(text, opt.delimiter, fields);
        size_t expected = cols.size();
        if (fields.size() == expected) {
            auto problem = validate(fields);
            if (!problem.empty()) {
                bad(first_line, last_line, problem, text);
                return Result::Done;
            }
            build(fields, first_line, last_line, text);
            return Result::Done;
        }
        if (fields.size() < expected) {
            if (!final_attempt) return Result::Short;
            bad(first_line, last_line,
                std::to_string(fields.size()) + " fields where the header has " + std::to_string(expected) +
                    " (truncated line?)",
                text);
            return Result::Done;
        }
        // Too many fields: '|' inside free text. Try every way of giving the extra fields to the free-text
        // columns; keep what all placements that validate agree on.
        size_t extra = fields.size() - expected;
        std::vector<std::vector<std::string_view>> valid;
        bool too_many = false;
        std::vector<size_t> share(free_text_positions.size(), 0);
        std::function<void(size_t, size_t)> place = [&](size_t k, size_t left) {
            if (too_many) return;
            if (k + 1 == share.size() || share.empty()) {
                if (share.empty()) return;
                share[k] = left;
                candidate.clear();
                size_t src = 0;
                for (size_t col = 0; col < expected; ++col) {
                    size_t absorb = 0;
                    for (size_t i = 0; i < free_text_positions.size(); ++i)
                        if (free_text_positions[i] == col) absorb = share[i];
                    const char *b = fields[src].data();
                    const char *e = fields[src + absorb].data() + fields[src + absorb].size();
                    candidate.emplace_back(b, static_cast<size_t>(e - b));
                    src += absorb + 1;
                }
                if (validate(candidate).empty()) {
                    valid.push_back(candidate);
                    if (valid.size() > 64) too_many = true;
                }
                return;
            }
            for (size_t n = 0; n <= left; ++n) {
                share[k] = n;
                place(k + 1, left - n);
            }
        };
        if (extra <= 24 && free_text_positions.size() <= 6) place(0, extra);
        if (!valid.empty() && !too_many) {
            // Columns on which the valid placements disagree are unknowable; only free-text columns can
            // disagree while the typed ones validate. JobName is a feature: it must be certain.
            std::vector<std::string_view> chosen = valid.front();
            bool name_certain = true;
            for (size_t col = 0; col < expected; ++col) {
                bool same = true;
                for (const auto &v : valid) same = same && v[col] == chosen[col];
                if (same) continue;
                if (!is_free_text(cols[col]) || cols[col] == Col::JobName) name_certain = false;
                chosen[col] = std::string_view();  // unknown
            }
            if (name_certain) {
                ++report.recovered_pipes;
                build(chosen, first_line, last_line, text);
                return Result::Done;
            }
        }
        std::string why = std::to_string(fields.size()) + " fields where the header has " + std::to_string(expected) +
                          ": '" + std::string(1, opt.delimiter) + "' inside free text (JobName, WorkDir, SubmitLine, "
                          "Comment) ";
        why += valid.empty() ? "that no placement can explain" : "that cannot be placed unambiguously";
        why += "; re-export with a delimiter that cannot occur, e.g. sacct --delimiter=$'\\x1f' and jfp ingest "
               "--delimiter=$'\\x1f'";
        bad(first_line, last_line, why, text);
        return Result::Done;
    }

    void flush_pending(bool final_attempt_ok) {
        if (pending_lines == 0) return;
        uint64_t last = pending_first_line + pending_lines - 1;
        process(pending_text, pending_first_line, last, true);
        (void)final_attempt_ok;
        pending_lines = 0;
        pending_text.clear();
    }

    void line(std::string_view l, uint64_t lineno) {
        ++report.lines;
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        if (!have_layout) {
            if (trim(l).empty()) {
                ++report.blank_lines;
                return;
            }
            split_into(l, opt.delimiter, fields);
            if (!opt.format.empty()) {
                std::vector<std::string_view> names(opt.format.begin(), opt.format.end());
                set_layout(names);
                if (looks_like_header(fields) && fields.size() == names.size()) {
                    bool same = true;
                    for (size_t i = 0; i < names.size(); ++i)
                        if (to_lower(trim(fields[i])) != to_lower(trim(names[i]))) same = false;
                    if (same) {
                        header_line = std::string(l);
                        ++report.header_lines;
                        return;
                    }
                }
            } else {
                if (!looks_like_header(fields))
                    throw SacctFormatError(
                        source + ":" + std::to_string(lineno) + ": the first line is not a sacct header (" +
                        quote_for_message(l, 60) +
                        "); export with sacct --parsable2 (which prints one), or give the columns with "
                        "jfp ingest --format=JobIDRaw,User,... and the delimiter with --delimiter");
                std::vector<std::string_view> names(fields.begin(), fields.end());
                set_layout(names);
                header_line = std::string(l);
                ++report.header_lines;
                return;
            }
        }
        if (l == header_line) {  // concatenated exports repeat the header
            flush_record();
            flush_pending(true);
            ++report.header_lines;
            return;
        }
        if (first_col_is_id()) {
            // Records start with a job id; any other line continues the record before it (a newline
            // inside a comment, job name or submit line).
            if (is_record_start(l)) {
                flush_record();
                rec_text.assign(l.data(), l.size());
                rec_first = lineno;
                rec_lines = 1;
                return;
            }
            // A fragment (fewer fields than a record) continues the record before it; a full-width line
            // is a record of its own with a bad job id.
            split_into(l, opt.delimiter, fields);
            if (rec_lines > 0 && rec_lines < kMaxJoinedLines && fields.size() < cols.size()) {
                rec_text += '\n';
                rec_text.append(l.data(), l.size());
                ++rec_lines;
            } else if (trim(l).empty()) {
                ++report.blank_lines;
            } else {
                flush_record();
                process(l, lineno, lineno, true);
            }
            return;
        }
        if (pending_lines > 0) {
            joined = pending_text;
            joined += '\n';
            joined.append(l.data(), l.size());
            uint64_t last = pending_first_line + pending_lines;
            split_into(joined, opt.delimiter, fields);
            if (fields.size() < cols.size() && pending_lines < kMaxJoinedLines) {
                pending_text = joined;
                ++pending_lines;
                return;
            }
            if (fields.size() == cols.size() && validate(std::vector<std::string_view>(fields)).empty()) {
                ++report.joined_newlines;
                process(joined, pending_first_line, last, true);
                pending_lines = 0;
                pending_text.clear();
                return;
            }
            // The held lines are bad on their own; this line starts afresh.
            flush_pending(true);
        }
        if (trim(l).empty()) {
            ++report.blank_lines;
            return;
        }
        if (process(l, lineno, lineno, false) == Result::Short) {
            pending_text.assign(l.data(), l.size());
            pending_first_line = lineno;
            pending_lines = 1;
        }
    }

    bool first_col_is_id() const { return !cols.empty() && (cols[0] == Col::JobID || cols[0] == Col::JobIDRaw); }

    bool is_record_start(std::string_view l) const {
        auto d = l.find(opt.delimiter);
        return parse_job_id(trim(l.substr(0, d))).has_value();
    }

    // The record gathered so far (first column a job id), processed once the next one starts.
    std::string rec_text;
    uint64_t rec_first = 0;
    size_t rec_lines = 0;

    void flush_record() {
        if (rec_lines == 0) return;
        // Blank lines after a record belong to no field.
        size_t lines = rec_lines;
        while (!rec_text.empty() && (rec_text.back() == '\n' || rec_text.back() == '\r' || rec_text.back() == ' ')) {
            if (rec_text.back() == '\n') {
                --lines;
                ++report.blank_lines;
            }
            rec_text.pop_back();
        }
        if (lines > 1) ++report.joined_newlines;
        process(rec_text, rec_first, rec_first + lines - 1, true);
        rec_lines = 0;
        rec_text.clear();
    }

    void end_stream() {
        flush_record();
        flush_pending(true);
        emit_held();
    }
};

SacctReader::SacctReader(SacctReaderOptions options, JobSink on_job, StepSink on_step) : impl_(new Impl) {
    impl_->opt = std::move(options);
    impl_->on_job = std::move(on_job);
    impl_->on_step = std::move(on_step);
    impl_->pos.fill(-1);
}

SacctReader::~SacctReader() { delete impl_; }

const SacctReadReport &SacctReader::report() const { return impl_->report; }

void SacctReader::finish() { impl_->end_stream(); }

void SacctReader::read(std::FILE *in, const std::string &source_name) {
    impl_->source = source_name;
    impl_->have_layout = false;
    impl_->header_line.clear();
    char *buf = nullptr;
    size_t cap = 0;
    uint64_t lineno = 0;
    struct Free {
        char **p;
        ~Free() { std::free(*p); }
    } guard{&buf};
    ssize_t n;
    while ((n = getline(&buf, &cap, in)) >= 0) {
        ++lineno;
        std::string_view l(buf, static_cast<size_t>(n));
        if (!l.empty() && l.back() == '\n') l.remove_suffix(1);
        impl_->line(l, lineno);
    }
    if (std::ferror(in)) throw SacctFormatError(source_name + ": read error: " + std::strerror(errno));
    // sacct prints its header even when no job matched: nothing at all is a failed export, not a quiet day.
    if (lineno == 0)
        throw SacctFormatError(source_name + " is empty: nothing to ingest. sacct --parsable2 prints a header even "
                                             "when no job matched, so an empty export usually means sacct failed; "
                                             "run it again and check its error output");
    impl_->end_stream();
}

void SacctReader::read_text(const std::string &text, const std::string &source_name) {
    impl_->source = source_name;
    impl_->have_layout = false;
    impl_->header_line.clear();
    uint64_t lineno = 0;
    size_t start = 0;
    while (start < text.size()) {
        size_t nl = text.find('\n', start);
        size_t end = nl == std::string::npos ? text.size() : nl;
        impl_->line(std::string_view(text).substr(start, end - start), ++lineno);
        start = end + 1;
    }
    impl_->end_stream();
}

}  // namespace jfp
