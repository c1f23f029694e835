#pragma once
// MCP Streamable HTTP (revision 2025-11-25) as a plain function from an HTTP
// request to an HTTP reply: sessions, version negotiation, Origin/Host
// checks, JSON-RPC dispatch, tools/list and tools/call. The HTTP server only
// moves bytes; tests call handle() without sockets.

#include <chrono>
#include <map>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/json.hpp>

#include "transport/auth.hpp"
#include "transport/event_stream.hpp"
#include "transport/json_rpc.hpp"
#include "transport/metrics.hpp"
#include "transport/oauth.hpp"
#include "transport/tool_catalog.hpp"

namespace transitd::mcp {

/// The stateless revision: no initialize, no session; every request
/// describes itself in params._meta.
inline constexpr std::string_view stateless_protocol_version = "2026-07-28";
/// The newest revision negotiated by `initialize` (with a session).
inline constexpr std::string_view latest_protocol_version = "2025-11-25";
/// `_meta` keys of a 2026-07-28 request.
inline constexpr std::string_view meta_protocol_version
  = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view meta_client_capabilities
  = "io.modelcontextprotocol/clientCapabilities";
inline constexpr std::string_view meta_log_level
  = "io.modelcontextprotocol/logLevel";
inline constexpr std::string_view meta_server_info
  = "io.modelcontextprotocol/serverInfo";
/// How long clients may cache tools/list and server/discover (2026-07-28
/// `ttlMs`): the tool list is fixed for a daemon's configuration.
inline constexpr int64_t list_ttl_ms = 3600 * 1000;
/// Assumed when a request after initialize carries no MCP-Protocol-Version.
inline constexpr std::string_view fallback_protocol_version = "2025-03-26";

/// The revisions `initialize` negotiates, newest first (2026-07-28 is
/// served beside them, statelessly, without initialize).
const std::vector<std::string>& supported_protocol_versions();

struct http_request {
  std::string method;
  /// Header names in lower case.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  /// Set by the HTTP server: cancelled once the client has hung up; a tool
  /// call in flight for this request then stops (nobody could receive its
  /// answer, and we keep no event log to resume from).
  std::shared_ptr<cancellation> hangup;
  /// A line from standard input (--stdio): no Host, Origin, header or
  /// token checks; the caller is the one local user.
  bool stdio = false;

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

struct endpoint_options {
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
  /// Serialised size of one tools/call "arguments" object.
  std::size_t max_argument_bytes = 64 * 1024;
  std::size_t tools_page_size = 50;
  std::size_t max_sessions = 10000;
  std::chrono::seconds session_idle_timeout{3600};
  /// Upper bound of one tool call, and per-tool overrides by tool name.
  int32_t tool_timeout_ms = 10000;
  std::map<std::string, int32_t> tool_timeouts_ms{{"plan_trip", 8000}};
  /// The clock of session idleness and eviction (tests substitute one).
  std::function<std::chrono::steady_clock::time_point()> clock
    = [] { return std::chrono::steady_clock::now(); };
  std::string server_name = "transitd";
  /// A sentence naming the areas the transit tools serve, for the
  /// instructions of `initialize`.
  std::string regions = "Regions served: the HSL region (Helsinki), via "
                        "Digitransit.";
  std::string server_version = "0.1.0";
};

class endpoint {
public:
  endpoint(endpoint_options options, const tool_catalog& catalog);

  /// Handles one request to /mcp (POST, GET or DELETE). `done` gets the
  /// reply: before handle() returns, on this thread, except for a tool call
  /// that reaches the engine, whose reply comes from the thread that
  /// finishes it (an actor's), so that no thread waits for it.
  void handle(const http_request& request, reply_sink done);

  /// The same, waiting for the reply (tests, fuzzing).
  http_reply handle(const http_request& request);

  std::size_t session_count() const;

  /// Cancels every call in flight (shutdown).
  void cancel_all();

  /// Per-tool call counts, outcomes and latencies, for /metrics.
  const call_metrics& metrics() const {
    return metrics_;
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

private:
  /// Who sent a request, and how to tell that they hung up.
  struct caller {
    std::string principal;
    /// An OAuth token's scopes; nullopt: unrestricted.
    std::optional<std::vector<std::string>> scopes;
    /// Cancelled when the client hangs up (null: never).
    std::shared_ptr<cancellation> hangup;
    /// Size of the request body: bounds every part of it.
    std::size_t body_bytes = 0;
    /// Whether the client accepts an SSE reply (its Accept header).
    bool sse = true;
  };

  struct session {
    /// The authenticated principal that opened it ("" without auth); no
    /// other may use it.
    std::string principal;
    std::string protocol_version;
    /// Set by logging/setLevel: the session then gets the log lines about
    /// its calls as notifications/message, at this level or above.
    std::optional<std::string> log_level;
    std::chrono::steady_clock::time_point last_used;
    /// Calls in flight: each call's own cancellation, with its serialised
    /// JSON-RPC id. Keyed by the call, not the id: a client may reuse an
    /// id, and finishing one call must not lose another.
    std::unordered_map<std::shared_ptr<cancellation>, std::string> in_flight;
  };

  /// A tool call's facts its reply needs once the tool has finished.
  struct call_record;

  /// These answer at once, or return nullopt having passed `done` to a
  /// tool call.
  std::optional<http_reply> handle_post(const http_request& request,
                                        const caller& from, reply_sink& done);
  http_reply handle_delete(const http_request& request, const caller& from);
  http_reply initialize(const boost::json::value& id,
                        const boost::json::object& params,
                        const caller& from);
  /// A 2026-07-28 request or notification (it names the revision in
  /// params._meta): checked against its headers, answered without session.
  std::optional<http_reply> handle_stateless(const http_request& request,
                                             const json_rpc::message& message,
                                             const boost::json::object& meta,
                                             const caller& from,
                                             reply_sink& done);
  /// What the server is for (initialize and server/discover).
  std::string instructions() const;
  /// The Mcp-Param-* headers of a 2026-07-28 tools/call against the body
  /// (the tool's x-mcp-header fields): what disagrees, or nullopt.
  std::optional<std::string>
  check_param_headers(const http_request& request,
                      const boost::json::object& params) const;
  /// server/discover (2026-07-28).
  boost::json::object discover(const boost::json::value& id) const;
  /// Adds what every 2026-07-28 result carries: resultType and the server's
  /// identity in _meta.
  void stamp_result(boost::json::object& result) const;
  std::optional<http_reply>
  dispatch(const std::string& session_id, const std::string& protocol_version,
           const boost::json::value& id, const std::string& method,
           const boost::json::object& params, const caller& from,
           reply_sink& done);
  /// Where a tool call comes from: a session (2025-11-25 and older) or none
  /// (2026-07-28), and how its reply may be sent.
  struct call_origin {
    /// Empty: a stateless call.
    std::string session_id;
    /// A stateless call's log level (`_meta` logLevel); a session's own
    /// level is looked up.
    std::optional<std::string> log_level;
    /// Whether the client accepts an SSE reply (Accept); without it, no
    /// progress or log notifications are sent.
    bool sse = true;
  };
  std::optional<http_reply> call_tool(const call_origin& origin,
                                      const boost::json::value& id,
                                      const boost::json::object& params,
                                      const caller& from, reply_sink& done);
  /// Cancels the stateless calls of this (serialised) request id (stdio).
  void cancel_stateless(const std::string& request_id);
  /// Takes a call off its session's (or the stateless) list in flight.
  void forget_call(const std::string& session_id,
                   const std::shared_ptr<cancellation>& cancel);
  /// Ends a tool call: bookkeeping, metrics, logs, and its response (the
  /// JSON-RPC text; empty for a cancelled call, which gets none).
  std::string finish_call(const call_record& call, tool_outcome outcome);
  boost::json::object list_tools(const boost::json::value& id,
                                 const boost::json::object& params,
                                 bool stateless);
  void notify(const std::string& session_id, const std::string& method,
              const boost::json::object& params);

  /// Checks Host and Origin; returns an error reply when foreign.
  std::optional<http_reply> check_origin(const http_request& request) const;
  bool host_allowed(std::string_view host) const;
  bool origin_allowed(std::string_view origin) const;
  /// Checks header count and size against the limits.
  std::optional<http_reply> check_headers(const http_request& request) const;

  /// The new session's id; nullopt when max-sessions are open and every
  /// one has a call in flight (none can be evicted).
  std::optional<std::string> open_session(const std::string& protocol_version,
                                          const std::string& principal);
  void evict_idle_locked(std::chrono::steady_clock::time_point now);

  endpoint_options options_;
  const tool_catalog& catalog_;
  call_metrics metrics_;
  mutable std::mutex sessions_mutex_;
  std::unordered_map<std::string, session> sessions_;
  /// Stateless calls in flight (for cancel_all).
  std::unordered_map<std::shared_ptr<cancellation>, std::string>
    stateless_in_flight_;
  /// `,"resultType":"complete","_meta":{serverInfo}` for 2026-07-28 tool
  /// results, serialised once.
  std::string stateless_result_suffix_;
};

/// Reply helpers (also used by the HTTP server for its own errors).
http_reply json_reply(int status, const boost::json::object& body);
http_reply rpc_error_reply(int status, const boost::json::value& id, int code,
                           std::string_view message);

/// The whole JSON-RPC response to a tools/call (D2), as text: a result with
/// the output as a text block, and on success as structuredContent too.
/// `result_suffix` is spliced into the result object (",\"key\":...").
std::string call_response_text(const boost::json::value& id,
                               const tool_outcome& outcome,
                               std::string_view result_suffix = {});

} // namespace transitd::mcp
