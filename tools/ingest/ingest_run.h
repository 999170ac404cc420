// jfp ingest's work: exports (sacct text or JSON, SWF) or sacct itself into the history store, with the
// bad lines counted by line and kept in the store. The command parses options into IngestOptions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace jfp {

struct IngestOptions {
    std::string db;
    bool from_sacct = false;
    bool queue = true;  // with from_sacct: the queued jobs' tokens from squeue --json
    std::string squeue = "squeue";
    bool follow = false;
    double interval = 300;
    int64_t overlap = 3600;
    std::string sacct = "sacct";
    std::vector<std::string> sacct_args;
    std::string format;           // sacct fields of a headerless export, or "swf"
    std::string delimiter = "|";  // parsed (the delimiter itself)
    std::string cluster = "default";
    std::vector<std::string> files;  // none: standard input
    size_t show_errors = 20;
    bool strict = false;
    bool quiet = false;
    bool snapshot = true;
    double snapshot_interval = 600;
    bool trusted_export = false;  // a typable delimiter with JobName etc.: read anyway
    std::string feature_log;      // where the plugin logged each token's script fingerprint
};

// Runs the ingest; returns the exit status (0; 1 when a file failed; 2 with strict when a line was bad).
// A failure of the store, or of sacct without follow, throws.
int run_ingest(const IngestOptions &a);

}  // namespace jfp
