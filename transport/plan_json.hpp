#pragma once
// plan_trip on the wire.

#include <boost/json.hpp>

#include "transitd/messages/error.hpp"
#include "transitd/messages/trips.hpp"
#include "transitd/transport/tool_catalog.hpp"

namespace transitd::mcp {

tool_spec plan_trip_spec();

outcome<plan_trip_request>
parse_plan_trip(const boost::json::object& arguments);

boost::json::object to_json(const plan_trip_reply& reply);

} // namespace transitd::mcp
