// libFuzzer: the jfp.conf parser. Any text parses to a config or to errors with line numbers.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/policy/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    auto r = jfp::parse_config(std::string_view(reinterpret_cast<const char *>(data), size), "fuzz.conf");
    if (!r.ok()) (void)r.error_text();
    return 0;
}
