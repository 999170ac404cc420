// slurmctld hands every record of one update RPC the same job descriptor and copies its comment into each
// record. jfp writes a record's comment (the user's with that record's annotation) into the descriptor: left
// there, it would reach the next record as if the user had sent it, and pile one annotation onto the next
// (22.05 to 26.05). So before each record the comment the user sent is put back, when what the descriptor
// holds is still exactly what jfp wrote for the record before, on this thread, moments ago.
#pragma once

#include <slurm/slurm.h>

#include <cstdint>
#include <optional>
#include <string>

namespace jfp_plugin {

class UpdateComment {
public:
    // Before a record is read: puts the user's comment back if the descriptor still holds jfp's.
    void restore(job_desc_msg_t *desc, uint64_t now_ns);
    // After the outcome was applied: `before` is the comment string the record was read with, `sent` its text
    // (the user's). Remembered when jfp replaced it.
    void applied(job_desc_msg_t *desc, const char *before, std::optional<std::string> sent, uint64_t now_ns);

private:
    const job_desc_msg_t *desc_ = nullptr;
    const char *written_ = nullptr;  // the string jfp put into desc_->comment
    std::string written_text_;
    std::optional<std::string> sent_;
    uint64_t at_ns_ = 0;
};

// The comment a descriptor holds now, owned (nullopt: none).
std::optional<std::string> comment_of(const job_desc_msg_t *desc);

}  // namespace jfp_plugin
