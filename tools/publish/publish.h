// jfp publish's engine: installs a model bundle where the plugin reads it, atomically, keeping the one it
// replaces (model_files.h), after checking that it ranks failures at least as well as the history rules on
// the site's recent jobs and as the model installed on the jobs neither trained on
// (tools/evaluate/verdict.h); or puts the previous one back.
#pragma once

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>

namespace jfp {

struct PublishRequest {
    std::string bundle;  // empty with rollback
    // Where the plugin reads its model, and the history store to judge on ("" none): asked only when
    // needed, as finding them may read jfp.conf and fail.
    std::function<std::string()> target, store;
    bool force = false, rollback = false;
    size_t min_failures = 20;  // failed jobs since the cutoff needed to judge on them
};

enum class PublishResult { Installed, AlreadyInstalled, RolledBack, Refused };

// Says what it judged and did on out, the wait for another publish and a refusal on err. Throws with what
// to do when a file cannot be read or written, or the bundle cannot be judged without --force.
PublishResult publish_model(const PublishRequest &r, std::ostream &out, std::ostream &err);

}  // namespace jfp
