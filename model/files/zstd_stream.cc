#include "model/files/zstd_stream.h"

#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace jfp {

bool MemoryReader::read(void *dst, size_t n) {
    if (n > rest_.size()) {
        error_ = "it ends " + std::to_string(n - rest_.size()) + " bytes early";
        return false;
    }
    std::memcpy(dst, rest_.data(), n);
    rest_.remove_prefix(n);
    return true;
}

struct ZstdFdReader::Impl {
    int fd;
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    std::vector<char> in = std::vector<char>(ZSTD_DStreamInSize());
    ZSTD_inBuffer ib{in.data(), 0, 0};
    bool eof = false;      // the file has no more bytes
    bool frame_done = false;
    explicit Impl(int f) : fd(f) {}
    ~Impl() { ZSTD_freeDCtx(dctx); }
};

ZstdFdReader::ZstdFdReader(int fd) : impl_(new Impl(fd)) {
    if (!impl_->dctx) throw std::bad_alloc();
}

ZstdFdReader::~ZstdFdReader() = default;

// More compressed bytes into the input buffer; false at the end of the file or on an error.
bool ZstdFdReader::fill() {
    Impl &m = *impl_;
    if (m.ib.pos < m.ib.size) return true;
    if (m.eof) return false;
    while (true) {
        ssize_t n = ::read(m.fd, m.in.data(), m.in.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            error_ = std::strerror(errno);
            return false;
        }
        m.ib = ZSTD_inBuffer{m.in.data(), static_cast<size_t>(n), 0};
        if (n == 0) m.eof = true;
        return n > 0;
    }
}

// One decompression step into ob, filling the input first; marks the frame's end when zstd reports it.
bool ZstdFdReader::step(void *out) {
    Impl &m = *impl_;
    auto &ob = *static_cast<ZSTD_outBuffer *>(out);
    if (!fill()) {
        if (error_.empty()) error_ = "it is cut short (its zstd frame does not end)";
        return false;
    }
    size_t r = ZSTD_decompressStream(m.dctx, &ob, &m.ib);
    if (ZSTD_isError(r)) {
        error_ = std::string("it is damaged (zstd: ") + ZSTD_getErrorName(r) + ")";
        return false;
    }
    if (r == 0) m.frame_done = true;
    return true;
}

uint64_t ZstdFdReader::declared_size() {
    Impl &m = *impl_;
    // The header is at most ZSTD_FRAMEHEADERSIZE_MAX (18) bytes; the first read holds it unless the file
    // is shorter, and then it is not our file.
    if (!fill()) {
        if (error_.empty()) error_ = "it is empty";
        return 0;
    }
    unsigned long long d = ZSTD_getFrameContentSize(m.in.data() + m.ib.pos, m.ib.size - m.ib.pos);
    if (d == ZSTD_CONTENTSIZE_ERROR) {
        error_ = "it is not a zstd frame";
        return 0;
    }
    if (d == ZSTD_CONTENTSIZE_UNKNOWN) {
        error_ = "it does not declare its size";
        return 0;
    }
    if (d == 0) error_ = "it declares no content";
    return d;
}

bool ZstdFdReader::read(void *dst, size_t n) {
    Impl &m = *impl_;
    ZSTD_outBuffer ob{dst, n, 0};
    while (ob.pos < ob.size) {
        if (m.frame_done) {
            error_ = "it ends " + std::to_string(ob.size - ob.pos) + " bytes early";
            return false;
        }
        if (!step(&ob)) return false;
    }
    return true;
}

bool ZstdFdReader::finish() {
    Impl &m = *impl_;
    char probe;
    // The frame's last block and checksum may still be in the input: a read of one more byte must find
    // the frame's end, not data.
    while (!m.frame_done) {
        ZSTD_outBuffer ob{&probe, 1, 0};
        if (!step(&ob)) return false;
        if (ob.pos) {
            error_ = "it holds more than its contents say";
            return false;
        }
    }
    if (m.ib.pos < m.ib.size || fill()) {
        error_ = "it has bytes after its zstd frame";
        return false;
    }
    return error_.empty();
}

std::string zstd_frame(std::string_view bytes, int level) {
    ZSTD_CCtx *c = ZSTD_createCCtx();
    if (!c) throw std::bad_alloc();
    std::string out(ZSTD_compressBound(bytes.size()), '\0');
    size_t n = ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    if (!ZSTD_isError(n)) n = ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    if (!ZSTD_isError(n)) n = ZSTD_compress2(c, out.data(), out.size(), bytes.data(), bytes.size());
    ZSTD_freeCCtx(c);
    if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
    out.resize(n);
    return out;
}

}  // namespace jfp
