// libFuzzer: Slurm's JSON output (sacct --json, squeue --json). Any input is read, or refused with
// SlurmJsonError; a name read back is exactly a JSON string of the input (never a record of its own).
#include <cstddef>
#include <cstdint>
#include <string>

#include "model/accounting/slurm_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    std::string text(reinterpret_cast<const char *>(data), size);
    try {
        jfp::sacct_json_user_text(text, "fuzz");
    } catch (const jfp::SlurmJsonError &) {
    }
    try {
        jfp::squeue_json_tokens_text(text, "fuzz");
    } catch (const jfp::SlurmJsonError &) {
    }
    return 0;
}
