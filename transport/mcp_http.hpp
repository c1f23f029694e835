#pragma once
// MCP's Streamable HTTP binding: a plain function from an HTTP request to an
// HTTP reply around the transport-neutral core (mcp_core). What is HTTP's
// lives here: Host and Origin checks, the bearer token, the MCP headers
// (Mcp-Session-Id, MCP-Protocol-Version, and the 2026-07-28 mirrors
// Mcp-Method, Mcp-Name, Mcp-Param-*), Accept and Content-Type, status
// codes, and the event stream of a call that reports as it runs. The HTTP
// server only moves bytes; tests call handle() without sockets.

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json.hpp>

#include "transitd/transport/auth.hpp"
#include "transitd/transport/event_stream.hpp"
#include "transitd/transport/mcp_core.hpp"
#include "transitd/transport/oauth.hpp"

namespace transitd::mcp {

struct http_request {
  std::string method;
  /// Header names in lower case.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  /// Set by the HTTP server: cancelled once the client has hung up; a tool
  /// call in flight for this request then stops (nobody could receive its
  /// answer, and we keep no event log to resume from).
  std::shared_ptr<cancellation> hangup;

  /// The first header with this (lower-case) name, or "".
  std::string_view header(std::string_view name) const;
};

struct http_reply {
  int status = 200;
  std::string content_type;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  /// An SSE reply whose events are still to come: the body is empty and
  /// the server sends each event of the stream as it arrives, until it
  /// closes (a tool call with progress or log notifications).
  std::shared_ptr<event_stream> stream;
};

/// Receives the reply to one request, exactly once.
using reply_sink = std::function<void(http_reply)>;

struct endpoint_options : core_options {
  /// Host names accepted in Host (no port; any case). "*" accepts any.
  std::vector<std::string> allowed_hosts{"localhost", "127.0.0.1", "[::1]"};
  /// Origins accepted when a request carries one: a host name (any scheme
  /// and port) or a whole origin ("https://app.example:8443"). "*" any.
  std::vector<std::string> allowed_origins{"localhost", "127.0.0.1",
                                           "[::1]"};
  /// Bearer tokens. Null (and no OAuth): no authentication, and saved
  /// variables belong to the one user, `local` (D17 revised).
  std::shared_ptr<const token_table> tokens;
  /// OAuth JWT access tokens (beside the static tokens). Null: none.
  std::shared_ptr<oauth::validator> oauth;
  std::size_t max_body_bytes = 1024 * 1024;
  /// Request headers: total bytes of names and values, and their count.
  std::size_t max_header_bytes = 16 * 1024;
  std::size_t max_headers = 64;
};

class endpoint {
public:
  /// An endpoint with a core of its own.
  endpoint(endpoint_options options, const tool_catalog& catalog);
  /// An endpoint over a core shared with others.
  endpoint(endpoint_options options, std::shared_ptr<mcp::core> core);

  /// Handles one request to /mcp (POST, GET or DELETE). `done` gets the
  /// reply: before handle() returns, on this thread, except for a tool call
  /// that reaches the engine, whose reply comes from the thread that
  /// finishes it (an actor's), so that no thread waits for it.
  void handle(const http_request& request, reply_sink done);

  /// The same, waiting for the reply (tests, fuzzing).
  http_reply handle(const http_request& request);

  std::size_t session_count() const {
    return core_->session_count();
  }
  /// Cancels every call in flight (shutdown).
  void cancel_all() {
    core_->cancel_all();
  }
  const call_metrics& metrics() const {
    return core_->metrics();
  }

  /// Whether authentication is on.
  bool authenticating() const {
    return options_.tokens != nullptr || options_.oauth != nullptr;
  }

  /// Who a request comes from, once authenticated.
  struct credentials {
    /// Empty without authentication.
    std::string principal;
    /// An OAuth token's scopes; nullopt: unrestricted (a static token, or
    /// no authentication).
    std::optional<std::vector<std::string>> scopes;
  };

  /// Checks the bearer token when authentication is on: fills `who` or
  /// returns the 401 reply.
  std::optional<http_reply> authenticate(const http_request& request,
                                         credentials& who) const;

  /// What every route checks before its own work: the header limits, then
  /// Host and Origin (`allowed-hosts`, `allowed-origins`). The refusal
  /// (431, 400 or 403), or nullopt.
  std::optional<http_reply> screen(const http_request& request) const;

private:
  std::optional<http_reply> handle_post(const http_request& request,
                                        peer& from, reply_sink& done);
  http_reply handle_delete(const http_request& request, const peer& from);
  /// The HTTP side of a message before the core sees it: the 2026-07-28
  /// header mirrors, or the session headers of older revisions.
  std::optional<http_reply> check_message(const http_request& request,
                                          const json_rpc::message& message,
                                          peer& from) const;
  std::optional<http_reply>
  check_mirrors(const http_request& request,
                const json_rpc::message& message) const;
  /// The Mcp-Param-* headers of a 2026-07-28 tools/call against the body
  /// (the tool's x-mcp-header fields): what disagrees, or nullopt.
  std::optional<std::string>
  check_param_headers(const http_request& request,
                      const boost::json::object& params) const;
  /// An answer of the core as an HTTP reply.
  http_reply to_http(answer result) const;

  /// Checks Host and Origin; returns an error reply when foreign.
  std::optional<http_reply> check_origin(const http_request& request) const;
  bool host_allowed(std::string_view host) const;
  bool origin_allowed(std::string_view origin) const;
  /// Checks header count and size against the limits.
  std::optional<http_reply> check_headers(const http_request& request) const;

  /// Counts a 401 or 403 and logs it, at most one line a second per
  /// status (with how many since the last), never a token's content.
  void note_refusal(int status, std::string_view why) const;

  endpoint_options options_;
  std::shared_ptr<mcp::core> core_;
  mutable std::atomic<uint64_t> refused_401_{0};
  mutable std::atomic<uint64_t> refused_403_{0};
  mutable std::atomic<int64_t> logged_401_ms_{0};
  mutable std::atomic<int64_t> logged_403_ms_{0};
  mutable std::atomic<uint64_t> unlogged_401_{0};
  mutable std::atomic<uint64_t> unlogged_403_{0};

public:
  /// 401 and 403 answers so far.
  uint64_t refused(int status) const {
    return status == 401 ? refused_401_.load() : refused_403_.load();
  }
};

/// Reply helpers (also used by the HTTP server for its own errors).
http_reply json_reply(int status, const boost::json::object& body);
http_reply rpc_error_reply(int status, const boost::json::value& id, int code,
                           std::string_view message);

} // namespace transitd::mcp
