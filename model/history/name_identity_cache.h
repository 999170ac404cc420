// Name identities already computed, for the submit and update paths: a name that is not ASCII goes through
// ICU (10-60 us for 256 bytes), and an update RPC over 1,000 records of distinct names, or a partition list
// judged entry by entry, would pay it again and again. Direct-mapped by the name's hash, kSlots slots, each
// holding one name (at most kNameIdentityBytes) and its identity: bounded in memory (a slot's identity is at
// most a few KiB: kNameIdentityChars characters' skeleton), never in the way (a miss computes it).
// ASCII names are not kept: their table path costs less than a lookup here.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "model/history/name_identity.h"

namespace jfp {

class NameIdentityCache {
public:
    static constexpr size_t kSlots = 2048;

    // Where an identity lives while it is used: its own (an ASCII name, computed each time: cheaper than a
    // lookup here, and no allocation on the submit path) or the cache's, shared (kilobytes for a name that
    // folds to many characters: not copied).
    struct Held {
        NameIdentity own;
        std::shared_ptr<const NameIdentity> shared;
    };

    const NameIdentity &get(std::string_view name, Held &held) {
        bool ascii = true;
        for (unsigned char c : name.substr(0, kNameIdentityBytes))
            if (c >= 0x80) {
                ascii = false;
                break;
            }
        if (ascii) return held.own = name_identity(name);
        const std::string_view key = name.substr(0, kNameIdentityBytes);
        Slot &slot = slots_[std::hash<std::string_view>()(key) % kSlots];
        {
            std::lock_guard<std::mutex> lk(mu_);
            if (slot.id && slot.name == key) return *(held.shared = slot.id);
        }
        auto id = std::make_shared<const NameIdentity>(name_identity(name));  // outside the lock: ICU's time is the caller's alone
        std::lock_guard<std::mutex> lk(mu_);
        slot.name.assign(key);
        slot.id = id;
        return *(held.shared = std::move(id));
    }

private:
    struct Slot {
        std::string name;
        std::shared_ptr<const NameIdentity> id;
    };
    std::mutex mu_;
    std::array<Slot, kSlots> slots_{};
};

}  // namespace jfp
