// libFuzzer: the annotation round trip the plugin performs on every comment: the user's text is
// neutralised, jfp's annotation appended, and parsing the result must give jfp's annotation back.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "model/policy/policy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    std::string user(reinterpret_cast<const char *>(data), size);
    (void)jfp::parse_annotation(user);
    if (auto n = jfp::neutralize(user)) user = *n;
    const std::string ours = jfp::format_annotation(0.625f, 1, "20260101T000000-abcdef01", false);
    if (auto c = jfp::append_annotation(user, ours)) {
        auto p = jfp::parse_annotation(*c);
        if (!p || p->cls != "TIMEOUT" || p->p < 0.62 || p->p > 0.63) {
            std::fprintf(stderr, "the appended annotation does not parse back from '%s'\n", c->c_str());
            std::abort();
        }
    }
    return 0;
}
