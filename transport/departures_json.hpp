#pragma once
// get_departures on the wire: its schemas, arguments → request, and
// reply → the contract's output object.

#include <boost/json.hpp>

#include "transitd/messages/departures.hpp"
#include "transitd/messages/error.hpp"
#include "transitd/transport/tool_catalog.hpp"

namespace transitd::mcp {

inline constexpr std::string_view get_departures_name = "get_departures";

/// The tool's name, description and schemas (run is wired by the caller).
tool_spec get_departures_spec();

/// Checks the arguments against the tool's declaration (types, ranges,
/// choices, unknown fields) and maps them to the request.
outcome<get_departures_request>
parse_get_departures(const boost::json::object& arguments);

/// The contract's output object as JSON text, written straight from the
/// reply: the hot tool's reply is rendered on every call, and building a
/// Boost.JSON object first cost a tenth of a cached call's CPU.
std::string to_json_text(const get_departures_reply& reply);
/// The same object (to_json_text parsed).
boost::json::object to_json(const get_departures_reply& reply);

/// The `warnings` array (shared by all tools' renderers).
boost::json::array to_json(const std::vector<warning>& warnings);

} // namespace transitd::mcp
