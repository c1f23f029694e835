#pragma once
// Outbound HTTP as messages: what a provider asks the HTTP client pool to
// fetch, and what came back. Keeps sockets out of the provider actors.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "transitd/messages/common.hpp"

namespace transitd {

struct http_call {
  call_context context;
  /// "GET" or "POST".
  std::string method = "GET";
  /// scheme://host[:port], e.g. "https://api.digitransit.fi".
  std::string origin;
  /// Path and query, e.g. "/routing/v2/hsl/gtfs/v1".
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string content_type;
  /// Per-attempt timeout for connect, read and write.
  int32_t timeout_ms = 5000;
  /// A cap on attempts for this call (1 = never retry); 0 = the gate's
  /// retry policy. UPSTREAM_GATE retries 429 (after its Retry-After), 5xx,
  /// timeouts and connection failures (backoff with full jitter), never past
  /// context.deadline_ms. Every transitd upstream call is idempotent.
  int32_t max_attempts = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, http_call& x) {
  return f(x.context, x.method, x.origin, x.target, x.headers, x.body,
           x.content_type, x.timeout_ms, x.max_attempts);
}

/// What the upstream answered. Transport failures (refused, timeout, TLS)
/// arrive as a caf::error with ec::network_error or ec::upstream_timeout.
struct http_response {
  int32_t status = 0;
  std::string body;
  std::string content_type;
  /// Raw Retry-After header value, empty when absent.
  std::string retry_after;
  /// When the response arrived, ms since epoch.
  int64_t received_ms = 0;
  /// Attempts it took (1 = first try).
  int32_t attempts = 1;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, http_response& x) {
  return f(x.status, x.body, x.content_type, x.retry_after, x.received_ms,
           x.attempts);
}

} // namespace transitd
