// What a warned or rejected user can do about it, from the history of their runs of the same job name:
// a time limit or a memory request those runs suggest, and, for a job likely to hit its time limit whose
// script shows no checkpoint/restart, the site's page on checkpointing (checkpoint_url in jfp.conf).
//
// The same rule as explain.h: a number stated about the past is one the history view holds, and
// test/replay/check_messages.py checks every such sentence against the store.
#pragma once

#include <string>

#include "model/history/history.h"
#include "model/jobs/job_request.h"

namespace jfp {

// Requests a user's own history supports, with a margin; unknown (NaN) where it supports none, or where
// the job already asks for as much.
struct Suggestion {
    double time_min = kUnknown;  // -t, from the longest COMPLETED run
    double mem_mb = kUnknown;    // --mem, from the largest MaxRSS of COMPLETED runs
};

// For the likely failure class (index into kFailureClassOutcomes): TIMEOUT suggests a time, OUT_OF_MEMORY
// a memory size; other classes nothing.
Suggestion suggest(int top_class, const JobRequest &r, const HistoryView &h);

// ",time=02:30:00" / ",mem=4G": the suggestion in the annotation's parseable form (empty when none).
std::string suggestion_fields(const Suggestion &s);

// The advice sentence(s) for the user.
std::string advice(int top_class, const JobRequest &r, const HistoryView &h, const std::string &checkpoint_url = "");

// A quarter more than the longest successful run, rounded up to 5 minutes: runs vary, and a limit just
// at the longest run times out on the next slower node.
double suggest_minutes(double longest_ok_minutes);
// A quarter more than MaxRSS, rounded up to 256M, as --mem takes it ("4G", "2560M").
double suggest_mem_mb(double max_rss_mb);
std::string suggest_mem(double max_rss_mb);

}  // namespace jfp
