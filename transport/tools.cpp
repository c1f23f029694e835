#include "transport/tools.hpp"

#include "transport/departures_json.hpp"
#include "transport/geocode_json.hpp"
#include "transport/london_json.hpp"
#include "transport/plan_json.hpp"
#include "transport/stops_json.hpp"
#include "transport/variables_json.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

/// The common shape of a tool: parse the arguments strictly, ask the engine,
/// render the reply or the failure.
template <class Request, class Reply, class Parse>
tool_function make_runner(gateway& gw, Parse parse) {
  return [&gw, parse](const json::object& arguments, call_context& context,
                      const std::shared_ptr<cancellation>& cancel) {
    outcome<Request> request = parse(arguments);
    if (!request)
      return error_outcome(request.error(), context.correlation_id);
    request->context = context;
    auto reply = gw.call<Request, Reply>(std::move(*request), cancel);
    if (!reply)
      return error_outcome(to_failure(reply.error()), context.correlation_id);
    return success_outcome(to_json(*reply));
  };
}

} // namespace

/// Adds one tool: its spec, run through the gateway with `parse`.
template <class Request, class Reply, class Parse>
static void add(tool_catalog& catalog, gateway& gw, tool_spec spec, Parse parse) {
  spec.run = make_runner<Request, Reply>(gw, parse);
  catalog.add(std::move(spec));
}

/// Adds a London tool: failures render as its success:false envelope.
template <class Request, class Reply, class Parse>
static void add_london(tool_catalog& catalog, gateway& gw, tool_spec spec,
                       Parse parse, london_tool tool) {
  spec.run = [&gw, parse, tool](const json::object& arguments,
                                call_context& context,
                                const std::shared_ptr<cancellation>& cancel) {
    outcome<Request> request = parse(arguments);
    if (!request)
      return london_error(tool, request.error(), context.correlation_id);
    request->context = context;
    auto reply = gw.call<Request, Reply>(std::move(*request), cancel);
    if (!reply)
      return london_error(tool, to_failure(reply.error()),
                          context.correlation_id);
    return to_outcome(*reply);
  };
  catalog.add(std::move(spec));
}

tool_catalog make_tool_catalog(gateway& gw) {
  tool_catalog catalog;
  add<get_departures_request, get_departures_reply>(
    catalog, gw, get_departures_spec(), parse_get_departures);
  add<find_stops_request, find_stops_reply>(catalog, gw, find_stops_spec(),
                                            parse_find_stops);
  add<geocode_request, geocode_reply>(catalog, gw, geocode_address_spec(),
                                      parse_geocode_address);
  add<plan_trip_request, plan_trip_reply>(catalog, gw, plan_trip_spec(),
                                          parse_plan_trip);
  add_london<station_toilets_request, station_toilets_reply>(
    catalog, gw, station_toilets_spec(), parse_station_toilets,
    london_tool::station_toilets);
  add_london<journey_plan_request, journey_plan_reply>(
    catalog, gw, plan_journey_spec(), parse_plan_journey,
    london_tool::plan_journey);
  add<save_variable_request, save_variable_reply>(
    catalog, gw, save_user_variable_spec(), parse_save_user_variable);
  add<get_variables_request, get_variables_reply>(
    catalog, gw, get_user_variables_spec(), parse_get_user_variables);
  add<delete_variable_request, delete_variable_reply>(
    catalog, gw, delete_user_variable_spec(), parse_delete_user_variable);
  return catalog;
}

} // namespace transitd::mcp
