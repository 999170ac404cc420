// A sacct record with more fields than its header: the delimiter inside free text (JobName, WorkDir,
// SubmitLine, Comment). Every way of giving the extra fields to the free-text columns is tried; what all
// the placements that validate agree on is kept, and the job name must be certain.
#pragma once

#include <string_view>
#include <vector>

#include "model/sacct/sacct_layout.h"

namespace jfp {

struct FieldPlacement {
    enum class Verdict { Placed, Ambiguous, Impossible };
    Verdict verdict = Verdict::Impossible;
    // Placed: layout.width() fields; a free-text column the placements disagree on is empty (unknown).
    std::vector<std::string_view> fields;
};

// fields: the record split at every delimiter (more than layout.width()). The search is bounded: at most 24
// extra fields over at most 6 free-text columns, and more than 64 valid placements is Ambiguous.
FieldPlacement place_extra_fields(const SacctLayout &layout, const std::vector<std::string_view> &fields);

}  // namespace jfp
