#pragma once
// Every typed actor interface of transitd, in one place. Reading this file
// tells you the whole system: who answers what.

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "transitd/messages/caf_glue.hpp"

namespace transitd {

/// Anything that started work for a call and can stop it.
using cancel_listener_actor = caf::typed_actor<
  // Stop the work of this correlation id (no reply).
  caf::reacts_to<cancel_call>>;

/// Anything with counters for /metrics.
using counters_actor = caf::typed_actor<
  // A snapshot of the actor's counters and gauges.
  caf::replies_to<get_counters>::with<counters>>;

/// HTTP_CLIENT: performs one outbound HTTP attempt and answers the response
/// (any status) or a network-error / upstream-timeout error. Runs detached:
/// blocking socket I/O never touches the scheduler's threads.
using http_client_actor = caf::typed_actor<
  // Fetch one request; connections to the same origin are reused.
  caf::replies_to<http_call>::with<http_response>>;

/// REDIS: one connection to the Redis that replicas share (quota, 429
/// hold-offs, the caches' second level and single-flight lock). Runs
/// detached: a blocking command never touches the scheduler's threads; an
/// unreachable server answers at once (`reachable == false`).
using redis_actor = caf::typed_actor<
  // Run one command; the reply flattened.
  caf::replies_to<redis_command>::with<redis_result>,
  // Up (1/0), commands, failures, reconnects.
  caf::replies_to<get_counters>::with<counters>>;

/// RATE_LIMITER: token buckets by key (inbound per tool, outbound per
/// upstream) and an upstream's 429 hold-offs.
using rate_limiter_actor = caf::typed_actor<
  // One token of a bucket, or the wait until one is due.
  caf::replies_to<acquire_permit>::with<permit>,
  // Refuse a key for a while (an upstream's Retry-After).
  caf::reacts_to<hold_off>,
  // Granted/refused counts per key.
  caf::replies_to<get_counters>::with<counters>>;

/// UPSTREAM_GATE: the one door to an upstream. Takes an outbound permit,
/// keeps the circuit breaker, hands each attempt to an idle HTTP_CLIENT
/// worker (queueing when all are busy), retries what the contracts call
/// retryable within the call's deadline, and aborts cancelled calls.
using upstream_gate_actor = caf::typed_actor<
  // One upstream call with retries; answers the final HTTP response or
  // network-error / upstream-timeout / upstream-error / rate-limited /
  // cancelled.
  caf::replies_to<http_call>::with<http_response>,
  // Abort the calls of a correlation id.
  caf::reacts_to<cancel_call>,
  // Internal timer: continue a call after its backoff or hold-off.
  caf::reacts_to<gate_resume>,
  // Calls, attempts, retries, failures, breaker state, queue depth.
  caf::replies_to<get_counters>::with<counters>>;

/// TIMETABLE: a provider of stop departures (Digitransit routing, or any
/// stand-in implementing this interface).
using timetable_actor = caf::typed_actor<
  // Stop times at one stop within a time range; ec::validation_error for an
  // unknown stop, upstream-* / network-error / rate-limited otherwise.
  caf::replies_to<stop_departures_query>::with<stop_departures>,
  // Stops near a point, nearest first.
  caf::replies_to<nearby_stops_query>::with<nearby_stops>>;

/// TIMETABLE_CACHE: a TIMETABLE in front of TIMETABLE. Answers repeated
/// queries from memory within their TTL and coalesces identical queries in
/// flight into one upstream call (single-flight).
using timetable_cache_actor = timetable_actor::extend<
  // Drop a cancelled caller; abort the upstream call if it was the only one.
  caf::reacts_to<cancel_call>,
  // Internal timer: another replica holds the shared lock; look again.
  caf::reacts_to<cache_poll>,
  // Hits, misses, coalesced waiters, entries, bytes, evictions.
  caf::replies_to<get_counters>::with<counters>>;

/// VARIABLE_STORE: the principals' saved variables in SQLite (WAL; every
/// write committed before the reply). Runs detached: disk I/O never blocks
/// the scheduler. Every message names its principal; no call sees another
/// principal's variables.
using variable_store_actor = caf::typed_actor<
  // Insert or replace one variable; validation_error for a bad value.
  caf::replies_to<save_variable_request>::with<save_variable_reply>,
  // All of the principal's variables, or the one under `key`.
  caf::replies_to<get_variables_request>::with<get_variables_reply>,
  // Delete one; `deleted` is false when there was none.
  caf::replies_to<delete_variable_request>::with<delete_variable_reply>,
  // For tools: the variable behind a label; validation_error naming the
  // label when there is none.
  caf::replies_to<resolve_label>::with<user_variable>>;

/// DEPARTURES_BOARD: the get_departures tool. Validates the request, asks
/// TIMETABLE and applies the contract's business rules.
using departures_board_actor = caf::typed_actor<
  // One get_departures call.
  caf::replies_to<get_departures_request>::with<get_departures_reply>>;

/// JOURNEY_PLANNER: itineraries between two points (Digitransit
/// planConnection, or a stand-in).
using journey_planner_actor = caf::typed_actor<
  // One upstream plan; an empty list when there is no itinerary.
  caf::replies_to<trip_plan_query>::with<trip_plans>,
  // Where a stop is, for a trip that starts or ends there (D21);
  // validation-error for an id the provider does not know.
  caf::replies_to<stop_lookup>::with<stop_place>,
  // Stop the upstream work of a query's correlation id (no reply): the
  // query then fails with `cancelled`.
  caf::reacts_to<cancel_call>>;

/// REALTIME_INFO: vehicles and service alerts from a provider's realtime
/// (a FEED's GTFS-realtime; Digitransit's alerts), through
/// PROVIDER_SWITCH when there are feeds.
using realtime_info_actor = caf::typed_actor<
  // Vehicles of a route or line, or near a point; validation-error for a
  // route the provider does not know, data-not-available without realtime.
  caf::replies_to<vehicles_query>::with<vehicle_list>,
  // Alerts in force at a time, about a stop, a route, or everything.
  caf::replies_to<alerts_query>::with<alert_list>>;

/// NETWORK_INFO: the network's own questions (a trip's calls), from a
/// FEED's timetable and realtime, through PROVIDER_SWITCH.
using network_info_actor = caf::typed_actor<
  // One trip on one service day; validation-error for a trip the provider
  // does not know or a day it does not run.
  caf::replies_to<trip_query>::with<trip_details>,
  // Every stop reachable from a place within a time budget.
  caf::replies_to<reach_query>::with<reach_result>,
  // A line (stops per direction, first and last, headway), or the lines
  // at a stop's complex.
  caf::replies_to<route_query>::with<route_details>,
  // Each line's status from alerts and realtime.
  caf::replies_to<line_status_query>::with<line_status_list>>;

/// DIGITRANSIT_ROUTING: one actor serving TIMETABLE, JOURNEY_PLANNER,
/// REALTIME_INFO (alerts; no vehicles) and NETWORK_INFO (trips, lines,
/// line status from alerts; no reach) over the same GraphQL endpoint.
using digitransit_routing_actor = timetable_actor::extend_with<
  journey_planner_actor>::extend_with<realtime_info_actor>::
  extend_with<network_info_actor>;

/// GEOCODING: a forward geocoder (Digitransit's Pelias, or a stand-in).
using geocoding_actor = caf::typed_actor<
  // Candidates for a text, in the provider's order.
  caf::replies_to<geocode_query>::with<geocode_candidates>>;

/// FEED: one named GTFS timetable (one or more feeds merged), loaded off
/// the scheduler and swapped whole on refresh. Serves TIMETABLE,
/// JOURNEY_PLANNER (its own RAPTOR router) and GEOCODING (its stop names);
/// answers data-not-available until the first load succeeds.
using feed_actor = caf::typed_actor<
  caf::replies_to<stop_departures_query>::with<stop_departures>,
  caf::replies_to<nearby_stops_query>::with<nearby_stops>,
  caf::replies_to<trip_plan_query>::with<trip_plans>,
  caf::replies_to<stop_lookup>::with<stop_place>,
  caf::reacts_to<cancel_call>,
  caf::replies_to<geocode_query>::with<geocode_candidates>,
  // Its realtime (--gtfs-rt): vehicles and alerts (REALTIME_INFO).
  caf::replies_to<vehicles_query>::with<vehicle_list>,
  caf::replies_to<alerts_query>::with<alert_list>,
  // The network's own questions (NETWORK_INFO).
  caf::replies_to<trip_query>::with<trip_details>,
  caf::replies_to<reach_query>::with<reach_result>,
  caf::replies_to<route_query>::with<route_details>,
  caf::replies_to<line_status_query>::with<line_status_list>,
  // What it serves (transit_coverage): area, agencies, days, realtime.
  caf::replies_to<coverage_query>::with<provider_coverage>,
  // feed.NAME.loaded, stops, trips, stop_times, skipped_rows, load_ms, ...
  caf::replies_to<get_counters>::with<counters>,
  // Internal timer: check the sources again (every refresh_s).
  caf::reacts_to<feed_refresh>,
  // Internal timer: a speculative search is needed after all.
  caf::reacts_to<feed_search_due>,
  // Sends the sender a feed_event now and at every change of the feed's
  // timetable (loaded, reloaded, failed).
  caf::reacts_to<feed_subscribe>>;

/// PROVIDER_SWITCH: which provider answers. A stop id goes to the provider
/// its prefix names ("nyc:..."), coordinates to the first provider (in the
/// configured order) whose service area holds them; outside every area,
/// unsupported-region.
using provider_switch_actor = caf::typed_actor<
  caf::replies_to<stop_departures_query>::with<stop_departures>,
  caf::replies_to<nearby_stops_query>::with<nearby_stops>,
  caf::replies_to<trip_plan_query>::with<trip_plans>,
  caf::replies_to<stop_lookup>::with<stop_place>,
  caf::reacts_to<cancel_call>,
  caf::replies_to<geocode_query>::with<geocode_candidates>,
  // A route or stop id to the provider its prefix names, a feed name to
  // that feed, a point to the provider whose area holds it.
  caf::replies_to<vehicles_query>::with<vehicle_list>,
  caf::replies_to<alerts_query>::with<alert_list>,
  // A trip id to the provider its prefix names; a reach to the one whose
  // stop or area holds its start.
  caf::replies_to<trip_query>::with<trip_details>,
  caf::replies_to<reach_query>::with<reach_result>,
  caf::replies_to<route_query>::with<route_details>,
  caf::replies_to<line_status_query>::with<line_status_list>>;

/// GEOCODING_CACHE: the same cache in front of GEOCODING.
using geocoding_cache_actor = geocoding_actor::extend<
  caf::reacts_to<cancel_call>, caf::reacts_to<cache_poll>,
  caf::replies_to<get_counters>::with<counters>>;

/// ADDRESS_GEOCODER: the geocode_address tool. Validates, clamps, asks
/// GEOCODING, normalises, orders and truncates.
using address_geocoder_actor = caf::typed_actor<
  // One geocode_address call.
  caf::replies_to<geocode_request>::with<geocode_reply>>;

/// TRIP_PLANNER: the plan_trip tool. Resolves labels, validates, fans the
/// primary and the relaxed query out in parallel (D12), merges,
/// deduplicates and truncates.
using trip_planner_actor = caf::typed_actor<
  // One plan_trip call.
  caf::replies_to<plan_trip_request>::with<plan_trip_reply>>;

/// STATION_TOILETS: the stationToilets tool over TfL station data loaded
/// once at start (a failed load answers data_not_available, the daemon
/// runs on). Has its own transactions-per-second limit.
using station_toilets_actor = caf::typed_actor<
  // One stationToilets call; DISAMBIGUATION_REQUIRED is a reply with
  // suggestions, other failures are errors.
  caf::replies_to<station_toilets_request>::with<station_toilets_reply>,
  // station_data.loaded (1 or 0) and station_data.stations, for /readyz
  // and /metrics.
  caf::replies_to<get_counters>::with<counters>>;

/// LONDON_JOURNEYS (the planJourney tool: validation, its TPS limit) and
/// TFL_JOURNEY (the TfL Journey Planner provider) share this interface.
using london_journey_actor = caf::typed_actor<
  // One journey query; DISAMBIGUATION_REQUIRED is a reply with suggestions.
  caf::replies_to<journey_plan_request>::with<journey_plan_reply>>;

/// STOP_FINDER: the find_stops tool. Validates, asks TIMETABLE, filters,
/// sorts and truncates.
using stop_finder_actor = caf::typed_actor<
  // One find_stops call.
  caf::replies_to<find_stops_request>::with<find_stops_reply>>;

/// VEHICLE_TRACKER: the vehicle_positions tool. Validates, asks
/// REALTIME_INFO, truncates and dates the reports.
using vehicle_tracker_actor = caf::typed_actor<
  caf::replies_to<vehicle_positions_request>::with<vehicle_positions_reply>>;

/// ALERT_BOARD: the service_alerts tool. Validates, asks REALTIME_INFO,
/// truncates and dates the alerts.
using alert_board_actor = caf::typed_actor<
  caf::replies_to<service_alerts_request>::with<service_alerts_reply>>;

/// TRIP_VIEWER: the get_trip tool. Validates, asks NETWORK_INFO, dates
/// the answer.
using trip_viewer_actor = caf::typed_actor<
  caf::replies_to<get_trip_request>::with<get_trip_reply>>;

/// REACH_FINDER: the reachable tool. Validates, resolves a label, asks
/// NETWORK_INFO, dates the answer.
using reach_finder_actor = caf::typed_actor<
  caf::replies_to<reachable_request>::with<reachable_reply>>;

/// LINE_VIEWER: the get_route tool. Validates, asks NETWORK_INFO.
using line_viewer_actor = caf::typed_actor<
  caf::replies_to<get_route_request>::with<get_route_reply>>;

/// STATUS_BOARD: the line_status tool. Validates, asks NETWORK_INFO.
using status_board_actor = caf::typed_actor<
  caf::replies_to<line_status_request>::with<line_status_reply>>;

/// COVERAGE_BOARD: the transit_coverage tool. Asks each FEED to describe
/// itself and adds the upstream providers the engine runs.
using coverage_board_actor = caf::typed_actor<
  caf::replies_to<transit_coverage_request>::with<transit_coverage_reply>>;

/// TOOL_ROUTER: the single entry point for tool calls; dispatches each typed
/// request to its tool actor.
using tool_router_actor = caf::typed_actor<
  // get_departures, answered by DEPARTURES_BOARD.
  caf::replies_to<get_departures_request>::with<get_departures_reply>,
  // find_stops, answered by STOP_FINDER.
  caf::replies_to<find_stops_request>::with<find_stops_reply>,
  // geocode_address, answered by ADDRESS_GEOCODER.
  caf::replies_to<geocode_request>::with<geocode_reply>,
  // plan_trip, answered by TRIP_PLANNER.
  caf::replies_to<plan_trip_request>::with<plan_trip_reply>,
  // planJourney, answered by LONDON_JOURNEYS.
  caf::replies_to<journey_plan_request>::with<journey_plan_reply>,
  // stationToilets, answered by STATION_TOILETS.
  caf::replies_to<station_toilets_request>::with<station_toilets_reply>,
  // save_user_variable, answered by VARIABLE_STORE.
  caf::replies_to<save_variable_request>::with<save_variable_reply>,
  // get_user_variables, answered by VARIABLE_STORE.
  caf::replies_to<get_variables_request>::with<get_variables_reply>,
  // delete_user_variable, answered by VARIABLE_STORE.
  caf::replies_to<delete_variable_request>::with<delete_variable_reply>,
  // vehicle_positions, answered by VEHICLE_TRACKER.
  caf::replies_to<vehicle_positions_request>::with<vehicle_positions_reply>,
  // service_alerts, answered by ALERT_BOARD.
  caf::replies_to<service_alerts_request>::with<service_alerts_reply>,
  // get_trip, answered by TRIP_VIEWER.
  caf::replies_to<get_trip_request>::with<get_trip_reply>,
  // reachable, answered by REACH_FINDER.
  caf::replies_to<reachable_request>::with<reachable_reply>,
  // get_route, answered by LINE_VIEWER.
  caf::replies_to<get_route_request>::with<get_route_reply>,
  // line_status, answered by STATUS_BOARD.
  caf::replies_to<line_status_request>::with<line_status_reply>,
  // transit_coverage, answered by COVERAGE_BOARD.
  caf::replies_to<transit_coverage_request>::with<transit_coverage_reply>,
  // Stop a call's upstream work: told to every cache and gate.
  caf::reacts_to<cancel_call>>;

} // namespace transitd
