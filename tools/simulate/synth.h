// Synthetic Slurm workloads written as sacct exports, for tests and benchmarks.
//
// Users have habits (how often they break their code, how quickly they fix it, how generously they
// pad time and memory requests); each user runs a handful of applications in sessions of resubmissions.
// A session may start by breaking the application (an edit); a broken application mostly fails until
// the user fixes it, so failures cluster by user + job name as the Mistral study reports. Time limits
// and memory requests that are too tight give TIMEOUT and OUT_OF_MEMORY until the user raises them.
// Background noise (random failures, node failures, cancellations) keeps the problem honest.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace jfp {

class HistoryStore;

struct SynthOptions {
    uint64_t jobs = 10000;   // job rows (array tasks count one each), approximately
    uint64_t users = 0;      // 0: jobs / 800, clamped to [20, 3000]
    uint64_t seed = 1;
    std::string start = "2024-01-01";
    double days = 0;         // 0: jobs / 4000, at least 14
    bool trace_style = false;  // a converted trace: no ReqNodes/ReqMem/QOS variety/steps, names like app123
    bool steps = true;         // .batch/.extern step rows (slurm style only)
    std::string cluster = "synth";
};

struct SynthStats {
    uint64_t jobs = 0, rows = 0;
    uint64_t completed = 0, failed = 0, timeout = 0, oom = 0, node_fail = 0, cancelled = 0;
    // Transitions between consecutive finished runs of the same user + job name.
    uint64_t after_fail = 0, fail_after_fail = 0, first_runs = 0, first_run_fail = 0;
};

// Writes the export (with header) to out; returns what it generated.
SynthStats generate_workload(const SynthOptions &opt, std::FILE *out);

// jfp synth: the export written to `path` ("-": standard output) and, unless quiet, its outcome shares and
// failure clustering said on standard error. Throws when the file cannot be written.
SynthStats write_synthetic_export(const SynthOptions &opt, const std::string &path, bool quiet);

// For tests and benchmarks: ingests an export file into the store (one ingest, no options); and
// generates a workload into the file `scratch`, ingests it and removes the file. Throw on I/O errors.
void ingest_export_file(HistoryStore &store, const std::string &path);
SynthStats synthesize_into_store(const SynthOptions &opt, HistoryStore &store, const std::string &scratch);

}  // namespace jfp
