// The model's files where the plugin reads it: MODEL, and MODEL.previous, the one the last publish
// replaced. Every change is a copy beside the file renamed over it, so the plugin never reads half a model,
// and the live model is replaced last.
#pragma once

#include <optional>
#include <string>

#include "model/scoring/model_bundle.h"

namespace jfp {

// The file's bytes; throws "PATH: cannot read: ..." when it cannot be read.
std::string read_file_text(const std::string &path);

// The model id of the bundle at path, or "(unreadable)".
std::string model_id_at(const std::string &path);

// The model installed at target, when there is one this jfp can load; why says what failed when there is
// one it cannot load.
std::optional<ModelBundle> load_installed_model(const std::string &target, std::string &why);

struct InstalledModel {
    bool replaced = false;    // a model was there before, now MODEL.previous
    std::string replaced_id;  // its model id
};

// Installs text as target, keeping the model it replaces as target.previous.
InstalledModel install_model_text(const std::string &target, const std::string &text);

struct RolledBack {
    std::string restored_id;  // the model now installed
    std::string replaced_id;  // the model now MODEL.previous; empty when none was installed
};

// Swaps target and target.previous, so a second rollback undoes the first. Throws when there is no
// previous model, or one the plugin would refuse.
RolledBack roll_back_model(const std::string &target);

}  // namespace jfp
