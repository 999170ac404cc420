// One scontrol update is one RPC, and it reaches every record of the jobs it names: an array whose tasks were
// split into records of their own (by holding or updating tasks one by one) has up to MaxArraySize of them.
// slurmctld calls job_modify once per record, on one thread, under its job write lock, with the same job
// descriptor. What depends only on that descriptor is prepared once (PreparedUpdate) and kept for the records
// that follow (UpdateRpc); what depends on the record (its owner, its request with the update merged in, its
// token) is read per record, and the judgement is reused only when all of that is the same as the last one's.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "model/request/job_record_view.h"
#include "model/request/judged_request.h"
#include "model/request/submit_request.h"

namespace jfp {

// A request without script or environment, owned: the descriptor's strings may be freed between two records
// (slurmctld takes some, the plugin replaces the comment), and a record's between two RPCs. An update is
// judged without its script (the submission's traits are in AdminComment): a request that carries a script or
// an environment is copied without them and never compared equal, so each of its records is prepared anew.
class OwnedRequest {
public:
    explicit OwnedRequest(const SubmitRequest &given);
    OwnedRequest(const OwnedRequest &) = delete;
    OwnedRequest &operator=(const OwnedRequest &) = delete;
    // Whether `given` says exactly what these fields say: every string byte for byte, every number bit for
    // bit (the time it was read at aside). Never true for a request with a script or an environment.
    bool same_as(const SubmitRequest &given) const;
    static bool keepable(const SubmitRequest &given) { return !given.script.data() && !given.env && given.env_count == 0; }
    // The fields as a request: views into this object, valid while it lives.
    const SubmitRequest &request() const { return req_; }

private:
    std::string text_[13];
    SubmitRequest req_;
};

// What an update says, judged once for all of its records: normalised, its comment neutralised, whether it
// changes anything the judgement reads, and the time all its records are judged at.
struct PreparedUpdate {
    explicit PreparedUpdate(const SubmitRequest &given);
    OwnedRequest fields;
    SubmitRequest delta;  // normalised; views into fields
    std::optional<std::string> neutral_comment;  // the update's comment as jfp keeps it; none when it gives none
    bool comment_neutralized = false;            // neutral_comment differs from what the user gave
    bool request_changes = false;                // it changes something the judgement reads
};

// What a record is judged on beyond the update: when it equals the last record's, so does the judgement.
struct RecordInputs {
    SubmitRequest after;  // views into the record and the update
    uint32_t owner = 0;
    bool privileged = false;
    const SubmissionFacts *facts = nullptr;
    std::string_view comment, user;
};

// The last record's inputs, owned, with the engine snapshot (weakly: a pool thread must not keep an old model
// and history alive) and the history generation they were judged against.
class RecordMemo {
public:
    bool matches(const RecordInputs &in, const std::shared_ptr<const void> &state, uint64_t history_generation) const;
    // Keeps a copy of the inputs (false when it cannot: a request with a script); matches() stays false
    // until confirm(), once `judged` holds their judgement (a judgement that threw is never reused).
    bool remember(const RecordInputs &in, const std::shared_ptr<const void> &state, uint64_t history_generation);
    void confirm() { valid_ = after_ != nullptr; }
    void forget() { valid_ = false; }
    // The remembered request (views into this memo), to judge on: what the judgement keeps a view of stays
    // valid as long as the memo does.
    SubmitRequest request() const;
    JudgedRequest judged;  // the judgement of the remembered inputs, once the engine has made it

private:
    bool valid_ = false;
    std::weak_ptr<const void> state_;
    uint64_t generation_ = 0;
    std::unique_ptr<OwnedRequest> after_;
    int64_t after_time_ = 0;
    uint32_t owner_ = 0;
    bool privileged_ = false;
    SubmissionFacts facts_;
    std::string comment_, user_;
};

// One thread's current update RPC (the plugin keeps one per slurmctld thread). `desc` is the descriptor's
// address, only ever compared: a later RPC may get the same address, which is why the content is compared too.
class UpdateRpc {
public:
    // True when this record belongs to the RPC already prepared: the same descriptor address, the same job id
    // as the descriptor names it, the same content, and the previous record ended at most kGapNs before now_ns,
    // on this thread.
    bool continues(const void *desc, std::string_view job_id, const SubmitRequest &given, uint64_t now_ns) const;
    // A new RPC: `given` prepared, its records judged at judged_at (naive local), now_ns its start.
    void start(const void *desc, std::string_view job_id, const SubmitRequest &given, uint64_t id, int64_t judged_at,
               uint64_t now_ns);
    // One RPC reaches each job record once: a record it has reached already starts another RPC (the same
    // update sent again, its descriptor at the same address). Record 0: not known (a record jfp cannot read).
    bool reached(uint32_t record) const { return record != 0 && records_.count(record) != 0; }
    void reach(uint32_t record) {
        if (record != 0) records_.insert(record);
    }
    // A record ended at end_ns after `took_ns` of jfp's time: the RPC's time so far (update_budget_ms).
    void record_done(uint64_t end_ns, uint64_t took_ns) {
        last_end_ns_ = end_ns;
        spent_ns_ += took_ns;
    }
    uint64_t spent_ns() const { return spent_ns_; }
    // Counts a record left unjudged, past the budget; true for the RPC's first such record (said once).
    bool left_unjudged() { return unjudged_++ == 0; }
    uint64_t judged_before_budget() const { return judged_; }
    void judged() { ++judged_; }
    void clear() {
        prepared_.reset();
        memo.forget();
        partitions = PartitionsToJudge{};
    }
    const PreparedUpdate *prepared() const { return prepared_.get(); }
    uint64_t id() const { return id_; }
    int64_t judged_at() const { return judged_at_; }
    RecordMemo memo;
    // A partition list's entries worth judging (Engine::partitions_to_judge), kept for the records that carry
    // the same list under the same engine state: a list of 500 entries is sorted once per RPC, not per record.
    struct PartitionsToJudge {
        std::string list;
        std::weak_ptr<const void> state;
        std::vector<std::string> entries;
    } partitions;
    // Records of one RPC follow each other within slurmctld's own work on each (tens of microseconds);
    // half a second between two means another RPC, whatever else matches.
    static constexpr uint64_t kGapNs = 500000000;

private:
    std::unique_ptr<PreparedUpdate> prepared_;
    const void *desc_ = nullptr;
    std::string job_id_;
    std::unordered_set<uint32_t> records_;
    uint64_t id_ = 0, last_end_ns_ = 0, spent_ns_ = 0, unjudged_ = 0, judged_ = 0;
    int64_t judged_at_ = 0;
};

}  // namespace jfp
