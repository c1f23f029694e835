#pragma once
// The MCP protocol's own vocabulary, whatever carries it: the revisions
// served, who sent a message (`peer`), what the core answers (`answer`) and
// where a message's replies go (`reply_channel`). The transports (Streamable
// HTTP in mcp_http, stdio in stdio) only move these; the core (mcp_core)
// knows no header, status code or event-stream framing.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <boost/json.hpp>

#include "transitd/transport/json_rpc.hpp"
#include "transitd/transport/tool_catalog.hpp"

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
/// Assumed when a request after initialize names no revision.
inline constexpr std::string_view fallback_protocol_version = "2025-03-26";

/// The revisions `initialize` negotiates, newest first (2026-07-28 is
/// served beside them, statelessly, without initialize).
const std::vector<std::string>& supported_protocol_versions();
bool is_supported(std::string_view version);
/// A revision older than 2026-07-28 (2024-11-05 included): its requests
/// belong to a session.
bool is_legacy_version(std::string_view version);
/// The MCP log levels (RFC 5424 names), lowest first.
const std::vector<std::string>& log_levels();
bool is_log_level(std::string_view level);

/// Who sent one message, as its transport established it.
struct peer {
  /// The authenticated principal; empty without authentication.
  std::string principal;
  /// An OAuth token's scopes; nullopt: unrestricted.
  std::optional<std::vector<std::string>> scopes;
  /// Cancelled when the client has gone (null: never).
  std::shared_ptr<cancellation> hangup;
  /// Size of the message's text: bounds every part of it.
  std::size_t message_bytes = 0;
  /// Whether the transport can carry notifications before a call's
  /// result (HTTP: the client accepts an event stream; stdio: always).
  bool notifications = true;
  /// The session the message belongs to (revisions before 2026-07-28);
  /// empty: none.
  std::string session_id;
  /// Whether the client cancels a stateless call by naming its id: one
  /// client per transport (stdio), so ids are its own.
  bool cancels_by_id = false;
};

/// How an answer fared; a transport maps it to its own terms (HTTP: a
/// status code).
enum class answer_kind {
  /// A response (or none: a call that was cancelled).
  ok,
  /// A notification or response taken; nothing is sent back.
  accepted,
  /// The message is malformed or breaks the protocol.
  invalid,
  /// The caller may not do this (another principal's session, a scope).
  forbidden,
  /// The session named is not open.
  unknown_session,
  /// The method is not offered (2026-07-28).
  not_found,
  /// No capacity now; retry shortly.
  unavailable,
};

/// The core's answer to one message.
struct answer {
  answer_kind kind = answer_kind::ok;
  /// The JSON-RPC text to send; empty: nothing.
  std::string message;
  /// `initialize`: the session it opened, for the transport to name in
  /// later messages.
  std::string session_id;
  /// forbidden by scope: the scope that would do (RFC 6750 3.1).
  std::string required_scope;
};

answer make_answer(answer_kind kind, const boost::json::object& message);
/// A JSON-RPC error answer.
answer error_answer(answer_kind kind, const boost::json::value& id, int code,
                    std::string_view text);

/// Where the replies to one message go. The core calls `done` exactly
/// once; before it, for a tool call that reports progress or log lines,
/// `open_stream` once and `notify` for each notification. `notify` and
/// `done` may come from any thread (an actor's), concurrently.
class reply_channel {
public:
  virtual ~reply_channel() = default;
  /// Notifications will precede the result; false when the transport has
  /// no resources for them (the call then fails).
  virtual bool open_stream() = 0;
  /// One notification's JSON-RPC text.
  virtual void notify(std::string message) = 0;
  /// The answer; after open_stream, the last message (nothing may follow
  /// it, a late notify included).
  virtual void done(answer result) = 0;
};

/// One message's text → its JSON-RPC classification, or the refusal (not
/// JSON, a batch, not an object, not JSON-RPC).
std::variant<json_rpc::message, answer> parse_message(std::string_view text);

/// Whether a message describes itself as 2026-07-28 (names its revision in
/// params._meta): it is then answered without a session.
bool is_stateless(const json_rpc::message& message);

/// A 2026-07-28 message's revision, or the refusal naming what its _meta
/// lacks.
std::variant<std::string, answer>
stateless_revision(const json_rpc::message& message);

/// A refusal of a 2026-07-28 message: its id, or no id member at all (ids
/// are strings or integers there, never null).
answer stateless_refusal(answer_kind kind, const boost::json::value& id,
                         int code, std::string_view text,
                         std::optional<boost::json::value> data = {});

/// The whole JSON-RPC response to a tools/call (D2), as text: a result with
/// the output as a text block, and on success as structuredContent too.
/// `result_suffix` is spliced into the result object (",\"key\":...").
std::string call_response_text(const boost::json::value& id,
                               const tool_outcome& outcome,
                               std::string_view result_suffix = {});

} // namespace transitd::mcp
