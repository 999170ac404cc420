#include "tools/scripts/archive_stats.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "model/util/time_util.h"

namespace jfp {

namespace {

double ratio(uint64_t a, uint64_t b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

std::string fixed1(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

std::string count(uint64_t n) { return std::to_string(static_cast<unsigned long long>(n)); }

}  // namespace

std::string human_bytes(uint64_t b) {
    char buf[32];
    if (b >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(b) / (1ull << 30));
    else if (b >= (1ull << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1ull << 20));
    else if (b >= 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b) / 1024);
    else std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(b));
    return buf;
}

std::string archive_stats_json(const ArchiveStats &s) {
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
    return j.dump(2) + "\n";
}

std::string archive_stats_text(const std::string &path, const ArchiveStats &s) {
    std::string out = "script archive " + path + "\n";
    out += "  submissions            " + count(s.submissions) + " (" + count(s.with_env) + " with their environment)\n";
    if (s.submissions) out += "  submitted              " + format_sacct_time(s.first) + " .. " + format_sacct_time(s.last) + "\n";
    out += "  unique scripts         " + count(s.scripts) + "\n";
    out += "  script bytes submitted " + human_bytes(s.script_bytes) + "; unique " + human_bytes(s.unique_script_bytes) +
           ": dedup " + fixed1(ratio(s.script_bytes, s.unique_script_bytes)) + "x\n";
    out += "  stored (zstd)          " + human_bytes(s.stored_bytes) + " of " + human_bytes(s.unique_bytes) +
           " unique content (scripts and environments): " + fixed1(ratio(s.unique_bytes, s.stored_bytes)) + "x\n";
    out += "  file on disk           " + human_bytes(s.file_bytes) + " (with its WAL)\n";
    return out;
}

std::string archive_stats_report(const std::string &path, bool json) {
    ScriptArchive archive(path, ScriptArchive::Access::ReadOnly);
    const ArchiveStats s = archive.stats();
    return json ? archive_stats_json(s) : archive_stats_text(archive.path(), s);
}

}  // namespace jfp
