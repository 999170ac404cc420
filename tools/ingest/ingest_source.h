// One export jfp ingest reads: a file, FILE.gz through gzip -dc, or standard input.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "tools/process/subprocess.h"

namespace jfp {

struct IngestSource {
    std::FILE *in = nullptr;   // what the readers read
    std::string name;
    std::FILE *file = nullptr;  // the file on disk (the compressed one for .gz); null for stdin
    long size = 0;              // bytes of the file on disk, for progress (0: unknown)
    std::shared_ptr<ProgramReader> gunzip;  // the gzip -dc child of a .gz
    // The descriptor whose offset progress samples: the file on disk, compressed or not.
    int watch_fd() const { return file ? fileno(file) : (in ? fileno(in) : -1); }
};

// Opens FILE (FILE.gz through gzip -dc; - is stdin); throws with what to do.
IngestSource open_source(const std::string &f);
// After the whole source was read: a .gz whose gzip failed throws (the file is damaged or truncated).
void finish_source(IngestSource &s);
// After a failure: closes without judging.
void close_source(IngestSource &s);
// Whether IN starts with '{' (sacct --json); nothing is consumed.
bool starts_json(std::FILE *in);

}  // namespace jfp
