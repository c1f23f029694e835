#pragma once
// JSON-RPC 2.0 envelopes as MCP uses them: classify an incoming message and
// build results and errors. Pure; no sockets.

#include <optional>
#include <string>
#include <string_view>

#include <boost/json.hpp>

namespace transitd::json_rpc {

// The standard error codes (JSON-RPC 2.0, section 5.1).
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602;
inline constexpr int internal_error = -32603;
/// MCP 2026-07-28: a standard header disagrees with the body, or is missing.
inline constexpr int header_mismatch = -32020;
/// MCP 2026-07-28: the request needs a client capability it did not declare.
inline constexpr int missing_client_capability = -32021;
/// MCP 2026-07-28: the protocol version in `_meta` is not served here.
inline constexpr int unsupported_protocol_version = -32022;

enum class message_kind { request, notification, response, invalid };

struct message {
  message_kind kind = message_kind::invalid;
  /// String or integer; null for notifications and invalid messages.
  boost::json::value id;
  std::string method;
  /// The params object (empty when absent).
  boost::json::object params;
  /// Why the message is invalid (kind == invalid).
  std::string problem;
};

/// Classifies a parsed JSON object per JSON-RPC 2.0.
message classify(const boost::json::object& object);

boost::json::object make_result(const boost::json::value& id,
                                boost::json::value result);

boost::json::object make_error(const boost::json::value& id, int code,
                               std::string_view text,
                               std::optional<boost::json::value> data = {});

boost::json::object make_notification(std::string_view method,
                                      boost::json::object params);

} // namespace transitd::json_rpc
