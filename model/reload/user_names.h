// Users' names for uids the history does not name, from the password database. The submit path only reads
// what was looked up; a uid not found is queued and looked up on the background thread (getpwuid may ask
// LDAP or NSS over the network: never on slurmctld's thread).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "model/util/bounded_queue.h"

namespace jfp {

class UserNames {
public:
    UserNames();
    // The submit path: uid's name when looked up already; otherwise "uid:N", uid is queued and queued
    // set (the caller wakes the background thread).
    std::string name(uint32_t uid, bool &queued);
    // The background thread: looks the queued uids up.
    void resolve_queued();

    static constexpr size_t kMaxNames = 65536;

private:
    using Map = std::unordered_map<uint32_t, std::string>;
    std::shared_ptr<const Map> names_;
    BoundedQueue<uint32_t> misses_{1024};
};

// The password database, both ways; nullopt when it has no such entry.
std::optional<std::string> passwd_name(uint32_t uid);
std::optional<uint32_t> passwd_uid(const std::string &name);

}  // namespace jfp
