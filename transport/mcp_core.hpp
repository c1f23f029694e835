#pragma once
// The MCP core, the same for every transport: a JSON-RPC message and its
// sender in, answers and notifications out through the message's
// reply_channel. Sessions and revisions (2026-07-28 stateless; 2025-11-25
// and older through initialize), server/discover, tools/list, tools/call,
// cancellation, progress and log notifications live here; no header,
// status code or stream framing does (mcp_http and stdio bind it).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <boost/json.hpp>

#include "transitd/transport/mcp_protocol.hpp"
#include "transitd/transport/mcp_sessions.hpp"
#include "transitd/transport/metrics.hpp"
#include "transitd/transport/tool_catalog.hpp"

namespace transitd::mcp {

struct core_options {
  /// Serialised size of one tools/call "arguments" object.
  std::size_t max_argument_bytes = 64 * 1024;
  std::size_t tools_page_size = 50;
  std::size_t max_sessions = 10000;
  std::chrono::seconds session_idle_timeout{3600};
  /// Upper bound of one tool call, and per-tool overrides by tool name
  /// (the daemon's come from the engine's tool settings).
  int32_t tool_timeout_ms = 10000;
  std::map<std::string, int32_t> tool_timeouts_ms;
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

class core {
public:
  core(core_options options, const tool_catalog& catalog);

  /// Handles one message; `reply` gets its answer exactly once: before
  /// handle() returns, on this thread, except for a tool call that reaches
  /// the engine, answered from the thread that finishes it (an actor's).
  void handle(const json_rpc::message& message, const peer& from,
              std::shared_ptr<reply_channel> reply);

  /// Ends a session (its calls are cancelled).
  answer close_session(const std::string& session_id,
                       const std::string& principal);

  std::size_t session_count() const;
  /// Cancels every call in flight (shutdown).
  void cancel_all();
  /// Per-tool call counts, outcomes and latencies, for /metrics.
  const call_metrics& metrics() const {
    return metrics_;
  }
  const tool_catalog& catalog() const {
    return catalog_;
  }

private:
  struct call_record;

  /// These answer at once, or return nullopt having passed `reply` to a
  /// tool call.
  std::optional<answer> handle_session(const json_rpc::message& message,
                                       const peer& from,
                                       std::shared_ptr<reply_channel>& reply);
  std::optional<answer> handle_stateless(const json_rpc::message& message,
                                         const peer& from,
                                         std::shared_ptr<reply_channel>& reply);
  answer initialize(const json_rpc::message& message, const peer& from);
  std::optional<answer> dispatch(const std::string& session_id,
                                 const json_rpc::message& message,
                                 const peer& from,
                                 std::shared_ptr<reply_channel>& reply);
  answer set_log_level(const std::string& session_id,
                       const json_rpc::message& message);
  /// What the server is for (initialize and server/discover).
  std::string instructions() const;
  boost::json::object discover(const boost::json::value& id) const;
  /// resources/list, resources/templates/list and resources/read: the
  /// views (transport/views.hpp); nullopt for another method.
  std::optional<boost::json::object>
  resources(const json_rpc::message& message, bool stateless) const;
  /// The server's capabilities (initialize; server/discover without
  /// logging, which 2026-07-28 dropped).
  boost::json::object capabilities(bool stateless) const;
  boost::json::object list_tools(const boost::json::value& id,
                                 const boost::json::object& params,
                                 bool stateless) const;
  /// Adds what every 2026-07-28 result carries: resultType and the
  /// server's identity in _meta.
  void stamp_result(boost::json::object& result) const;

  /// Where a tool call comes from: a session, or none (2026-07-28).
  struct call_origin {
    /// Empty: a stateless call.
    std::string session_id;
    /// A stateless call's log level (`_meta` logLevel); a session's own
    /// level is looked up.
    std::optional<std::string> log_level;
  };
  std::optional<answer> call_tool(const call_origin& origin,
                                  const json_rpc::message& message,
                                  const peer& from,
                                  std::shared_ptr<reply_channel>& reply);
  /// The tool and its arguments, or the refusal.
  std::optional<answer> check_call(const json_rpc::message& message,
                                   const peer& from, const tool_spec*& spec,
                                   const boost::json::object*& arguments) const;
  /// Starts a checked call: registers it, opens its stream when it
  /// reports, runs the tool.
  std::optional<answer> start_call(const call_origin& origin,
                                   const json_rpc::message& message,
                                   const peer& from, const tool_spec& spec,
                                   const boost::json::object& arguments,
                                   std::shared_ptr<reply_channel>& reply);
  /// A call's record: its context (correlation id, principal, deadline),
  /// cancellation and identity.
  std::shared_ptr<call_record> new_call(const call_origin& origin,
                                        const json_rpc::message& message,
                                        const peer& from,
                                        const tool_spec& spec) const;
  /// Opens the call's stream when it reports progress or log lines and
  /// the transport can carry them; false when the transport has no
  /// resources for it.
  bool open_notifications(call_record& call,
                          std::optional<boost::json::value> progress_token,
                          const peer& from,
                          std::shared_ptr<reply_channel>& reply);
  /// Ends a tool call: bookkeeping, metrics, logs, and its response (the
  /// JSON-RPC text; empty for a cancelled call, which gets none).
  std::string finish_call(const call_record& call, tool_outcome outcome);

  core_options options_;
  const tool_catalog& catalog_;
  call_metrics metrics_;
  session_table sessions_;
  /// `,"resultType":"complete","_meta":{serverInfo}` for 2026-07-28 tool
  /// results, serialised once.
  std::string stateless_result_suffix_;
};

} // namespace transitd::mcp
