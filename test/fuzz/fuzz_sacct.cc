// libFuzzer: the sacct reader, with a header, headerless with --format, and other delimiters. Any input
// must be read or refused with SacctFormatError; never a crash, a hang or a sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string>

#include "model/sacct/sacct_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    jfp::SacctReaderOptions opt;
    uint8_t mode = data[0];
    if (mode & 1) {
        for (const char *f : {"JobIDRaw", "JobID", "User", "Account", "Partition", "JobName", "Submit", "Start", "End",
                              "State", "ExitCode", "ReqCPUS", "ReqNodes", "ReqMem", "Timelimit", "MaxRSS", "SubmitLine"})
            opt.format.emplace_back(f);
    }
    if (mode & 2) opt.delimiter = ";";
    opt.max_reported_bad_lines = 8;
    std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
    uint64_t jobs = 0;
    jfp::SacctReader reader(
        opt, [&](jfp::JobRecord &&) { ++jobs; }, [](jfp::StepInfo &&) {});
    try {
        reader.read_text(text, "fuzz");
    } catch (const jfp::SacctFormatError &) {
    }
    return 0;
}
