// Content addressing and compression for the script archive: SHA-256 names a blob (a user cannot craft
// a script that collides with another's and so read or hide it), zstd stores it.
#pragma once

#include <string>
#include <string_view>

namespace jfp {

// Lowercase hex SHA-256 of bytes (OpenSSL's libcrypto).
std::string sha256_hex(std::string_view bytes);

// Initialises libcrypto without its exit handler. OpenSSL registers OPENSSL_cleanup with atexit at first
// use; in slurmctld that is the first archived script, after the plugin's exit flush was registered, so the
// cleanup ran first and the flush's sha256_hex crashed (SIGSEGV) on freed tables. Called before the plugin
// registers its flush; where libcrypto was already initialised, its handler runs after the flush anyway.
void init_digests_without_exit_handler();

// zstd at the given level; throws on failure (out of memory).
std::string zstd_compress(std::string_view bytes, int level = 3);
// Throws with a clear message when data is not a zstd frame or does not decompress to expected_size.
std::string zstd_decompress(std::string_view data, size_t expected_size);

}  // namespace jfp
