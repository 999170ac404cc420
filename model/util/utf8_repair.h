// Text from Slurm is not always valid UTF-8: squeue --json prints a job name's bytes as they are (seen on
// 22.05), and a JSON parser refuses the whole document for one such byte. This stream passes well-formed
// UTF-8 through and turns each byte of no well-formed character into the text \xNN (written as \\xNN, a
// JSON string's escaped backslash), so one user's name costs only its own bytes, never everyone's jobs.
#pragma once

#include <cstddef>
#include <cstdio>
#include <streambuf>
#include <string>

namespace jfp {

class Utf8RepairBuf : public std::streambuf {
public:
    // Reads from in (not closed here), or from text when in is null.
    explicit Utf8RepairBuf(std::FILE *in) : in_(in) {}
    explicit Utf8RepairBuf(const std::string &text) : text_(&text) {}
    // Bytes replaced so far.
    size_t repaired() const { return repaired_; }

protected:
    int_type underflow() override;

private:
    bool fill_raw();
    std::FILE *in_ = nullptr;
    const std::string *text_ = nullptr;
    size_t text_pos_ = 0;
    std::string raw_;  // read, not yet repaired (a character cut at a chunk's end waits here)
    std::string out_;
    bool eof_ = false;
    size_t repaired_ = 0;
};

// The same for a whole string.
std::string repair_utf8(const std::string &text, const char *escape = "\\\\x");

}  // namespace jfp
