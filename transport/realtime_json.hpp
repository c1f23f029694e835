#pragma once
// vehicle_positions and service_alerts on the wire.

#include <boost/json.hpp>

#include "transitd/messages/error.hpp"
#include "transitd/messages/realtime.hpp"
#include "transitd/transport/tool_catalog.hpp"

namespace transitd::mcp {

tool_spec vehicle_positions_spec();
outcome<vehicle_positions_request>
parse_vehicle_positions(const boost::json::object& arguments);
boost::json::object to_json(const vehicle_positions_reply& reply);

tool_spec service_alerts_spec();
outcome<service_alerts_request>
parse_service_alerts(const boost::json::object& arguments);
boost::json::object to_json(const service_alerts_reply& reply);

} // namespace transitd::mcp
