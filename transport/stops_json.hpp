#pragma once
// find_stops on the wire.

#include <boost/json.hpp>

#include "transitd/messages/error.hpp"
#include "transitd/messages/stops.hpp"
#include "transitd/transport/tool_catalog.hpp"

namespace transitd::mcp {

tool_spec find_stops_spec();

outcome<find_stops_request>
parse_find_stops(const boost::json::object& arguments);

boost::json::object to_json(const find_stops_reply& reply);

/// A {lat, lon} input field (shared by the tools taking coordinates).
field coordinate_field(std::string name, std::string description = {});
/// The coordinate field `name`, when present.
std::optional<coordinate> read_coordinate(const arguments& args,
                                          std::string_view name);
/// The `language` input field of the Helsinki tools (D5).
field language_field(std::string description = {});
/// An array of transit modes.
field modes_field(std::string name, std::string description = {});
std::vector<transit_mode> read_modes(const arguments& args,
                                     std::string_view name);

/// The {lat, lon} schema (outputs).
boost::json::object schema_coordinate(std::string description = {});

} // namespace transitd::mcp
