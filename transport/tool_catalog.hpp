#pragma once
// The MCP face of the tools: each tool's name, description, input
// declaration, output schema and the function that runs it. The input
// declaration yields both the JSON Schema and the strict argument check
// (unknown fields, wrong types, ranges are validation errors that name the
// field, D6). Tool wire names appear only in transport/.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "transitd/messages/common.hpp"
#include "transitd/messages/error.hpp"
#include "transitd/messages/limits.hpp"

namespace transitd::mcp {

/// What a tool call produced, ready for the MCP result (D2).
struct tool_outcome {
  bool is_error = false;
  /// The contract's output object (success only).
  boost::json::object structured;
  /// The same as JSON text, when the tool writes it straight from its
  /// reply (then `structured` stays empty); empty otherwise.
  std::string structured_text;
  /// The error body shown in the text block (errors only).
  boost::json::object error_body;
  /// The failure's code, for logs and metrics (errors only).
  ec code = ec::none;
};

tool_outcome success_outcome(boost::json::object structured);
/// A success whose output object is already JSON text.
tool_outcome text_outcome(std::string structured_text);

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

struct field;

/// One shape of a tagged field: the tag's value and the members it brings.
struct alternative {
  std::string tag;
  std::vector<field> members;
};

/// One input field of a tool, declared once: the JSON Schema in tools/list
/// and the check of the arguments are both derived from it, and its ranges
/// are the constants the actors' rules check (messages/limits.hpp).
struct field {
  enum class kind : uint8_t {
    string,
    choice,
    integer,
    number,
    boolean,
    object,
    array,
    /// An object whose member `tag` names which alternative it is.
    tagged,
    /// An object whose shape the sibling field `tag` names.
    depends_on,
  };

  static field string(std::string name, std::string description = {});
  static field choice(std::string name, std::vector<std::string> choices,
                      std::string description = {});
  static field integer(std::string name, const int_range& range,
                       std::string description = {});
  static field number(std::string name, const real_range& range,
                      std::string description = {});
  static field boolean(std::string name, std::string description = {});
  static field object(std::string name, std::vector<field> members,
                      std::string description = {});
  static field array(std::string name, field item,
                     std::string description = {});
  static field tagged(std::string name, std::string tag,
                      std::vector<alternative> alternatives,
                      std::string description = {});
  static field depends_on(std::string name, std::string sibling,
                          std::vector<alternative> alternatives,
                          std::string description = {});

  field& required();
  /// Strings: their length in characters.
  field& length(const length_range& range);
  /// Strings: the length is measured without surrounding whitespace.
  field& trimmed();
  /// What a value out of range or length says after the field's name,
  /// instead of the generic words (type errors keep theirs).
  field& when_invalid(std::string message);
  /// Arrays: their size.
  field& at_most(std::size_t items);
  /// The default the schema shows (integers show their range's).
  field& fallback(boost::json::value value);
  /// Top-level strings, integers and booleans: 2026-07-28 clients mirror
  /// the value into the HTTP header `Mcp-Param-NAME` (the schema's
  /// `x-mcp-header`), for proxies that route without reading bodies; the
  /// endpoint checks the header against the body.
  field& header(std::string name);

  /// The JSON Schema of this field.
  boost::json::object schema() const;
  /// The first problem with `value` at the dotted `path`; `parent` is the
  /// enclosing object (for depends_on).
  std::optional<std::string> check(const boost::json::value& value,
                                   const std::string& path,
                                   const boost::json::object* parent) const;

  kind type = kind::string;
  std::string name;
  std::string description;
  bool is_required = false;
  std::vector<std::string> choices;
  int_range ints{0, 0, 0};
  real_range reals{0, 0};
  std::optional<length_range> text_length;
  bool trim = false;
  std::string invalid_message;
  std::optional<std::size_t> max_items;
  boost::json::value default_value;
  /// The x-mcp-header name ("" when not mirrored).
  std::string mcp_header;
  /// object: members; array: the item; tagged/depends_on: unused.
  std::vector<field> members;
  /// tagged: the member naming the alternative; depends_on: the sibling.
  std::string tag;
  std::vector<alternative> alternatives;
};

/// A tool's arguments once checked against its declaration: reads cannot
/// fail, and an absent (or null) field reads as nullopt.
class arguments {
public:
  /// Checks `raw` against the tool's input declaration (an object field):
  /// types, required fields, ranges, choices, lengths and unknown fields.
  /// The first problem is a validation-error naming the field (D6).
  static outcome<arguments> check(const field& input,
                                  const boost::json::object& raw);

  std::optional<std::string> string(std::string_view name) const;
  std::optional<int32_t> integer(std::string_view name) const;
  std::optional<double> number(std::string_view name) const;
  std::optional<bool> boolean(std::string_view name) const;
  std::optional<arguments> object(std::string_view name) const;
  /// The strings of an array field (empty when absent).
  std::vector<std::string> strings(std::string_view name) const;

private:
  explicit arguments(const boost::json::object& raw) : raw_(&raw) {
  }
  const boost::json::value* find(std::string_view name) const;

  const boost::json::object* raw_;
};

/// What the configured providers can answer, by capability (a provider's
/// word: "alerts", "vehicles"). A tool that requires a capability not
/// offered is not listed. Default: everything is offered.
struct capabilities {
  bool everything = true;
  std::set<std::string> offered;

  bool has(const std::string& capability) const {
    return everything || offered.count(capability) != 0;
  }
};

struct tool_spec {
  std::string name;
  std::string title;
  std::string description;
  /// The input object's declaration (field::object).
  field input = field::object({}, {});
  boost::json::object output_schema;
  // MCP tool annotations (D3): transit tools are read-only and open-world;
  // the variable-store tools work on the caller's own data.
  bool read_only = true;
  bool open_world = true;
  bool destructive = false;
  bool idempotent = true;
  /// Answers depend on where: the catalog appends the regions served.
  bool regional = false;
  /// Capabilities a provider must offer for the tool to be listed (see
  /// make_tool_catalog); empty: always listed.
  std::vector<std::string> requires;
  /// The OAuth scope a call needs when the caller's token carries scopes
  /// (empty: none; static tokens are unrestricted).
  std::string scope;
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
