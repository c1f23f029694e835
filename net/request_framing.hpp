#pragma once
// Where an HTTP/1.1 request ends in the bytes read so far, decided before
// any worker sees it: the event loop (connection_reactor) reads a request
// whole, then hands it to a worker. It refuses what would be ambiguous or
// unbounded instead of guessing (RFC 9112 sections 6.1 and 6.3): two
// Content-Length headers, Content-Length with Transfer-Encoding, a
// transfer coding other than chunked, a line or head over its limit, a body
// over its limit. Plain C++ on a string_view (a fuzz target reads it).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace transitd {

struct framing_limits {
  /// Bytes of the request line, and of each header line, at most.
  std::size_t max_line = 8192;
  /// Bytes of the whole head (request line, headers, blank line).
  std::size_t max_head = 24 * 1024;
  /// Body bytes a Content-Length may announce.
  std::size_t max_body = 1024 * 1024;
  /// Bytes a chunked body may take on the wire, framing included.
  std::size_t max_chunked = 1024 * 1024 + 64 * 1024;
};

struct request_framing {
  enum class verdict { incomplete, complete, refused };
  verdict what = verdict::incomplete;
  /// complete: the request's bytes (head and body) at the front of the
  /// buffer; incomplete with `head_size` > 0: the head is in.
  std::size_t size = 0;
  std::size_t head_size = 0;
  /// The head asks for "100 Continue" before its body (Expect).
  bool expects_continue = false;
  /// refused: the status to answer before closing (400, 413, 414, 431,
  /// 501) and why, in words for the client.
  int status = 0;
  std::string reason;
  /// refused 431 because of the Authorization line (the reply then
  /// carries the Bearer challenge).
  bool authorization = false;
};

/// Scans `bytes`, the start of a connection's unread input, for one
/// request.
request_framing frame_request(std::string_view bytes,
                              const framing_limits& limits);

/// A request's line and headers, read without httplib (the fast path of a
/// plain request, see connection_server::set_direct_route).
struct request_head {
  std::string method;
  /// As sent: path and query.
  std::string target;
  /// "HTTP/1.1" or "HTTP/1.0".
  std::string version;
  /// In order; names in lower case, values without surrounding blanks.
  std::vector<std::pair<std::string, std::string>> headers;
};

/// The head of a request that frame_request found whole (its first
/// `head_size` bytes); nullopt for anything but a plain request line
/// ("METHOD TARGET HTTP/1.x") and "name: value" lines.
std::optional<request_head> parse_request_head(std::string_view head);

} // namespace transitd
