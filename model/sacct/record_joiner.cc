#include "model/sacct/record_joiner.h"

#include <algorithm>

#include "model/jobs/slurm_text.h"
#include "model/util/text.h"

namespace jfp {

size_t IdLedJoiner::delimiters_in(std::string_view l) const {
    if (delim_.size() == 1) return static_cast<size_t>(std::count(l.begin(), l.end(), delim_[0]));
    size_t n = 0;
    for (size_t p = l.find(delim_); p != std::string_view::npos; p = l.find(delim_, p + delim_.size())) ++n;
    return n;
}

bool IdLedJoiner::is_record_start(std::string_view l) const {
    return parse_job_id(trim(l.substr(0, l.find(delim_)))).has_value();
}

void IdLedJoiner::line(std::string_view l, uint64_t lineno, const SacctLayout &layout, JoinCounts &counts) {
    if (is_record_start(l) && !record_short(layout)) {
        flush(layout, counts);
        text_.assign(l.data(), l.size());
        delims_ = delimiters_in(l);
        first_ = lineno;
        lines_ = 1;
        return;
    }
    // A fragment (fewer fields than a record) continues the record before it, and so does any line while
    // that record is short; otherwise a full-width line is a record of its own with a bad job id.
    const bool continues = record_short(layout);
    split_into(l, delim_, fields_);
    if (lines_ > 0 && lines_ < kMaxJoinedLines && (continues || fields_.size() < layout.width())) {
        text_ += '\n';
        text_.append(l.data(), l.size());
        delims_ += delimiters_in(l);
        ++lines_;
    } else if (trim(l).empty()) {
        ++counts.blank_lines;
    } else {
        flush(layout, counts);
        process_(l, lineno, lineno, true);
    }
}

void IdLedJoiner::flush(const SacctLayout &, JoinCounts &counts) {
    if (lines_ == 0) return;
    // Blank lines after a record belong to no field.
    size_t lines = lines_;
    while (!text_.empty() && (text_.back() == '\n' || text_.back() == '\r' || text_.back() == ' ')) {
        if (text_.back() == '\n') {
            --lines;
            ++counts.blank_lines;
        }
        text_.pop_back();
    }
    if (lines > 1) ++counts.joined_newlines;
    process_(text_, first_, first_ + lines - 1, true);
    lines_ = 0;
    text_.clear();
}

void ShortLineJoiner::line(std::string_view l, uint64_t lineno, const SacctLayout &layout, JoinCounts &counts) {
    if (lines_ > 0) {
        joined_ = pending_;
        joined_ += '\n';
        joined_.append(l.data(), l.size());
        const uint64_t last = first_ + lines_;
        split_into(joined_, delim_, fields_);
        if (fields_.size() < layout.width() && lines_ < kMaxJoinedLines) {
            pending_ = joined_;
            ++lines_;
            return;
        }
        if (fields_.size() == layout.width() && layout.validate(fields_).empty()) {
            ++counts.joined_newlines;
            process_(joined_, first_, last, true);
            lines_ = 0;
            pending_.clear();
            return;
        }
        flush();  // the held lines are bad on their own; this line starts afresh
    }
    if (trim(l).empty()) {
        ++counts.blank_lines;
        return;
    }
    if (!process_(l, lineno, lineno, false)) {
        pending_.assign(l.data(), l.size());
        first_ = lineno;
        lines_ = 1;
    }
}

void ShortLineJoiner::flush() {
    if (lines_ == 0) return;
    process_(pending_, first_, first_ + lines_ - 1, true);
    lines_ = 0;
    pending_.clear();
}

}  // namespace jfp
