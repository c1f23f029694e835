#include "transport/tools.hpp"

#include "transport/departures_json.hpp"
#include "transport/geocode_json.hpp"
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

tool_catalog make_tool_catalog(gateway& gw) {
  tool_catalog catalog;
  auto departures = get_departures_spec();
  departures.run = make_runner<get_departures_request, get_departures_reply>(
    gw, parse_get_departures);
  catalog.add(std::move(departures));
  auto stops = find_stops_spec();
  stops.run = make_runner<find_stops_request, find_stops_reply>(
    gw, parse_find_stops);
  catalog.add(std::move(stops));
  auto geocode = geocode_address_spec();
  geocode.run = make_runner<geocode_request, geocode_reply>(
    gw, parse_geocode_address);
  catalog.add(std::move(geocode));
  auto plan = plan_trip_spec();
  plan.run = make_runner<plan_trip_request, plan_trip_reply>(gw,
                                                             parse_plan_trip);
  catalog.add(std::move(plan));
  auto save = save_user_variable_spec();
  save.run = make_runner<save_variable_request, save_variable_reply>(
    gw, parse_save_user_variable);
  catalog.add(std::move(save));
  auto get = get_user_variables_spec();
  get.run = make_runner<get_variables_request, get_variables_reply>(
    gw, parse_get_user_variables);
  catalog.add(std::move(get));
  auto del = delete_user_variable_spec();
  del.run = make_runner<delete_variable_request, delete_variable_reply>(
    gw, parse_delete_user_variable);
  catalog.add(std::move(del));
  return catalog;
}

} // namespace transitd::mcp
