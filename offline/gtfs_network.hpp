#pragma once
// The network's own questions on a GTFS timetable, as pure functions: one
// trip's calls (get_trip). The FEED actor calls them on its current
// snapshot and realtime layer.

#include "transitd/messages/lines.hpp"
#include "transitd/messages/reach.hpp"
#include "transitd/messages/trip_info.hpp"
#include "transitd/offline/gtfs_realtime.hpp"
#include "transitd/offline/gtfs_timetable.hpp"
#include "transitd/offline/raptor.hpp"

namespace transitd::gtfs {

/// "2026-10-14" of a day index of `tt` (days since 1970-01-01 minus
/// `tt.first_day`).
std::string service_date_of(const timetable& tt, int32_t day);

/// The day index of `tt` whose origin in `zone` is `origin`; nullopt
/// when none is.
std::optional<int32_t> day_of_origin(const timetable& tt, uint16_t zone,
                                     int64_t origin);

/// One trip on one service day (`query.service_day`, else the run nearest
/// `query.time`: the one under way, else the next, else the last), its
/// calls in order with the realtime of `rt` (cancelled, skipped, predicted
/// times) and its vehicle's last report. A trip id not of this feed, or a
/// day it does not run on, is a validation failure saying what to give.
outcome<trip_details> trip_of(const timetable& tt, const realtime_layer* rt,
                              const trip_query& query);

/// Every station (or stop without one) reachable from `query.from` (or
/// the stop `query.from_stop`, boarding at its platforms) leaving at
/// `query.time` within `query.max_seconds`: one one-to-all RAPTOR search
/// (walking as in plan_trip), earliest first, at most `query.limit`
/// listed; the summary (total, lines, modes) counts them all. A time
/// outside the feed's days is a failure naming them; a stop id not of this
/// feed, a validation failure.
outcome<reach_result> reach_from(raptor& router, const timetable& tt,
                                 const reach_query& query,
                                 const realtime_layer* rt = nullptr);

/// A line by id or public name (several sharing the name: up to five):
/// its stops per direction (the busiest pattern's, stations for
/// platforms), headsigns, the day's first and last departure from its
/// first stop, and the headway within an hour of `query.time`. Without a
/// route: the lines at `query.stop` and at the stations transfers.txt
/// joins to it (one complex). Unknown ids or names: validation failures
/// showing the forms.
outcome<route_details> route_of(const timetable& tt,
                                const route_query& query);

/// Each line's status (`line_statuses`) with its reasons, from the
/// layer's alerts in force at `query.time` (no-service on the whole line:
/// suspended, at some stops: part-suspended; significant-delays: severe;
/// maintenance or construction: planned-works; other effects: minor) and
/// its realtime (a tenth of the trips within an hour cancelled: minor,
/// half: severe; a median delay of 3 min: minor, 10 min: severe). Worst
/// first. Without realtime every line is good-service and `realtime` says
/// there was nothing to judge by.
outcome<line_status_list> line_status_of(const timetable& tt,
                                         const realtime_layer* rt,
                                         const line_status_query& query);

/// The way trip `trip` takes from its stop at position `from` to the one
/// at `to` (positions of its pattern): along its shapes.txt path when it
/// has one (each stop placed, in order, at its nearest point on the path),
/// else straight through its stops; simplified to at most `max_points`.
/// Empty when the positions are not a ride.
std::vector<coordinate> trip_path(const timetable& tt, uint32_t trip,
                                  uint32_t from, uint32_t to,
                                  std::size_t max_points);

/// The positions of `from_stop` and a later `to_stop` on `trip`'s
/// pattern (a realtime leg names stops, not positions).
std::optional<std::pair<uint32_t, uint32_t>>
positions_on_trip(const timetable& tt, uint32_t trip, uint32_t from_stop,
                  uint32_t to_stop);

} // namespace transitd::gtfs
