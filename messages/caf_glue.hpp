#pragma once
// CAF glue for the vocabulary: the ec error category, conversions between
// transitd::failure and caf::error, and the type-ID block.

#include <caf/error.hpp>
#include <caf/fwd.hpp>
#include <caf/make_message.hpp>
#include <caf/message.hpp>
#include <caf/type_id.hpp>

#include "transitd/messages/coverage.hpp"
#include "transitd/messages/departures.hpp"
#include "transitd/messages/error.hpp"
#include "transitd/messages/feeds.hpp"
#include "transitd/messages/geocoding.hpp"
#include "transitd/messages/http.hpp"
#include "transitd/messages/lines.hpp"
#include "transitd/messages/london.hpp"
#include "transitd/messages/reach.hpp"
#include "transitd/messages/realtime.hpp"
#include "transitd/messages/resilience.hpp"
#include "transitd/messages/shared.hpp"
#include "transitd/messages/stops.hpp"
#include "transitd/messages/trip_info.hpp"
#include "transitd/messages/trips.hpp"
#include "transitd/messages/variables.hpp"

CAF_ERROR_CODE_ENUM(transitd::ec, "transitd")

namespace transitd {

/// caf::error with category "transitd"; the context carries
/// (message, hint, retry_after).
caf::error make_error(ec code, std::string message = {},
                      std::string hint = {}, int32_t retry_after = 0);

caf::error to_error(const failure& f);

/// Maps any caf::error to a failure: transitd errors keep their details;
/// CAF's request timeout becomes upstream-timeout; anything else is an
/// internal error whose message names it.
failure to_failure(const caf::error& err);

/// Renders transitd errors for CAF's own printing
/// (cfg.add_error_category).
std::string render_error(uint8_t code, caf::atom_value category,
                         const caf::message& context);

/// Registers the error category and every message type of the type-ID
/// block. Call it on the actor_system_config before creating the system.
void add_message_types(caf::actor_system_config& cfg);

} // namespace transitd

/// The first type ID of transitd's block. Override it (CMake option
/// TRANSITD_TYPE_ID_OFFSET) when a host application's block collides.
#ifndef TRANSITD_TYPE_ID_OFFSET
#  define TRANSITD_TYPE_ID_OFFSET (caf::first_custom_type_id + 300)
#endif

CAF_BEGIN_TYPE_ID_BLOCK(transitd, TRANSITD_TYPE_ID_OFFSET)
  CAF_ADD_TYPE_ID(transitd, (transitd::call_context))
  CAF_ADD_TYPE_ID(transitd, (transitd::warning))
  CAF_ADD_TYPE_ID(transitd, (transitd::coordinate))
  CAF_ADD_TYPE_ID(transitd, (transitd::transit_mode))
  CAF_ADD_TYPE_ID(transitd, (transitd::stop_ref))
  CAF_ADD_TYPE_ID(transitd, (transitd::get_departures_request))
  CAF_ADD_TYPE_ID(transitd, (transitd::get_departures_reply))
  CAF_ADD_TYPE_ID(transitd, (transitd::departure))
  CAF_ADD_TYPE_ID(transitd, (transitd::departure_status))
  CAF_ADD_TYPE_ID(transitd, (transitd::stop_departures_query))
  CAF_ADD_TYPE_ID(transitd, (transitd::stop_departures))
  CAF_ADD_TYPE_ID(transitd, (transitd::stop_time))
  CAF_ADD_TYPE_ID(transitd, (transitd::http_call))
  CAF_ADD_TYPE_ID(transitd, (transitd::http_response))
  CAF_ADD_TYPE_ID(transitd, (transitd::user_variable))
  CAF_ADD_TYPE_ID(transitd, (transitd::save_variable_request))
  CAF_ADD_TYPE_ID(transitd, (transitd::save_variable_reply))
  CAF_ADD_TYPE_ID(transitd, (transitd::get_variables_request))
  CAF_ADD_TYPE_ID(transitd, (transitd::get_variables_reply))
  CAF_ADD_TYPE_ID(transitd, (transitd::delete_variable_request))
  CAF_ADD_TYPE_ID(transitd, (transitd::delete_variable_reply))
  CAF_ADD_TYPE_ID(transitd, (transitd::resolve_label))
  CAF_ADD_TYPE_ID(transitd, (transitd::find_stops_request))
  CAF_ADD_TYPE_ID(transitd, (transitd::find_stops_reply))
  CAF_ADD_TYPE_ID(transitd, (transitd::stop_summary))
  CAF_ADD_TYPE_ID(transitd, (transitd::nearby_stops_query))
  CAF_ADD_TYPE_ID(transitd, (transitd::nearby_stops))
  CAF_ADD_TYPE_ID(transitd, (transitd::geocode_request))
  CAF_ADD_TYPE_ID(transitd, (transitd::geocode_reply))
  CAF_ADD_TYPE_ID(transitd, (transitd::geocode_result))
  CAF_ADD_TYPE_ID(transitd, (transitd::geocode_query))
  CAF_ADD_TYPE_ID(transitd, (transitd::geocode_candidates))
  CAF_ADD_TYPE_ID(transitd, (transitd::geocode_candidate))
  CAF_ADD_TYPE_ID(transitd, (transitd::bounding_box))
  CAF_ADD_TYPE_ID(transitd, (transitd::plan_trip_request))
  CAF_ADD_TYPE_ID(transitd, (transitd::plan_trip_reply))
  CAF_ADD_TYPE_ID(transitd, (transitd::trip_plan_query))
  CAF_ADD_TYPE_ID(transitd, (transitd::trip_plans))
  CAF_ADD_TYPE_ID(transitd, (transitd::itinerary))
  CAF_ADD_TYPE_ID(transitd, (transitd::trip_leg))
  CAF_ADD_TYPE_ID(transitd, (transitd::station_toilets_request))
  CAF_ADD_TYPE_ID(transitd, (transitd::station_toilets_reply))
  CAF_ADD_TYPE_ID(transitd, (transitd::toilet_detail))
  CAF_ADD_TYPE_ID(transitd, (transitd::station_suggestion))
  CAF_ADD_TYPE_ID(transitd, (transitd::journey_plan_request))
  CAF_ADD_TYPE_ID(transitd, (transitd::journey_plan_reply))
  CAF_ADD_TYPE_ID(transitd, (transitd::journey_option))
  CAF_ADD_TYPE_ID(transitd, (transitd::place_suggestion))
  CAF_ADD_TYPE_ID(transitd, (transitd::acquire_permit))
  CAF_ADD_TYPE_ID(transitd, (transitd::permit))
  CAF_ADD_TYPE_ID(transitd, (transitd::hold_off))
  CAF_ADD_TYPE_ID(transitd, (transitd::cancel_call))
  CAF_ADD_TYPE_ID(transitd, (transitd::gate_resume))
  CAF_ADD_TYPE_ID(transitd, (transitd::get_counters))
  CAF_ADD_TYPE_ID(transitd, (transitd::counters))
  CAF_ADD_TYPE_ID(transitd, (transitd::feed_refresh))
  CAF_ADD_TYPE_ID(transitd, (transitd::vehicle_positions_request))
  CAF_ADD_TYPE_ID(transitd, (transitd::vehicle_positions_reply))
  CAF_ADD_TYPE_ID(transitd, (transitd::vehicle_position))
  CAF_ADD_TYPE_ID(transitd, (transitd::vehicle_report))
  CAF_ADD_TYPE_ID(transitd, (transitd::vehicles_query))
  CAF_ADD_TYPE_ID(transitd, (transitd::vehicle_list))
  CAF_ADD_TYPE_ID(transitd, (transitd::service_alerts_request))
  CAF_ADD_TYPE_ID(transitd, (transitd::service_alerts_reply))
  CAF_ADD_TYPE_ID(transitd, (transitd::service_alert))
  CAF_ADD_TYPE_ID(transitd, (transitd::alert_subject))
  CAF_ADD_TYPE_ID(transitd, (transitd::alert_period))
  CAF_ADD_TYPE_ID(transitd, (transitd::alert_window))
  CAF_ADD_TYPE_ID(transitd, (transitd::alert_entry))
  CAF_ADD_TYPE_ID(transitd, (transitd::alerts_query))
  CAF_ADD_TYPE_ID(transitd, (transitd::alert_list))
  CAF_ADD_TYPE_ID(transitd, (transitd::redis_command))
  CAF_ADD_TYPE_ID(transitd, (transitd::redis_result))
  CAF_ADD_TYPE_ID(transitd, (transitd::cache_poll))
  CAF_ADD_TYPE_ID(transitd, (transitd::feed_state))
  CAF_ADD_TYPE_ID(transitd, (transitd::feed_subscribe))
  CAF_ADD_TYPE_ID(transitd, (transitd::feed_event))
  CAF_ADD_TYPE_ID(transitd, (transitd::stop_lookup))
  CAF_ADD_TYPE_ID(transitd, (transitd::stop_place))
  CAF_ADD_TYPE_ID(transitd, (transitd::trip_query))
  CAF_ADD_TYPE_ID(transitd, (transitd::trip_details))
  CAF_ADD_TYPE_ID(transitd, (transitd::get_trip_request))
  CAF_ADD_TYPE_ID(transitd, (transitd::get_trip_reply))
  CAF_ADD_TYPE_ID(transitd, (transitd::reach_query))
  CAF_ADD_TYPE_ID(transitd, (transitd::reach_result))
  CAF_ADD_TYPE_ID(transitd, (transitd::reachable_request))
  CAF_ADD_TYPE_ID(transitd, (transitd::reachable_reply))
  CAF_ADD_TYPE_ID(transitd, (transitd::coverage_query))
  CAF_ADD_TYPE_ID(transitd, (transitd::provider_coverage))
  CAF_ADD_TYPE_ID(transitd, (transitd::transit_coverage_request))
  CAF_ADD_TYPE_ID(transitd, (transitd::transit_coverage_reply))
  CAF_ADD_TYPE_ID(transitd, (transitd::route_query))
  CAF_ADD_TYPE_ID(transitd, (transitd::route_details))
  CAF_ADD_TYPE_ID(transitd, (transitd::get_route_request))
  CAF_ADD_TYPE_ID(transitd, (transitd::get_route_reply))
  CAF_ADD_TYPE_ID(transitd, (transitd::line_status_query))
  CAF_ADD_TYPE_ID(transitd, (transitd::line_status_list))
  CAF_ADD_TYPE_ID(transitd, (transitd::line_status_request))
  CAF_ADD_TYPE_ID(transitd, (transitd::line_status_reply))
CAF_END_TYPE_ID_BLOCK(transitd)
