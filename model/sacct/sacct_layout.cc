#include "model/sacct/sacct_layout.h"

#include <algorithm>

#include "model/jobs/outcome.h"
#include "model/jobs/slurm_text.h"
#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

namespace {

using Col = SacctCol;

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
// Of those, the ones a user writes as they like (sbatch --container, --wckey): text that may hold newlines
// and a delimiter. Every other field here is a number, a time, a state or a name an admin made.
constexpr const char *kUserWrittenOtherFields[] = {"container", "wckey"};

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

// A column's name as a message may quote it (a headerless --format names it; any byte escaped).
std::string printable_column(std::string_view name) {
    std::string out;
    for (unsigned char c : name.substr(0, 40)) {
        if (c > 0x20 && c < 0x7f) out += static_cast<char>(c);
        else out += '?';
    }
    return out;
}

bool is_unknown_word(std::string_view s) { return s.empty() || s == "Unknown" || s == "None" || s == "N/A"; }

}  // namespace

const char *recommended_sacct_format() {
    // Free-text columns (AdminComment, JobName, SubmitLine) each sit between typed ones, so that a '|'
    // sacct did not escape can be placed: only one placement keeps the times, states and numbers parseable.
    return "JobIDRaw,JobID,Cluster,User,UID,Account,Partition,QOS,AdminComment,Submit,Start,End,ElapsedRaw,State,ExitCode,JobName,ReqCPUS,ReqNodes,ReqMem,ReqTRES,Timelimit,MaxRSS,SubmitLine";
}

const char *structured_sacct_format() {
    // No column a user writes: nothing in this output can be made to look like a record. The job names
    // and submit lines come from sacct --json (model/accounting/slurm_json.h).
    return "JobIDRaw,JobID,Cluster,User,UID,Account,Partition,QOS,AdminComment,Submit,Start,End,ElapsedRaw,State,ExitCode,ReqCPUS,ReqNodes,ReqMem,ReqTRES,Timelimit,MaxRSS";
}

bool SacctLayout::is_free_text(Col c) {
    return c == Col::JobName || c == Col::WorkDir || c == Col::SubmitLine || c == Col::Comment ||
           c == Col::AdminComment || c == Col::Constraints;
}

bool SacctLayout::is_user_written(Col c) {
    return c == Col::JobName || c == Col::WorkDir || c == Col::SubmitLine || c == Col::Comment;
}

std::string SacctLayout::first_user_written() const {
    for (size_t i = 0; i < cols_.size(); ++i) {
        const Col c = cols_[i];
        if (is_user_written(c)) return c == Col::JobName ? "JobName" : c == Col::WorkDir ? "WorkDir" : c == Col::SubmitLine ? "SubmitLine" : "Comment";
        if (c == Col::Unknown && i < names_.size()) {
            // A field jfp does not know at all (sbatch --extra's Extra, StdOut, a field of a later sacct) may
            // be text a user writes: only the fields known to hold numbers, times, states and admins' names
            // are not.
            bool known = false;
            col_from_name(names_[i], known);
            const std::string n = to_lower(trim(names_[i]));
            for (const char *u : kUserWrittenOtherFields)
                if (n == u) known = false;
            if (!known) return printable_column(names_[i]);
        }
    }
    return {};
}

bool SacctLayout::looks_like_header(const std::vector<std::string_view> &f) {
    if (f.size() < 2) return false;
    for (auto name : f) {
        bool known = false;
        col_from_name(name, known);
        if (!known) return false;
    }
    return true;
}

void SacctLayout::set(const std::vector<std::string_view> &names, const std::string &source) {
    cols_.clear();
    names_.assign(names.begin(), names.end());
    pos_.fill(-1);
    free_text_.clear();
    ignored_.clear();
    missing_optional_.clear();
    for (size_t i = 0; i < names.size(); ++i) {
        bool known = false;
        Col c = col_from_name(names[i], known);
        if (c != Col::Unknown && has(c)) c = Col::Unknown;  // a repeated column: use the first
        cols_.push_back(c);
        if (c == Col::Unknown) ignored_.emplace_back(trim(names[i]));
        else pos_[static_cast<size_t>(c)] = static_cast<int>(i);
        if (is_free_text(c)) free_text_.push_back(i);
    }
    auto need = [&](bool ok, const char *what) {
        if (!ok)
            throw SacctFormatError(source + ": the export has no " + what +
                                   " column; re-export with sacct --parsable2 --format=" + recommended_sacct_format());
    };
    need(has(Col::JobIDRaw) || has(Col::JobID), "JobIDRaw (or JobID)");
    need(has(Col::User) || has(Col::UID), "User");
    need(has(Col::Submit), "Submit");
    need(has(Col::State), "State");
    auto optional = [&](bool ok, const char *what) {
        if (!ok) missing_optional_.emplace_back(what);
    };
    optional(has(Col::End), "End");
    optional(has(Col::Account), "Account");
    optional(has(Col::Partition), "Partition");
    optional(has(Col::QOS), "QOS");
    optional(has(Col::JobName), "JobName");
    optional(has(Col::ReqCPUS) || has(Col::ReqTRES) || has(Col::AllocCPUS) || has(Col::NCPUS), "ReqCPUS");
    optional(has(Col::ReqNodes) || has(Col::ReqTRES), "ReqNodes");
    optional(has(Col::ReqMem) || has(Col::ReqTRES), "ReqMem");
    optional(has(Col::Timelimit) || has(Col::TimelimitRaw), "Timelimit");
    optional(has(Col::SubmitLine), "SubmitLine");
    optional(has(Col::UID), "UID");
}

std::string SacctLayout::validate(const std::vector<std::string_view> &f) const {
    auto key = has(Col::JobIDRaw) ? field(f, Col::JobIDRaw) : field(f, Col::JobID);
    if (!parse_job_id(key)) return "job id " + quote_for_message(key) + " is not a Slurm job id";
    if (has(Col::JobID) && has(Col::JobIDRaw) && !parse_job_id(field(f, Col::JobID)))
        return "JobID " + quote_for_message(field(f, Col::JobID)) + " is not a Slurm job id";
    auto st = field(f, Col::State);
    if (!outcome_from_state(st)) return "State " + quote_for_message(st) + " is not a Slurm job state";
    for (Col c : {Col::Submit, Col::Start, Col::End}) {
        auto v = field(f, c);
        if (!is_unknown_word(v) && !parse_sacct_time(v))
            return std::string(c == Col::Submit ? "Submit" : c == Col::Start ? "Start" : "End") + " " +
                   quote_for_message(v) + " is not a time (expected YYYY-MM-DDTHH:MM:SS)";
    }
    for (Col c : {Col::ReqCPUS, Col::AllocCPUS, Col::NCPUS, Col::ReqNodes, Col::AllocNodes, Col::NNodes,
                  Col::ElapsedRaw, Col::TimelimitRaw}) {
        if (!has(c)) continue;
        auto v = field(f, c);
        if (!v.empty() && !parse_double(v) && !(c == Col::TimelimitRaw && !parse_int(v)))
            return "column " + std::to_string(at(c) + 1) + " " + quote_for_message(v) + " is not a number";
    }
    if (has(Col::ExitCode)) {
        auto v = field(f, Col::ExitCode);
        if (!v.empty() && !parse_exit_code(v)) return "ExitCode " + quote_for_message(v) + " is not code:signal";
    }
    if (has(Col::WorkDir)) {
        auto v = field(f, Col::WorkDir);
        if (!v.empty() && v.front() != '/' && v != "Unknown") return "WorkDir " + quote_for_message(v) + " is not a path";
    }
    if (has(Col::Timelimit)) {
        auto v = field(f, Col::Timelimit);
        if (!v.empty() && v != "Partition_Limit" && v != "INVALID" && !parse_timelimit_minutes(v))
            return "Timelimit " + quote_for_message(v) + " is not a time limit";
    }
    if (has(Col::MaxRSS)) {
        auto v = field(f, Col::MaxRSS);
        if (!v.empty() && !parse_size_mb(v)) return "MaxRSS " + quote_for_message(v) + " is not a size";
    }
    for (Col c : {Col::ReqTRES, Col::AllocTRES}) {
        if (!has(c)) continue;
        auto v = field(f, c);
        if (!v.empty() && v.find('=') == std::string_view::npos)
            return "TRES " + quote_for_message(v) + " is not a list of name=count";
    }
    if (has(Col::SubmitLine)) {
        auto v = field(f, Col::SubmitLine);
        auto cmd = v.substr(0, v.find(' '));
        auto slash = cmd.rfind('/');
        if (slash != std::string_view::npos) cmd = cmd.substr(slash + 1);
        if (!v.empty() && cmd != "sbatch" && cmd != "srun" && cmd != "salloc")
            return "SubmitLine " + quote_for_message(v, 40) + " does not start with sbatch, srun or salloc";
    }
    if (has(Col::ReqMem)) {
        auto v = field(f, Col::ReqMem);
        if (!v.empty() && v != "0" && v != "0n" && v != "0c" && !parse_req_mem(v))
            return "ReqMem " + quote_for_message(v) + " is not a memory size";
    }
    return {};
}

}  // namespace jfp
