#pragma once
// reachable on the wire.

#include <boost/json.hpp>

#include "transitd/messages/error.hpp"
#include "transitd/messages/reach.hpp"
#include "transitd/transport/tool_catalog.hpp"

namespace transitd::mcp {

tool_spec reachable_spec();
outcome<reachable_request>
parse_reachable(const boost::json::object& arguments);
boost::json::object to_json(const reachable_reply& reply);

} // namespace transitd::mcp
