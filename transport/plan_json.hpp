#pragma once
// plan_trip on the wire.

#include <boost/json.hpp>

#include "transitd/messages/error.hpp"
#include "transitd/messages/trips.hpp"
#include "transitd/transport/tool_catalog.hpp"

namespace transitd::mcp {

/// A trip end as tools take it (plan_trip's origin, reachable's):
/// {type: coords|label|stop, value}.
field location_field(std::string name, std::string what);
location_input read_location(const arguments& args, std::string_view name);
/// The LocationRef of an answer: its schema and its JSON.
boost::json::object location_ref_schema();
boost::json::object location_ref_json(const location_ref& ref);

tool_spec plan_trip_spec();

outcome<plan_trip_request>
parse_plan_trip(const boost::json::object& arguments);

boost::json::object to_json(const plan_trip_reply& reply);

} // namespace transitd::mcp
