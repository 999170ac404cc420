// The columns of one sacct export: which field holds what, which are free text, and whether a row's
// typed fields parse. The reader (sacct_reader.h) joins lines into rows; this says what a row means.
#pragma once

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/util/text.h"

namespace jfp {

enum class SacctCol {
    Unknown,
    JobID, JobIDRaw, JobName, User, UID, Account, Partition, QOS, Cluster,
    Submit, Start, End, Elapsed, ElapsedRaw, State, ExitCode,
    ReqCPUS, AllocCPUS, NCPUS, ReqNodes, AllocNodes, NNodes, ReqMem, ReqTRES, AllocTRES, ReqGRES,
    Timelimit, TimelimitRaw, MaxRSS, SubmitLine, WorkDir, Comment, AdminComment, Constraints,
    Count_
};

class SacctFormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The sacct --format list that gives jfp everything it can use, for documentation and fixtures.
const char *recommended_sacct_format();
// The columns of recommended_sacct_format() that no user writes (no JobName, no SubmitLine): what jfp ingest
// --from-sacct asks of sacct --parsable2, taking names and submit lines from sacct --json instead.
const char *structured_sacct_format();

class SacctLayout {
public:
    // Takes a header's field names in column order. Throws SacctFormatError, naming `source` and the
    // sacct command that fixes it, when a column jfp cannot do without is missing.
    void set(const std::vector<std::string_view> &names, const std::string &source);

    // Every field a sacct field name (jfp's or another sacct knows).
    static bool looks_like_header(const std::vector<std::string_view> &fields);
    static bool is_free_text(SacctCol c);
    // Free text a user writes (JobName, SubmitLine, Comment, WorkDir); AdminComment and Constraints are not.
    static bool is_user_written(SacctCol c);
    // The first such column's name, or of a column jfp does not read that a user writes (Container, WCKey), or
    // empty.
    std::string first_user_written() const;

    size_t width() const { return cols_.size(); }
    SacctCol col(size_t i) const { return cols_[i]; }
    int at(SacctCol c) const { return pos_[static_cast<size_t>(c)]; }
    bool has(SacctCol c) const { return at(c) >= 0; }
    // The field of column c, trimmed; empty when the export lacks the column. Inline: read_sacct_row
    // calls it ~25 times a row from another file (out of line it cost ingest 1.7% more instructions).
    std::string_view field(const std::vector<std::string_view> &f, SacctCol c) const {
        return has(c) ? trim(f[static_cast<size_t>(at(c))]) : std::string_view();
    }
    const std::vector<size_t> &free_text_positions() const { return free_text_; }
    bool first_col_is_id() const { return !cols_.empty() && (cols_[0] == SacctCol::JobID || cols_[0] == SacctCol::JobIDRaw); }

    // The first typed field of a row (width() fields) that does not parse, said for a person; empty if none.
    std::string validate(const std::vector<std::string_view> &fields) const;

    const std::vector<std::string> &ignored_columns() const { return ignored_; }
    const std::vector<std::string> &missing_optional() const { return missing_optional_; }

private:
    std::vector<SacctCol> cols_;
    std::vector<std::string> names_;  // the header's names, as given
    std::array<int, static_cast<size_t>(SacctCol::Count_)> pos_{};
    std::vector<size_t> free_text_;
    std::vector<std::string> ignored_, missing_optional_;
};

}  // namespace jfp
