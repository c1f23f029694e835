#pragma once
// transit_coverage on the wire.

#include <boost/json.hpp>

#include "transitd/messages/coverage.hpp"
#include "transitd/messages/error.hpp"
#include "transitd/transport/tool_catalog.hpp"

namespace transitd::mcp {

tool_spec transit_coverage_spec();
outcome<transit_coverage_request>
parse_transit_coverage(const boost::json::object& arguments);
boost::json::object to_json(const transit_coverage_reply& reply);

} // namespace transitd::mcp
