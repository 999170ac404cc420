// `sacct --json` as an export file: the format to hand jfp ingest when the jobs are users' (docs/cli.md,
// "ingest"). In --parsable2 text a job name holding newlines and delimiters can read as records of other
// users, and no reader can tell; in JSON every string is quoted, so a name stays a name.
//
// Each job (and each of its steps) becomes a row of the columns no user writes (structured_sacct_format(),
// without UID, which sacct's JSON does not carry), and its name and submit line are looked up by job id:
// the same path `jfp ingest --from-sacct` takes, so both read a job alike. Slurm 22.05's schema and 23.02's
// and later ({"set": .., "number": ..} numbers, lists of states) are both read. Streamed: one job's object
// at a time is held, not the document.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "model/accounting/slurm_json.h"

namespace jfp {

struct SacctJsonExport {
    std::string rows;  // a --parsable2 export ('|'), header first
    JobUserTextById user_text;
    uint64_t jobs = 0, steps = 0;
};

// Throws SlurmJsonError when the text is not sacct's JSON.
SacctJsonExport sacct_json_export(std::FILE *in, const std::string &source);
SacctJsonExport sacct_json_export_text(const std::string &text, const std::string &source);

}  // namespace jfp
