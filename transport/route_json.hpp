#pragma once
// get_route on the wire.

#include <boost/json.hpp>

#include "transitd/messages/error.hpp"
#include "transitd/messages/lines.hpp"
#include "transitd/transport/tool_catalog.hpp"

namespace transitd::mcp {

tool_spec get_route_spec();
outcome<get_route_request>
parse_get_route(const boost::json::object& arguments);
boost::json::object to_json(const get_route_reply& reply);

tool_spec line_status_spec();
outcome<line_status_request>
parse_line_status(const boost::json::object& arguments);
boost::json::object to_json(const line_status_reply& reply);

} // namespace transitd::mcp
