#include "model/sacct/field_placement.h"

#include <functional>

namespace jfp {

FieldPlacement place_extra_fields(const SacctLayout &layout, const std::vector<std::string_view> &fields) {
    FieldPlacement out;
    const size_t expected = layout.width();
    if (fields.size() <= expected) return out;
    const size_t extra = fields.size() - expected;
    const auto &free_text = layout.free_text_positions();
    std::vector<std::vector<std::string_view>> valid;
    std::vector<std::string_view> candidate;
    bool too_many = false;
    std::vector<size_t> share(free_text.size(), 0);
    std::function<void(size_t, size_t)> place = [&](size_t k, size_t left) {
        if (too_many) return;
        if (k + 1 == share.size()) {
            share[k] = left;
            candidate.clear();
            size_t src = 0;
            for (size_t col = 0; col < expected; ++col) {
                size_t absorb = 0;
                for (size_t i = 0; i < free_text.size(); ++i)
                    if (free_text[i] == col) absorb = share[i];
                const char *b = fields[src].data();
                const char *e = fields[src + absorb].data() + fields[src + absorb].size();
                candidate.emplace_back(b, static_cast<size_t>(e - b));
                src += absorb + 1;
            }
            if (layout.validate(candidate).empty()) {
                valid.push_back(candidate);
                if (valid.size() > 64) too_many = true;
            }
            return;
        }
        for (size_t n = 0; n <= left; ++n) {
            share[k] = n;
            place(k + 1, left - n);
        }
    };
    if (!share.empty() && extra <= 24 && free_text.size() <= 6) place(0, extra);
    if (valid.empty()) return out;
    out.verdict = FieldPlacement::Verdict::Ambiguous;
    if (too_many) return out;
    // Columns on which the valid placements disagree are unknowable; only free-text columns can disagree
    // while the typed ones validate. JobName is a feature: it must be certain.
    std::vector<std::string_view> chosen = valid.front();
    for (size_t col = 0; col < expected; ++col) {
        bool same = true;
        for (const auto &v : valid) same = same && v[col] == chosen[col];
        if (same) continue;
        if (!SacctLayout::is_free_text(layout.col(col)) || layout.col(col) == SacctCol::JobName) return out;
        chosen[col] = std::string_view();  // unknown
    }
    out.verdict = FieldPlacement::Verdict::Placed;
    out.fields = std::move(chosen);
    return out;
}

}  // namespace jfp
