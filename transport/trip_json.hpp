#pragma once
// get_trip on the wire.

#include <boost/json.hpp>

#include "transitd/messages/error.hpp"
#include "transitd/messages/trip_info.hpp"
#include "transitd/transport/tool_catalog.hpp"

namespace transitd::mcp {

tool_spec get_trip_spec();
outcome<get_trip_request> parse_get_trip(const boost::json::object& arguments);
boost::json::object to_json(const get_trip_reply& reply);

} // namespace transitd::mcp
