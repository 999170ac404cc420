// Join tokens for a slurmctld's life: unique (a counter), and not guessable from the last one a user saw (the
// counter through splitmix64 under a random seed), so that no user can forge another job's token.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <random>

#include "model/jobs/join_token.h"

namespace jfp {

class TokenIssuer {
public:
    TokenIssuer() {
        std::random_device rd;
        seed_ = (static_cast<uint64_t>(rd()) << 32) ^ rd() ^ static_cast<uint64_t>(getpid());
    }
    JoinToken issue() { return JoinToken::hex(splitmix64(seed_ ^ counter_.fetch_add(1, std::memory_order_relaxed))); }

private:
    static uint64_t splitmix64(uint64_t x) {
        x += 0x9e3779b97f4a7c15ull;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        return x ^ (x >> 31);
    }
    std::atomic<uint64_t> counter_{0};  // every submission writes it
    uint64_t seed_ = 0;
};

}  // namespace jfp
