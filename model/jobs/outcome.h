// How a job ended, as far as jfp is concerned, and which outcomes are training labels.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace jfp {

// Stored in the history store as integers: never renumber.
enum class Outcome : uint8_t {
    Completed = 0,
    Failed = 1,
    Timeout = 2,
    OutOfMemory = 3,
    NodeFail = 4,
    Cancelled = 5,
    Preempted = 6,
    Requeued = 7,
    Unfinished = 8,  // pending, running, suspended: no end yet
    Other = 9,       // BOOT_FAIL, DEADLINE, REVOKED...: ended, but not something the user's job did
};

// Failure classes the class model predicts, in bundle order.
inline constexpr int kFailureClasses = 4;
inline constexpr Outcome kFailureClassOutcomes[kFailureClasses] = {Outcome::Failed, Outcome::Timeout,
                                                                   Outcome::OutOfMemory, Outcome::NodeFail};

// Maps sacct's State ("COMPLETED", "CANCELLED by 1234", "OUT_OF_MEMORY", "FAILED+", ...). nullopt for
// text that is not a Slurm job state.
std::optional<Outcome> outcome_from_state(std::string_view state);

const char *outcome_name(Outcome o);

inline bool is_failure(Outcome o) {
    return o == Outcome::Failed || o == Outcome::Timeout || o == Outcome::OutOfMemory || o == Outcome::NodeFail;
}

// Training rows are jobs that ran to a verdict: COMPLETED (label 0) or a failure (label 1). Cancelled,
// preempted, requeued and unfinished jobs say nothing about whether the job itself works.
inline bool is_labeled(Outcome o) { return o == Outcome::Completed || is_failure(o); }

inline bool has_ended(Outcome o) { return o != Outcome::Unfinished; }

// Index into kFailureClassOutcomes, or -1.
int failure_class_index(Outcome o);

}  // namespace jfp
