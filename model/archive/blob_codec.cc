#include "model/archive/blob_codec.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <zstd.h>

#include <stdexcept>

namespace jfp {

void init_digests_without_exit_handler() { OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr); }

std::string sha256_hex(std::string_view bytes) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), md, &n, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("SHA-256 failed (OpenSSL's EVP_Digest)");
    static const char hex[] = "0123456789abcdef";
    std::string out(2 * n, '0');
    for (unsigned i = 0; i < n; ++i) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    return out;
}

std::string zstd_compress(std::string_view bytes, int level) {
    std::string out(ZSTD_compressBound(bytes.size()), '\0');
    size_t n = ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), level);
    if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
    out.resize(n);
    return out;
}

std::string zstd_decompress(std::string_view data, size_t expected_size) {
    unsigned long long declared = ZSTD_getFrameContentSize(data.data(), data.size());
    if (declared == ZSTD_CONTENTSIZE_ERROR || declared == ZSTD_CONTENTSIZE_UNKNOWN || declared != expected_size)
        throw std::runtime_error("a stored blob is not the zstd frame of " + std::to_string(expected_size) +
                                 " bytes it should be (the archive is damaged)");
    std::string out(expected_size, '\0');
    size_t n = ZSTD_decompress(out.data(), out.size(), data.data(), data.size());
    if (ZSTD_isError(n) || n != expected_size)
        throw std::runtime_error(std::string("a stored blob does not decompress (the archive is damaged): ") +
                                 (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong size"));
    return out;
}

}  // namespace jfp
