// Fleet figures no one user can move far. Each user's jobs in a figure weigh min(1, cap / n), n being that
// user's jobs in the figure's population (flagged jobs for precision, failed jobs for recall, scored jobs for
// drift): a user counts as at most `cap` jobs. A user's weight depends on their own jobs only, so a new user
// leaves every other weight as it was, and moves a capped ratio by at most cap / (the others' mass + cap).
// The figures without each user in turn are what an alert checks: one user alone cannot make it fire.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

namespace jfp {

// Ten jobs: a user with a handful of jobs in a week counts in full, a heavy user (or one submitting to move
// a figure) as ten. Half of --min-flagged's 20: the smallest precision judged still rests on two users'
// worth of jobs, and once the others count 90 capped jobs no newcomer moves a ratio by more than 0.1.
constexpr double kDefaultUserCap = 10;
constexpr size_t kDefaultMinUsers = 3;

double user_weight(double jobs, double cap);

// One user's part of a ratio: `hits` of `jobs` (precision: failed of flagged; recall: flagged of failed).
struct UserShare {
    uint64_t hits = 0, jobs = 0;
};

struct CappedRatio {
    double plain = -1, capped = -1;  // -1: no job
    // The capped ratio with each user's jobs left out in turn: its lowest and highest (-1 with one user).
    double lowest_without_one = -1, highest_without_one = -1;
    size_t users = 0;     // users with a job in the population
    double mass = 0;      // the capped jobs: sum over users of min(jobs, cap)
};

CappedRatio capped_ratio(const std::map<uint32_t, UserShare> &by_user, double cap);

}  // namespace jfp
