#pragma once
// geocode_address on the wire.

#include <boost/json.hpp>

#include "transitd/messages/error.hpp"
#include "transitd/messages/geocoding.hpp"
#include "transitd/transport/tool_catalog.hpp"

namespace transitd::mcp {

tool_spec geocode_address_spec();

outcome<geocode_request>
parse_geocode_address(const boost::json::object& arguments);

boost::json::object to_json(const geocode_reply& reply);

} // namespace transitd::mcp
