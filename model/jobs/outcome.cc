#include "model/jobs/outcome.h"

#include "model/util/text.h"

namespace jfp {

std::optional<Outcome> outcome_from_state(std::string_view state) {
    state = trim(state);
    // "CANCELLED by 1234"; older exports may add a trailing '+' (requeued) or similar decorations.
    auto space = state.find(' ');
    if (space != std::string_view::npos) state = state.substr(0, space);
    while (!state.empty() && state.back() == '+') state.remove_suffix(1);
    if (state == "COMPLETED" || state == "CD") return Outcome::Completed;
    if (state == "FAILED" || state == "F") return Outcome::Failed;
    if (state == "TIMEOUT" || state == "TO") return Outcome::Timeout;
    if (state == "OUT_OF_MEMORY" || state == "OOM") return Outcome::OutOfMemory;
    if (state == "NODE_FAIL" || state == "NF") return Outcome::NodeFail;
    if (state == "CANCELLED" || state == "CA") return Outcome::Cancelled;
    if (state == "PREEMPTED" || state == "PR") return Outcome::Preempted;
    if (state == "REQUEUED" || state == "RQ" || state == "REQUEUE_FED" || state == "REQUEUE_HOLD" ||
        state == "SPECIAL_EXIT" || state == "SE")
        return Outcome::Requeued;
    if (state == "PENDING" || state == "PD" || state == "RUNNING" || state == "R" || state == "SUSPENDED" ||
        state == "S" || state == "RESIZING" || state == "RS" || state == "COMPLETING" || state == "CG" ||
        state == "CONFIGURING" || state == "CF" || state == "STOPPED" || state == "ST" || state == "SIGNALING" ||
        state == "STAGE_OUT" || state == "RESV_DEL_HOLD")
        return Outcome::Unfinished;
    if (state == "BOOT_FAIL" || state == "BF" || state == "DEADLINE" || state == "DL" || state == "REVOKED" ||
        state == "RV")
        return Outcome::Other;
    return std::nullopt;
}

const char *outcome_name(Outcome o) {
    switch (o) {
        case Outcome::Completed: return "COMPLETED";
        case Outcome::Failed: return "FAILED";
        case Outcome::Timeout: return "TIMEOUT";
        case Outcome::OutOfMemory: return "OUT_OF_MEMORY";
        case Outcome::NodeFail: return "NODE_FAIL";
        case Outcome::Cancelled: return "CANCELLED";
        case Outcome::Preempted: return "PREEMPTED";
        case Outcome::Requeued: return "REQUEUED";
        case Outcome::Unfinished: return "UNFINISHED";
        case Outcome::Other: return "OTHER";
    }
    return "?";
}

int failure_class_index(Outcome o) {
    for (int i = 0; i < kFailureClasses; ++i)
        if (kFailureClassOutcomes[i] == o) return i;
    return -1;
}

}  // namespace jfp
