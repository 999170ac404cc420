// Join tokens: 8 hex digits of the issuing second (Unix time), then 8 of the process's counter through a
// keyed 32-bit permutation.
// - Unique within a process: two tokens of one second have counters less than 2^32 apart, and the
//   permutation is a bijection.
// - Across processes (a restart, a backup controller) two tokens can meet only when both are issued in the
//   same second, and then with chance 2^-32 a pair; the feature log and the script archive then keep the
//   earlier job's row and log it (feature_log_writer.cc, script_archive.cc).
// - Not guessable from the last one a user saw: the permutation is a 4-round Feistel network whose round
//   keys are 64 random bits each.
// - Ascending with time: the feature log's key appends instead of dirtying one index page per row, as a
//   wholly random token did (bench/feature_log_writer.cc, docs/performance.md).
#pragma once

#include <time.h>
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
        uint64_t seed = (static_cast<uint64_t>(rd()) << 32) ^ rd() ^ static_cast<uint64_t>(getpid());
        for (auto &k : round_keys_) k = seed = splitmix64(seed ^ (static_cast<uint64_t>(rd()) << 32));
    }
    JoinToken issue() {
        timespec now{};
        if (clock_gettime(CLOCK_REALTIME_COARSE, &now) != 0) now.tv_sec = ::time(nullptr);
        return issue_at(static_cast<uint64_t>(now.tv_sec));
    }
    // The token for a second given (tests; the clock's second otherwise).
    JoinToken issue_at(uint64_t unix_seconds) {
        const auto n = static_cast<uint32_t>(counter_.fetch_add(1, std::memory_order_relaxed));
        return JoinToken::hex((unix_seconds & 0xffffffffull) << 32 | permute(n));
    }
    // The keyed permutation of the counter's low 32 bits (exposed for its bijection test).
    uint32_t permute(uint32_t x) const {
        uint32_t l = x >> 16, r = x & 0xffff;
        for (uint64_t k : round_keys_) {
            const uint32_t f = static_cast<uint32_t>(splitmix64(k ^ r)) & 0xffff;
            const uint32_t next = l ^ f;
            l = r;
            r = next;
        }
        return l << 16 | r;
    }

private:
    static uint64_t splitmix64(uint64_t x) {
        x += 0x9e3779b97f4a7c15ull;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        return x ^ (x >> 31);
    }
    std::atomic<uint64_t> counter_{0};  // every submission writes it
    uint64_t round_keys_[4] = {};
};

}  // namespace jfp
