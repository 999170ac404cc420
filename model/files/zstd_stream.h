// Reading a zstd frame a piece at a time into the caller's memory, for files too big to hold twice (the
// history snapshot): no copy of the whole file, compressed or not, is ever in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace jfp {

// Where a decoder takes its bytes from: exactly n of them, or false (then error() says why).
class ByteReader {
public:
    virtual ~ByteReader() = default;
    virtual bool read(void *dst, size_t n) = 0;
    virtual const std::string &error() const = 0;
};

// Bytes already in memory (tests, and small files).
class MemoryReader : public ByteReader {
public:
    explicit MemoryReader(std::string_view bytes) : rest_(bytes) {}
    bool read(void *dst, size_t n) override;
    const std::string &error() const override { return error_; }
    size_t remaining() const { return rest_.size(); }

private:
    std::string_view rest_;
    std::string error_;
};

// One zstd frame read from fd (not owned). The frame must declare its size (ZSTD_compress2 does): a
// reader of it sizes nothing past that. The frame's checksum is verified by finish(), at its end.
class ZstdFdReader : public ByteReader {
public:
    explicit ZstdFdReader(int fd);
    ~ZstdFdReader() override;
    ZstdFdReader(const ZstdFdReader &) = delete;
    ZstdFdReader &operator=(const ZstdFdReader &) = delete;

    // The size the frame's header declares; 0 with error() set when the file does not start with a zstd
    // frame that declares one.
    uint64_t declared_size();
    bool read(void *dst, size_t n) override;
    // True when the frame ended exactly here, its checksum matched and nothing follows it.
    bool finish();
    const std::string &error() const override { return error_; }

private:
    bool fill();
    bool step(void *out_buffer);  // a ZSTD_outBuffer (zstd.h stays out of this header)
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string error_;
};

// bytes as one zstd frame with its size and a checksum, at the given level.
std::string zstd_frame(std::string_view bytes, int level);

}  // namespace jfp
