#pragma once
// The one outbound HTTP path: every request transitd sends (an upstream's
// API call through its gate's workers, a GTFS or GTFS-realtime download,
// an OAuth issuer's metadata and key set) goes through `http_fetcher`.
// One deadline bounds the whole request (connecting, sending, the
// response head and every byte of the body: a server trickling a byte a
// second is cut at the deadline, not at each read's), the body is bounded
// in size, redirects are followed here (so a 304 is never taken for one)
// and conditional requests carry the validators they are given. Blocking:
// callers run it on threads of their own (detached actors, loader threads).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace httplib {
class Client;
class Result;
}

namespace transitd {

using http_fields = std::vector<std::pair<std::string, std::string>>;

struct http_fetch_request {
  std::string method = "GET";
  /// http(s)://host[:port]/path?query
  std::string url;
  http_fields headers;
  /// POST: the body and its type.
  std::string body;
  std::string content_type;
};

struct http_fetch_options {
  /// The whole request, from connecting to the body's last byte.
  std::chrono::milliseconds timeout{10000};
  /// Largest body accepted.
  std::size_t max_bytes = std::size_t{16} << 20;
  /// Redirects (301, 302, 303, 307, 308 with a Location) followed; 0: a
  /// redirect is answered as it came.
  int max_redirects = 0;
  /// The clock the deadline is read on while the body arrives (tests move
  /// it); the guard that cuts a silent server runs on the real one.
  std::function<std::chrono::steady_clock::time_point()> clock;
};

struct http_fetch_response {
  int status = 0;
  /// The body, unless it went to a sink.
  std::string body;
  /// The response's headers, names as the server wrote them.
  http_fields headers;
  /// The URL that answered (after redirects).
  std::string url;

  /// The first header of this name (any case), or "".
  std::string header(std::string_view name) const;
};

enum class http_fetch_error : uint8_t {
  /// Not an http(s) URL, or one with user information.
  bad_url,
  /// Connecting, TLS, or the connection broke.
  network,
  /// The deadline passed.
  timeout,
  /// The body went over max_bytes.
  too_large,
  /// Aborted from another thread (http_abort), or the sink refused.
  cancelled,
  too_many_redirects,
};

struct http_fetch_failure {
  http_fetch_error kind = http_fetch_error::network;
  /// What happened, without the URL's query (keys often ride there).
  std::string message;
};

using http_fetch_result = std::variant<http_fetch_response, http_fetch_failure>;

/// Where a body goes instead of memory: `open` with the response head
/// (only for a 200; false refuses), then `write` per chunk (false stops).
struct http_body_sink {
  std::function<bool(const http_fetch_response& head)> open;
  std::function<bool(const char* data, std::size_t size)> write;
};

/// Stops a request in flight from another thread: the fetch ends
/// `cancelled` (or `timeout`, when its deadline guard did it).
class http_abort {
public:
  void begin(httplib::Client* client);
  /// Whether abort() stopped the request since begin().
  bool end();
  /// Stops the request in flight; false when none is.
  bool abort();
  std::size_t aborted() const;

private:
  mutable std::mutex mutex_;
  httplib::Client* active_ = nullptr;
  bool hit_ = false;
  std::size_t aborted_ = 0;
};

/// Sends requests, one at a time (not thread-safe: one per thread). With
/// `keep_alive`, one connection per origin stays open between requests.
class http_fetcher {
public:
  explicit http_fetcher(bool keep_alive = false,
                        std::shared_ptr<http_abort> abort = nullptr);
  ~http_fetcher();
  http_fetcher(const http_fetcher&) = delete;
  http_fetcher& operator=(const http_fetcher&) = delete;

  http_fetch_result fetch(const http_fetch_request& request,
                          const http_fetch_options& options,
                          const http_body_sink* sink = nullptr);

  /// What aborts this fetcher's request in flight.
  const std::shared_ptr<http_abort>& abort_handle() const {
    return abort_;
  }

private:
  /// Why a request's body was cut short.
  enum class cut { none, too_large, too_slow, refused };

  http_fetch_result attempt(const std::string& url,
                            const http_fetch_request& request,
                            const http_fetch_options& options,
                            const http_body_sink* sink,
                            std::chrono::steady_clock::time_point deadline);
  httplib::Client& client_for(const std::string& origin);
  static http_fetch_failure
  why_failed(const httplib::Result& result, cut cut_off, bool expired,
             std::chrono::steady_clock::time_point deadline,
             const http_fetch_options& options);

  bool keep_alive_;
  std::shared_ptr<http_abort> abort_;
  std::unordered_map<std::string, std::unique_ptr<httplib::Client>> clients_;
};

} // namespace transitd
