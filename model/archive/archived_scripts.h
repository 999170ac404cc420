// The script archive as a feature source for history: a job whose join token the archive holds gets the
// script features the plugin computes from the archived bytes, exactly as at submission: the scanner's
// traits and the #SBATCH lines sbatch ignored. Each distinct script is read and scanned once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "model/archive/script_archive.h"
#include "model/script/script_traits.h"

namespace jfp {

struct ArchivedScriptFeatures {
    ScriptTraits traits;
    double ignored_sbatch = 0;  // count_ignored_directives
};

class ArchivedScripts {
public:
    explicit ArchivedScripts(const std::string &archive_path);

    // The features of the script submitted with this token; nullopt when the archive lacks it.
    std::optional<ArchivedScriptFeatures> features(const std::string &token);

    uint64_t found() const { return found_; }
    uint64_t missing() const { return missing_; }
    uint64_t distinct() const { return by_hash_.size(); }
    const std::string &path() const { return archive_.path(); }

private:
    ScriptArchive archive_;
    std::unordered_map<std::string, ArchivedScriptFeatures> by_hash_;
    uint64_t found_ = 0, missing_ = 0;
};

}  // namespace jfp
