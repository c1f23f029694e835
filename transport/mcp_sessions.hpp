#pragma once
// The MCP sessions of revisions before 2026-07-28 and every call in flight,
// under one lock: who opened each session, its log level and idleness, and
// each call's cancellation (a session's, or a stateless one's). Thread-safe.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "transitd/transport/tool_catalog.hpp"

namespace transitd::mcp {

class session_table {
public:
  using clock_function = std::function<std::chrono::steady_clock::time_point()>;

  session_table(std::size_t max_sessions,
                std::chrono::seconds idle_timeout, clock_function clock);

  /// The new session's id; nullopt when `max_sessions` are open and every
  /// one has a call in flight (none can be evicted).
  std::optional<std::string> open(const std::string& protocol_version,
                                  const std::string& principal);

  enum class access { ok, unknown, foreign };
  /// Whether `principal` may use the session (its id is a handle, not a
  /// credential); marks it used.
  access use(const std::string& id, const std::string& principal);
  /// Ends a session and cancels its calls in flight.
  access close(const std::string& id, const std::string& principal);

  void set_log_level(const std::string& id, std::string level);

  /// Registers a call in flight under its serialised JSON-RPC id: in its
  /// session (empty: a stateless call). nullopt when the session is gone;
  /// otherwise the session's log level (a stateless call: `level`).
  std::optional<std::optional<std::string>>
  add_call(const std::string& session_id,
           const std::shared_ptr<cancellation>& cancel, std::string key,
           std::optional<std::string> level);
  void forget_call(const std::string& session_id,
                   const std::shared_ptr<cancellation>& cancel);
  /// Cancels the calls of a session (empty: the stateless ones) whose
  /// serialised id is `key`; how many.
  std::size_t cancel_calls(const std::string& session_id,
                           const std::string& key);
  /// Cancels every call in flight (shutdown).
  void cancel_all();

  std::size_t size() const;

private:
  struct session {
    /// The authenticated principal that opened it ("" without auth).
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
  using call_map
    = std::unordered_map<std::shared_ptr<cancellation>, std::string>;

  void evict_idle_locked(std::chrono::steady_clock::time_point now);
  /// Cancels outside the lock: cancelling finishes a call, which takes it.
  static void cancel_each(const std::vector<std::shared_ptr<cancellation>>&);

  std::size_t max_sessions_;
  std::chrono::seconds idle_timeout_;
  clock_function clock_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, session> sessions_;
  /// Stateless calls in flight.
  call_map stateless_;
};

} // namespace transitd::mcp
