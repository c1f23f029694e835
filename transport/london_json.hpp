#pragma once
// The London tools on the wire: their contract's envelope
// {success, code, message, ...} on success and failure alike (D2).

#include <boost/json.hpp>

#include "transitd/messages/error.hpp"
#include "transitd/messages/london.hpp"
#include "transitd/transport/tool_catalog.hpp"

namespace transitd::mcp {

tool_spec station_toilets_spec();

outcome<station_toilets_request>
parse_station_toilets(const boost::json::object& arguments);

/// OK → structuredContent; DISAMBIGUATION_REQUIRED → an error result whose
/// text carries the suggestions.
tool_outcome to_outcome(const station_toilets_reply& reply);

tool_spec plan_journey_spec();

outcome<journey_plan_request>
parse_plan_journey(const boost::json::object& arguments);

/// OK → structuredContent (topJourneys); DISAMBIGUATION_REQUIRED → an
/// error result carrying the suggestions with their parameterValue.
tool_outcome to_outcome(const journey_plan_reply& reply);

/// The success:false envelope of a failure (UPPER_CASE codes) for the tool
/// whose other fields are null: stationToilets or planJourney.
enum class london_tool { station_toilets, plan_journey };
tool_outcome london_error(london_tool tool, const failure& f,
                          const std::string& correlation_id);

} // namespace transitd::mcp
