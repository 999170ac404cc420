#include "model/reload/user_names.h"

#include <pwd.h>

#include <vector>

namespace jfp {

UserNames::UserNames() : names_(std::make_shared<const Map>()) {}

std::string UserNames::name(uint32_t uid, bool &queued) {
    auto names = std::atomic_load(&names_);
    auto it = names->find(uid);
    if (it != names->end()) return it->second;
    misses_.try_push(uint32_t(uid));  // full: this one is asked again by its next submission
    queued = true;
    return "uid:" + std::to_string(uid);
}

void UserNames::resolve_queued() {
    uint32_t uid;
    std::shared_ptr<Map> updated;
    while (misses_.try_pop(uid)) {
        auto cur = std::atomic_load(&names_);
        if (cur->count(uid) || (updated && updated->count(uid))) continue;
        if (!updated) updated = std::make_shared<Map>(*cur);
        // A bound like every structure the plugin keeps: past it, start afresh (names are looked up again as
        // their users submit).
        if (updated->size() >= kMaxNames) updated->clear();
        auto name = passwd_name(uid);
        (*updated)[uid] = name ? *name : "uid:" + std::to_string(uid);
    }
    if (updated) std::atomic_store(&names_, std::shared_ptr<const Map>(updated));
}

std::optional<std::string> passwd_name(uint32_t uid) {
    struct passwd pw {};
    struct passwd *res = nullptr;
    std::vector<char> buf(16384);
    if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &res) != 0 || !res) return std::nullopt;
    return std::string(res->pw_name);
}

std::optional<uint32_t> passwd_uid(const std::string &name) {
    struct passwd pw {};
    struct passwd *res = nullptr;
    std::vector<char> buf(16384);
    if (getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &res) != 0 || !res) return std::nullopt;
    return static_cast<uint32_t>(res->pw_uid);
}

}  // namespace jfp
