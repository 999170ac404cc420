// libFuzzer: the model bundle loader on arbitrary JSON and on mutations of a real bundle (seeded by
// scripts/fuzz). It must load or refuse with an error, never crash or loop; a bundle that loads scores.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "model/scoring/model_bundle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    auto j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return 0;
    try {
        auto b = jfp::ModelBundle::from_json(j, "fuzz");
        jfp::FeatureVector x{};
        (void)b.score(x);
        x.fill(1e30f);
        (void)b.score(x);
    } catch (const std::exception &) {
    }
    return 0;
}
