// Times as sacct prints them. sacct writes local wall-clock times without a zone; jfp keeps them as
// "naive local" seconds (the wall-clock fields read as if UTC) so that hour-of-day and weekday mean the
// same in the trainer and in slurmctld, which converts its own clock the same way (naive_local_now()).
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jfp {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d);

// "2024-01-05T10:20:30", "2024-01-05 10:20:30", "2024-01-05T10:20" or "2024-01-05" or plain epoch seconds
// ("1704450030"). nullopt for "Unknown", "None", "" and anything malformed.
std::optional<int64_t> parse_sacct_time(std::string_view s);

// Inverse for output: "2024-01-05T10:20:30".
std::string format_sacct_time(int64_t naive);

// Durations: "[D-]HH:MM:SS", "MM:SS", "MM:SS.mmm", "SS", in seconds. nullopt when malformed.
std::optional<double> parse_duration_seconds(std::string_view s);

// Timelimit in minutes: durations, "UNLIMITED"/"INFINITE" (+inf); nullopt for "Partition_Limit", "" or
// malformed (unknown limit).
std::optional<double> parse_timelimit_minutes(std::string_view s);

// Slurm's own time syntax (slurm.conf DefaultTime/MaxTime, sbatch -t): "30" is minutes, "MM:SS",
// "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS"; "UNLIMITED"/"INFINITE" are +inf. nullopt when malformed.
std::optional<double> parse_slurm_time_minutes(std::string_view s);

// Hour (0-23) and weekday (0 = Monday) of a naive-local time.
int hour_of_day(int64_t naive);
int weekday(int64_t naive);

// The current time as naive-local seconds, from the process's time zone.
int64_t naive_local_now();
int64_t naive_local_from_epoch(int64_t epoch);

// naive_local_from_epoch for times close together, as every submission asks: the zone's offset is
// kept per UTC minute (zones change offset on whole minutes), so most calls skip localtime_r and its
// global lock (~300 cycles on a fresh slurmctld thread, bench/hotpath). Lock-free; any thread.
class LocalOffsetCache {
public:
    int64_t naive(int64_t epoch);

private:
    // minute since 1970 in the high 32 bits, offset + 2^20 seconds in the low; 0: empty.
    std::atomic<uint64_t> minute_offset_{0};
};

// CLOCK_MONOTONIC in nanoseconds: for durations (latencies, idle times), never for dates.
inline uint64_t monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// The calling thread's CPU time in nanoseconds: what it ran, not what it waited for a core. A system
// call (the vDSO has no thread clocks), so sampled, never taken on every submission.
inline uint64_t thread_cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace jfp
