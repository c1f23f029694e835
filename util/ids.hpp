#pragma once
// Identifiers from a cryptographically secure source (OpenSSL RAND_bytes):
// correlation ids and MCP session ids must not be guessable.

#include <string>

namespace transitd {

/// RFC 4122 version 4 UUID, lower-case, e.g.
/// "3f2b8c1e-9a4d-4e2f-8b1c-2d3e4f5a6b7c".
std::string make_uuid_v4();

/// 32 random bytes as 64 hex characters.
std::string make_secret_token();

} // namespace transitd
