#include "update_comment.h"

#include <cstring>

#include "model/request/update_rpc.h"
#include "slurm_glue.h"

namespace jfp_plugin {

std::optional<std::string> comment_of(const job_desc_msg_t *desc) {
    if (!desc->comment) return std::nullopt;
    return std::string(desc->comment);
}

void UpdateComment::restore(job_desc_msg_t *d, uint64_t now_ns) {
    // The same descriptor, still pointing at jfp's own string with jfp's text, within one RPC's gap.
    const bool ours = written_ && d == desc_ && d->comment == written_ && written_text_ == d->comment &&
                      now_ns - at_ns_ <= jfp::UpdateRpc::kGapNs;
    written_ = nullptr;
    if (!ours) return;
    char *back = sent_ ? slurm_xstrdup(sent_->c_str()) : nullptr;
    slurm_xfree(reinterpret_cast<void **>(&d->comment));
    d->comment = back;
}

void UpdateComment::applied(job_desc_msg_t *d, const char *before, std::optional<std::string> sent, uint64_t now_ns) {
    written_ = nullptr;
    if (!d->comment || d->comment == before) return;  // jfp wrote nothing
    desc_ = d;
    written_ = d->comment;
    written_text_ = d->comment;
    sent_ = std::move(sent);
    at_ns_ = now_ns;
}

}  // namespace jfp_plugin
