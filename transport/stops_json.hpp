#pragma once
// find_stops on the wire.

#include <boost/json.hpp>

#include "messages/error.hpp"
#include "messages/stops.hpp"
#include "transport/tool_catalog.hpp"

namespace transitd::mcp {

tool_spec find_stops_spec();

outcome<find_stops_request>
parse_find_stops(const boost::json::object& arguments);

boost::json::object to_json(const find_stops_reply& reply);

/// Reads {lat, lon} strictly (shared by the tools taking coordinates).
std::optional<coordinate> read_coordinate(argument_reader& args,
                                          std::string_view name,
                                          bool required);

/// The {lat, lon} schema.
boost::json::object schema_coordinate(std::string description = {});

} // namespace transitd::mcp
