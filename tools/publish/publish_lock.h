// Two publishes at once (the retrain timer and an admin) would each keep the other's model as the previous
// one and lose one: one at a time, by a lock file beside the model (MODEL.lock).
#pragma once

#include <functional>
#include <string>

namespace jfp {

class PublishLock {
public:
    // Blocks until no other publish holds the lock; on_wait is called once before waiting, when it must.
    // Throws when the lock file cannot be opened or locked.
    PublishLock(const std::string &target, const std::function<void()> &on_wait);
    ~PublishLock();
    PublishLock(const PublishLock &) = delete;
    PublishLock &operator=(const PublishLock &) = delete;

private:
    int fd_ = -1;
};

}  // namespace jfp
