// Lines of a sacct export into records. A field a user wrote (a job name, a comment, a submit line) may
// hold a newline, so a record can span lines; how it is joined depends on the layout:
//   IdLedJoiner     the first column is a job id: a record starts at a line that starts with one, unless the
//                   record before it is still short of fields (a name may hold a newline and then a whole
//                   forged record, which must stay part of that name);
//   ShortLineJoiner otherwise: a line short of fields is joined with the next ones until the record is whole.
// Both join at most kMaxJoinedLines lines, and hand each record to the reader's process().
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/sacct/sacct_layout.h"

namespace jfp {

// A record's text and the lines it spans; final: no more lines may be joined to it. Returns false when
// the record is short of fields and not final (the caller may join the next line).
using ProcessRecord = std::function<bool(std::string_view text, uint64_t first, uint64_t last, bool final)>;

// What joining counts, in the read report.
struct JoinCounts {
    uint64_t &blank_lines;
    uint64_t &joined_newlines;  // records whose free text held a newline
};

constexpr size_t kMaxJoinedLines = 64;

class IdLedJoiner {
public:
    IdLedJoiner(const std::string &delimiter, ProcessRecord process) : delim_(delimiter), process_(std::move(process)) {}
    void line(std::string_view l, uint64_t lineno, const SacctLayout &layout, JoinCounts &counts);
    void flush(const SacctLayout &layout, JoinCounts &counts);  // the record gathered so far

private:
    bool record_short(const SacctLayout &layout) const {
        return lines_ > 0 && lines_ < kMaxJoinedLines && delims_ + 1 < layout.width();
    }
    size_t delimiters_in(std::string_view l) const;
    bool is_record_start(std::string_view l) const;

    const std::string &delim_;
    ProcessRecord process_;
    std::string text_;
    size_t delims_ = 0;  // delimiters in text_
    uint64_t first_ = 0;
    size_t lines_ = 0;
    std::vector<std::string_view> fields_;
};

class ShortLineJoiner {
public:
    ShortLineJoiner(const std::string &delimiter, ProcessRecord process) : delim_(delimiter), process_(std::move(process)) {}
    void line(std::string_view l, uint64_t lineno, const SacctLayout &layout, JoinCounts &counts);
    void flush();  // the held lines, bad on their own

private:
    const std::string &delim_;
    ProcessRecord process_;
    std::string pending_, joined_;
    uint64_t first_ = 0;
    size_t lines_ = 0;
    std::vector<std::string_view> fields_;
};

}  // namespace jfp
