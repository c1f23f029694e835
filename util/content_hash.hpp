#pragma once
// A content hash of a file or a folder's files, to tell whether a source
// changed: a replacement with the same size and modification time is still
// seen. Not cryptographic: for change detection only.

#include <cstdint>
#include <optional>
#include <string>

namespace transitd {

/// 64-bit XXH3 of the bytes (a folder: each regular file's name and bytes,
/// in name order, not descending). nullopt when the path cannot be read;
/// `error` then says why.
std::optional<uint64_t> content_hash(const std::string& path,
                                     std::string* error = nullptr);

/// The same hash of bytes in memory.
uint64_t content_hash_of(const void* data, std::size_t size,
                         uint64_t seed = 0);

} // namespace transitd
