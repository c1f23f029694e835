#pragma once
// The MCP face of the tools: each tool's name, description, schemas and the
// function that runs it, plus helpers that read JSON arguments strictly
// (unknown fields and wrong types are validation errors that name the
// field, D6). Tool wire names appear only in transport/.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "messages/common.hpp"
#include "messages/error.hpp"

namespace transitd::mcp {

/// What a tool call produced, ready for the MCP result (D2).
struct tool_outcome {
  bool is_error = false;
  /// The contract's output object (success only).
  boost::json::object structured;
  /// The error body shown in the text block (errors only).
  boost::json::object error_body;
  /// The failure's code, for logs and metrics (errors only).
  ec code = ec::none;
};

tool_outcome success_outcome(boost::json::object structured);

/// `{"error":{code,message,correlationId,hint?,retryAfter?}}` (Helsinki
/// tools, D2).
tool_outcome error_outcome(const failure& f, const std::string& correlation_id);

/// Stops a call: notifications/cancelled, a client that hung up, shutdown.
/// The call and whoever may cancel it share one of these.
class cancellation {
public:
  /// Marks the call cancelled, wakes waiters on condition() and runs the
  /// registered on_cancel actions (on the calling thread, outside the
  /// lock). Later calls do nothing.
  void cancel();
  bool cancelled() const;

  /// Runs `action` once the call is cancelled: at once (on this thread)
  /// when it already is.
  void on_cancel(std::function<void()> action);

  /// For tools that block: the mutex and condition variable that cancel()
  /// notifies.
  std::mutex& mutex() {
    return mutex_;
  }
  std::condition_variable& condition() {
    return condition_;
  }
  /// cancelled() for callers that already hold mutex().
  bool cancelled_locked() const {
    return cancelled_;
  }

private:
  mutable std::mutex mutex_;
  std::condition_variable condition_;
  bool cancelled_ = false;
  std::vector<std::function<void()>> actions_;
};

/// Receives a tool call's outcome, exactly once, on whichever thread
/// finished it (the caller's own, or an actor's).
using tool_done = std::function<void(tool_outcome)>;

/// Runs a tool: parses `arguments`, starts the work and returns; `done`
/// gets the outcome. Nothing waits: an HTTP thread is free meanwhile.
using tool_function = std::function<void(
  const boost::json::object& arguments, call_context& context,
  const std::shared_ptr<cancellation>& cancel, tool_done done)>;

struct tool_spec {
  std::string name;
  std::string title;
  std::string description;
  boost::json::object input_schema;
  boost::json::object output_schema;
  // MCP tool annotations (D3): transit tools are read-only and open-world;
  // the variable-store tools work on the caller's own data.
  bool read_only = true;
  bool open_world = true;
  bool destructive = false;
  bool idempotent = true;
  tool_function run;
};

class tool_catalog {
public:
  void add(tool_spec spec);
  const tool_spec* find(std::string_view name) const;
  const std::vector<tool_spec>& tools() const {
    return tools_;
  }
  /// The tools/list entry of one tool.
  static boost::json::object definition(const tool_spec& spec);

private:
  std::vector<tool_spec> tools_;
};

/// Reads an arguments object field by field. The first problem wins and is
/// reported by finish(), which also rejects fields nobody asked for.
class argument_reader {
public:
  explicit argument_reader(const boost::json::object& arguments,
                           std::string path = {});

  std::optional<std::string> string(std::string_view name, bool required);
  /// Accepts integral JSON numbers (5 or 5.0); rejects 5.5.
  std::optional<int64_t> integer(std::string_view name, bool required);
  std::optional<double> number(std::string_view name, bool required);
  std::optional<bool> boolean(std::string_view name, bool required);
  const boost::json::object* object(std::string_view name, bool required);
  const boost::json::array* array(std::string_view name, bool required);

  /// Records a problem found by the caller (first one wins).
  void fail(std::string message);
  /// The dotted name of a field, for messages ("stop.value").
  std::string field(std::string_view name) const;

  /// The first problem, or an unknown field; nullopt when all is well.
  std::optional<failure> finish();

private:
  const boost::json::value* lookup(std::string_view name, bool required,
                                   std::string_view expected);

  const boost::json::object& arguments_;
  std::string path_;
  std::vector<std::string> consumed_;
  std::optional<std::string> problem_;
};

// -- JSON Schema building blocks ----------------------------------------------

boost::json::object schema_object(boost::json::object properties,
                                  std::vector<std::string> required);
boost::json::object schema_string(std::string description = {});
boost::json::object schema_enum(std::vector<std::string> values,
                                std::string description = {});
boost::json::object schema_integer(int64_t minimum, int64_t maximum,
                                   std::optional<int64_t> default_value,
                                   std::string description = {});
boost::json::object schema_number(std::string description = {});
boost::json::object schema_boolean(std::string description = {});
boost::json::object schema_array(boost::json::object items,
                                 std::string description = {});
/// The shared `warnings` array: [{code, message}].
boost::json::object schema_warnings();
/// The spelled-out transit modes.
std::vector<std::string> transit_mode_names();

} // namespace transitd::mcp
