// libFuzzer: the SWF reader. Any input is read, or refused with SacctFormatError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "model/accounting/swf_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    std::string text(reinterpret_cast<const char *>(data), size);
    jfp::SwfReaderOptions opt;
    opt.max_reported_bad_lines = 8;
    jfp::SwfReader reader(opt, [](jfp::JobRecord &&) {});
    try {
        reader.read_text(text, "fuzz");
    } catch (const jfp::SacctFormatError &) {
    }
    return 0;
}
