// `jfp scripts stats`: what the script archive holds (submissions, unique scripts, bytes, dedup and
// compression), as text or JSON.
#pragma once

#include <cstdint>
#include <string>

#include "model/archive/script_archive.h"

namespace jfp {

// The archive at path, read-only, as `jfp scripts stats` prints it.
std::string archive_stats_report(const std::string &path, bool json);

std::string archive_stats_text(const std::string &path, const ArchiveStats &s);
std::string archive_stats_json(const ArchiveStats &s);

// "512 bytes", "1.5 KiB", "2.0 MiB", "1.1 GiB"
std::string human_bytes(uint64_t b);

}  // namespace jfp
