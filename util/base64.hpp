#pragma once
// Base64 (RFC 4648): the standard alphabet with padding (MCP's
// `=?base64?...?=` header values) and the URL alphabet without it (JWTs).
// Decoding is strict: only canonical text of the chosen form is accepted.

#include <optional>
#include <string>
#include <string_view>

namespace transitd {

enum class base64_form {
  /// A-Z a-z 0-9 + /, padded with '=' to a multiple of 4.
  standard_padded,
  /// A-Z a-z 0-9 - _, no padding (RFC 4648 section 5, as JWS uses it).
  url_unpadded,
};

/// The bytes `text` encodes, or nullopt when it is not canonical base64 of
/// that form (a foreign character, misplaced or missing padding, an
/// impossible length, non-zero leftover bits).
std::optional<std::string> base64_decode(std::string_view text,
                                         base64_form form);

std::string base64_encode(std::string_view bytes, base64_form form);

} // namespace transitd
