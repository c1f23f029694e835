#pragma once
// The provider answers of a GTFS timetable, as pure functions: departures
// at a stop, stops near a point, stop names matching a text, and journeys
// (RAPTOR). The FEED actor calls them on its current snapshot.

#include "transitd/messages/departures.hpp"
#include "transitd/messages/error.hpp"
#include "transitd/messages/geocoding.hpp"
#include "transitd/messages/realtime.hpp"
#include "transitd/messages/stops.hpp"
#include "transitd/messages/trips.hpp"
#include "transitd/offline/gtfs_timetable.hpp"
#include "transitd/offline/gtfs_realtime.hpp"
#include "transitd/offline/raptor.hpp"

namespace transitd::gtfs {

/// A failure saying which days the feed covers when `epoch` lies more than
/// a day outside them (nothing runs then); nullopt inside.
std::optional<failure> outside_service(const timetable& tt, int64_t epoch);

/// The zone of the stop nearest `at` (within 5 km), else the feed's first.
std::string_view zone_near(const timetable& tt, const coordinate& at);

/// The instant a wall-clock time (fields counted as if UTC) names at `at`
/// (D22: a time without an offset is local to the place it concerns).
int64_t local_instant(const timetable& tt, const coordinate& at,
                      int64_t local_seconds);

/// "nyc:101N" → the stop; a validation failure when the id is not one of
/// this feed's.
outcome<uint32_t> resolve_stop(const timetable& tt, std::string_view id);

/// Where a stop or station is (D21): its name, position and zone; a
/// validation failure for an id not of this feed.
outcome<stop_place> place_of_stop(const timetable& tt,
                                  const stop_lookup& query);

/// The routable stops a trip may start or end at for a stop id: the stop,
/// or a station's platforms; none for an id not of this feed.
std::vector<uint32_t> trip_end_stops(const timetable& tt,
                                     std::string_view id);

/// Departures at a stop (or at a station's platforms together) from
/// `start_time` within the range, by departure time (realtime where
/// known); the trip's last stop and calls without pickup are not
/// departures. With a realtime layer of `tt`: cancelled trips and skipped
/// calls are marked cancelled, predicted ones carry their realtime time
/// (and fall in or out of the range by it), and trips the feed added are
/// listed.
outcome<stop_departures> departures_at(const timetable& tt,
                                       const stop_departures_query& query,
                                       const realtime_layer* rt = nullptr);

/// The routes a feed's `name` means: "FEED:route_id", else routes whose
/// short or long name is `name` (any case); empty: every route. A name or
/// id the feed does not know is a validation failure showing the forms.
outcome<std::vector<uint32_t>> routes_named(const timetable& tt,
                                            const std::string& name);

/// Routable stops within the radius, nearest first, of the wanted modes.
nearby_stops stops_near(const timetable& tt, const nearby_stops_query& query);

/// Stations and stand-alone stops whose names match the text (case- and
/// accent-insensitive): exact 1.0, prefix 0.9, every word a word's prefix
/// 0.8, contained 0.7. Layer "stop"; none when `layers` excludes it.
geocode_candidates match_stop_names(const timetable& tt,
                                    const geocode_query& query);

/// Itineraries from RAPTOR, sorted by arrival (see plan_journeys): at most
/// `first`, and never more than plan_limit.max (they hold no duplicates).
/// `stop`, when given and set, ends the search early (see journey_request).
/// With a realtime layer of `tt`, the search runs on realtime times and
/// its trips' legs carry both (see journey_request::realtime).
trip_plans plan_trips(raptor& router, const timetable& tt,
                      const trip_plan_query& query,
                      const std::atomic<bool>* stop = nullptr,
                      const realtime_layer* rt = nullptr);

/// The vehicles of the layer (`rt` of `tt`; null: none to report) on the
/// route `query.route` names ("NAME:route_id", or a line's short or long
/// name, any case), within `radius` of `center` when given: nearest first
/// with a point, else by line and vehicle. A route id or line the feed
/// does not know is a validation failure.
outcome<vehicle_list> vehicles_of(const timetable& tt,
                                  const realtime_layer* rt,
                                  const vehicles_query& query);

/// A vehicle position as the tools report it: its trip, route and stop
/// resolved to the timetable's names; the route's index in `route_index`
/// when given (nullopt: none known).
vehicle_report report_of(const timetable& tt, const realtime_layer& layer,
                         const gtfs_rt::vehicle_position& v,
                         std::optional<uint32_t>* route_index = nullptr);

/// The layer's alerts in force at `query.time` (no period: always) about
/// the stop (its station and platforms, and the routes calling there),
/// the route (its trips too), or all; texts in the query's language, else
/// English, else the feed's untagged text, else the first given; the
/// subjects resolved to names; in the feed's order.
outcome<alert_list> alerts_of(const timetable& tt, const realtime_layer* rt,
                              const alerts_query& query);

/// One translation of a text: `language` (its primary subtag compared:
/// "en-US" is "en"), else `fallback` (the feed's own), else "en", else the
/// untagged one, else the first; and the language it is in (empty:
/// untagged).
std::pair<std::string, std::string>
pick_translation(const gtfs_rt::translated& text, std::string_view language,
                 std::string_view fallback = "en");

} // namespace transitd::gtfs
