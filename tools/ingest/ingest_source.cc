#include "tools/ingest/ingest_source.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "model/util/text.h"

namespace jfp {

IngestSource open_source(const std::string &f) {
    IngestSource s;
    if (f == "-") {
        s.in = stdin;
        s.name = "<stdin>";
        return s;
    }
    struct stat st {};
    if (stat(f.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw std::runtime_error(f + " is a directory, not an export; give the files in it (jfp ingest --db ... " + f + "/*)");
    s.file = std::fopen(f.c_str(), "rb");
    if (!s.file) throw std::runtime_error("cannot open " + f + ": " + std::strerror(errno));
    s.name = f;
    s.size = fstat(fileno(s.file), &st) == 0 && S_ISREG(st.st_mode) ? static_cast<long>(st.st_size) : 0;
    if (!ends_with(f, ".gz")) {
        s.in = s.file;
        return s;
    }
    // gzip is in every Debian and RHEL base system; its exit status catches a truncated file. It reads our
    // descriptor, so the offset progress samples is the compressed file's.
    SubprocessOptions opt;
    opt.stdin_fd = fileno(s.file);
    opt.name = "gzip -dc " + f;
    opt.hint = "the file is damaged or truncated; what was read before the damage is stored";
    try {
        s.gunzip = std::make_shared<ProgramReader>(std::vector<std::string>{"gzip", "-dc"}, opt);
    } catch (...) {
        std::fclose(s.file);
        throw;
    }
    s.in = s.gunzip->out();
    return s;
}

void finish_source(IngestSource &s) {
    if (s.gunzip) {
        auto gz = std::move(s.gunzip);
        s.in = nullptr;
        try {
            gz->finish();
        } catch (...) {
            close_source(s);
            throw;
        }
    }
    close_source(s);
}

void close_source(IngestSource &s) {
    s.gunzip.reset();  // a child not finished is stopped
    if (s.file) std::fclose(s.file);
    s.file = s.in = nullptr;
}

bool starts_json(std::FILE *in) {
    int c = std::getc(in);
    if (c == EOF) return false;
    std::ungetc(c, in);
    return c == '{';
}

}  // namespace jfp
