#pragma once
// What every upstream client shares: mapping HTTP failures to the error
// codes the contracts name, Retry-After, and making upstream text safe to
// show a caller.

#include <cstdint>
#include <string>
#include <string_view>

#include "transitd/messages/error.hpp"
#include "transitd/messages/http.hpp"
#include "transitd/net/url.hpp"

namespace transitd {

/// Maps a non-200 HTTP response to the failure the contracts name:
/// 429 → rate-limited (with Retry-After), 401/403 → upstream-error about the
/// key, 5xx and anything else → upstream-error.
failure classify_http_failure(const http_response& response,
                              std::string_view upstream_name);

/// Retry-After as seconds (delta-seconds or an HTTP date); `fallback` when
/// absent or unparseable.
int32_t parse_retry_after(std::string_view value, int64_t now_ms,
                          int32_t fallback);

/// Upstream text fit to show a caller: control characters removed and cut
/// to `max_length` bytes (on a UTF-8 boundary).
std::string sanitize_upstream_text(std::string_view text,
                                   std::size_t max_length = 200);

} // namespace transitd
