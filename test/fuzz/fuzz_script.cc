// libFuzzer, differential: the plugin's fast script scanner must agree with the slow, obvious one on
// every input. The fingerprint's normaliser (its buffer arithmetic under the sanitizers) runs on each too:
// its text stays within kNormalizedScriptBytes, and the fingerprint is 0 exactly when that text is empty.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "model/script/script_fingerprint.h"
#include "model/script/script_traits.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    std::string_view s(reinterpret_cast<const char *>(data), size);
    jfp::ScriptTraits a = jfp::scan_script(s), b = jfp::scan_script_reference(s);
    const double fa[] = {a.bytes, a.lines, a.interp_python, a.interp_shell, a.sbatch_directives, a.module_loads, a.srun,
                         a.mpirun, a.uses_python, a.uses_conda, a.set_e, a.binary};
    const double fb[] = {b.bytes, b.lines, b.interp_python, b.interp_shell, b.sbatch_directives, b.module_loads, b.srun,
                         b.mpirun, b.uses_python, b.uses_conda, b.set_e, b.binary};
    for (size_t i = 0; i < sizeof fa / sizeof fa[0]; ++i)
        if (fa[i] != fb[i]) {
            std::fprintf(stderr, "scan_script and scan_script_reference differ in field %zu: %g vs %g\n", i, fa[i], fb[i]);
            std::abort();
        }
    const std::string text = jfp::normalized_script(s);
    if (text.size() > jfp::kNormalizedScriptBytes || (jfp::script_fingerprint(s) == 0) != text.empty()) {
        std::fprintf(stderr, "normalized_script: %zu bytes, fingerprint %s\n", text.size(), text.empty() ? "nonzero for no text" : "0 for some text");
        std::abort();
    }
    return 0;
}
